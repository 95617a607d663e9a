//! The banded DP equals the unbanded reference exactly, and both equal the cheapest of every
//! alignment path enumerated by brute force on tiny inputs.

use super::cost::{intern, pair_cost, AlignTurn};
use super::{gotoh, reference, Step, GAP_EXTEND, GAP_OPEN};
use crate::testing::{build, gen_trace};
use crate::turn::{diff_turn_pair, DiffTurn};
use proptest::prelude::*;

/// Cost of a path under the three-state gap rule.
fn path_cost(steps: &[Step], b: &[AlignTurn<'_>], c: &[AlignTurn<'_>]) -> f64 {
    let mut cost = 0.0;
    let mut prev = 0u8;
    for s in steps {
        match *s {
            Step::Match(i, j) => {
                cost += pair_cost(&b[i], &c[j]).cost;
                prev = 0;
            }
            Step::Insert(_) => {
                cost += if prev == 1 { GAP_EXTEND } else { GAP_OPEN };
                prev = 1;
            }
            Step::Delete(_) => {
                cost += if prev == 2 { GAP_EXTEND } else { GAP_OPEN };
                prev = 2;
            }
        }
    }
    cost
}

/// The cheapest cost over every path from (i, j) to (n, m), by exhaustive recursion.
fn brute(b: &[AlignTurn<'_>], c: &[AlignTurn<'_>], i: usize, j: usize, prev: u8) -> f64 {
    let (n, m) = (b.len(), c.len());
    if i == n && j == m {
        return 0.0;
    }
    let mut best = f64::INFINITY;
    if i < n && j < m {
        best = best.min(pair_cost(&b[i], &c[j]).cost + brute(b, c, i + 1, j + 1, 0));
    }
    if i < n {
        let g = if prev == 2 { GAP_EXTEND } else { GAP_OPEN };
        best = best.min(g + brute(b, c, i + 1, j, 2));
    }
    if j < m {
        let g = if prev == 1 { GAP_EXTEND } else { GAP_OPEN };
        best = best.min(g + brute(b, c, i, j + 1, 1));
    }
    best
}

/// Diff turns of two generated traces; the traces are leaked so the turns can borrow them
/// for the rest of the test (a few small traces per case).
fn turns(
    b: &[crate::testing::GenTurn],
    c: &[crate::testing::GenTurn],
) -> (Vec<DiffTurn<'static>>, Vec<DiffTurn<'static>>) {
    let (b, c): (&'static _, &'static _) =
        (Box::leak(Box::new(build(b))), Box::leak(Box::new(build(c))));
    diff_turn_pair(b, c)
}

fn assert_valid_path(steps: &[Step], n: usize, m: usize) {
    let (mut i, mut j) = (0, 0);
    for s in steps {
        match *s {
            Step::Match(a, b) => {
                assert_eq!((a, b), (i, j));
                i += 1;
                j += 1;
            }
            Step::Insert(b) => {
                assert_eq!(b, j);
                j += 1;
            }
            Step::Delete(a) => {
                assert_eq!(a, i);
                i += 1;
            }
        }
    }
    assert_eq!((i, j), (n, m));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn banded_equals_full_matrix(b in gen_trace(12), c in gen_trace(12)) {
        let (tb, tc) = turns(&b, &c);
        let (ab, ac) = intern(&tb, &tc);
        let fast = gotoh::align(&ab, &ac);
        let full = reference::align(&ab, &ac);
        prop_assert_eq!(fast.cost.to_bits(), full.cost.to_bits());
        prop_assert_eq!(&fast.steps, &full.steps);
        assert_valid_path(&fast.steps, ab.len(), ac.len());
        prop_assert!((path_cost(&fast.steps, &ab, &ac) - fast.cost).abs() < 1e-9);
    }

    /// Rounds that may be rejected recording no choices (traced from boundary rows when they
    /// are accepted after all) give the same path as recording them, on runs whose common
    /// part lies off the diagonal so that the band widens (the tiny-budget tests below cover
    /// the traceback of unrecorded rounds in general).
    #[test]
    fn unrecorded_uncertain_rounds_give_the_same_path(
        body in gen_trace(300),
        x in gen_trace(100),
        y in gen_trace(100),
        budget in prop::sample::select(vec![0usize, 300, 1 << 30]),
    ) {
        // A long common body shifted far off the diagonal: the first bands miss it.
        let b: Vec<_> = x.iter().chain(&body).cloned().collect();
        let c: Vec<_> = body.iter().chain(&y).cloned().collect();
        let (tb, tc) = turns(&b, &c);
        let (ab, ac) = intern(&tb, &tc);
        let full = gotoh::align(&ab, &ac);
        for uncertain in [0, budget] {
            let lean =
                gotoh::align_recording(&ab, &ac, budget, uncertain, gotoh::CHECKPOINT_VALUES);
            prop_assert_eq!(lean.cost.to_bits(), full.cost.to_bits());
            prop_assert_eq!(&lean.steps, &full.steps);
        }
    }

    /// The bounded-memory tracebacks (tiny choice budgets: segment checkpoints or
    /// divide-and-conquer) give the same path.
    #[test]
    fn bounded_memory_traceback_equals_full_matrix(
        b in gen_trace(14),
        c in gen_trace(14),
        budget in prop::sample::select(vec![0usize, 1, 5, 17, 64]),
    ) {
        let (tb, tc) = turns(&b, &c);
        let (ab, ac) = intern(&tb, &tc);
        let full = reference::align(&ab, &ac);
        // Segment checkpoints, and the recursion they normally replace.
        for checkpoints in [gotoh::CHECKPOINT_VALUES, 0] {
            let lean = gotoh::align_with_budgets(&ab, &ac, budget, checkpoints);
            prop_assert_eq!(lean.cost.to_bits(), full.cost.to_bits());
            prop_assert_eq!(&lean.steps, &full.steps);
        }
    }

    #[test]
    fn optimal_against_brute_force(b in gen_trace(5), c in gen_trace(5)) {
        let (tb, tc) = turns(&b, &c);
        let (ab, ac) = intern(&tb, &tc);
        let fast = gotoh::align(&ab, &ac);
        let best = brute(&ab, &ac, 0, 0, 0);
        prop_assert!((fast.cost - best).abs() < 1e-9, "{} vs {}", fast.cost, best);
    }

    /// The class table's cost is `pair_cost`'s, to the bit, for every cell.
    #[test]
    fn class_table_cost_is_the_pair_cost(b in gen_trace(12), c in gen_trace(12)) {
        let (tb, tc) = turns(&b, &c);
        let (ab, ac) = intern(&tb, &tc);
        let table = crate::align::cost::ClassTable::new(&ab, &ac);
        for (i, x) in ab.iter().enumerate() {
            for (j, y) in ac.iter().enumerate() {
                let shared = || {
                    x.shingles.iter().filter(|s| y.shingles.binary_search(s).is_ok()).count()
                };
                prop_assert_eq!(
                    table.cost(i, j, x, y, shared).to_bits(),
                    pair_cost(x, y).cost.to_bits()
                );
            }
        }
    }

    #[test]
    fn pair_cost_in_unit_interval(b in gen_trace(4), c in gen_trace(4)) {
        let (tb, tc) = turns(&b, &c);
        let (ab, ac) = intern(&tb, &tc);
        for x in &ab {
            prop_assert_eq!(pair_cost(x, x).cost, 0.0);
            for y in &ac {
                let p = pair_cost(x, y);
                prop_assert!((0.0..1.0).contains(&p.cost));
                prop_assert_eq!(p.cost.to_bits(), pair_cost(y, x).cost.to_bits());
            }
        }
    }
}

/// A turn calling tool `k % 3` with `words` as its text.
fn turn(k: u8, words: Vec<u8>) -> crate::testing::GenTurn {
    crate::testing::GenTurn {
        tools: vec![(k % 3, k % 3, k % 3)],
        words,
        stop: 0,
        output_tokens: 1,
        latency: 1,
        new_session: false,
    }
}

/// Long traces that differ in a long stretch force the band to widen; the result still equals
/// the full matrix.
#[test]
fn band_widens_until_exact() {
    let b: Vec<crate::testing::GenTurn> = (0..150u8)
        .map(|i| turn(i, vec![i % 8, (i / 8) % 8]))
        .collect();
    let mut c: Vec<crate::testing::GenTurn> = (0..60u8)
        .map(|i| turn(i, vec![i % 8, (i / 8) % 8]))
        .collect();
    c.extend((0..40u8).map(|i| turn(i + 1, vec![7, 6, 5])));
    c.extend((100..150u8).map(|i| turn(i, vec![i % 8, (i / 8) % 8])));
    let (tb, tc) = turns(&b, &c);
    let (ab, ac) = intern(&tb, &tc);
    let fast = gotoh::align(&ab, &ac);
    let full = reference::align(&ab, &ac);
    assert_eq!(fast.cost.to_bits(), full.cost.to_bits());
    assert_eq!(fast.steps, full.steps);
    for budget in [0, 100, 1000] {
        for checkpoints in [gotoh::CHECKPOINT_VALUES, 0] {
            let lean = gotoh::align_with_budgets(&ab, &ac, budget, checkpoints);
            assert_eq!(lean.steps, full.steps, "budget {budget}");
        }
    }
}

/// A work limit either gives exactly the unlimited alignment or nothing.
#[test]
fn work_limit_gives_the_same_alignment_or_none() {
    let b: Vec<crate::testing::GenTurn> = (0..120u8).map(|i| turn(i, vec![i % 8])).collect();
    let c: Vec<crate::testing::GenTurn> = (0..120u8)
        .map(|i| turn(i.wrapping_mul(7), vec![7 - i % 8, 3]))
        .collect();
    let (tb, tc) = turns(&b, &c);
    let (ab, ac) = intern(&tb, &tc);
    let full = gotoh::align(&ab, &ac);
    assert_eq!(gotoh::align_within(&ab, &ac, 100), None);
    let within = gotoh::align_within(&ab, &ac, u64::MAX).expect("no limit");
    assert_eq!(within.steps, full.steps);
    assert_eq!(within.cost.to_bits(), full.cost.to_bits());
    // Exactly the cells of the band rounds that were needed suffice.
    let needed = (ab.len() as u64 + 1) * (ac.len() as u64 + 1);
    assert_eq!(
        gotoh::align_within(&ab, &ac, needed).map(|a| a.steps),
        Some(full.steps)
    );
}

/// Spec `diff.md` §13.4.6: an n × n alignment (one turn in 1000 dropped, one in 11 edited,
/// ten turns appended) finishes, the bounded-memory traceback gives the same path as the
/// recorded-choices traceback, the path's cost is the optimum it reports, and sampled 60-turn
/// windows equal the full-matrix reference.
fn stress(n: usize, budget: usize) {
    use crate::testing::GenTurn;
    let turn = |i: usize, variant: usize| GenTurn {
        tools: vec![(
            (i % 3) as u8,
            ((i / 3) % 3) as u8,
            ((i + variant) % 3) as u8,
        )],
        words: vec![
            (i % 8) as u8,
            ((i / 8 + variant) % 8) as u8,
            ((i / 64) % 8) as u8,
        ],
        stop: (i % 2) as u8,
        output_tokens: 1,
        latency: 1,
        new_session: false,
    };
    let b: Vec<crate::testing::GenTurn> = (0..n).map(|i| turn(i, 0)).collect();
    let c: Vec<crate::testing::GenTurn> = (0..n)
        .filter(|i| i % 1000 != 500)
        .map(|i| turn(i, usize::from(i % 11 == 0)))
        .chain((0..10).map(|i| turn(i, 5)))
        .collect();
    let (tb, tc) = turns(&b, &c);
    let (ab, ac) = intern(&tb, &tc);
    let fast = gotoh::align(&ab, &ac);
    for checkpoints in [gotoh::CHECKPOINT_VALUES, 0] {
        let lean = gotoh::align_with_budgets(&ab, &ac, budget, checkpoints);
        assert_eq!(fast.steps, lean.steps);
        assert_eq!(fast.cost.to_bits(), lean.cost.to_bits());
    }
    assert_valid_path(&fast.steps, ab.len(), ac.len());
    assert!((path_cost(&fast.steps, &ab, &ac) - fast.cost).abs() < 1e-6);
    let windows = (n / 250).min(40);
    for k in 0..windows {
        let start = k * (n - 60) / windows.max(1);
        let (wb, wc) = (&ab[start..start + 60], &ac[start..start + 60]);
        let w = gotoh::align(wb, wc);
        let r = reference::align(wb, wc);
        assert_eq!(w.steps, r.steps, "window {k}");
        assert_eq!(w.cost.to_bits(), r.cost.to_bits(), "window {k}");
    }
}

/// 2 000 × 2 000 turns in every test run (debug builds included).
#[test]
fn stress_2k() {
    stress(2_000, 1 << 12);
}

/// 10 000 × 10 000 turns. Slow in debug builds: run with
/// `cargo test -p veer-diff --release -- --ignored stress_10k`.
#[test]
#[ignore = "stress test; run in release"]
fn stress_10k() {
    stress(10_000, 1 << 16);
}

/// A trace of `n` turns whose texts make every turn distinct (like a real run's tickets),
/// and a copy of it with `edits` applied: (position, kind, replacement turn).
fn edited_pair(
    n: usize,
    edits: &[(usize, u8, crate::testing::GenTurn)],
) -> (Vec<crate::testing::GenTurn>, Vec<crate::testing::GenTurn>) {
    let b: Vec<crate::testing::GenTurn> = (0..n)
        .map(|i| {
            turn(
                i as u8,
                vec![(i % 8) as u8, ((i / 8) % 8) as u8, (i / 64) as u8 % 8],
            )
        })
        .collect();
    let mut c = b.clone();
    for (at, kind, t) in edits {
        if c.is_empty() {
            c.push(t.clone());
            continue;
        }
        let at = at % c.len();
        match kind % 3 {
            0 => c[at] = t.clone(),
            1 => {
                c.remove(at);
            }
            _ => c.insert(at, t.clone()),
        }
    }
    (b, c)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The anchored alignment's first divergence lands on the same turns as the exact one: a
    /// run against an edited copy (replaced, dropped and inserted turns, the inserted ones drawn
    /// from the small generator vocabulary so ties and repeats abound), anchored with every piece
    /// between anchors aligned exactly. Its kind may differ where several optimal paths exist
    /// (a substitution in one, a gap in the other), and a piece over the budget is aligned
    /// inside a band and may part from the exact path (docs/diff.md, "Anchored alignment");
    /// `anchored_path_is_valid` covers those budgets.
    #[test]
    fn anchored_first_divergence_equals_exact(
        n in 0usize..120,
        edits in prop::collection::vec((0usize..200, 0u8..3, crate::testing::gen_turn()), 0..12),
    ) {
        let max_cells = u64::MAX;
        let (b, c) = edited_pair(n, &edits);
        let (tb, tc) = turns(&b, &c);
        let ((exact_first, _, exact), kind) =
            crate::divergences_anchored(&tb, &tc, 5, u64::MAX);
        prop_assert_eq!(kind, veer_contract::divergence::AlignmentKind::Exact);
        if tb.is_empty() || tc.is_empty() {
            prop_assert!(exact.is_none());
            return Ok(());
        }
        let (ab, ac) = intern(&tb, &tc);
        let anchored = super::anchored::align_anchored(&ab, &ac, max_cells);
        assert_valid_path(&anchored.steps, ab.len(), ac.len());
        let sides = super::divergence::Sides {
            baseline: &tb,
            candidate: &tc,
            baseline_aligned: &ab,
            candidate_aligned: &ac,
        };
        let first = super::divergence::walk(&anchored.steps, sides, 1).into_iter().next();
        prop_assert_eq!(
            first.map(|d| (d.baseline_turn, d.candidate_turn)),
            exact_first.map(|d| (d.baseline_turn, d.candidate_turn))
        );
    }

    /// The search that hands back its first round's path gives exactly what the separate
    /// calls give: the exact alignment within the budget, else the path in the first band; and
    /// the anchored alignment is the same whether that path is handed over or not.
    #[test]
    fn first_band_is_reused_exactly(b in gen_trace(70), c in gen_trace(70), max_cells in 0u64..6000) {
        let (tb, tc) = turns(&b, &c);
        let (ab, ac) = intern(&tb, &tc);
        match super::gotoh::align_or_first_band(&ab, &ac, max_cells) {
            Ok(a) => prop_assert_eq!(Some(a), super::gotoh::align_within(&ab, &ac, max_cells)),
            Err(band) => {
                prop_assert_eq!(super::gotoh::align_within(&ab, &ac, max_cells), None);
                if let Some(band) = &band {
                    let again = super::gotoh::align_in_band(&ab, &ac, super::gotoh::INITIAL_HALF_WIDTH, max_cells);
                    prop_assert_eq!(band, &again);
                }
                prop_assert_eq!(
                    super::anchored::align_anchored_with(&ab, &ac, max_cells, band),
                    super::anchored::align_anchored(&ab, &ac, max_cells)
                );
            }
        }
    }

    /// Ranking the events a batch at a time keeps exactly the first event and the top `k`
    /// of ranking all of them at once (same events, same order), for any batch size.
    #[test]
    fn batched_top_k_equals_ranking_every_event(
        b in gen_trace(40),
        c in gen_trace(40),
        k in 0usize..8,
        batch in 1usize..12,
    ) {
        let (tb, tc) = turns(&b, &c);
        let (ab, ac) = intern(&tb, &tc);
        let a = gotoh::align(&ab, &ac);
        let sides = super::divergence::Sides {
            baseline: &tb,
            candidate: &tc,
            baseline_aligned: &ab,
            candidate_aligned: &ac,
        };
        let all = super::divergence::walk(&a.steps, sides, usize::MAX);
        let first = all.first().cloned();
        let ranked = super::divergence::top_k(all, k);
        let (bf, br) = super::divergence::first_and_top_k_batched(&a.steps, sides, k, batch);
        prop_assert_eq!(bf, first.clone());
        prop_assert_eq!(br, ranked.clone());
        prop_assert_eq!(super::divergence::first_and_top_k(&a.steps, sides, k), (first, ranked));
    }

    /// A fixed band over the work limit takes the cheapest of the linear bands (prefix,
    /// suffix, straight line): its path is a valid alignment of the cost it reports, and bands
    /// as wide as the table give the exact optimum.
    #[test]
    fn linear_fallback_bands_are_valid_and_exact_when_wide(
        b in gen_trace(40),
        c in gen_trace(12),
        w in 0usize..6,
        swap in any::<bool>(),
    ) {
        let (b, c) = if swap { (c, b) } else { (b, c) };
        let (tb, tc) = turns(&b, &c);
        let (ab, ac) = intern(&tb, &tc);
        prop_assume!(!ab.is_empty() && !ac.is_empty());
        let a = gotoh::align_in_band(&ab, &ac, w, 0);
        assert_valid_path(&a.steps, ab.len(), ac.len());
        prop_assert!((path_cost(&a.steps, &ab, &ac) - a.cost).abs() < 1e-9);
        let wide = gotoh::align_in_band(&ab, &ac, ab.len().max(ac.len()), 0);
        prop_assert_eq!(wide, gotoh::align(&ab, &ac));
    }

    /// Anchored or not, every path is a valid alignment whose cost is what it reports.
    #[test]
    fn anchored_path_is_valid(b in gen_trace(40), c in gen_trace(40), max_cells in 0u64..2000) {
        let (tb, tc) = turns(&b, &c);
        let (ab, ac) = intern(&tb, &tc);
        let a = super::anchored::align_anchored(&ab, &ac, max_cells);
        assert_valid_path(&a.steps, ab.len(), ac.len());
        prop_assert!((path_cost(&a.steps, &ab, &ac) - a.cost).abs() < 1e-9 || ab.is_empty() || ac.is_empty());
    }
}
