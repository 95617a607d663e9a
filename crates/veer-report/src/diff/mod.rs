//! Printers for `veer diff`: terminal, Markdown (a pull-request comment) and JUnit XML, for one
//! trace pair ([`veer_contract::diff::DiffReport`]) or a directory diff ([`veer_contract::diff::DirectoryReport`]).
//! JSON goes through [`crate::json::to_json`]. Printers only format numbers the report holds.

pub mod explain;
pub(crate) mod fingerprint;
pub(crate) mod format;
pub mod junit;
pub mod markdown;
pub(crate) mod meaning;
pub mod output;
pub(crate) mod quarantine;
pub mod stream;
pub mod terminal;
pub mod tool_schema;
pub mod trials;

/// How many ranked divergences the terminal and Markdown printers show (JSON has all).
pub(crate) const SHOWN_DIVERGENCES: usize = 3;
