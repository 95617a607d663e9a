//! What `veer plan DIR --mde X` writes: how many cases and trials a suite needs to detect a
//! change of X on an axis, from one side's repeated trials. The numbers come from
//! `veer-trials` (the inversion) and `veer-engine` (the directory's noise); printers format them.

use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// What more trials can do at the current number of cases.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "answer", rename_all = "snake_case")]
pub enum TrialsAnswer {
    /// The target is already met at the current trials.
    AlreadyMet,
    /// This many trials a side (balanced) reach the target.
    Trials {
        /// Trials per side.
        per_side: u64,
    },
    /// More trials cannot reach it (the floor is above the target): add cases.
    AddCases,
}

/// The `plan` answer for one axis and target MDE.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Plan {
    /// The target MDE, > 0.
    pub target: f64,
    /// Two-sided α, in (0, 1).
    pub alpha: f64,
    /// Power, in (0, 1).
    pub power: f64,
    /// Trials per side assumed for `cases_needed`.
    pub baseline_trials: f64,
    /// Likewise.
    pub candidate_trials: f64,
    /// Current cases.
    pub cases: u64,
    /// The MDE now, ≥ 0.
    pub current_mde: f64,
    /// The floor at the current cases, ≥ 0.
    pub floor: f64,
    /// Cases needed at the given trials (None past `PLAN_LIMIT`).
    pub cases_needed: Option<u64>,
    /// What more trials can do at the current cases.
    pub trials: TrialsAnswer,
}

/// The plan of one axis for a directory of trials.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TrialsPlan {
    /// The axis (`latency`, `output_tokens`, `tool_calls`, `turns`).
    pub axis: Cow<'static, str>,
    /// Its unit (`ms`, `tokens`, `calls`, `turns`).
    pub unit: Cow<'static, str>,
    /// Cases found (≥ 0).
    pub cases: usize,
    /// Cases with two or more readable trials (those that tell the noise).
    pub cases_with_noise: usize,
    /// Trials per case (harmonic mean over cases), ≥ 1.
    pub trials_per_case: f64,
    /// Mean within-case variance σ² of a trial on this axis (units²).
    pub within_variance: f64,
    /// Files that could not be read or had no response (left out).
    pub unreadable: usize,
    /// The inversion: current MDE, floor, cases needed, what more trials do.
    pub plan: Plan,
}
