//! Python's notion of whitespace, which both operator families need: Python's `str.isspace()`,
//! `str.strip()` and `re`'s `\s` count the information separators U+001C..U+001F as whitespace,
//! Rust's `char::is_whitespace` and `str::trim` do not. The character test (and Python's
//! `float()`, which the tabular operators use) live with the fingerprint's Python rules in
//! `veer_base::pytext`, one home for both.

pub use veer_base::pytext::is_py_space;

/// Python's `str.strip()` without arguments.
pub fn py_strip(text: &str) -> &str {
    text.trim_matches(is_py_space)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_what_python_strips() {
        // " \x1c\x1fa b\u3000\t".strip() == "a b" in CPython.
        assert_eq!(py_strip(" \u{1c}\u{1f}a b\u{3000}\t"), "a b");
        assert!(is_py_space('\u{85}') && is_py_space('\u{1d}'));
        assert!(!is_py_space('\u{200b}') && !is_py_space('_'));
    }
}
