//! The one error the Python package raises, built from each library error with the same
//! message, file, line, field and hint the CLI shows (the CLI's `CliError` carries the same
//! text). The Python side turns it into a `veer.VeerError` subclass chosen by [`ErrorKind`].

use veer_diff::inputs::InputError;
use veer_policy::PolicyError;
use veer_trace::TraceError;

/// Which `veer.VeerError` subclass an error becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// A trace that cannot be read (`veer.TraceError`).
    Trace,
    /// A policy file that cannot be loaded (`veer.PolicyError`).
    Policy,
    /// A pricing file that cannot be used (`veer.PricingError`).
    Pricing,
    /// Inputs that cannot be compared or a bad argument (`veer.InputError`).
    Input,
}

impl ErrorKind {
    /// The Python subclass's name.
    pub fn class_name(self) -> &'static str {
        match self {
            ErrorKind::Trace => "TraceError",
            ErrorKind::Policy => "PolicyError",
            ErrorKind::Pricing => "PricingError",
            ErrorKind::Input => "InputError",
        }
    }
}

/// An error for Python: `message` is the line the CLI prints after `error: `.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The subclass to raise.
    pub kind: ErrorKind,
    /// The message, naming file, line and field where there are some.
    pub message: String,
    /// The file concerned.
    pub file: Option<String>,
    /// Its 1-based line.
    pub line: Option<u64>,
    /// The offending field.
    pub field: Option<String>,
    /// What to do about it.
    pub hint: Option<String>,
    /// Further problems of the same kind (strict mode, a policy with several problems).
    pub more: Vec<String>,
}

impl ApiError {
    /// A bad argument or an input that cannot be used, with a hint.
    pub fn input(message: impl Into<String>, hint: impl Into<String>) -> ApiError {
        ApiError {
            kind: ErrorKind::Input,
            message: message.into(),
            file: None,
            line: None,
            field: None,
            hint: Some(hint.into()),
            more: Vec::new(),
        }
    }
}

impl From<TraceError> for ApiError {
    fn from(e: TraceError) -> ApiError {
        ApiError {
            kind: ErrorKind::Trace,
            message: e.to_string(),
            more: e.related.iter().map(ToString::to_string).collect(),
            file: Some(e.file),
            line: e.line,
            field: Some(e.field),
            hint: e.hint,
        }
    }
}

impl From<PolicyError> for ApiError {
    fn from(e: PolicyError) -> ApiError {
        let first = e.problems.first();
        // The CLI's first line without its hint line: the hint is its own attribute.
        let message = first.map_or_else(
            || e.file.clone(),
            |p| {
                let mut bare = p.clone();
                bare.hint = None;
                e.render(&bare)
            },
        );
        ApiError {
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

impl From<InputError> for ApiError {
    fn from(e: InputError) -> ApiError {
        ApiError {
            kind: ErrorKind::Input,
            message: e.message,
            file: e.file,
            line: e.line,
            field: e.field,
            hint: Some(e.hint),
            more: Vec::new(),
        }
    }
}
