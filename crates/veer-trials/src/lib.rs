//! Statistics for repeated trials: agents are not deterministic, so a change must be
//! told from the agent's own run-to-run noise before a merge gate trips on it. This crate holds
//! the pure functions that do the telling — exact and permutation tests per case and per suite,
//! multiplicity adjustments, power and plans, flakiness, pass^k and the decision rules — with
//! no I/O and no dependency on other veer crates. The engine feeds it per-trial numbers and
//! pairwise distances and turns its results into the report's `trials` block and the gate.
//!
//! Methods, references and every decision: docs/internals/trials-method.md.

#![deny(missing_docs)]

mod axis;
mod divergence;
mod error;
mod flakiness;
mod multiplicity;
mod pass_k;
mod permutation;
mod power;
mod rates;
pub mod special;
mod suite;
mod suite_behaviour;
mod verdict;

pub use axis::{axis_case_test, AxisCaseTest};
pub use divergence::first_divergence;
pub use error::TrialsError;
pub(crate) use error::{MAX_POOLED_TRIALS_FOR_DISTANCES, MAX_TRIALS_PER_SIDE};
pub use flakiness::{is_behaviour_flaky, is_rate_flaky};
pub use multiplicity::{benjamini_hochberg, benjamini_hochberg_testable, holm};
pub use pass_k::pass_hat_k;
pub use permutation::{
    behaviour_min_attainable_p, behaviour_test, behaviour_trials_for_level, BehaviourTest,
    PairwiseDistances, PermutationOptions, WithinSpread, SEQUENTIAL_STOP,
};
pub use power::{mde_floor, minimum_detectable_effect, plan, PowerInputs, DEFAULT_POWER};
pub use rates::{
    balanced_trials_for_level, fisher_exact, mcnemar_exact, min_attainable_p,
    stratified_exact_test, Count, FisherTest, StratifiedMethod, StratifiedTest,
};
pub use suite::{
    case_differences, population_estimate, sign_flip_test, suite_permutation_test,
    variance_components, CaseSample, PopulationEstimate, SuitePermutationTest, VarianceComponents,
    DEFAULT_SUITE_DRAWS,
};
pub use suite_behaviour::{
    suite_behaviour_test, BehaviourCase, SuiteBehaviourTest, EXACT_SUPPORT_LIMIT,
};
pub use verdict::{
    case_verdict, is_deterministic_break, suite_decision, tost_p, welch, CaseDecision,
    CaseEvidence, MeanDifference, MeasureTest, Presence, SuiteDecision, SuiteTest, TrialWorseWhen,
};
