//! Experiment-level aggregates (traxr's `ExperimentResults` summaries, spec `experiment.md`
//! §11.3) plus veer's breakdowns by perturbation and by manifestation group.
//!
//! Means are a left-to-right sum in pair order divided by the count, as traxr computes them,
//! so the doubles are identical.

use std::collections::BTreeMap;
use veer_contract::experiment::ManifestationGroup;
use veer_contract::experiment::PairResult;
use veer_contract::experiment::{
    Aggregates, DivergenceSummary, GroupAggregate, PerturbationAggregate, TokenOverheadSummary,
};

fn mean(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut sum = 0.0;
    for v in values {
        sum += v;
    }
    Some(sum / values.len() as f64)
}

fn max(values: &[f64]) -> Option<f64> {
    let mut it = values.iter().copied();
    let first = it.next()?;
    Some(it.fold(first, |acc, v| if v > acc { v } else { acc }))
}

/// traxr's `manifestation_prevalence()`.
pub fn manifestation_prevalence(pairs: &[&PairResult]) -> BTreeMap<String, f64> {
    let counts = manifestation_counts(pairs);
    let total: usize = counts.values().sum();
    counts
        .into_iter()
        .map(|(k, c)| (k, c as f64 / total as f64))
        .collect()
}

fn manifestation_counts(pairs: &[&PairResult]) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for p in pairs.iter().filter(|p| p.scored()) {
        if let Some(m) = p.manifestation {
            *counts.entry(m.name().to_string()).or_insert(0) += 1;
        }
    }
    counts
}

/// traxr's `divergence_summary()`.
pub fn divergence_summary(pairs: &[&PairResult]) -> DivergenceSummary {
    let d: Vec<f64> = pairs.iter().filter_map(|p| p.d_norm).collect();
    let t: Vec<f64> = pairs.iter().filter_map(|p| p.t_star_norm).collect();
    DivergenceSummary {
        pairs_measured: d.len(),
        mean_d_norm: mean(&d),
        max_d_norm: max(&d),
        mean_t_star_norm: mean(&t),
    }
}

/// traxr's `recovery_rate()`.
pub fn recovery_rate(pairs: &[&PairResult]) -> Option<f64> {
    let r: Vec<f64> = pairs
        .iter()
        .filter_map(|p| p.recovery)
        .map(|b| if b { 1.0 } else { 0.0 })
        .collect();
    mean(&r)
}

/// traxr's `token_overhead_summary()`.
pub fn token_overhead_summary(pairs: &[&PairResult]) -> TokenOverheadSummary {
    let t: Vec<f64> = pairs.iter().filter_map(|p| p.token_overhead).collect();
    TokenOverheadSummary {
        mean: mean(&t),
        max: max(&t),
    }
}

/// Every aggregate of `pairs`.
pub fn aggregates(pairs: &[PairResult]) -> Aggregates {
    let all: Vec<&PairResult> = pairs.iter().collect();
    let mut names: Vec<String> = Vec::new();
    for p in pairs {
        let name = p.perturbation.clone().unwrap_or_default();
        if !names.contains(&name) {
            names.push(name);
        }
    }
    let by_perturbation = names
        .into_iter()
        .map(|name| {
            let group: Vec<&PairResult> = pairs
                .iter()
                .filter(|p| p.perturbation.as_deref().unwrap_or_default() == name)
                .collect();
            PerturbationAggregate {
                pairs: group.len(),
                divergence_summary: divergence_summary(&group),
                manifestations: manifestation_counts(&group),
                recovery_rate: recovery_rate(&group),
                token_overhead_summary: token_overhead_summary(&group),
                perturbation: name,
            }
        })
        .collect();
    let classified: Vec<&PairResult> = pairs
        .iter()
        .filter(|p| p.scored() && p.manifestation.is_some())
        .collect();
    let by_manifestation_group = ManifestationGroup::ALL
        .into_iter()
        .map(|g| {
            let n = classified
                .iter()
                .filter(|p| p.manifestation_group == Some(g))
                .count();
            GroupAggregate {
                group: g,
                pairs: n,
                fraction: (!classified.is_empty()).then(|| n as f64 / classified.len() as f64),
            }
        })
        .collect();
    Aggregates {
        manifestation_prevalence: manifestation_prevalence(&all),
        divergence_summary: divergence_summary(&all),
        recovery_rate: recovery_rate(&all),
        token_overhead_summary: token_overhead_summary(&all),
        by_perturbation,
        by_manifestation_group,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use veer_contract::experiment::Manifestation;

    fn pair(d: f64, t: f64, m: Manifestation, rec: bool, tok: f64) -> PairResult {
        let mut p = PairResult::unmeasured(None, Some("x".into()), None, "ok".into(), "ok".into());
        p.d_norm = Some(d);
        p.t_star_norm = Some(t);
        p.manifestation = Some(m);
        p.manifestation_group = Some(m.group());
        p.recovery = Some(rec);
        p.token_overhead = Some(tok);
        p
    }

    /// Spec §14.3 cases 48 and 49.
    #[test]
    fn spec_aggregates() {
        let skipped =
            PairResult::unmeasured(None, Some("y".into()), None, "ok".into(), "skipped".into());
        let pairs = vec![
            pair(0.2, 0.5, Manifestation::StrategyReroute, true, 1.5),
            pair(0.6, 0.25, Manifestation::CatastrophicFailure, false, 2.5),
            skipped,
        ];
        let a = aggregates(&pairs);
        assert_eq!(
            a.manifestation_prevalence.get("catastrophic_failure"),
            Some(&0.5)
        );
        assert_eq!(
            a.manifestation_prevalence.get("strategy_reroute"),
            Some(&0.5)
        );
        assert_eq!(a.divergence_summary.pairs_measured, 2);
        assert_eq!(a.divergence_summary.mean_d_norm, Some(0.4));
        assert_eq!(a.divergence_summary.max_d_norm, Some(0.6));
        assert_eq!(a.divergence_summary.mean_t_star_norm, Some(0.375));
        assert_eq!(a.recovery_rate, Some(0.5));
        assert_eq!(a.token_overhead_summary.mean, Some(2.0));
        assert_eq!(a.token_overhead_summary.max, Some(2.5));
        assert_eq!(a.by_perturbation.len(), 2);
        let mut r = PairResult::unmeasured(None, None, None, "ok".into(), "ok".into());
        r.recovery = Some(true);
        let n = PairResult::unmeasured(None, None, None, "ok".into(), "ok".into());
        assert_eq!(recovery_rate(&[&r, &n, &n]), Some(1.0));
    }
}
