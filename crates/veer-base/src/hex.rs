//! Lower-case hexadecimal, as content ids and traxr's hashes write digests.

/// Appends `bytes` as lower-case hex (two characters per byte) to `out`.
pub fn push_hex(out: &mut String, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for b in bytes {
        out.push(HEX[(b >> 4) as usize] as char);
        out.push(HEX[(b & 15) as usize] as char);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn two_lower_case_digits_per_byte() {
        let mut s = String::from("x");
        super::push_hex(&mut s, &[0x00, 0xab, 0x7f]);
        assert_eq!(s, "x00ab7f");
    }
}
