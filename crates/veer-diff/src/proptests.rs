//! Properties of every metric on random traces: bounds, symmetry where it applies, identity
//! (a trace against itself), determinism across seeds and thread counts.

use crate::axes::{semantic, trajectory, TurnPair};
use crate::testing::{build, gen_trace};
use crate::turn::diff_turn_pair;
use crate::{diff, BehaviourOptions, Level};
use proptest::prelude::*;
use veer_contract::axis::Axis;
use veer_contract::divergence::PairBy;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A trace against itself: every delta exactly 0, severity none, no divergence, no
    /// recommendation.
    #[test]
    fn identity(t in gen_trace(8), by in 0u8..3) {
        let tr = build(&t);
        let options = BehaviourOptions {
            pair_by: [PairBy::Index, PairBy::Alignment, PairBy::Auto][usize::from(by)],
            ..BehaviourOptions::default()
        };
        let r = diff(&tr, &tr, "a", "a", &options);
        for row in &r.axes {
            prop_assert_eq!(row.delta.to_bits(), 0.0f64.to_bits(), "{:?}", row.axis);
            prop_assert_eq!(row.severity, Level::None);
            prop_assert!(row.ci95_low == 0.0 && row.ci95_high == 0.0);
            prop_assert_eq!(row.changed_pairs, 0);
        }
        prop_assert!(r.first_divergence.is_none());
        prop_assert!(r.divergences.is_empty());
        prop_assert!(r.recommendations.is_empty());
        prop_assert!(r.drill_down.iter().all(|d| d.regression_score == 0.0));
    }

    /// Bounds: rates and similarities in [0, 1]; intervals ordered; severities consistent.
    #[test]
    fn bounds(b in gen_trace(8), c in gen_trace(8), seed in 0u64..1000) {
        let (tb, tc) = (build(&b), build(&c));
        let r = diff(&tb, &tc, "b", "c", &BehaviourOptions { seed, ..BehaviourOptions::default() });
        prop_assert_eq!(r.axes.len(), 9);
        for row in &r.axes {
            prop_assert!(row.ci95_low <= row.ci95_high, "{:?}", row);
            // Unpaired turns with calls add trajectory observations (auto/alignment pairing).
            let unpaired = b.len() + c.len() - 2 * r.pair_count;
            if row.axis == Axis::Trajectory {
                prop_assert!(row.n <= r.pair_count + unpaired);
            } else {
                prop_assert!(row.n <= r.pair_count);
            }
            prop_assert!(row.changed_pairs <= row.n);
            prop_assert!(row.filler_pairs <= row.changed_pairs);
            if row.axis != Axis::Semantic {
                prop_assert_eq!(row.filler_pairs, 0);
            }
            if row.direction == veer_contract::axis::Direction::Improvement {
                prop_assert!(!row.axis.is_worse(row.delta));
            }
            prop_assert!(row.delta.is_finite());
            if row.delta == 0.0 {
                prop_assert_eq!(row.severity, Level::None);
            }
            match row.axis {
                Axis::Semantic | Axis::Trajectory | Axis::Safety | Axis::Conformance => {
                    prop_assert!((0.0..=1.0).contains(&row.baseline_median));
                    prop_assert!((0.0..=1.0).contains(&row.candidate_median));
                    prop_assert!((-1.0..=1.0).contains(&row.ci95_low));
                    prop_assert!((-1.0..=1.0).contains(&row.ci95_high));
                }
                _ => {}
            }
        }
        for d in r.divergences.iter().chain(r.first_divergence.iter()) {
            prop_assert!((0.0..=1.0).contains(&d.confidence));
        }
        prop_assert!(r.divergences.len() <= 5);
        prop_assert!(r.worst_regression <= r.worst_severity);
        prop_assert!(r.recommendations.len() <= 8);
        prop_assert!(r.drill_down.len() <= 5);
        for d in &r.drill_down {
            prop_assert!((0.0..=32.0).contains(&d.regression_score));
            for s in &d.axis_scores {
                prop_assert!((0.0..=4.0).contains(&s.normalized_delta));
            }
        }
    }

    /// Per-pair similarity and trajectory distance are symmetric and bounded.
    #[test]
    fn per_pair_symmetry(b in gen_trace(6), c in gen_trace(6)) {
        let (b, c) = (build(&b), build(&c));
        let (tb, tc) = diff_turn_pair(&b, &c);
        let fwd: Vec<TurnPair<'_>> = tb.iter().zip(tc.iter()).collect();
        let back: Vec<TurnPair<'_>> = tc.iter().zip(tb.iter()).collect();
        let (s1, s2) = (semantic::similarities(&fwd), semantic::similarities(&back));
        let (d1, d2) = (trajectory::distances(&fwd), trajectory::distances(&back));
        for (x, y) in s1.iter().zip(&s2) {
            prop_assert!((x - y).abs() < 1e-12);
            prop_assert!((0.0..=1.0).contains(x));
        }
        for (x, y) in d1.iter().zip(&d2) {
            prop_assert_eq!(x, y);
            prop_assert!((0.0..=1.0).contains(x));
        }
    }

    /// Swapping baseline and candidate negates rate deltas.
    #[test]
    fn rate_deltas_antisymmetric(b in gen_trace(6), c in gen_trace(6)) {
        let (tb, tc) = (build(&b), build(&c));
        let o = BehaviourOptions::default();
        let f = diff(&tb, &tc, "b", "c", &o);
        let r = diff(&tc, &tb, "c", "b", &o);
        for axis in [Axis::Safety, Axis::Verbosity, Axis::Latency, Axis::Reasoning] {
            let (x, y) = (f.axis(axis).map(|r| r.delta), r.axis(axis).map(|r| r.delta));
            prop_assert_eq!(x.map(|v| -v), y, "{:?}", axis);
        }
    }
}

/// The same report on 1 and 4 threads, run ten times.
#[test]
fn deterministic_across_threads_and_runs() {
    use crate::testing::GenTurn;
    let turns: Vec<GenTurn> = (0..40u16)
        .map(|i| GenTurn {
            tools: vec![((i % 3) as u8, (i % 2) as u8, (i % 5) as u8)],
            words: vec![(i % 8) as u8, ((i * 3) % 8) as u8],
            stop: (i % 3) as u8,
            output_tokens: i * 7,
            latency: i * 13,
            new_session: false,
        })
        .collect();
    let mut other = turns.clone();
    other.rotate_left(3);
    let (b, c) = (build(&turns), build(&other));
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap_or_else(|e| unreachable!("{e}"));
        pool.install(|| {
            serde_json::to_string(&diff(&b, &c, "b", "c", &BehaviourOptions::default()))
        })
        .unwrap_or_default()
    };
    let first = run(1);
    for i in 0..10 {
        assert_eq!(first, run(if i % 2 == 0 { 4 } else { 2 }));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Median and percentiles stay within the sample's range; percentiles are monotone in p.
    #[test]
    fn statistics_bounds(xs in prop::collection::vec(-1e6f64..1e6, 1..40), p in 0.0f64..100.0) {
        use crate::stats::{mean, median, percentile};
        let mut s = xs.clone();
        s.sort_by(f64::total_cmp);
        let (lo, hi) = (s[0], s[s.len() - 1]);
        let slack = 1e-9 * (1.0 + lo.abs().max(hi.abs()));
        for v in [median(&xs), mean(&xs), percentile(&s, p)] {
            prop_assert!(v >= lo - slack && v <= hi + slack, "{v} outside [{lo}, {hi}]");
        }
        prop_assert!(percentile(&s, p) <= percentile(&s, (p + 1.0).min(100.0)) + slack);
    }

    /// The bootstrap interval is ordered and reproducible for a seed; identical sides give 0.
    #[test]
    fn bootstrap_properties(
        b in prop::collection::vec(0.0f64..100.0, 1..20),
        seed in any::<u64>(),
    ) {
        use crate::stats::{paired_ci, Statistic};
        let c: Vec<f64> = b.iter().rev().copied().collect();
        for st in [Statistic::MedianDifference, Statistic::MeanDifference] {
            let x = paired_ci(&b, &c, st, seed);
            prop_assert!(x.low <= x.median && x.median <= x.high);
            prop_assert_eq!(x, paired_ci(&b, &c, st, seed));
            let same = paired_ci(&b, &b, st, seed);
            prop_assert_eq!((same.low, same.high), (0.0, 0.0));
        }
    }

    /// Level: zero change is none; a larger change never lowers severity when the interval
    /// does not straddle zero; the rules are symmetric in the sign of the change.
    #[test]
    fn severity_properties(d in 0.0f64..10.0, e in 0.0f64..10.0, base in 0.1f64..100.0) {
        use crate::severity::{classify, classify_rate};
        prop_assert_eq!(classify(0.0, base, 0.0, 0.0), Level::None);
        prop_assert_eq!(classify_rate(0.0, 0.0, 0.0), Level::None);
        let (small, large) = if d <= e { (d, e) } else { (e, d) };
        prop_assert!(classify(small, base, small, small) <= classify(large, base, large, large));
        prop_assert!(classify_rate(small, small, small) <= classify_rate(large, large, large));
        prop_assert_eq!(classify(d, base, d, d), classify(-d, base, -d, -d));
        prop_assert_eq!(classify_rate(d, d, d), classify_rate(-d, -d, -d));
    }
}
