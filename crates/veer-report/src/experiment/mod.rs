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
pub mod perturb;
pub mod summary;
pub mod terminal;

pub use perturb::ExperimentPerturbFormat;

use crate::printer::{OutputFormat, Printer};
use crate::style::Style;
use veer_contract::experiment::{ExperimentReport, PairReport};

/// Formats `veer experiment pair` offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum ExperimentPairFormat {
    /// A short human summary.
    Terminal,
    /// JSON: traxr's divergence report keys plus the pair result (`veer schema
    /// experiment-pair`).
    Json,
    /// One self-contained HTML page (inline CSS, JS and SVG; opens from disk, readable with
    /// JavaScript off), with the event alignment.
    Html,
}

impl OutputFormat<PairReport> for ExperimentPairFormat {
    fn printer(self, style: Style) -> Box<dyn Printer<PairReport>> {
        match self {
            ExperimentPairFormat::Terminal => {
                Box::new(move |r: &PairReport| terminal::render_pair(r, style))
            }
            ExperimentPairFormat::Json => Box::new(|r: &PairReport| crate::json::to_json(r)),
            ExperimentPairFormat::Html => Box::new(crate::html::experiment::render_pair),
        }
    }
}

/// Formats `veer experiment analyze` offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum ExperimentAnalyzeFormat {
    /// The summary, then tables of the pairs and the aggregates.
    Terminal,
    /// traxr's results JSON layout (sorted keys, every run's trace included; `veer schema
    /// experiment-analyze`).
    Json,
    /// A Markdown report.
    Markdown,
    /// One row per pair.
    Csv,
    /// One self-contained HTML page (inline CSS, JS and SVG; opens from disk, readable with
    /// JavaScript off).
    Html,
}

impl OutputFormat<ExperimentReport> for ExperimentAnalyzeFormat {
    fn printer(self, style: Style) -> Box<dyn Printer<ExperimentReport>> {
        match self {
            ExperimentAnalyzeFormat::Terminal => {
                Box::new(move |r: &ExperimentReport| terminal::render_experiment(r, style))
            }
            ExperimentAnalyzeFormat::Json => Box::new(json::render),
            ExperimentAnalyzeFormat::Markdown => Box::new(markdown::render),
            ExperimentAnalyzeFormat::Csv => Box::new(csv::render),
            ExperimentAnalyzeFormat::Html => Box::new(crate::html::experiment::render),
        }
    }
}
