//! veer's history: the summary of every comparison a team ran, kept in one SQLite file
//! (`.veer/history.sqlite` by default), so trends over commits — slow drift a pairwise diff
//! misses, a case that keeps flipping — can be seen and queried (docs/history.md).
//!
//! - [`summary`] reads a saved `veer diff --format json` report (pair or directory) into the
//!   few numbers history keeps: per axis the worst level and the delta, per policy rule the
//!   counts, per case the verdict, the gate. It reads only those fields, tolerant of any other.
//! - [`store`] opens the database (WAL, a busy timeout, versioned migrations), adds entries
//!   in one immediate transaction each (safe with parallel CI jobs writing at once) and reads
//!   them back filtered. A file that is not a veer history, or is corrupt, is an error with a
//!   hint — never silently recreated.
//! - [`trend`] turns entries into per-axis and per-case series (pure).

pub mod drift;
pub mod error;
pub mod flaky;
mod migrations;
pub mod parquet_export;
pub mod store;
pub mod summary;
pub mod trend;

pub use error::{HistoryError, HistoryErrorKind};
pub use store::{Entry, Filter, History, Provenance};
pub use summary::{
    CaseSummary, ComparisonAxis, ComparisonAxisName, ComparisonSummary, GateSummary, RuleSummary,
};
