//! A report written piece by piece while it is being computed (`veer diff DIR DIR`), by the
//! same rules as a report written whole ([`super::emit`]): to `-o FILE` through a temporary
//! file renamed over it only when the whole report is written (or through a device or FIFO),
//! else to stdout without colour unless it is a colour terminal; secrets redacted in every
//! piece; a stdout closed early ends the output quietly.
//!
//! Redaction works per piece. A piece of JSON need not be a whole document, so its secrets are
//! found inside its string literals (keys included), each decoded, redacted and re-encoded the
//! way `serde_json` writes a string — the bytes a whole document redacted as a value gets.

use super::{redactor, write_file_staged_with};
use crate::error::CliError;
use std::borrow::Cow;
use std::collections::HashSet;
use std::io::{BufWriter, Write};
use std::path::Path;
use veer_secrets::Detector;

/// Where the pieces of a streamed report go.
pub struct ReportStream<'a> {
    out: &'a mut dyn Write,
    /// The pieces are JSON text (redacted inside string literals only).
    json: bool,
    /// The reader closed stdout: later pieces are dropped.
    closed: bool,
    /// What the output is called in an error (`stdout` or the path).
    name: String,
    /// JSON string literals already found free of secrets (keys and labels repeat in every
    /// pair), so each distinct string is scanned once; cleared when it grows past
    /// [`CLEAN_CACHE_LIMIT`].
    clean: HashSet<String>,
}

/// Most distinct clean strings remembered by a [`ReportStream`].
const CLEAN_CACHE_LIMIT: usize = 1 << 12;

impl ReportStream<'_> {
    /// Writes a whole report, redacted as a report written at once is
    /// ([`super::redact_output`]: a JSON document redacted value by value).
    pub fn write_whole(&mut self, report: &str) -> Result<(), CliError> {
        let text = super::redact_output(report);
        self.write_raw(&text)
    }

    /// Writes the next piece of the report, redacted.
    pub fn write(&mut self, piece: &str) -> Result<(), CliError> {
        if self.closed || piece.is_empty() {
            return Ok(());
        }
        let piece = match redactor() {
            Some(d) if self.json => redact_json_strings(d, piece, &mut self.clean),
            Some(d) => d.redact(piece),
            None => Cow::Borrowed(piece),
        };
        self.write_raw(&piece)
    }

    /// Writes `piece` as it is.
    fn write_raw(&mut self, piece: &str) -> Result<(), CliError> {
        if self.closed || piece.is_empty() {
            return Ok(());
        }
        match self.out.write_all(piece.as_bytes()) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            Err(e) => Err(CliError::output(&self.name, &e)),
        }
    }
}

/// Runs `body` with a [`ReportStream`] on `-o FILE` or stdout and finishes the output: a file
/// is renamed into place only when `body` succeeded (on an error nothing is left behind and an
/// existing file keeps its content). `json` says the pieces are JSON text.
pub fn emit_streamed<T>(
    output: Option<&Path>,
    json: bool,
    body: impl FnOnce(&mut ReportStream<'_>) -> Result<T, CliError>,
) -> Result<T, CliError> {
    match output {
        None => {
            let mut out = BufWriter::with_capacity(1 << 16, anstream::stdout());
            let mut stream = ReportStream {
                out: &mut out,
                json,
                closed: false,
                name: "stdout".into(),
                clean: HashSet::new(),
            };
            let value = body(&mut stream)?;
            let closed = stream.closed;
            match out.flush() {
                Err(e) if !closed && e.kind() != std::io::ErrorKind::BrokenPipe => {
                    Err(CliError::output("stdout", &e))
                }
                _ => Ok(value),
            }
        }
        Some(path) => {
            if path.is_dir() {
                return Err(CliError::input(format!(
                    "{}: cannot write output: is a directory",
                    path.display()
                ))
                .hint("-o takes a file path, e.g. -o report.json"));
            }
            let mut result = None;
            let written = write_file_staged_with(path, |file, _staged| {
                let mut out = BufWriter::with_capacity(1 << 16, file);
                let mut stream = ReportStream {
                    out: &mut out,
                    json,
                    closed: false,
                    name: path.display().to_string(),
                    clean: HashSet::new(),
                };
                let r = body(&mut stream);
                let failed = r.is_err();
                result = Some(r);
                if failed {
                    // Abandons the temporary file; the body's own error is returned below.
                    return Err(std::io::Error::other("report not finished"));
                }
                out.flush()
            });
            match (result, written) {
                (Some(Err(e)), _) => Err(e),
                (_, Err(e)) => Err(e),
                (Some(Ok(value)), Ok(())) => Ok(value),
                (None, Ok(())) => Err(CliError::input(format!(
                    "{}: the report was not written",
                    path.display()
                ))),
            }
        }
    }
}

/// `text` with the secrets inside its JSON string literals replaced; `text` need not be a whole
/// JSON document (a literal cut by the end of `text` is left alone). Each literal is decoded
/// and redacted alone, as redacting a parsed document redacts each of its strings; literals in
/// `clean` are known to hold no secret, and literals found clean are added to it.
///
/// Scanning literal by literal, not the whole text, is also what keeps redaction fast: report
/// JSON is mostly keys, labels and numbers, and one pass of the detector over a long text with
/// non-ASCII characters falls back to the regex engine's slowest search (docs/performance.md).
fn redact_json_strings<'t>(
    detector: &Detector,
    text: &'t str,
    clean: &mut HashSet<String>,
) -> Cow<'t, str> {
    let bytes = text.as_bytes();
    let mut out = String::new();
    let (mut copied, mut i) = (0, 0);
    while i < bytes.len() {
        if bytes[i] != b'"' {
            i += 1;
            continue;
        }
        // The closing quote: escapes are a backslash and one ASCII character (or `uXXXX`).
        let mut j = i + 1;
        while j < bytes.len() && bytes[j] != b'"' {
            j += if bytes[j] == b'\\' { 2 } else { 1 };
        }
        let end = if j < bytes.len() { j + 1 } else { bytes.len() };
        if let Some(literal) = text.get(i..end) {
            if !clean.contains(literal) {
                match redact_literal(detector, literal) {
                    Some(encoded) => {
                        out.push_str(&text[copied..i]);
                        out.push_str(&encoded);
                        copied = end;
                    }
                    None => {
                        if clean.len() >= CLEAN_CACHE_LIMIT {
                            clean.clear();
                        }
                        clean.insert(literal.to_owned());
                    }
                }
            }
        }
        i = end;
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// The JSON literal `literal` (quotes included) re-encoded with its secrets redacted; `None`
/// when it holds none (or is not a whole literal).
fn redact_literal(detector: &Detector, literal: &str) -> Option<String> {
    let decoded: Cow<'_, str> = match literal.strip_prefix('"').and_then(|l| l.strip_suffix('"')) {
        // Without a backslash the literal's content is its text.
        Some(inner) if !inner.contains('\\') => Cow::Borrowed(inner),
        _ => Cow::Owned(serde_json::from_str::<String>(literal).ok()?),
    };
    match detector.redact(&decoded) {
        Cow::Owned(redacted) => serde_json::to_string(&redacted).ok(),
        Cow::Borrowed(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH";

    #[test]
    fn a_piece_of_json_is_redacted_like_the_whole_document() {
        let d = Detector::builtin();
        let doc =
            serde_json::json!({"pairs": [{"note": format!("key {KEY} \"q\""), KEY: 1, "n": 2.5}]});
        let whole = serde_json::to_string_pretty(&doc).unwrap();
        let mut value = doc.clone();
        d.redact_json(&mut value);
        let expected = serde_json::to_string_pretty(&value).unwrap();
        assert_ne!(expected, whole, "the fixture holds a secret");
        // Cut anywhere between literals: each piece redacted alone gives the same bytes.
        let cut = whole.find("\"n\"").unwrap();
        let pieces = [&whole[..cut], &whole[cut..]];
        let redacted: String = pieces
            .iter()
            .map(|p| redact_json_strings(&d, p, &mut HashSet::new()).into_owned())
            .collect();
        assert_eq!(redacted, expected);
    }

    #[test]
    fn text_without_secrets_is_borrowed() {
        let d = Detector::builtin();
        assert!(matches!(
            redact_json_strings(&d, "{\"a\": \"b\\\"\"}", &mut HashSet::new()),
            Cow::Borrowed(_)
        ));
    }
}
