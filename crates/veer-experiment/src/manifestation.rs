//! The manifestation taxonomy: how a perturbation showed up in a pair, eight categories plus a
//! fallback, in four groups (spec `experiment.md` §9).

use veer_contract::experiment::Manifestation;
#[cfg(test)]
use veer_contract::experiment::ManifestationGroup;

#[cfg(test)]
/// The group of a category given by name; an error for an unknown name.
pub(crate) fn to_manifestation_group(name: &str) -> Result<ManifestationGroup, String> {
    Manifestation::from_name(name)
        .map(Manifestation::group)
        .ok_or_else(|| format!("unknown manifestation category: {name:?}"))
}

/// The inputs of the classification (traxr `PairMetrics`); `Default` gives traxr's defaults.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct PairMetrics {
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
