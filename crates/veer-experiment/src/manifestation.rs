//! The manifestation taxonomy: how a perturbation showed up in a pair, eight categories plus a
//! fallback, in four groups (spec `experiment.md` §9).

use serde::{Deserialize, Serialize};

/// A fine manifestation category. Declaration order is traxr's `FINE_CATEGORIES`.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Manifestation {
    /// Null answer alongside an early stop or large trace divergence.
    CatastrophicFailure,
    /// The perturbed run finished before the baseline did.
    EarlyTermination,
    /// The perturbed run ran longer, with extra control-flow changes.
    LoopOrExtendedExecution,
    /// The answer changed while the trace looked unchanged.
    SilentSemanticCorruption,
    /// The agent routed to a different agent at some aligned step.
    StrategyReroute,
    /// The trace diverged and the answer changed.
    StructuralDivergenceWithOutcomeChange,
    /// The trace diverged but the answer was unchanged.
    StructuralDivergenceRecovered,
    /// No change in either the trace or the answer.
    NoObservableEffect,
    /// The answer changed with no structural signal to explain it.
    OutcomeChangeUncategorized,
}

/// A manifestation group. Declaration order is traxr's `MANIFESTATION_GROUPS`.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ManifestationGroup {
    /// Silent semantic corruption and unexplained outcome changes.
    SilentCorruption,
    /// Loops, reroutes and structural divergence.
    BehavioralDetours,
    /// Catastrophic failure and early termination.
    CombinedDisruption,
    /// Nothing observable.
    NoObservableEffect,
}

impl Manifestation {
    /// Every category, in `FINE_CATEGORIES` order.
    pub const ALL: [Manifestation; 9] = [
        Manifestation::CatastrophicFailure,
        Manifestation::EarlyTermination,
        Manifestation::LoopOrExtendedExecution,
        Manifestation::SilentSemanticCorruption,
        Manifestation::StrategyReroute,
        Manifestation::StructuralDivergenceWithOutcomeChange,
        Manifestation::StructuralDivergenceRecovered,
        Manifestation::NoObservableEffect,
        Manifestation::OutcomeChangeUncategorized,
    ];

    /// The snake_case name traxr uses.
    pub fn name(self) -> &'static str {
        match self {
            Manifestation::CatastrophicFailure => "catastrophic_failure",
            Manifestation::EarlyTermination => "early_termination",
            Manifestation::LoopOrExtendedExecution => "loop_or_extended_execution",
            Manifestation::SilentSemanticCorruption => "silent_semantic_corruption",
            Manifestation::StrategyReroute => "strategy_reroute",
            Manifestation::StructuralDivergenceWithOutcomeChange => {
                "structural_divergence_with_outcome_change"
            }
            Manifestation::StructuralDivergenceRecovered => "structural_divergence_recovered",
            Manifestation::NoObservableEffect => "no_observable_effect",
            Manifestation::OutcomeChangeUncategorized => "outcome_change_uncategorized",
        }
    }

    /// The category named `name`; `None` for an unknown name (traxr raises `ValueError`).
    pub fn from_name(name: &str) -> Option<Manifestation> {
        Manifestation::ALL.into_iter().find(|m| m.name() == name)
    }

    /// The legend line used in reports (`MANIFESTATION_DESCRIPTIONS`).
    pub fn description(self) -> &'static str {
        match self {
            Manifestation::CatastrophicFailure => {
                "Null answer alongside an early stop or large trace divergence."
            }
            Manifestation::EarlyTermination => {
                "The perturbed run finished before the baseline did."
            }
            Manifestation::LoopOrExtendedExecution => {
                "The perturbed run ran longer, with extra control-flow changes."
            }
            Manifestation::SilentSemanticCorruption => {
                "The answer changed while the trace looked unchanged."
            }
            Manifestation::StrategyReroute => {
                "The agent routed to a different agent at some aligned step."
            }
            Manifestation::StructuralDivergenceWithOutcomeChange => {
                "The trace diverged and the answer changed."
            }
            Manifestation::StructuralDivergenceRecovered => {
                "The trace diverged but the answer was unchanged."
            }
            Manifestation::NoObservableEffect => "No change in either the trace or the answer.",
            Manifestation::OutcomeChangeUncategorized => {
                "The answer changed with no structural signal to explain it."
            }
        }
    }

    /// The group this category belongs to.
    pub fn group(self) -> ManifestationGroup {
        match self {
            Manifestation::CatastrophicFailure | Manifestation::EarlyTermination => {
                ManifestationGroup::CombinedDisruption
            }
            Manifestation::LoopOrExtendedExecution
            | Manifestation::StrategyReroute
            | Manifestation::StructuralDivergenceWithOutcomeChange
            | Manifestation::StructuralDivergenceRecovered => ManifestationGroup::BehavioralDetours,
            Manifestation::SilentSemanticCorruption | Manifestation::OutcomeChangeUncategorized => {
                ManifestationGroup::SilentCorruption
            }
            Manifestation::NoObservableEffect => ManifestationGroup::NoObservableEffect,
        }
    }
}

impl ManifestationGroup {
    /// Every group, in `MANIFESTATION_GROUPS` order.
    pub const ALL: [ManifestationGroup; 4] = [
        ManifestationGroup::SilentCorruption,
        ManifestationGroup::BehavioralDetours,
        ManifestationGroup::CombinedDisruption,
        ManifestationGroup::NoObservableEffect,
    ];

    /// The snake_case name traxr uses.
    pub fn name(self) -> &'static str {
        match self {
            ManifestationGroup::SilentCorruption => "silent_corruption",
            ManifestationGroup::BehavioralDetours => "behavioral_detours",
            ManifestationGroup::CombinedDisruption => "combined_disruption",
            ManifestationGroup::NoObservableEffect => "no_observable_effect",
        }
    }
}

/// The group of a category given by name; an error for an unknown name.
pub fn to_manifestation_group(name: &str) -> Result<ManifestationGroup, String> {
    Manifestation::from_name(name)
        .map(Manifestation::group)
        .ok_or_else(|| format!("unknown manifestation category: {name:?}"))
}

/// The inputs of the classification (traxr `PairMetrics`); `Default` gives traxr's defaults.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PairMetrics {
    /// Pair-level `answer_changed` (§7).
    pub answer_changed: bool,
    /// The perturbed answer normalises to `""`.
    pub perturbed_answer_is_null: bool,
    /// Control-flow `early_termination`.
    pub early_termination: bool,
    /// Control-flow `extended_execution`.
    pub extended_execution: bool,
    /// Control-flow `reroutes`; ≥ 0.
    pub reroutes: usize,
    /// Control-flow `total_changes`; ≥ 0.
    pub total_changes: usize,
    /// Unrounded d_norm in [0, 1]; `None` (or NaN) = unavailable.
    pub edit_distance_normalized: Option<f64>,
}

/// Classifies a pair: the first rule that fires wins (§9.2).
pub fn classify(m: &PairMetrics) -> Manifestation {
    let edn = m.edit_distance_normalized.filter(|x| !x.is_nan());
    let edn_at_least = |t: f64| edn.is_some_and(|x| x >= t);
    if m.perturbed_answer_is_null && (m.early_termination || edn_at_least(0.5)) {
        return Manifestation::CatastrophicFailure;
    }
    if m.early_termination {
        return Manifestation::EarlyTermination;
    }
    if m.extended_execution && (m.total_changes >= 3 || edn_at_least(0.2)) {
        return Manifestation::LoopOrExtendedExecution;
    }
    if m.answer_changed && edn.is_some_and(|x| x <= 1e-9) && m.total_changes == 0 {
        return Manifestation::SilentSemanticCorruption;
    }
    if m.reroutes > 0 {
        return Manifestation::StrategyReroute;
    }
    if edn.is_some_and(|x| x > 0.0) || m.total_changes > 0 {
        return if m.answer_changed {
            Manifestation::StructuralDivergenceWithOutcomeChange
        } else {
            Manifestation::StructuralDivergenceRecovered
        };
    }
    if !m.answer_changed {
        return Manifestation::NoObservableEffect;
    }
    Manifestation::OutcomeChangeUncategorized
}

#[cfg(test)]
mod tests {
    use super::Manifestation as M;
    use super::*;

    fn c(m: PairMetrics) -> M {
        classify(&m)
    }

    #[test]
    fn spec_cases_35_to_44() {
        let d = PairMetrics::default();
        let null = PairMetrics {
            answer_changed: true,
            perturbed_answer_is_null: true,
            ..d
        };
        assert_eq!(
            c(PairMetrics {
                edit_distance_normalized: Some(0.7),
                ..null
            }),
            M::CatastrophicFailure
        );
        assert_eq!(
            c(PairMetrics {
                early_termination: true,
                edit_distance_normalized: Some(0.1),
                ..null
            }),
            M::CatastrophicFailure
        );
        assert_eq!(
            c(PairMetrics {
                early_termination: true,
                total_changes: 1,
                ..d
            }),
            M::EarlyTermination
        );
        assert_eq!(
            c(PairMetrics {
                early_termination: true,
                reroutes: 2,
                total_changes: 3,
                ..d
            }),
            M::EarlyTermination
        );
        let ext = PairMetrics {
            extended_execution: true,
            ..d
        };
        assert_eq!(
            c(PairMetrics {
                total_changes: 3,
                ..ext
            }),
            M::LoopOrExtendedExecution
        );
        assert_eq!(
            c(PairMetrics {
                total_changes: 1,
                edit_distance_normalized: Some(0.2),
                ..ext
            }),
            M::LoopOrExtendedExecution
        );
        assert_ne!(
            c(PairMetrics {
                edit_distance_normalized: Some(0.1999),
                ..ext
            }),
            M::LoopOrExtendedExecution
        );
        assert_ne!(
            c(PairMetrics {
                total_changes: 2,
                ..ext
            }),
            M::LoopOrExtendedExecution
        );
        let changed = PairMetrics {
            answer_changed: true,
            ..d
        };
        assert_eq!(
            c(PairMetrics {
                edit_distance_normalized: Some(0.0),
                ..changed
            }),
            M::SilentSemanticCorruption
        );
        assert_eq!(
            c(PairMetrics {
                edit_distance_normalized: Some(1e-10),
                ..changed
            }),
            M::SilentSemanticCorruption
        );
        assert_eq!(
            c(PairMetrics {
                edit_distance_normalized: Some(0.01),
                ..changed
            }),
            M::StructuralDivergenceWithOutcomeChange
        );
        assert_ne!(
            c(PairMetrics {
                total_changes: 1,
                edit_distance_normalized: Some(0.0),
                ..changed
            }),
            M::SilentSemanticCorruption
        );
        assert_eq!(
            c(PairMetrics {
                reroutes: 2,
                total_changes: 2,
                edit_distance_normalized: Some(0.1),
                ..d
            }),
            M::StrategyReroute
        );
        assert_eq!(
            c(PairMetrics {
                reroutes: 1,
                total_changes: 1,
                edit_distance_normalized: Some(0.3),
                ..d
            }),
            M::StrategyReroute
        );
        assert_eq!(
            c(PairMetrics {
                total_changes: 1,
                edit_distance_normalized: Some(0.1),
                ..changed
            }),
            M::StructuralDivergenceWithOutcomeChange
        );
        assert_eq!(
            c(PairMetrics {
                total_changes: 1,
                edit_distance_normalized: Some(0.1),
                ..d
            }),
            M::StructuralDivergenceRecovered
        );
        assert_eq!(
            c(PairMetrics {
                edit_distance_normalized: Some(0.0),
                ..d
            }),
            M::NoObservableEffect
        );
        assert_eq!(c(changed), M::OutcomeChangeUncategorized);
        assert_eq!(
            c(PairMetrics {
                edit_distance_normalized: Some(f64::NAN),
                ..changed
            }),
            M::OutcomeChangeUncategorized
        );
        assert_eq!(
            c(PairMetrics {
                edit_distance_normalized: Some(0.5),
                ..null
            }),
            M::CatastrophicFailure
        );
        assert_ne!(
            c(PairMetrics {
                edit_distance_normalized: Some(0.4999),
                ..null
            }),
            M::CatastrophicFailure
        );
    }

    #[test]
    fn groups() {
        use ManifestationGroup as G;
        let expected = [
            G::CombinedDisruption,
            G::CombinedDisruption,
            G::BehavioralDetours,
            G::SilentCorruption,
            G::BehavioralDetours,
            G::BehavioralDetours,
            G::BehavioralDetours,
            G::NoObservableEffect,
            G::SilentCorruption,
        ];
        for (m, g) in M::ALL.into_iter().zip(expected) {
            assert_eq!(m.group(), g);
            assert_eq!(to_manifestation_group(m.name()), Ok(g));
        }
        assert!(to_manifestation_group("not_a_category").is_err());
    }
}
