//! Errors and warnings raised while reading traces.
//!
//! Every problem names the file, the line (or traxr JSON path) and the field, so a user can go
//! straight to it: `<file>:<line>: <field>: <message>`, optionally followed by a hint.

use std::fmt;

/// A trace that could not be read. Displays as `<file>:<line>: <field>: <message>`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct TraceError {
    /// The file (as given by the user).
    pub file: String,
    /// 1-based physical line, when the problem has one.
    pub line: Option<u64>,
    /// The offending field: `id`, `payload.usage`, `(line)`, `(file)`, or a traxr JSON path.
    pub field: String,
    /// What is wrong, in plain words.
    pub message: String,
    /// What the user can do about it.
    pub hint: Option<String>,
    /// Further failures found in the same file (strict mode names every one).
    pub related: Vec<TraceError>,
}

impl TraceError {
    /// A new error at `file:line` about `field`.
    pub fn new(
        file: impl Into<String>,
        line: Option<u64>,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        TraceError {
            file: file.into(),
            line,
            field: field.into(),
            message: message.into(),
            hint: None,
            related: Vec::new(),
        }
    }

    /// The same error with a hint attached.
    pub(crate) fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_location(f, &self.file, self.line)?;
        write!(f, ": {}: {}", self.field, self.message)
    }
}

/// Something worth telling the user that does not stop the read.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct Warning {
    /// The file (as given by the user).
    pub file: String,
    /// 1-based line of the first occurrence, when there is one.
    pub line: Option<u64>,
    /// The field concerned.
    pub field: String,
    /// What was noticed and what veer did about it.
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_location(f, &self.file, self.line)?;
        write!(f, ": {}: {}", self.field, self.message)
    }
}

fn write_location(f: &mut fmt::Formatter<'_>, file: &str, line: Option<u64>) -> fmt::Result {
    match line {
        Some(l) => write!(f, "{file}:{l}"),
        None => write!(f, "{file}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_file_line_field() {
        let e = TraceError::new("a.agentlog", Some(3), "payload.usage", "must be an object");
        assert_eq!(
            e.to_string(),
            "a.agentlog:3: payload.usage: must be an object"
        );
        let e = TraceError::new("a.agentlog", None, "(file)", "empty trace: no records");
        assert_eq!(e.to_string(), "a.agentlog: (file): empty trace: no records");
    }
}
