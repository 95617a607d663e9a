//! The Python package's errors are the engine's one error type ([`veer_engine::Error`]), built
//! from each library error with the same message, file, line, field and hint the CLI shows. The
//! Python side turns it into the `veer.VeerError` subclass its kind names, chosen in one place
//! ([`veer_engine::ErrorKind::python_class`]).

pub use veer_engine::{Error as ApiError, ErrorKind};

/// A bad argument or an input that cannot be used, with a hint.
pub fn input(message: impl Into<String>, hint: impl Into<String>) -> ApiError {
    ApiError::input(message).hint(hint)
}

/// The error with every secret in its message, file name, field, hint and further lines
/// redacted, as the CLI prints it: a message that quotes a field's value must not carry an API
/// key into a traceback or a log.
pub fn redacted(e: ApiError) -> ApiError {
    let detector = crate::api::redactor(true);
    let r = |s: String| match detector {
        Some(d) => d.redact(&s).into_owned(),
        None => s,
    };
    ApiError {
        kind: e.kind,
        message: r(e.message),
        file: e.file.map(r),
        line: e.line,
        field: e.field.map(r),
        hint: e.hint.map(r),
        more: e.more.into_iter().map(r).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_raised_error_carries_no_secret() {
        let key = "sk-proj-abcdefghijklmnopqrstuvwxyz012345";
        let mut e = input(format!("unknown version {key:?}"), format!("not {key}"));
        e.more = vec![format!("also {key}")];
        e.field = Some(format!("meta.{key}"));
        let r = redacted(e);
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
