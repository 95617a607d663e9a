//! `veer eval --format json`: the summary of one eval loop — every case run for a number of
//! trials through the recording proxy into `OUT/CASE/trial-N.agentlog`. Plain serde data;
//! printers format it and never compute a number.

use serde::{Deserialize, Serialize};

/// The `schema_version` of an eval summary.
pub const EVAL_SCHEMA_VERSION: &str = "1";

/// The summary of one `veer eval` invocation.
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalReport {
    /// Layout version of this document (`"1"`).
    pub schema_version: String,
    /// The output directory as given (`--out`).
    pub out: String,
    /// Where the cases came from (`--cases`) as given.
    pub cases_from: String,
    /// Trials asked for per case (≥ 1).
    pub trials: u32,
    /// Trials run by this invocation (finished, failed ones included).
    pub done: u32,
    /// Trials an earlier invocation had finished under the same settings (reused, not rerun).
    pub skipped: u32,
    /// Trials that failed — this invocation's and the reused ones: a non-zero exit, a time-out,
    /// no trace, or a trace that cannot be read. Their trace file holds no model response, so
    /// `veer diff` reads their case as `failed`.
    pub failed: u32,
    /// Wall-clock seconds this invocation spent running agents (≥ 0).
    pub seconds: f64,
    /// Every case, in the order of the cases file or directory.
    pub cases: Vec<EvalCaseEntry>,
}

/// One case of the summary.
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalCaseEntry {
    /// The case name (also its directory under `--out`).
    pub case: String,
    /// Its trials, in trial order (1-based numbers).
    pub trials: Vec<EvalTrialEntry>,
}

/// One trial of a case.
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalTrialEntry {
    /// The trial number (1-based).
    pub trial: u32,
    /// How it ended.
    pub status: EvalTrialStatus,
    /// Its trace file, relative to `--out` (`CASE/trial-N.agentlog`).
    pub trace: String,
    /// Whether an earlier invocation had finished it (reused, not rerun).
    pub reused: bool,
    /// What went wrong, one line each (exit code, time-out, no trace, unreadable trace).
    pub problems: Vec<String>,
}

/// How one trial ended.
#[derive(schemars::JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EvalTrialStatus {
    /// The agent exited 0 and its trace was read.
    Ok,
    /// It failed (see the trial's `problems`).
    Failed,
}
