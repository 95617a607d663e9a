//! Python's string and number rules that veer's measures lean on, one home for each, so veer's
//! values equal the Python reference's: `str.isspace()` / `str.split()` whitespace, the value of
//! a Unicode decimal digit, `float(str)` and `int(str)` acceptance (Unicode decimal digits, `_`
//! between digits, `inf` / `nan`), `str.lower()` for the error-token search. Used by the
//! fingerprint (`veer-diff`), traxr's answer rules (`veer-experiment`) and the perturbation
//! operators (`veer-perturb`).

use crate::unicode_tables::DECIMAL_ZEROS;

/// The value of a Unicode decimal digit (category Nd), if `c` is one.
pub fn decimal_value(c: char) -> Option<u32> {
    let v = c as u32;
    let i = match DECIMAL_ZEROS.binary_search(&v) {
        Ok(i) => i,
        Err(0) => return None,
        Err(i) => i - 1,
    };
    let d = v - DECIMAL_ZEROS[i];
    (d < 10).then_some(d)
}

/// Python's `str.isspace()` for one character: Unicode `White_Space` plus U+001C..U+001F.
pub fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1C}'..='\u{1F}').contains(&c)
}

/// `s` as CPython hands it to its number parser: Unicode decimal digits become ASCII digits;
/// any other non-ASCII character makes the string unparseable (None).
fn ascii_digits(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let d = decimal_value(c)?;
            out.push(char::from(b'0' + d as u8));
        }
    }
    Some(out)
}

/// Removes `_` separators when each sits between two ASCII digits (Python's rule for number
/// literals in `int()` / `float()`); None when one does not.
fn without_underscores(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    for (i, &c) in b.iter().enumerate() {
        if c == b'_' {
            let before = i > 0 && b[i - 1].is_ascii_digit();
            let after = b.get(i + 1).is_some_and(u8::is_ascii_digit);
            if !(before && after) {
                return None;
            }
        } else {
            out.push(char::from(c));
        }
    }
    Some(out)
}

/// Whether Python's `float(s)` accepts `s` (after its own whitespace strip).
pub fn py_float_accepts(s: &str) -> bool {
    let s = s.trim_matches(is_py_space);
    // The common case, plain ASCII without separators, is checked in place.
    if s.is_ascii() && !s.contains('_') {
        return ascii_float_syntax(s);
    }
    let Some(s) = ascii_digits(s) else {
        return false;
    };
    let Some(s) = without_underscores(&s) else {
        return false;
    };
    ascii_float_syntax(&s)
}

/// Python's float syntax on ASCII without `_`: `[+-]` then `inf`, `infinity`, `nan` (any case)
/// or `digits[.digits][e[+-]digits]` with at least one mantissa digit.
fn ascii_float_syntax(s: &str) -> bool {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    if ["inf", "infinity", "nan"]
        .iter()
        .any(|w| body.eq_ignore_ascii_case(w))
    {
        return true;
    }
    let b = body.as_bytes();
    let mut i = 0;
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    let mut mantissa = digits(&mut i);
    if i < b.len() && b[i] == b'.' {
        i += 1;
        mantissa += digits(&mut i);
    }
    if mantissa == 0 {
        return false;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// Python's `float(s)`, when it accepts `s`.
pub fn py_float(s: &str) -> Option<f64> {
    if !py_float_accepts(s) {
        return None;
    }
    let s = without_underscores(&ascii_digits(s.trim_matches(is_py_space))?)?;
    let body = s.strip_prefix(['+', '-']).unwrap_or(&s);
    let negative = s.starts_with('-');
    let v = match body.to_ascii_lowercase().as_str() {
        "inf" | "infinity" => f64::INFINITY,
        "nan" => f64::NAN,
        other => other.parse::<f64>().ok()?,
    };
    Some(if negative { -v } else { v })
}

/// Python's `int(s)` in base 10, as an `f64`, when it accepts `s`.
pub fn py_int(s: &str) -> Option<f64> {
    let s = without_underscores(&ascii_digits(s.trim_matches(is_py_space))?)?;
    let (negative, body) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s.strip_prefix('+').unwrap_or(&s)),
    };
    if body.is_empty() || !body.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let v = body.parse::<f64>().ok()?;
    Some(if negative { -v } else { v })
}

#[cfg(test)]
/// Whether `text`, lowercased as Python's `str.lower()` does, contains `needle` (ASCII,
/// lowercase).
pub(crate) fn lower_contains(text: &str, needle: &str) -> bool {
    lowercase(text).contains(needle)
}

/// Python's `str.lower()` (ASCII text lowercased byte by byte, other text by Unicode rules).
pub fn lowercase(text: &str) -> String {
    if text.is_ascii() {
        text.to_ascii_lowercase()
    } else {
        text.to_lowercase()
    }
}

/// Python's `str.strip()` without arguments: trims [`is_py_space`] characters (which include
/// the information separators U+001C..U+001F that Rust's `str::trim` keeps).
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

    /// Each case checked by hand against CPython 3.11's `float(s)`.
    #[test]
    fn float_acceptance_follows_cpython() {
        for ok in [
            "1",
            "-1",
            "+1.5",
            "1.",
            ".5",
            "1e5",
            "1E-5",
            "1_000",
            "1_000.5_5",
            "inf",
            "-Infinity",
            "NaN",
            "١٢٣",
            "１２",
            "0",
            "1e1_0",
        ] {
            assert!(py_float_accepts(ok), "{ok:?} should parse");
        }
        for bad in [
            "", ".", "e5", "1e", "1_", "_1", "1__0", "1._5", "0x10", "1,000", "12a", "in_f", "--1",
            "1.2.3", "²", "nanx",
        ] {
            assert!(!py_float_accepts(bad), "{bad:?} should not parse");
        }
        assert_eq!(py_float("١٢٣"), Some(123.0));
        assert_eq!(py_float("-2_5.5"), Some(-25.5));
    }

    #[test]
    fn int_acceptance_follows_cpython() {
        assert_eq!(py_int(" 42 "), Some(42.0));
        assert_eq!(py_int("-1_000"), Some(-1000.0));
        assert_eq!(py_int("007"), Some(7.0));
        assert_eq!(py_int("1.5"), None);
        assert_eq!(py_int(""), None);
        assert_eq!(py_int("+"), None);
    }

    #[test]
    fn lowercase_search() {
        assert!(lower_contains("An ERROR occurred", "error"));
        assert!(lower_contains("Ünable: NOT FOUND", "not found"));
        assert!(!lower_contains("all good", "error"));
    }

    #[test]
    fn digits() {
        assert_eq!(decimal_value('7'), Some(7));
        assert_eq!(decimal_value('\u{664}'), Some(4));
        assert_eq!(decimal_value('a'), None);
        assert_eq!(decimal_value('\u{2f}'), None);
    }
}
