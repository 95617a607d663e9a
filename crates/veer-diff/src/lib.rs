//! veer's behaviour diff (spec `diff.md`): nine axes with seeded bootstrap intervals and
//! severities, the first divergence and ranked divergences from an exact Gotoh alignment,
//! per-pair drill-down and recommendations, and the behaviour-fingerprint test, gathered in a
//! plain [`DiffReport`] ([`measure`]). Whole reports — with the structural block, the policy
//! comparison and the gate's verdict — are composed by `veer-engine`, never here.
//!
//! Everything here is a pure function of the traces, the pricing table and the seed: no I/O,
//! no printing, no global state. Work runs in parallel with rayon; every number is
//! bit-identical whatever the thread count.

pub mod aggregate;
pub mod align;
pub mod axes;
mod bootstrap_plan;
pub mod calls;
pub(crate) mod changes;
pub mod cluster;
pub(crate) mod drill_down;
pub mod fingerprint;
pub mod hotelling;
pub mod inputs;
pub mod lanes;
pub mod levenshtein;
pub(crate) mod pairing;
pub mod pricing;
pub(crate) mod recommend;
pub(crate) mod severity;
pub mod stats;
pub mod tool_schema;
pub mod turn;
pub(crate) mod word_diff;

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod testing;

pub use fingerprint::block::{fingerprint_block, fingerprint_block_of_moments, FingerprintOptions};
pub use pricing::{Pricing, PricingError};

use align::divergence::{first_and_top_k, Sides};
use align::{anchored, cost::intern, gotoh, Alignment};
use pairing::Pair;
use turn::{diff_turn_pair, DiffTurn};
use veer_base::Level;
use veer_contract::axis::{AxisStat, Direction, Position};
use veer_contract::diff::{DiffReport, StatisticalPower, TraceRef, DIFF_SCHEMA_VERSION};
use veer_contract::divergence::{AlignmentKind, Divergence, PairBy};
use veer_contract::fingerprint::FingerprintBlock;
use veer_contract::lanes::Lanes;
use veer_contract::policy::Gate;
use veer_trace::Trace;

/// Default bootstrap seed.
pub(crate) const DEFAULT_SEED: u64 = 42;
/// Default number of ranked divergences.
pub(crate) const DEFAULT_TOP_K: usize = 5;
/// Default alignment work budget: 2^26 cells (about 67 million; an 8,000 × 8,000 table).
pub const DEFAULT_MAX_ALIGN_CELLS: u64 = 1 << 26;

/// Knobs of one diff.
#[derive(Debug, Clone)]
pub struct BehaviourOptions {
    /// Bootstrap seed (default 42).
    pub seed: u64,
    /// Number of ranked divergences kept (default 5; 0 keeps none).
    pub top_k: usize,
    /// How responses are paired.
    pub pair_by: PairBy,
    /// Pricing for the cost axis (empty → every model unpriced).
    pub pricing: Pricing,
    /// Work budget of the exact turn alignment (in-band cells of one round; beyond it the turn
    /// alignment is anchored) and of the structural block's diagonal fast path (stored
    /// entries × 4; beyond it the exact bit-parallel path). Changes results only through the
    /// turn alignment's kind; the structural block is the same for every budget.
    pub max_align_cells: u64,
    /// Scales and significance level of the behaviour-fingerprint test.
    pub fingerprint: FingerprintOptions,
    /// Also build the side-by-side [`Lanes`] view (the HTML report needs it; the other
    /// formats do not pay for it): read by `veer-engine`'s composer, which builds it with
    /// [`Behaviour::lanes`]. Never changes any other field.
    pub lanes: bool,
}

impl Default for BehaviourOptions {
    fn default() -> Self {
        BehaviourOptions {
            seed: DEFAULT_SEED,
            top_k: DEFAULT_TOP_K,
            pair_by: PairBy::Auto,
            pricing: Pricing::none(),
            max_align_cells: DEFAULT_MAX_ALIGN_CELLS,
            fingerprint: FingerprintOptions::default(),
            lanes: false,
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
    divergences_within(baseline, candidate, k, u64::MAX).unwrap_or((None, Vec::new(), None))
}

/// [`divergences`] within an alignment work budget of `max_cells` in-band cells per round;
/// None when the exact alignment would need more.
#[allow(clippy::type_complexity)]
pub(crate) fn divergences_within(
    baseline: &[DiffTurn],
    candidate: &[DiffTurn],
    k: usize,
    max_cells: u64,
) -> Option<(Option<Divergence>, Vec<Divergence>, Option<Alignment>)> {
    if baseline.is_empty() || candidate.is_empty() {
        return Some((None, Vec::new(), None));
    }
    let (ab, ac) = intern(baseline, candidate);
    let alignment = gotoh::align_within(&ab, &ac, max_cells)?;
    let sides = Sides {
        baseline,
        candidate,
        baseline_aligned: &ab,
        candidate_aligned: &ac,
    };
    let (first, ranked) = first_and_top_k(&alignment.steps, sides, k);
    Some((first, ranked, Some(alignment)))
}

/// The alignment events of two traces at any size: `divergences_within` when the exact
/// alignment fits `max_cells`, otherwise the anchored alignment (`align::anchored`). The
/// kind says which.
#[allow(clippy::type_complexity)]
pub fn divergences_anchored(
    baseline: &[DiffTurn],
    candidate: &[DiffTurn],
    k: usize,
    max_cells: u64,
) -> (
    (Option<Divergence>, Vec<Divergence>, Option<Alignment>),
    AlignmentKind,
) {
    if baseline.is_empty() || candidate.is_empty() {
        return ((None, Vec::new(), None), AlignmentKind::Exact);
    }
    let (ab, ac) = intern(baseline, candidate);
    let (alignment, kind) = align_interned(&ab, &ac, max_cells);
    let sides = Sides {
        baseline,
        candidate,
        baseline_aligned: &ab,
        candidate_aligned: &ac,
    };
    let (first, ranked) = first_and_top_k(&alignment.steps, sides, k);
    ((first, ranked, Some(alignment)), kind)
}

/// The turn alignment of two interned sides at any size: exact when it fits `max_cells`,
/// otherwise anchored (the kind says which). A search over the budget hands back its first
/// round's path, which is the anchored alignment's answer when no turn can anchor.
pub(crate) fn align_interned(
    ab: &[align::cost::AlignTurn<'_>],
    ac: &[align::cost::AlignTurn<'_>],
    max_cells: u64,
) -> (Alignment, AlignmentKind) {
    match gotoh::align_or_first_band(ab, ac, max_cells) {
        Ok(exact) => (exact, AlignmentKind::Exact),
        Err(band) => (
            anchored::align_anchored_with(ab, ac, max_cells, band),
            AlignmentKind::Anchored,
        ),
    }
}

/// The behaviour diff of two traces: [`measure`]'s report alone. `baseline_path` /
/// `candidate_path` are echoed in the report. The composed blocks (`structural`, `policy`,
/// `enforcement`, the `lanes` view and the `gate` verdict) are left empty: `veer-engine`
/// composes whole reports (`veer_engine::diff::diff`).
pub fn diff(
    baseline: &Trace,
    candidate: &Trace,
    baseline_path: &str,
    candidate_path: &str,
    options: &BehaviourOptions,
) -> DiffReport {
    measure(baseline, candidate, baseline_path, candidate_path, options).report
}

/// The response fingerprints of both sides of a diff (baseline rows, candidate rows).
pub type SideFingerprints = (Vec<[f64; fingerprint::DIM]>, Vec<[f64; fingerprint::DIM]>);

/// The behaviour measures of one trace pair, before composition: the report's behaviour fields
/// and fingerprint block, both sides' response fingerprints (directory mode pools them), and
/// what the side-by-side view is built from.
pub struct Behaviour<'t> {
    /// The report with its behaviour fields and `fingerprint` block filled; `structural`,
    /// `policy`, `enforcement` and `lanes` empty and the `gate` undecided (gate off, worst
    /// `none`), for `veer-engine` to compose.
    pub report: DiffReport,
    /// The response fingerprints of both sides.
    pub fingerprints: SideFingerprints,
    traces: (&'t Trace, &'t Trace),
    turns: TurnsOf<'t>,
    alignment: Option<Alignment>,
}

impl Behaviour<'_> {
    /// The turns the behaviour measures name: first divergence, top-k and drill-down pairs
    /// (the composer adds the policy comparison's).
    pub fn named_turns(&self) -> lanes::Named {
        let r = &self.report;
        let mut named = lanes::Named::default();
        for d in r.first_divergence.iter().chain(&r.divergences) {
            named.baseline.insert(d.baseline_turn);
            named.candidate.insert(d.candidate_turn);
        }
        for p in &r.drill_down {
            named.baseline.insert(p.baseline_turn);
            named.candidate.insert(p.candidate_turn);
        }
        named
    }

    /// The side-by-side view of the pair, showing the `named` turns in full.
    pub fn lanes(&self, named: &lanes::Named) -> Lanes {
        lanes::build(
            (self.traces.0, &self.turns.0),
            (self.traces.1, &self.turns.1),
            self.alignment.as_ref(),
            named,
        )
    }

    /// The report and the fingerprints.
    pub fn into_parts(self) -> (DiffReport, SideFingerprints) {
        (self.report, self.fingerprints)
    }
}

/// Measures the behaviour of two traces: the axes, alignment events, drill-down and
/// recommendations beside both sides' response fingerprints and their test. Pure and
/// deterministic; runs in parallel with rayon.
pub fn measure<'t>(
    baseline: &'t Trace,
    candidate: &'t Trace,
    baseline_path: &str,
    candidate_path: &str,
    options: &BehaviourOptions,
) -> Behaviour<'t> {
    let ((mut report, turns, alignment), rows) = rayon::join(
        || behaviour(baseline, candidate, baseline_path, candidate_path, options),
        || {
            rayon::join(
                || fingerprint::trace_matrix(baseline, &options.fingerprint.scales),
                || fingerprint::trace_matrix(candidate, &options.fingerprint.scales),
            )
        },
    );
    report.fingerprint = fingerprint_block(&rows.0, &rows.1, &options.fingerprint);
    Behaviour {
        report,
        fingerprints: rows,
        traces: (baseline, candidate),
        turns,
        alignment,
    }
}

/// The fingerprint test of every response of `baseline` against every response of
/// `candidate`; None when a side has fewer than two responses.
pub fn fingerprint_of_traces(
    baseline: &Trace,
    candidate: &Trace,
    options: &FingerprintOptions,
) -> Option<FingerprintBlock> {
    let (b, c) = rayon::join(
        || fingerprint::trace_matrix(baseline, &options.scales),
        || fingerprint::trace_matrix(candidate, &options.scales),
    );
    fingerprint_block(&b, &c, options)
}

/// The highest severity over rows whose change is a regression (the axis's worse direction,
/// [`Axis::worse_when`]); `none` when every change is an improvement or there is none. This
/// is the axis level the gate reads.
pub(crate) fn worst_regression(rows: &[AxisStat]) -> Level {
    rows.iter()
        .filter(|r| r.direction == Direction::Regression)
        .map(|r| r.severity)
        .max()
        .unwrap_or(Level::None)
}

/// The diff turns of both sides.
type TurnsOf<'t> = (Vec<DiffTurn<'t>>, Vec<DiffTurn<'t>>);

/// The axes, alignment events, drill-down and recommendations of one pair, with the diff turns
/// and the alignment they came from.
fn behaviour<'t>(
    baseline: &'t Trace,
    candidate: &'t Trace,
    baseline_path: &str,
    candidate_path: &str,
    options: &BehaviourOptions,
) -> (DiffReport, TurnsOf<'t>, Option<Alignment>) {
    let (tb, tc) = diff_turn_pair(baseline, candidate);
    let mut warnings: Vec<String> = baseline
        .warnings
        .iter()
        .chain(candidate.warnings.iter())
        .map(ToString::to_string)
        .collect();

    let measure = |pairs: &[Pair], unpaired: &[Position]| {
        let (turn_pairs, at): (Vec<axes::TurnPair<'_>>, Vec<Position>) = pairs
            .iter()
            .filter_map(|p| {
                let t = (tb.get(p.baseline_turn)?, tc.get(p.candidate_turn)?);
                let at = Position {
                    baseline_turn: Some(p.baseline_turn),
                    candidate_turn: Some(p.candidate_turn),
                };
                Some((t, at))
            })
            .unzip();
        rayon::join(
            || axes::compute_axes_at(&turn_pairs, &at, unpaired, &options.pricing, options.seed),
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

    let aligned = || divergences_anchored(&tb, &tc, options.top_k, options.max_align_cells);
    let index_pairs = |warnings: &mut Vec<String>| {
        let (sb, nb) = baseline.recorded_sessions();
        let (sc, nc) = candidate.recorded_sessions();
        let (pairs, pair_warnings) = pairing::index_pairs(&sb, nb, &sc, nc);
        warnings.extend(pair_warnings);
        pairs
    };
    // A turn the alignment leaves unpaired counts on the trajectory axis when it has calls.
    let unpaired_of = |a: &Alignment| {
        pairing::unpaired_with_calls(
            &a.steps,
            |i| {
                tb.get(i)
                    .is_some_and(|t| !t.features.tool_tokens.is_empty())
            },
            |j| {
                tc.get(j)
                    .is_some_and(|t| !t.features.tool_tokens.is_empty())
            },
        )
    };
    let (used, pairs, ((first, ranked, alignment), alignment_kind), (rows, drill)) =
        match options.pair_by {
            PairBy::Index => {
                let pairs = index_pairs(&mut warnings);
                let (events, measured) = rayon::join(aligned, || measure(&pairs, &[]));
                (PairBy::Index, pairs, events, measured)
            }
            PairBy::Alignment | PairBy::Auto => {
                let events = aligned();
                let one_to_one = events
                    .0
                     .2
                    .as_ref()
                    .is_none_or(|a| pairing::one_to_one(&a.steps));
                let mut index_warnings = Vec::new();
                let by_index = if options.pair_by == PairBy::Auto && one_to_one {
                    let p = index_pairs(&mut index_warnings);
                    let same = events
                        .0
                         .2
                        .as_ref()
                        .is_none_or(|a| pairing::alignment_pairs(&a.steps) == p);
                    same.then_some(p)
                } else {
                    None
                };
                match by_index {
                    Some(pairs) => {
                        warnings.extend(index_warnings);
                        let measured = measure(&pairs, &[]);
                        (PairBy::Index, pairs, events, measured)
                    }
                    None => {
                        let (pairs, unpaired) = match events.0 .2.as_ref() {
                            Some(a) => (pairing::alignment_pairs(&a.steps), unpaired_of(a)),
                            None => (Vec::new(), Vec::new()),
                        };
                        let measured = measure(&pairs, &unpaired);
                        (PairBy::Alignment, pairs, events, measured)
                    }
                }
            }
        };

    let evidence = recommend::Evidence::of(&tb, &tc);
    let recommendations = recommend::recommendations_with(&rows, &ranked, &evidence);
    let worst_severity = rows.iter().map(|r| r.severity).max().unwrap_or(Level::None);
    let worst_regression = worst_regression(&rows);
    let headline = changes::headline(first.as_ref(), &rows);
    let power = StatisticalPower::of(pairs.len());
    let candidate_lines = candidate
        .responses()
        .iter()
        .map(|r| r.record.line)
        .collect();
    let report = DiffReport {
        schema_version: DIFF_SCHEMA_VERSION.into(),
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
        semantic_backend: "lexical".into(),
        pairing: used,
        pairing_requested: options.pair_by,
        seed: options.seed,
        axes: rows,
        worst_severity,
        worst_regression,
        headline,
        first_divergence: first,
        divergences: ranked,
        alignment: alignment_kind,
        recommendations,
        drill_down: drill,
        structural: None,
        fingerprint: None,
        policy: None,
        enforcement: None,
        tool_schema: None,
        gate: Gate::decide(Level::None, Level::None),
        warnings,
        candidate_lines,
        candidate_session_lines: candidate.policy_session_lines(),
        lanes: None,
    };
    (report, (tb, tc), alignment)
}
