//! The `veer scan --format json` document: where secrets were found (file, line, column,
//! kind — never the secret itself) and the paths that could not be scanned.

use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// One finding with its file.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FileFinding {
    /// The file, as given or found under a directory given.
    pub file: String,
    /// 1-based line of the finding.
    pub line: u64,
    /// 1-based column (in characters) where the secret starts.
    pub column: u64,
    /// The kind of secret (the pattern's name); never the secret itself.
    pub kind: String,
}

/// A path that could not be scanned: an error row.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ScanError {
    /// The path that could not be scanned.
    pub file: String,
    /// What went wrong.
    pub error: String,
    /// What to do about it.
    pub hint: Option<String>,
}

impl ScanError {
    /// An error row for `file` with a hint.
    pub fn new(file: &std::path::Path, error: String, hint: &str) -> ScanError {
        ScanError {
            file: file.display().to_string(),
            error,
            hint: Some(hint.to_string()),
        }
    }
}

/// The scan report.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ScanReport {
    /// JSON schema version (`veer_report::SCHEMA_VERSION`, "1").
    pub schema_version: Cow<'static, str>,
    /// Files read.
    pub files_scanned: usize,
    /// Every finding, in file then line order.
    pub findings: Vec<FileFinding>,
    /// Paths that could not be scanned.
    pub errors: Vec<ScanError>,
}
