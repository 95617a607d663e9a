//! Small text helpers shared by printers: previews, number formatting and the terminal tables.

/// A terminal table in the printers' one style (condensed UTF-8 borders, columns never
/// wrapped) with `header` as its first row.
pub(crate) fn table(header: Vec<&str>) -> comfy_table::Table {
    let mut t = comfy_table::Table::new();
    t.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(comfy_table::ContentArrangement::Disabled)
        .set_header(header);
    t
}

/// At most `max` characters of `s` on one line (whitespace collapsed), with `…` when cut.
/// Secrets are redacted before the cut (unless redaction is off): a key cut short no longer
/// matches its pattern, and its first characters would otherwise reach the report.
pub fn preview(s: &str, max: usize) -> String {
    let s = veer_secrets::display::redact(s);
    let mut out = String::new();
    let mut count = 0;
    for word in s.split_whitespace() {
        for (i, c) in std::iter::once(' ').chain(word.chars()).enumerate() {
            if i == 0 && out.is_empty() {
                continue;
            }
            if count == max {
                out.pop();
                out.push('…');
                return out;
            }
            out.push(c);
            count += 1;
        }
    }
    out
}

/// A number for a table cell: integers without a fraction, others with up to 3 decimals;
/// `-` when absent.
pub(crate) fn num(v: Option<f64>) -> String {
    match v {
        None => "-".into(),
        Some(x) if x.fract() == 0.0 && x.abs() < 1e15 => format!("{}", x as i64),
        Some(x) => {
            let s = format!("{x:.3}");
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn previews() {
        assert_eq!(preview("  hello \n world ", 20), "hello world");
        assert_eq!(preview("abcdef", 4), "abc…");
        assert_eq!(preview("", 4), "");
        assert_eq!(preview("ab cd", 5), "ab cd");
    }

    #[test]
    fn a_preview_never_shows_part_of_a_secret() {
        let key = "sk-proj-abcdefghijklmnopqrstuvwxyz012345";
        for max in [4, 12, 20, 30, 60] {
            let p = preview(&format!("my key is {key} ok"), max);
            assert!(!p.contains("sk-proj"), "{max}: {p}");
            assert!(!p.contains("abcdefgh"), "{max}: {p}");
        }
        assert_eq!(
            preview(&format!("key {key}"), 40),
            "key [REDACTED:openai_api_key]"
        );
    }

    #[test]
    fn numbers() {
        assert_eq!(num(None), "-");
        assert_eq!(num(Some(12.0)), "12");
        assert_eq!(num(Some(0.125)), "0.125");
        assert_eq!(num(Some(1.5)), "1.5");
    }
}
