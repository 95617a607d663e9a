//! Checks on a diff's inputs that every front end shares (the CLI and the Python package):
//! a pricing file read and validated, and a trace pair that can be compared. Each failure is an
//! [`InputError`] naming the file, line and field where there is one, with a hint.

use crate::pricing::Pricing;
use std::path::Path;
use veer_base::format::Format;
use veer_trace::{Kind, Trace};

/// An input a diff cannot use. `message` is the whole line shown after `error: ` (it already
/// names file, line and field); the other fields repeat them for programs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct InputError {
    /// What is wrong, as shown to the user.
    pub message: String,
    /// The file concerned, when there is one.
    pub file: Option<String>,
    /// 1-based line in that file, when known.
    pub line: Option<u64>,
    /// The offending field (a JSON path), when known.
    pub field: Option<String>,
    /// What to do about it.
    pub hint: String,
}

/// Reads and validates a pricing file (`--pricing FILE`).
pub fn load_pricing(path: &Path) -> Result<Pricing, InputError> {
    let name = path.display().to_string();
    let cant_read = |e: &dyn std::fmt::Display| InputError {
        message: format!("{name}: cannot read pricing file: {e}"),
        file: Some(name.clone()),
        line: None,
        field: None,
        hint: "check the --pricing path".to_string(),
    };
    let cap = veer_base::capped::MAX_CONFIG_FILE_BYTES;
    let bytes = veer_base::capped::read_capped(path, cap).map_err(|e| match e {
        veer_base::capped::CappedError::Io(e) => cant_read(&e),
        other => {
            let (message, hint) = other
                .too_large_message("pricing file", None)
                .unwrap_or_default();
            InputError {
                message: format!("{name}: {message}"),
                file: Some(name.clone()),
                line: None,
                field: None,
                hint,
            }
        }
    })?;
    let text =
        String::from_utf8(bytes).map_err(|_| cant_read(&"stream did not contain valid UTF-8"))?;
    Pricing::from_json(&text).map_err(|e| {
        let at = match (e.line, e.column) {
            (Some(l), Some(c)) => format!("{name}:{l}:{c}"),
            _ => name.clone(),
        };
        InputError {
            message: format!("{at}: {}: {}", e.field, e.message),
            file: Some(name.clone()),
            line: e.line.map(|l| l as u64),
            field: Some(e.field.clone()),
            hint: "a pricing file maps model names to {\"input\": …, \"output\": …} (USD per token) or to [input, output]".to_string(),
        }
    })
}

/// Both sides must hold at least one response; a traxr trace is only compared with another
/// traxr trace, while the conversation formats (`.agentlog`, OTel, …) mix freely.
pub fn check_pair(b: &Trace, c: &Trace) -> Result<(), InputError> {
    let traxr = |t: &Trace| t.format == Format::Traxr;
    if traxr(b) != traxr(c) {
        let name = |t: &Trace| t.format.name();
        return Err(InputError {
            message: format!(
                "mismatched formats: {} is {} but {} is {}",
                b.source,
                name(b),
                c.source,
                name(c)
            ),
            file: Some(c.source.clone()),
            line: None,
            field: None,
            hint: "diff two recordings of the same kind (convert one side first)".to_string(),
        });
    }
    for t in [b, c] {
        if !t.records.iter().any(|r| r.kind == Kind::ChatResponse) {
            return Err(InputError {
                message: format!(
                    "{}: the trace has no responses (no chat_response records or llm_call events), so there is nothing to compare",
                    t.source
                ),
                file: Some(t.source.clone()),
                line: None,
                field: None,
                hint: "check that the file is the recording you meant; veer diffs responses"
                    .to_string(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace(source: &str, text: &str) -> Trace {
        match veer_trace::load_bytes(source, text.as_bytes(), &Default::default()) {
            Ok(d) => match d.into_trace(source) {
                Ok(t) => t,
                Err(e) => panic!("{e}"),
            },
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn a_trace_without_responses_is_named() {
        let meta = r#"{"version":"0.1","id":"sha256:0000000000000000000000000000000000000000000000000000000000000000","kind":"metadata","ts":"2025-01-01T00:00:00Z","parent":null,"payload":{"sdk":{"name":"t","version":"0"}}}"#;
        let t = trace("a.agentlog", meta);
        let e = check_pair(&t, &t).err();
        let e = e
            .as_ref()
            .map(|e| (e.file.as_deref(), e.message.contains("no responses")));
        assert_eq!(e, Some((Some("a.agentlog"), true)));
    }

    #[test]
    fn a_bad_pricing_file_names_line_and_field() {
        let dir = std::env::temp_dir().join(format!("veer-pricing-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join("p.json");
        let _ = std::fs::write(&path, "{\"m\": {\"input\": -1, \"output\": 1}}");
        let e = load_pricing(&path).err();
        let _ = std::fs::remove_dir_all(&dir);
        let e = e.map(|e| (e.field, e.hint.contains("USD per token")));
        assert_eq!(e, Some((Some("m.input".to_string()), true)));
        assert!(load_pricing(Path::new("/nonexistent/p.json")).is_err());
    }
}
