//! The one error type of every front end: a kind, the message (naming file,
//! line and field where there are some), the source chain and further problems, and a hint.
//!
//! The kind is mapped to the process exit code here ([`ErrorKind::exit_code`]: interrupted is
//! 130, everything else 2) and to the Python exception class here
//! ([`ErrorKind::python_class`]), so the CLI and the Python package cannot disagree.

use std::fmt;
use veer_diff::inputs::InputError;
use veer_experiment::results::ExperimentError;
use veer_policy::PolicyError;
use veer_trace::TraceError;

/// What kind of error it is: decides the exit code and the Python exception class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// A bad argument, or inputs that cannot be used together (`veer.InputError`).
    Input,
    /// A trace that cannot be read (`veer.TraceError`).
    Trace,
    /// A policy file that cannot be loaded (`veer.PolicyError`).
    Policy,
    /// A pricing file that cannot be used (`veer.PricingError`).
    Pricing,
    /// An output that cannot be written (`veer.InputError` in Python).
    Output,
    /// The run was interrupted (Ctrl-C, SIGTERM): exit 130.
    Interrupted,
    /// A bug or an impossible state (`veer.VeerError`).
    Internal,
}

/// Exit code of an interrupted run (128 + SIGINT).
pub(crate) const EXIT_INTERRUPTED: u8 = 130;
/// Exit code of every other error.
pub const EXIT_ERROR: u8 = 2;

impl ErrorKind {
    /// The process exit code: 130 when interrupted, else 2.
    pub fn exit_code(self) -> u8 {
        match self {
            ErrorKind::Interrupted => EXIT_INTERRUPTED,
            _ => EXIT_ERROR,
        }
    }

    /// The name of the `veer.VeerError` subclass the Python package raises.
    pub fn python_class(self) -> &'static str {
        match self {
            ErrorKind::Trace => "TraceError",
            ErrorKind::Policy => "PolicyError",
            ErrorKind::Pricing => "PricingError",
            ErrorKind::Input | ErrorKind::Output | ErrorKind::Interrupted => "InputError",
            ErrorKind::Internal => "VeerError",
        }
    }
}

/// An error shown to the user: `error: <message>`, the further lines, then `hint: <hint>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// What kind it is.
    pub kind: ErrorKind,
    /// The main message (names file, line and field where there are some).
    pub message: String,
    /// The source chain and further problems of the same kind, one line each.
    pub more: Vec<String>,
    /// What to do about it.
    pub hint: Option<String>,
    /// The file concerned, when there is one.
    pub file: Option<String>,
    /// Its 1-based line.
    pub line: Option<u64>,
    /// The offending field (a JSON path, a policy rule).
    pub field: Option<String>,
}

impl Error {
    /// An error of `kind` with `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
            more: Vec::new(),
            hint: None,
            file: None,
            line: None,
            field: None,
        }
    }

    /// A usage or input error (exit 2).
    pub fn input(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Input, message)
    }

    /// The same error with a hint.
    pub fn hint(mut self, hint: impl Into<String>) -> Error {
        self.hint = Some(hint.into());
        self
    }

    /// The same error of another kind.
    pub fn kind(mut self, kind: ErrorKind) -> Error {
        self.kind = kind;
        self
    }

    /// Writing an output file or stream failed: the target, the I/O error and what to do.
    pub fn output(target: &str, e: &std::io::Error) -> Error {
        use std::io::ErrorKind as Io;
        let hint = match e.kind() {
            Io::StorageFull | Io::QuotaExceeded => {
                "free space on that device or write elsewhere; any file there is unchanged"
            }
            Io::BrokenPipe => "the reader of that pipe closed it before the report was written",
            Io::IsADirectory => "-o takes a file path, e.g. -o report.json",
            _ => "check that the directory exists and is writable; any file there is unchanged",
        };
        Error::new(
            ErrorKind::Output,
            format!("{target}: cannot write output: {e}"),
        )
        .hint(hint)
    }

    /// The exit code of this error (one place: [`ErrorKind::exit_code`]).
    pub fn exit_code(&self) -> u8 {
        self.kind.exit_code()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.message)
    }
}

impl std::error::Error for Error {}

impl From<TraceError> for Error {
    fn from(e: TraceError) -> Error {
        Error {
            kind: ErrorKind::Trace,
            message: e.to_string(),
            more: e.related.iter().map(ToString::to_string).collect(),
            hint: e.hint,
            file: Some(e.file),
            line: e.line,
            field: Some(e.field),
        }
    }
}

impl From<InputError> for Error {
    fn from(e: InputError) -> Error {
        Error {
            kind: ErrorKind::Input,
            message: e.message,
            more: Vec::new(),
            hint: Some(e.hint),
            file: e.file,
            line: e.line,
            field: e.field,
        }
    }
}

impl From<ExperimentError> for Error {
    fn from(e: ExperimentError) -> Error {
        let hint = e.hint.clone();
        Error {
            message: e.to_string(),
            hint,
            ..Error::input("")
        }
    }
}

impl From<PolicyError> for Error {
    /// The first problem as the message (its hint as the hint), the others as further lines.
    fn from(e: PolicyError) -> Error {
        let first = e.problems.first();
        let message = first.map_or_else(
            || e.file.clone(),
            |p| {
                let mut bare = p.clone();
                bare.hint = None;
                e.render(&bare)
            },
        );
        Error {
            kind: ErrorKind::Policy,
            message,
            more: e.lines().into_iter().skip(1).collect(),
            line: first.map(|p| p.line).filter(|&l| l > 0),
            field: first.and_then(|p| p.rule.clone()),
            hint: first.and_then(|p| p.hint.clone()),
            file: Some(e.file),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_map_to_exit_codes_and_python_classes_in_one_place() {
        assert_eq!(ErrorKind::Interrupted.exit_code(), 130);
        for k in [
            ErrorKind::Input,
            ErrorKind::Trace,
            ErrorKind::Policy,
            ErrorKind::Pricing,
            ErrorKind::Output,
            ErrorKind::Internal,
        ] {
            assert_eq!(k.exit_code(), 2, "{k:?}");
        }
        assert_eq!(ErrorKind::Trace.python_class(), "TraceError");
        assert_eq!(ErrorKind::Internal.python_class(), "VeerError");
        let e = Error::input("bad")
            .hint("do this")
            .kind(ErrorKind::Interrupted);
        assert_eq!((e.exit_code(), e.hint.as_deref()), (130, Some("do this")));
        assert_eq!(e.to_string(), "bad");
    }

    #[test]
    fn an_output_error_names_the_target() {
        let io = std::io::Error::new(std::io::ErrorKind::BrokenPipe, "broken pipe");
        let e = Error::output("report.json", &io);
        assert_eq!(e.kind, ErrorKind::Output);
        assert!(e.message.starts_with("report.json: cannot write output"));
        assert!(e.hint.as_deref().is_some_and(|h| h.contains("pipe")));
    }
}
