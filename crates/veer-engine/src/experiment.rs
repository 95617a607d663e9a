//! `veer experiment pair` and `veer experiment analyze` composed: the pair report of a clean
//! and a perturbed run (with clean re-runs for the noise floor), and the whole experiment's
//! report from its traces or from traxr's results file. The binary and the Python package call
//! these and name the inputs through this module, so neither depends on `veer-experiment`.

pub mod layout;

use crate::Error;
use veer_contract::experiment::{ExperimentReport, PairReport};
use veer_trace::traxr::ExperimentResults;
use veer_trace::Trace;

/// The pair report's options; one run of an experiment directory; a whole experiment read
/// from traces; whether the agent was veer's scripted one or external.
pub use veer_experiment::results::{RunInput, TraceExperiment};
pub use veer_experiment::status::AgentKind;
pub use veer_experiment::PairOptions;

/// The pair report of `clean` against `perturbed`, with `reruns` (clean re-runs) measuring
/// the noise floor when there are any.
pub fn pair_report(
    clean: &Trace,
    perturbed: &Trace,
    reruns: &[Trace],
    options: &PairOptions,
) -> PairReport {
    veer_experiment::pair_report(clean, perturbed, reruns, options)
}

/// The experiment report of a directory of traces (`veer experiment analyze DIR`); an input
/// error (file, field, hint) when it cannot be analysed, e.g. no perturbed run.
pub fn analyze_traces(experiment: &TraceExperiment) -> Result<ExperimentReport, Error> {
    Ok(veer_experiment::from_traces(experiment)?)
}

/// The experiment report of traxr's results file `source`, already parsed into `results`;
/// `include_traces` and `include_alignment` add the per-run traces and event alignments.
pub fn analyze_traxr_results(
    source: &str,
    results: &ExperimentResults,
    include_traces: bool,
    include_alignment: bool,
) -> Result<ExperimentReport, Error> {
    Ok(veer_experiment::from_traxr_results(
        source,
        results,
        include_traces,
        include_alignment,
    )?)
}
