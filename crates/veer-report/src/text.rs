//! Small text helpers shared by printers: previews, number formatting and the terminal tables.

/// The width terminal tables must fit, in columns; 0 = no limit (a file or a pipe gets the
/// whole table).
static TABLE_WIDTH: std::sync::atomic::AtomicU16 = std::sync::atomic::AtomicU16::new(0);

/// Sets the width, in columns (0 = no limit), that every terminal table fits from now on: the
/// front end resolves it once (`COLUMNS`, else the terminal's size when stdout is one).
pub fn set_table_width(columns: u16) {
    TABLE_WIDTH.store(columns, std::sync::atomic::Ordering::Relaxed);
}

/// A terminal table in the printers' one style (condensed UTF-8 borders) with `header` as its
/// first row. Without a width ([`set_table_width`]) columns are never wrapped; with one, cells
/// wrap so the table fits it (widths measured without colour codes).
pub(crate) fn table(header: Vec<&str>) -> comfy_table::Table {
    let mut t = comfy_table::Table::new();
    t.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED);
    match TABLE_WIDTH.load(std::sync::atomic::Ordering::Relaxed) {
        0 => {
            t.set_content_arrangement(comfy_table::ContentArrangement::Disabled);
        }
        w => {
            t.set_content_arrangement(comfy_table::ContentArrangement::Dynamic)
                .set_width(w);
        }
    }
    t.set_header(header);
    t
}

/// The table as text. A table wider than the width set by [`set_table_width`] is printed as
/// one block per row instead — its first cell, then `header  value` lines, values wrapped at
/// word boundaries — so nothing is cut and no line is wider than the terminal. Widths are
/// counted in characters, colour codes excluded.
pub(crate) fn render_table(t: &mut comfy_table::Table) -> String {
    let limit = usize::from(TABLE_WIDTH.load(std::sync::atomic::Ordering::Relaxed));
    if limit == 0 {
        return t.to_string();
    }
    let widths = t.column_max_content_widths();
    let natural: usize = widths.iter().map(|w| usize::from(*w) + 3).sum::<usize>() + 1;
    if natural <= limit {
        t.set_content_arrangement(comfy_table::ContentArrangement::Disabled);
        return t.to_string();
    }
    let header: Vec<String> = t
        .header()
        .map(|h| h.cell_iter().map(|c| c.content()).collect())
        .unwrap_or_default();
    let label = header
        .iter()
        .skip(1)
        .map(|h| visible_width(h))
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for row in t.row_iter() {
        let cells: Vec<String> = row.cell_iter().map(|c| c.content()).collect();
        let Some((first, rest)) = cells.split_first() else {
            continue;
        };
        out.push_str(first.trim());
        out.push('\n');
        for (i, value) in rest.iter().enumerate() {
            let value = value.split_whitespace().collect::<Vec<_>>().join(" ");
            if value.is_empty() || value == "-" {
                continue;
            }
            let name = header.get(i + 1).map_or("", String::as_str);
            let indent = 2 + label + 2;
            let pad = label - visible_width(name).min(label);
            let mut line = format!("  {name}{}  ", " ".repeat(pad));
            let mut used = indent;
            for (k, word) in value.split(' ').enumerate() {
                let w = visible_width(word);
                if k > 0 && used + 1 + w > limit {
                    out.push_str(&line);
                    out.push('\n');
                    line = " ".repeat(indent);
                    used = indent;
                } else if k > 0 {
                    line.push(' ');
                    used += 1;
                }
                line.push_str(word);
                used += w;
            }
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

/// Characters of `s` a terminal shows: ANSI colour sequences are not counted.
fn visible_width(s: &str) -> usize {
    let mut n = 0;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            n += 1;
        }
    }
    n
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
