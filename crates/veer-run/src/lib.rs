//! The plan and bookkeeping of `veer experiment run` (spec `experiment.md` §10, §11, §13.6):
//! which runs an experiment has (the clean baseline, N clean re-runs, one run per applicable
//! operator with the seed `veer experiment perturb` uses), where each run's files go inside the
//! experiment directory, what a finished run's marker holds and when it can be reused, a run's
//! answer and status, and how the finished runs become a traxr results file measured by
//! [`from_traxr_results`](veer_experiment::results::from_traxr_results) — the same function
//! `veer experiment analyze` runs on that file, so both derive the same pairs.
//!
//! It also holds the plan of `veer eval` ([`eval`]): its cases, one slot per case and trial,
//! resume decisions and the summary, because an eval's trials are kept like an experiment's
//! runs (the same finished-run markers).
//!
//! Everything here is pure: the CLI reads and writes the files and runs the agents. (A crate of
//! its own because it joins the operators of `veer-perturb` and the metrics of
//! `veer-experiment`, and `veer-perturb` already depends on the metrics side.)

#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

pub mod eval;
#[doc(hidden)]
pub mod fuzzing;

mod results_file;
mod run_marker;
mod run_plan;

pub use results_file::{results, FinishedRun, ResultsOptions};
pub use run_marker::{answer_from_file, answer_from_stdout, status, Exit, RunMarker};
pub use run_plan::{plan, sha256_hex, PlannedRun, RunPlan, RunRole, SkippedOperator};

#[cfg(test)]
mod tests;
