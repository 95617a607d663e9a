//! The printers of the history documents — `veer history show` (trends with sparklines),
//! `drift` (the CUSUM detector's table), `flaky` (flaky cases and proposed quarantine entries)
//! and `report` (one HTML page) — and their output-format types. Each printer lays out a
//! document veer-contract defines and the binary filled; none computes a statistic or decides.

pub mod drift;
pub mod flaky;
pub mod html;
pub mod show;
mod spark;

/// Output formats of `veer baseline` and `veer history show`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum StandingFormat {
    /// Text for a terminal (sparklines in Unicode on a terminal, ASCII otherwise).
    Terminal,
    /// JSON (deterministic: the same store gives the same bytes).
    Json,
}

/// Formats of `veer history drift`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum DriftFormat {
    /// A table for a terminal.
    #[cfg_attr(feature = "cli", value(alias = "terminal"))]
    Text,
    /// JSON (deterministic: the same history gives the same bytes).
    Json,
    /// A Markdown table (for a job summary or a PR comment).
    Markdown,
}

/// Formats of `veer history report`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum ReportFormat {
    /// One self-contained HTML page.
    Html,
}

/// `value` as pretty JSON with a final newline (every history document's `--format json`).
pub(crate) fn pretty_json<T: serde::Serialize + ?Sized>(value: &T) -> String {
    format!(
        "{}\n",
        serde_json::to_string_pretty(value).unwrap_or_default()
    )
}

/// The first `n` characters' bytes of `s` (`s` itself when shorter): a date's day, a commit's
/// short form.
pub(crate) fn head(s: &str, n: usize) -> &str {
    &s[..s.len().min(n)]
}
