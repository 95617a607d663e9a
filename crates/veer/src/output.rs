//! Where a rendered report goes: stdout (colour only on a TTY, `NO_COLOR` honoured) or a file
//! given with `-o`, written atomically and always without colour.

use crate::error::CliError;
use std::io::Write;
use std::path::Path;

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

/// Writes `text` to `-o FILE` atomically, or to stdout (ANSI stripped when not a colour TTY).
pub fn emit(text: &str, output: Option<&Path>) -> Result<(), CliError> {
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

/// Prints reader warnings to stderr, once each.
pub fn print_warnings(warnings: &[veer_trace::Warning]) {
    let mut err = anstream::stderr();
    for w in warnings {
        let _ = writeln!(err, "warning: {w}");
    }
}
