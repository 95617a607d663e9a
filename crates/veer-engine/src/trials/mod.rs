//! Repeated trials (issue 28): a directory diff whose cases were each run several times is
//! compared case by case, so the gate tells a behaviour change from agent noise.
//!
//! - [`layout`]: which files are trials of which case;
//! - [`measure`]: each trial's per-axis numbers and the pairwise behaviour distances within a
//!   case (the existing measures, computed once per case);
//! - [`compose`]: the per-case tests and verdicts, the suite-level tests and the `trials`
//!   block of the report;
//! - [`gate`]: what trips the gate when the report has trials.
//!
//! The statistics themselves live in the `veer-trials` crate (pure functions); this module only
//! feeds them the measures and turns their answers into verdicts.

pub mod layout;
