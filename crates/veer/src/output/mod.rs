//! Where a rendered report goes: stdout (colour only on a TTY, `NO_COLOR` honoured) or a file
//! given with `-o`, always without colour. Every command writes through this module, so the
//! same rules hold everywhere: an output never replaces an input ([`inputs`]), a regular file is
//! replaced atomically and a device or FIFO written through ([`file`]), an interrupt leaves no
//! temporary file ([`interrupt`]), and a stdout closed early ends quietly.

pub mod diag;
pub mod file;
pub mod inputs;
pub mod interrupt;
pub mod stream;
pub mod tee;

use crate::error::CliError;
use std::borrow::Cow;
use std::io::Write;
use std::path::Path;
use veer_secrets::display::redactor;
pub use veer_secrets::display::set_redaction;
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

/// The width terminal tables fit, in columns (0 = no limit): `COLUMNS` when set to a positive
/// number, else the terminal's width when stdout is a terminal; never a limit when the report
/// goes to a file (`-o`), which gets the whole table.
pub fn table_width(to_file: bool) -> u16 {
    if to_file {
        return 0;
    }
    if let Some(cols) = std::env::var("COLUMNS")
        .ok()
        .and_then(|v| v.trim().parse::<u16>().ok())
        .filter(|c| *c > 0)
    {
        return cols;
    }
    if std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        if let Some((terminal_size::Width(w), _)) = terminal_size::terminal_size() {
            return w;
        }
    }
    0
}

/// `text` with secrets replaced by `[REDACTED:<kind>]`. A JSON document is redacted inside its
/// strings only and re-printed in the same pretty layout, so it stays valid JSON.
pub fn redact_output(text: &str) -> Cow<'_, str> {
    redact_output_by(text, redactor())
}

/// `text` redacted by `detector` as [`redact_output`] does (unchanged for `None`).
pub fn redact_output_by<'t>(text: &'t str, detector: Option<&Detector>) -> Cow<'t, str> {
    let Some(detector) = detector else {
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

/// Writes a report to `-o FILE` (by [`file`]'s rules) or to stdout (ANSI stripped when not a
/// colour TTY). Secrets are redacted first unless `--no-redact` was given.
pub fn emit(text: &str, output: Option<&Path>) -> Result<(), CliError> {
    let text = &*redact_output(text);
    match output {
        Some(path) => write_file(path, text.as_bytes()),
        None => write_stdout(anstream::stdout(), text.as_bytes()),
    }
}

/// Writes the user's own metadata (a baseline manifest) like [`emit`], with secrets redacted
/// but e-mail addresses kept: who approved a baseline is what the record is for.
pub fn emit_metadata(text: &str, output: Option<&Path>) -> Result<(), CliError> {
    let keep_emails = redactor().map(|d| d.without_kinds(&["email"]));
    let text = &*redact_output_by(text, keep_emails.as_ref());
    match output {
        Some(path) => write_file(path, text.as_bytes()),
        None => write_stdout(anstream::stdout(), text.as_bytes()),
    }
}

/// Writes data — a converted trace, not a report — to `-o FILE` (by [`file`]'s rules) or to
/// stdout, as given: nothing is styled, and nothing is redacted here (`veer convert` redacts
/// the records before writing, so their content ids match; [`crate::commands::convert`]).
pub fn emit_data(bytes: &[u8], output: Option<&Path>) -> Result<(), CliError> {
    match output {
        Some(path) => write_file(path, bytes),
        None => write_stdout(std::io::stdout().lock(), bytes),
    }
}

/// Writes `bytes` to stdout. A closed pipe (`veer … | head`) is the reader's choice, not an
/// error: the command ends quietly with its own exit code (docs/output.md).
fn write_stdout(mut out: impl Write, bytes: &[u8]) -> Result<(), CliError> {
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CliError::output("stdout", &e)),
    }
}

/// Writes `bytes` to the file `path` by [`file`]'s rules, naming the path on failure.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    if path.is_dir() {
        return Err(CliError::input(format!(
            "{}: cannot write output: is a directory",
            path.display()
        ))
        .hint("-o takes a file path, e.g. -o report.json"));
    }
    file::write(path, bytes).map_err(|e| CliError::output(&path.display().to_string(), &e))
}

/// Like [`write_file`], with `fill` writing the bytes (e.g. a trace streamed record by record).
pub fn write_file_with(
    path: &Path,
    fill: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> Result<(), CliError> {
    file::write_with(path, fill).map_err(|e| CliError::output(&path.display().to_string(), &e))
}

/// Like [`write_file_with`], also telling `fill` whether the file is staged (a temporary file
/// renamed over `path` only when `fill` succeeds; see [`file::write_staged_with`]).
pub fn write_file_staged_with(
    path: &Path,
    fill: impl FnOnce(&mut std::fs::File, bool) -> std::io::Result<()>,
) -> Result<(), CliError> {
    file::write_staged_with(path, fill)
        .map_err(|e| CliError::output(&path.display().to_string(), &e))
}

/// Appends `text` (redacted like every report) to `path`, creating the file when missing and
/// never truncating it: GitHub's `$GITHUB_STEP_SUMMARY`, which other steps also write to.
pub fn append_step_summary(path: &Path, text: &str) -> Result<(), CliError> {
    let text = redact_output(text);
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| CliError::output(&path.display().to_string(), &e))?;
    let mut body = text.into_owned();
    if !body.ends_with('\n') {
        body.push('\n');
    }
    file.write_all(body.as_bytes())
        .and_then(|()| file.flush())
        .map_err(|e| CliError::output(&path.display().to_string(), &e))
}

/// Names on stderr, one `warning:` line each, the entries of a directory that were skipped
/// because they are not regular files (never opened: a FIFO would block the read).
pub fn print_skipped(skipped: &[veer_trace::load::SkippedEntry]) {
    for s in skipped {
        diag::warn(s);
    }
}

/// Prints reader warnings to stderr, once each (redacted, as everything on stderr).
pub fn print_warnings(warnings: &[veer_trace::Warning]) {
    for w in warnings {
        diag::warn(w);
    }
}

/// Opens `-o FILE` for a stream of whole lines appended as they are produced (`veer record`),
/// never losing anything the user owns: refuses a file that is one of `inputs` (same device
/// and inode), a directory, or an existing non-empty regular file; appends to an empty file;
/// writes through a FIFO or device without replacing it; otherwise creates the file.
pub fn open_append_stream(path: &Path, inputs: &[&Path]) -> Result<std::fs::File, CliError> {
    use std::os::unix::fs::FileTypeExt;
    let shown = path.display().to_string();
    let meta = match std::fs::metadata(path) {
        Ok(m) => Some(m),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(CliError::output(&shown, &e)),
    };
    inputs::refuse_overwriting_inputs(path, inputs)?;
    if let Some(m) = &meta {
        if m.is_dir() {
            return Err(
                CliError::input(format!("{shown}: cannot write output: is a directory"))
                    .hint("-o takes a file path, e.g. -o run.agentlog"),
            );
        }
        if m.is_file() && m.len() > 0 {
            return Err(CliError::input(format!(
                "{shown}: already exists and is not empty; veer record never overwrites a file"
            ))
            .hint("choose a new file name, or move the old recording away first"));
        }
    }
    if meta.is_none() {
        // `-o runs/main/CASE/trial-1.agentlog`: the folders are made, as a recorder is expected to.
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| CliError::output(&shown, &e))?;
        }
    }
    let mut opts = std::fs::OpenOptions::new();
    match &meta {
        Some(m) if m.file_type().is_fifo() || m.file_type().is_char_device() => opts.write(true),
        Some(_) => opts.append(true),
        None => opts.append(true).create_new(true),
    };
    opts.open(path).map_err(|e| CliError::output(&shown, &e))
}
