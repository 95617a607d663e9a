//! Unit-cost Levenshtein distance over whole tokens, in O(min(n, m)) memory.

/// Edit distance (insertions, deletions, substitutions, each cost 1) between two sequences.
pub fn levenshtein<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    if short.is_empty() {
        return long.len();
    }
    let mut prev: Vec<usize> = (0..=short.len()).collect();
    let mut cur = vec![0usize; short.len() + 1];
    for (i, x) in long.iter().enumerate() {
        cur[0] = i + 1;
        for (j, y) in short.iter().enumerate() {
            let sub = prev[j] + usize::from(x != y);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[short.len()]
}

/// Levenshtein distance divided by the longer length, in [0, 1]; 0 when both are empty.
pub fn normalized_levenshtein<T: PartialEq>(a: &[T], b: &[T]) -> f64 {
    let longest = a.len().max(b.len());
    if longest == 0 {
        return 0.0;
    }
    levenshtein(a, b) as f64 / longest as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(levenshtein::<u8>(&[], &[]), 0);
        assert_eq!(levenshtein(b"kitten", b"sitting"), 3);
        assert_eq!(levenshtein(b"abc", b""), 3);
        assert_eq!(normalized_levenshtein(&["a", "b"], &["a", "c"]), 0.5);
        assert_eq!(normalized_levenshtein::<u8>(&[], &[]), 0.0);
    }
}
