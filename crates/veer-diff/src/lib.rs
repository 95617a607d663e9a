//! veer's behaviour diff (spec `diff.md`): nine axes with seeded bootstrap intervals and
//! severities, the first divergence and ranked divergences from an exact Gotoh alignment,
//! per-pair drill-down and recommendations, gathered in a plain [`DiffReport`].
//!
//! Everything here is a pure function of the traces, the pricing table and the seed: no I/O,
//! no printing, no global state. Work runs in parallel with rayon; every number is
//! bit-identical whatever the thread count.

pub mod aggregate;
pub mod align;
pub mod axes;
pub mod drill_down;
pub mod levenshtein;
pub mod pairing;
pub mod pricing;
pub mod recommend;
pub mod report;
pub mod rng;
pub mod severity;
pub mod stats;
pub mod turn;

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod testing;

pub use axes::{Axis, AxisStat, Flag};
pub use pairing::PairBy;
pub use pricing::{Pricing, PricingError};
pub use report::{DiffReport, DirectoryPair, DirectoryReport, TraceRef, Unmatched};
pub use severity::Severity;

use align::divergence::{top_k, walk, Divergence, Sides};
use align::{cost::intern, gotoh, Alignment};
use pairing::Pair;
use report::{StatisticalPower, DIFF_SCHEMA_VERSION};
use turn::{diff_turns, DiffTurn};
use veer_trace::Trace;

/// Default bootstrap seed.
pub const DEFAULT_SEED: u64 = 42;
/// Default number of ranked divergences.
pub const DEFAULT_TOP_K: usize = 5;

/// Knobs of one diff.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffOptions {
    /// Bootstrap seed (default 42).
    pub seed: u64,
    /// Number of ranked divergences kept (default 5; 0 keeps none).
    pub top_k: usize,
    /// How responses are paired.
    pub pair_by: PairBy,
    /// Pricing for the cost axis (empty → every model unpriced).
    pub pricing: Pricing,
}

impl Default for DiffOptions {
    fn default() -> Self {
        DiffOptions {
            seed: DEFAULT_SEED,
            top_k: DEFAULT_TOP_K,
            pair_by: PairBy::Index,
            pricing: Pricing::none(),
        }
    }
}

/// The alignment events of two traces: (first divergence, top-k, the alignment itself).
/// Either side empty → no event and no alignment.
pub fn divergences(
    baseline: &[DiffTurn],
    candidate: &[DiffTurn],
    k: usize,
) -> (Option<Divergence>, Vec<Divergence>, Option<Alignment>) {
    if baseline.is_empty() || candidate.is_empty() {
        return (None, Vec::new(), None);
    }
    let (ab, ac) = intern(baseline, candidate);
    let alignment = gotoh::align(&ab, &ac);
    let sides = Sides {
        baseline,
        candidate,
        baseline_aligned: &ab,
        candidate_aligned: &ac,
    };
    let events = walk(&alignment.steps, sides, usize::MAX);
    let first = events.first().cloned();
    (first, top_k(events, k), Some(alignment))
}

/// Diffs two traces. `baseline_path` / `candidate_path` are echoed in the report.
pub fn diff(
    baseline: &Trace,
    candidate: &Trace,
    baseline_path: &str,
    candidate_path: &str,
    options: &DiffOptions,
) -> DiffReport {
    let (tb, tc) = rayon::join(|| diff_turns(baseline), || diff_turns(candidate));
    let mut warnings: Vec<String> = baseline
        .warnings
        .iter()
        .chain(candidate.warnings.iter())
        .map(ToString::to_string)
        .collect();

    let measure = |pairs: &[Pair]| {
        let turn_pairs: Vec<axes::TurnPair<'_>> = pairs
            .iter()
            .filter_map(|p| Some((tb.get(p.baseline_turn)?, tc.get(p.candidate_turn)?)))
            .collect();
        rayon::join(
            || axes::compute_axes(&turn_pairs, &options.pricing, options.seed),
            || {
                drill_down::drill_down(
                    pairs,
                    &turn_pairs,
                    &options.pricing,
                    drill_down::DRILL_DOWN_K,
                )
            },
        )
    };

    let (pairs, (first, ranked, _), (rows, drill)) = match options.pair_by {
        PairBy::Index => {
            let (sb, nb) = baseline.recorded_sessions();
            let (sc, nc) = candidate.recorded_sessions();
            let (pairs, pair_warnings) = pairing::index_pairs(&sb, nb, &sc, nc);
            warnings.extend(pair_warnings);
            let (events, measured) =
                rayon::join(|| divergences(&tb, &tc, options.top_k), || measure(&pairs));
            (pairs, events, measured)
        }
        PairBy::Alignment => {
            let events = divergences(&tb, &tc, options.top_k);
            let pairs = events
                .2
                .as_ref()
                .map(|a| pairing::alignment_pairs(&a.steps))
                .unwrap_or_default();
            let measured = measure(&pairs);
            (pairs, events, measured)
        }
    };

    let recommendations = recommend::recommendations(&rows, &ranked);
    let worst_severity = rows
        .iter()
        .map(|r| r.severity)
        .max()
        .unwrap_or(Severity::None);
    let power = StatisticalPower::of(pairs.len());
    DiffReport {
        schema_version: DIFF_SCHEMA_VERSION,
        baseline: TraceRef {
            path: baseline_path.to_string(),
            trace_id: baseline.trace_id().to_string(),
        },
        candidate: TraceRef {
            path: candidate_path.to_string(),
            trace_id: candidate.trace_id().to_string(),
        },
        pair_count: pairs.len(),
        statistical_power: power,
        low_statistical_power: matches!(power, StatisticalPower::Low | StatisticalPower::Moderate),
        recommended_sample_size: power.recommended_sample_size(),
        semantic_backend: "lexical",
        pairing: options.pair_by,
        seed: options.seed,
        axes: rows,
        worst_severity,
        first_divergence: first,
        divergences: ranked,
        recommendations,
        drill_down: drill,
        warnings,
    }
}
