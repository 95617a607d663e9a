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

impl ApiError {
    /// The error with every secret in its message, file name, field, hint and further lines
    /// redacted, as the CLI prints it: a message that quotes a field's value must not carry an
    /// API key into a traceback or a log.
    pub fn redacted(self) -> ApiError {
        let r = |s: String| veer_secrets::display::redact(&s).into_owned();
        ApiError {
            kind: self.kind,
            message: r(self.message),
            file: self.file.map(r),
            line: self.line,
            field: self.field.map(r),
            hint: self.hint.map(r),
            more: self.more.into_iter().map(r).collect(),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_raised_error_carries_no_secret() {
        let key = "sk-proj-abcdefghijklmnopqrstuvwxyz012345";
        let mut e = ApiError::input(format!("unknown version {key:?}"), format!("not {key}"));
        e.more = vec![format!("also {key}")];
        e.field = Some(format!("meta.{key}"));
        let r = e.redacted();
        for text in [
            &r.message,
            r.hint.as_ref().unwrap(),
            &r.more[0],
            r.field.as_ref().unwrap(),
        ] {
            assert!(!text.contains(key), "{text}");
            assert!(text.contains("[REDACTED:openai_api_key]"), "{text}");
        }
    }
}
