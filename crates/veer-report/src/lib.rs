//! veer's reports and printers.
//!
//! A report is a plain serde struct holding numbers already computed by a measure; a printer
//! turns it into text for one format. Printers never compute a number (spec ARCHITECTURE).

pub mod baseline;
pub mod bisect;
pub mod config;
pub mod diff;
pub mod eval;
pub mod experiment;
pub mod findings;
pub mod github;
pub mod gitlab;
pub mod history;
pub mod html;
pub mod inspect;
pub mod json;
pub mod mine;
pub mod plan;
pub mod policy;
pub mod printer;
pub mod replay;
pub mod sarif;
pub mod scan;
pub mod style;
pub mod text;

/// Version of every JSON report schema veer writes (`schema_version`).
pub const SCHEMA_VERSION: &str = "1";
