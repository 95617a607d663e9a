//! The JSON printer: pretty-printed, keys in struct order, a trailing newline. Floats print in
//! shortest round-trip form, so the same report always gives the same bytes.
//!
//! Redaction happens here, on values: every string of the document (keys included) passes
//! through the redactor ([`veer_secrets::display::redactor`], on unless `--no-redact`) before
//! it is written, so a report holding a secret keeps exactly the layout it would have without
//! one (issue 27 item 5); nothing re-parses rendered text.

use serde::Serialize;
use serde_json::Value;

/// `value` as a JSON tree whose strings have been redacted (unchanged when redaction is off).
pub fn redacted_value<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<Value> {
    redacted_value_with(value, veer_secrets::display::redactor())
}

/// `value` as a JSON tree whose strings `redactor` has redacted (none: unchanged). The Python
/// package chooses per call (`redact=False`); the CLI passes the process' choice
/// (`--no-redact`).
pub fn redacted_value_with<T: Serialize + ?Sized>(
    value: &T,
    redactor: Option<&veer_secrets::Detector>,
) -> serde_json::Result<Value> {
    let mut tree = serde_json::to_value(value)?;
    if let Some(detector) = redactor {
        detector.redact_json(&mut tree);
    }
    Ok(tree)
}

/// Serialises `report` as pretty JSON followed by `\n`, its strings redacted.
pub fn to_json<T: Serialize>(report: &T) -> String {
    to_json_with(report, veer_secrets::display::redactor())
}

/// [`to_json`] with the strings redacted by `redactor` (none: written verbatim, as
/// `--no-redact`).
pub fn to_json_with<T: Serialize>(report: &T, redactor: Option<&veer_secrets::Detector>) -> String {
    match redacted_value_with(report, redactor).and_then(|tree| serde_json::to_string_pretty(&tree))
    {
        Ok(mut s) => {
            s.push('\n');
            s
        }
        // Report structs hold only strings, numbers, bools and maps with string keys.
        Err(e) => format!("{{\"error\": \"cannot serialise report: {e}\"}}\n"),
    }
}

/// The directory diff as JSON, written pair by pair: the same bytes as [`to_json`] of the whole
/// [`veer_diff::DirectoryReport`] (each pair is pretty-printed alone and indented to its depth;
/// JSON strings hold no raw newline, so indenting line by line is exact).
#[derive(Debug, Default)]
pub struct DirectoryJson {
    /// Pairs written so far.
    written: usize,
}

impl DirectoryJson {
    /// A printer for a new document.
    pub fn new() -> DirectoryJson {
        DirectoryJson::default()
    }
}

/// `text` pretty-printed as `serde_json` does at the top level, each line after the first
/// indented by `indent` more spaces (the first line is placed by the caller).
fn indented<T: Serialize>(value: &T, indent: &str) -> String {
    let text = match redacted_value(value).and_then(|tree| serde_json::to_string_pretty(&tree)) {
        Ok(s) => s,
        Err(e) => format!("{{\"error\": \"cannot serialise report: {e}\"}}"),
    };
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for (k, line) in text.split('\n').enumerate() {
        if k > 0 {
            out.push('\n');
            out.push_str(indent);
        }
        out.push_str(line);
    }
    out
}

impl crate::diff::stream::DirectoryPrinter for DirectoryJson {
    fn begin(&mut self) -> String {
        format!(
            "{{\n  \"schema_version\": {},\n  \"pairs\": [",
            indented(&veer_diff::report::DIFF_SCHEMA_VERSION, "")
        )
    }

    fn pair(&mut self, pair: &veer_diff::DirectoryPair, _: &veer_engine::Verdict) -> String {
        let sep = if self.written == 0 {
            "\n    "
        } else {
            ",\n    "
        };
        self.written += 1;
        format!("{sep}{}", indented(pair, "    "))
    }

    fn finish(
        self: Box<Self>,
        summary: &veer_diff::DirectorySummary,
        _: &veer_engine::Verdict,
    ) -> String {
        // The summary's own object, opened by "{\n" and closed by "\n}", continues this one.
        let rest = indented(summary, "");
        let rest = rest.strip_prefix("{\n").unwrap_or(&rest);
        let close = if self.written == 0 { "]" } else { "\n  ]" };
        format!("{close},\n{rest}\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indenting_keeps_every_line_but_the_first() {
        let v = serde_json::json!({"a": [1, 2], "b": {}});
        assert_eq!(
            indented(&v, "  "),
            "{\n    \"a\": [\n      1,\n      2\n    ],\n    \"b\": {}\n  }"
        );
    }
}
