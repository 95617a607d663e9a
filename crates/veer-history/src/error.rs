//! The history store's one error type: a message naming the file, a hint, and what kind of
//! failure it was (so the CLI can say "corrupt" differently from "no such history").

use std::fmt;

/// What went wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HistoryErrorKind {
    /// The database file is missing (reading commands never create one).
    Missing,
    /// The file is not a SQLite database, or SQLite found it damaged.
    Corrupt,
    /// A SQLite database, but not one veer wrote (another application id or tables).
    NotHistory,
    /// Written by a newer veer: its schema version is past the ones this veer knows.
    Newer,
    /// The saved report could not be read as a `veer diff --format json` report.
    BadReport,
    /// Any other SQLite or I/O failure (locked past the busy timeout, disk full, …).
    Io,
}

/// An error of the history store: message (names the file and, for a report, the field),
/// hint, kind.
#[derive(Debug, Clone)]
pub struct HistoryError {
    /// What failed.
    pub kind: HistoryErrorKind,
    /// The message, naming the file.
    pub message: String,
    /// What to do about it.
    pub hint: String,
}

impl HistoryError {
    /// A new error.
    pub fn new(
        kind: HistoryErrorKind,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> Self {
        HistoryError {
            kind,
            message: message.into(),
            hint: hint.into(),
        }
    }

    /// A SQLite failure on the database at `path`, classified.
    pub fn sqlite(path: &str, e: &rusqlite::Error) -> Self {
        use rusqlite::ErrorCode;
        let code = e.sqlite_error_code();
        match code {
            Some(ErrorCode::NotADatabase) | Some(ErrorCode::DatabaseCorrupt) => HistoryError::new(
                HistoryErrorKind::Corrupt,
                format!("{path}: not a readable veer history database: {e}"),
                "the file is damaged or is not a SQLite database; veer never recreates it: move it \
                 aside (e.g. `mv history.sqlite history.sqlite.broken`) and the next `veer history \
                 add` starts a new one, or restore it from a backup",
            ),
            Some(ErrorCode::DatabaseBusy) | Some(ErrorCode::DatabaseLocked) => HistoryError::new(
                HistoryErrorKind::Io,
                format!("{path}: the history database stayed locked past the busy timeout: {e}"),
                "another veer process held the database for too long; run the command again",
            ),
            Some(ErrorCode::CannotOpen) => HistoryError::new(
                HistoryErrorKind::Io,
                format!("{path}: cannot open the history database: {e}"),
                "check that the directory exists and is writable",
            ),
            _ => HistoryError::new(
                HistoryErrorKind::Io,
                format!("{path}: history database error: {e}"),
                "check that the file is readable and writable and the disk is not full",
            ),
        }
    }
}

impl fmt::Display for HistoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for HistoryError {}
