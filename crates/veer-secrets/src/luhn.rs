//! The Luhn checksum used by payment card numbers.

/// Whether the ASCII digits of `s` (other characters ignored) pass the Luhn check and number
/// 13 to 19 digits.
pub(crate) fn is_card_number(s: &str) -> bool {
    let digits: Vec<u32> = s.chars().filter_map(|c| c.to_digit(10)).collect();
    if !(13..=19).contains(&digits.len()) {
        return false;
    }
    if digits.iter().all(|&d| d == digits[0]) {
        return false;
    }
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| {
            if i % 2 == 1 {
                let x = d * 2;
                if x > 9 {
                    x - 9
                } else {
                    x
                }
            } else {
                d
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_numbers() {
        assert!(is_card_number("4111 1111 1111 1111"));
        assert!(is_card_number("5500-0000-0000-0004"));
        assert!(is_card_number("378282246310005"));
        assert!(!is_card_number("4111 1111 1111 1112"));
        assert!(!is_card_number("1234"));
        assert!(!is_card_number("0000000000000000"));
    }
}
