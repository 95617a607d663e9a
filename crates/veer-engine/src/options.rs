//! The knobs of a composed diff: the behaviour measure's own options plus the policy the
//! composer evaluates on both sides. `veer-diff` never sees the policy (no measure depends on
//! another), so the two are joined here, where the measures are composed.

use std::ops::{Deref, DerefMut};
use std::sync::Arc;
use veer_policy::Policy;

/// The behaviour measure's knobs, named here so a front end sets them without depending on
/// `veer-diff`: the options themselves, the fingerprint test's (per-feature scales),
/// the pricing table, and the default cap on alignment work (cells). How turns are paired is
/// veer-contract's `divergence::PairBy`.
pub use veer_diff::{BehaviourOptions, FingerprintOptions, Pricing, DEFAULT_MAX_ALIGN_CELLS};

/// Options of one pair or directory diff. Reads and writes of the behaviour knobs (`seed`,
/// `top_k`, `pair_by`, `pricing`, `max_align_cells`, `fingerprint`, `lanes`) go straight to
/// [`DiffOptions::behaviour`] through `Deref`.
#[derive(Debug, Clone, Default)]
pub struct DiffOptions {
    /// What the behaviour measure reads.
    pub behaviour: BehaviourOptions,
    /// A behaviour policy evaluated on both sides (its regressions feed the gate). None → no
    /// `policy` block.
    pub policy: Option<Arc<Policy>>,
    /// Where the traces the policy runs on are watched for rules that can never fire (set by
    /// `run` with a policy; None → not watched).
    pub coverage: Option<crate::policy::SharedCoverage>,
    /// The tool-schema gate's threshold (`--fail-on-schema`): changes of the offered tools at
    /// or above this class trip the gate (docs/tool-schema.md). None → the schema block is
    /// shown but never gates.
    pub fail_on_schema: Option<veer_contract::tool_schema::SchemaClass>,
}

impl Deref for DiffOptions {
    type Target = BehaviourOptions;

    fn deref(&self) -> &BehaviourOptions {
        &self.behaviour
    }
}

impl DerefMut for DiffOptions {
    fn deref_mut(&mut self) -> &mut BehaviourOptions {
        &mut self.behaviour
    }
}
