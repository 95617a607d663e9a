//! Where a rendered report goes: stdout (colour only on a TTY, `NO_COLOR` honoured) or a file
//! given with `-o`, written atomically and always without colour.

use crate::error::CliError;
use std::borrow::Cow;
use std::io::Write;
use std::path::Path;
use std::sync::OnceLock;
use veer_secrets::Detector;

/// Output formats a command may offer (`--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// Human-readable tables and text for a terminal.
    Terminal,
    /// Machine-readable JSON with a versioned schema.
    Json,
    /// A Markdown report, e.g. for a pull-request comment.
    Markdown,
    /// JUnit XML for CI test views.
    Junit,
    /// Comma-separated values (experiment tables).
    Csv,
}

/// Whether styled output should carry colour: only when writing to stdout that is a terminal
/// and `NO_COLOR` is unset (anstream applies the same rules when printing).
pub fn colour_enabled(to_file: bool) -> bool {
    !to_file && anstream::AutoStream::choice(&std::io::stdout()) != anstream::ColorChoice::Never
}

static REDACTOR: OnceLock<Option<Detector>> = OnceLock::new();

/// Turns redaction of secrets in every emitted report on (the default) or off (`--no-redact`).
/// Call once, before any output.
pub fn set_redaction(on: bool) {
    let _ = REDACTOR.set(on.then(Detector::builtin));
}

/// `text` with secrets replaced by `[REDACTED:<kind>]`. A JSON document is redacted inside its
/// strings only and re-printed in the same pretty layout, so it stays valid JSON.
pub fn redact_output(text: &str) -> Cow<'_, str> {
    let Some(detector) = REDACTOR.get_or_init(|| Some(Detector::builtin())) else {
        return Cow::Borrowed(text);
    };
    if detector.spans(text).is_empty() {
        return Cow::Borrowed(text);
    }
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        if let Ok(mut value) = serde_json::from_str::<serde_json::Value>(text) {
            detector.redact_json(&mut value);
            if let Ok(mut s) = serde_json::to_string_pretty(&value) {
                if text.ends_with('\n') {
                    s.push('\n');
                }
                return Cow::Owned(s);
            }
        }
    }
    detector.redact(text)
}

/// Writes `text` to `-o FILE` atomically, or to stdout (ANSI stripped when not a colour TTY).
/// Secrets are redacted first unless `--no-redact` was given.
pub fn emit(text: &str, output: Option<&Path>) -> Result<(), CliError> {
    let text = &*redact_output(text);
    if let Some(path) = output.filter(|p| p.is_dir()) {
        return Err(CliError::input(format!(
            "{}: cannot write output: is a directory",
            path.display()
        ))
        .hint("-o takes a file path, e.g. -o report.json"));
    }
    match output {
        Some(path) => veer_trace::atomic::write_atomic(path, text.as_bytes())
            .map_err(|e| CliError::output(&path.display().to_string(), &e)),
        None => {
            let mut out = anstream::stdout();
            match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
                Ok(()) => Ok(()),
                // A closed pipe (`veer … | head`) is not an error worth reporting.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                Err(e) => Err(CliError::output("stdout", &e)),
            }
        }
    }
}

/// Writes data the user owns — a converted trace, not a report — to `-o FILE` atomically, or
/// to stdout. Unlike [`emit`] nothing is redacted (a trace keeps its content byte for byte,
/// so it diffs like its source) and nothing is styled.
pub fn emit_data(bytes: &[u8], output: Option<&Path>) -> Result<(), CliError> {
    if let Some(path) = output.filter(|p| p.is_dir()) {
        return Err(CliError::input(format!(
            "{}: cannot write output: is a directory",
            path.display()
        ))
        .hint("-o takes a file path, e.g. -o run.agentlog"));
    }
    match output {
        Some(path) => veer_trace::atomic::write_atomic(path, bytes)
            .map_err(|e| CliError::output(&path.display().to_string(), &e)),
        None => {
            let mut out = std::io::stdout().lock();
            match out.write_all(bytes).and_then(|()| out.flush()) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                Err(e) => Err(CliError::output("stdout", &e)),
            }
        }
    }
}

/// Prints reader warnings to stderr, once each.
pub fn print_warnings(warnings: &[veer_trace::Warning]) {
    let mut err = anstream::stderr();
    for w in warnings {
        let _ = writeln!(err, "warning: {w}");
    }
}
