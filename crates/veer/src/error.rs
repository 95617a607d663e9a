//! The CLI's one error type: every library error becomes a message with an optional hint and an
//! exit code (2 for usage and input errors).

use std::fmt;
use veer_trace::TraceError;

/// Exit code when the command ran and no gate tripped.
pub const EXIT_OK: u8 = 0;
/// Exit code when a gate tripped (or `scan` found a secret).
#[allow(dead_code)] // used by gated commands
pub const EXIT_GATE: u8 = 1;
/// Exit code for usage and input errors.
pub const EXIT_ERROR: u8 = 2;

/// An error shown to the user: `error: <message>`, further lines, then `hint: <hint>`.
#[derive(Debug)]
pub struct CliError {
    /// The main message (already names file, line and field where there are some).
    pub message: String,
    /// Further failures of the same kind (strict mode names each).
    pub more: Vec<String>,
    /// What to do about it.
    pub hint: Option<String>,
    /// Process exit code.
    pub code: u8,
}

impl CliError {
    /// A usage or input error (exit 2).
    pub fn input(message: impl Into<String>) -> Self {
        CliError {
            message: message.into(),
            more: Vec::new(),
            hint: None,
            code: EXIT_ERROR,
        }
    }

    /// The same error with a hint.
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Writing an output file or stream failed.
    pub fn output(target: &str, e: &std::io::Error) -> Self {
        use std::io::ErrorKind;
        let hint = match e.kind() {
            ErrorKind::StorageFull | ErrorKind::QuotaExceeded => {
                "free space on that device or write elsewhere; any file there is unchanged"
            }
            ErrorKind::BrokenPipe => {
                "the reader of that pipe closed it before the report was written"
            }
            ErrorKind::IsADirectory => "-o takes a file path, e.g. -o report.json",
            _ => "check that the directory exists and is writable; any file there is unchanged",
        };
        CliError::input(format!("{target}: cannot write output: {e}")).hint(hint)
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.message)
    }
}

impl From<TraceError> for CliError {
    fn from(e: TraceError) -> Self {
        CliError {
            message: e.to_string(),
            more: e.related.iter().map(ToString::to_string).collect(),
            hint: e.hint,
            code: EXIT_ERROR,
        }
    }
}

impl From<veer_diff::inputs::InputError> for CliError {
    fn from(e: veer_diff::inputs::InputError) -> Self {
        CliError::input(e.message).hint(e.hint)
    }
}
