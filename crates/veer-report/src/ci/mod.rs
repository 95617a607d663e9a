//! Printers for CI systems: SARIF 2.1.0 ([`sarif`]) and GitHub Actions workflow commands
//! ([`github`]). Both show the same [`findings`]: policy regressions (diff) or violations
//! (check), and severe behaviour axes, each located at the candidate trace file and the line
//! of its record.

pub mod findings;
pub mod github;
pub mod sarif;

pub use findings::{check_findings, diff_findings, directory_findings, Finding, FindingLevel};
