//! Trace-level contamination metrics for perturbation experiments, with traxr parity (spec
//! `experiment.md`).
//!
//! A trace becomes a list of events ([`events`]), each event a structural signature
//! ([`signatures`]); two signature lists give the edit distance and its alignment
//! (`veer_base::edit_script`), the aligned pairs give t* and t*/T ([`tstar`]) and the control-flow
//! changes ([`control_flow`]). Pair results add answers ([`answers`]), token overhead
//! (`token_overhead`), the manifestation (`manifestation`) and the noise floor
//! (`noise_floor`); [`results`] re-derives whole experiments. Everything here is a pure
//! function of the traces: no I/O, no printing.

pub(crate) mod aggregates;
pub mod answers;
pub(crate) mod bitparallel;
pub(crate) mod classify;
pub mod control_flow;
pub(crate) mod diagonal;
pub mod divergence;
pub mod events;
pub(crate) mod export;
pub(crate) mod manifestation;
pub mod noise;
pub(crate) mod noise_floor;
pub(crate) mod pair;
pub mod pair_report;
pub mod results;
pub mod signatures;
pub mod status;
pub(crate) mod structural;
pub(crate) mod token_overhead;
pub mod tstar;

#[cfg(test)]
mod budget_tests;
#[cfg(test)]
mod events_proptests;
#[cfg(test)]
mod parity_tests;
#[cfg(test)]
mod proptests;
#[cfg(test)]
mod spec_cases;

pub use divergence::{analyze, PreparedTrace};
pub use pair_report::{pair_report, PairOptions};
pub use results::{from_traces, from_traxr_results, ExperimentError};
pub use structural::{structural, structural_within};
