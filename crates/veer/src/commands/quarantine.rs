//! The quarantine file for the commands that write it (`veer history flaky --write`): its text
//! read and today's date, as the engine reads them for the gate (`veer_engine::quarantine`).

use crate::error::CliError;
use std::path::Path;
use veer_engine::quarantine::Day;

/// Today (UTC) as a calendar day (`SOURCE_DATE_EPOCH` is not consulted: expiry is about the
/// real date).
pub fn today() -> Day {
    veer_engine::quarantine::today()
}

/// Reads the quarantine file at `path`: None when it does not exist.
pub fn read_text(path: &Path) -> Result<Option<String>, CliError> {
    veer_engine::quarantine::read_text(path)
}
