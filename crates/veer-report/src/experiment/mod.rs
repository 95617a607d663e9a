//! Printers for `veer experiment pair` and `veer experiment analyze` (spec `experiment.md` §6,
//! §10, §11): the summary text, terminal tables, Markdown, CSV and traxr's JSON layout.
//!
//! They exist apart from the measuring crate (`veer-experiment`) so that the numbers are
//! computed once, there, and only formatted here: every printer is a pure function from
//! [`veer_contract::experiment::PairReport`] or [`veer_contract::experiment::ExperimentReport`] to a `String`.

pub(crate) mod cells;
pub mod csv;
pub mod json;
pub mod markdown;
pub mod summary;
pub mod terminal;
