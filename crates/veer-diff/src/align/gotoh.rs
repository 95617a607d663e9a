//! veer's exact three-state Gotoh alignment (spec `diff.md` §9.6), evaluated in a band around
//! the diagonal that doubles until no path leaving it can be optimal, with a traceback in
//! bounded memory.
//!
//! The band starts at half-width 32 and grows (×2 to ×4, guided by the rejected round's
//! optimum) until accepted.
//!
//! `F_s(i, j)` is the cheapest cost of aligning `B[i..]` with `C[j..]` when the previous step
//! was in state `s` (M: pair or start, X: insertion, Y: deletion). Rows are evaluated from `n`
//! down to 0 and columns right to left, two rows of values per state (O(m) floats). The path
//! is traced forward from (0, 0) in state M, taking at each cell the first option (pair,
//! delete, insert) within 1e-12 of the minimum.
//!
//! Memory. While the band holds at most `CHOICE_BUDGET` cells, the acceptance pass records
//! one choice byte per cell and the path is read from them. Beyond that the band is cut into
//! segments of at most that many cells; the acceptance pass keeps the values of each
//! segment's boundary row, and an accepted round is traced one segment at a time, each
//! re-evaluated from its boundary with its choices recorded — one more pass in all. Should
//! even the boundary rows exceed `CHECKPOINT_VALUES`, the path is recovered
//! Hirschberg-style: a pass over the lower half of a row range keeps the boundary row's values,
//! a pass over the upper half carries, for every cell, where the greedy path from it first
//! enters the middle row; the two halves are then solved recursively. Every pass evaluates the
//! rows with the same kernel in the same order, so values — and therefore choices — are
//! bit-identical to the one-pass evaluation. Memory is then O(m · log n) floats plus the fixed
//! choice budget, never quadratic; time grows by a factor of about log₂(n·w / budget).

mod grid;
mod traceback;

use grid::Grid;
use traceback::{segments, trace, Choices};

use super::band::Band;
use super::cost::{AlignTurn, ClassTable};
use super::shingle_index::ShingleIndex;
use super::{Alignment, GAP_EXTEND, GAP_OPEN};

/// Half-width of the first band.
pub(crate) const INITIAL_HALF_WIDTH: usize = 32;
/// Most in-band cells whose choice bytes are kept at once (16 MiB).
pub(crate) const CHOICE_BUDGET: usize = 16 << 20;
/// Most row values kept as segment checkpoints (64 MiB of `f64`); beyond it the traceback
/// recurses instead.
pub(crate) const CHECKPOINT_VALUES: usize = 8 << 20;
/// Pair costs computed ahead per chunk of rows (8 MiB of `f64`).
const COST_CHUNK_CELLS: usize = 1 << 20;
/// Tolerance within which two option values count as tied.
const TIE: f64 = 1e-12;
/// Margin by which the optimum must beat the out-of-band lower bound.
const ACCEPT_MARGIN: f64 = 1e-9;

const PAIR: u8 = 0;
const DELETE: u8 = 1;
const INSERT: u8 = 2;
/// State indices: 0 = M, 1 = X (after an insertion), 2 = Y (after a deletion).
const M: u8 = 0;
const X: u8 = 1;
const Y: u8 = 2;

const INF: f64 = f64::INFINITY;

/// The optimal alignment of `b` and `c` under veer's Gotoh definition; exact at every size.
pub fn align(b: &[AlignTurn<'_>], c: &[AlignTurn<'_>]) -> Alignment {
    align_with_budget(b, c, choice_budget(b.len(), c.len()))
}

/// Choice bytes kept at once for an `n × m` alignment: [`CHOICE_BUDGET`], or 256 bytes per
/// turn when more — under 1% of the ~30 KB a turn of a loaded trace takes, and enough for a
/// long near-identical pair's accepted band to be traced in the pass that accepts it.
pub(crate) fn choice_budget(n: usize, m: usize) -> usize {
    CHOICE_BUDGET.max((n + m).saturating_mul(256))
}

/// [`align`] keeping at most `budget` choice bytes at once (tests use tiny budgets to exercise
/// the divide-and-conquer traceback).
pub(crate) fn align_with_budget(
    b: &[AlignTurn<'_>],
    c: &[AlignTurn<'_>],
    budget: usize,
) -> Alignment {
    align_with_budgets(b, c, budget, CHECKPOINT_VALUES)
}

/// [`align_with_budget`] keeping at most `checkpoint_values` row values as segment
/// checkpoints (0 forces the recursive traceback whenever there is more than one segment).
pub(crate) fn align_with_budgets(
    b: &[AlignTurn<'_>],
    c: &[AlignTurn<'_>],
    budget: usize,
    checkpoint_values: usize,
) -> Alignment {
    align_recording(b, c, budget, budget.min(CHOICE_BUDGET), checkpoint_values)
}

/// [`align_with_budgets`] recording at most `uncertain_budget` choice bytes in a round that
/// may be rejected (tests pass 0: such rounds are then always traced from boundary rows).
pub(crate) fn align_recording(
    b: &[AlignTurn<'_>],
    c: &[AlignTurn<'_>],
    budget: usize,
    uncertain_budget: usize,
    checkpoint_values: usize,
) -> Alignment {
    match banded(
        b,
        c,
        budget,
        uncertain_budget,
        checkpoint_values,
        u64::MAX,
        None,
        false,
    ) {
        Ok(a) => a,
        // Unreachable: without a work limit the band always widens to acceptance.
        Err(_) => Alignment {
            steps: Vec::new(),
            cost: f64::INFINITY,
        },
    }
}

/// [`align`] unless a round would evaluate more than `max_cells` in-band cells (the band of
/// two very different long traces approaches n·m); then None, having done at most a few
/// rounds' work. Within the limit the result is exactly [`align`]'s.
pub(crate) fn align_within(
    b: &[AlignTurn<'_>],
    c: &[AlignTurn<'_>],
    max_cells: u64,
) -> Option<Alignment> {
    banded(
        b,
        c,
        choice_budget(b.len(), c.len()),
        CHOICE_BUDGET,
        CHECKPOINT_VALUES,
        max_cells,
        None,
        false,
    )
    .ok()
}

/// [`align_within`], and when it gives up, the path [`align_in_band`] finds in the band of
/// half-width [`INITIAL_HALF_WIDTH`] (Err; None if even that band is over `max_cells`): that
/// band is the exact search's first round, so its path is traced from that round rather than
/// evaluated again. `Ok` is exactly [`align_within`]'s `Some`; `Err(Some(a))` is exactly
/// `align_in_band(b, c, INITIAL_HALF_WIDTH)`.
pub(crate) fn align_or_first_band(
    b: &[AlignTurn<'_>],
    c: &[AlignTurn<'_>],
    max_cells: u64,
) -> Result<Alignment, Option<Alignment>> {
    banded(
        b,
        c,
        choice_budget(b.len(), c.len()),
        CHOICE_BUDGET,
        CHECKPOINT_VALUES,
        max_cells,
        None,
        true,
    )
}

/// The cheapest path of veer's Gotoh definition among those inside the band of half-width `w`
/// around the diagonal (every cell with `d.min(0) − w ≤ j − i ≤ d.max(0) + w`, `d = m − n`):
/// one round, not widened, so not necessarily the optimum — the anchored alignment's fallback
/// for a window too large for the exact DP. Equal to [`align`] whenever `w ≥ max(n, m)`.
///
/// When that band holds more than `max_cells` cells (lengths so different that the band,
/// which must hold the whole difference, approaches n·m), the path is instead the cheapest of
/// three bands of about `(2w + 1)·n + max(n, m)` cells each ([`Band::linear`]: a common prefix
/// then gaps, gaps then a common suffix, or along the straight line from (0, 0) to (n, m); the
/// first of them on ties), so the fallback's work stays linear in the lengths. For equal
/// lengths all of them are the diagonal band.
pub(crate) fn align_in_band(
    b: &[AlignTurn<'_>],
    c: &[AlignTurn<'_>],
    w: usize,
    max_cells: u64,
) -> Alignment {
    let fallback = || Alignment {
        steps: Vec::new(),
        cost: f64::INFINITY,
    };
    banded(
        b,
        c,
        choice_budget(b.len(), c.len()),
        CHOICE_BUDGET,
        CHECKPOINT_VALUES,
        max_cells,
        Some(w),
        false,
    )
    .unwrap_or_else(|_| fallback())
}

#[allow(clippy::too_many_arguments)]
fn banded(
    b: &[AlignTurn<'_>],
    c: &[AlignTurn<'_>],
    budget: usize,
    uncertain_budget: usize,
    checkpoint_values: usize,
    max_cells: u64,
    fixed: Option<usize>,
    keep_first: bool,
) -> Result<Alignment, Option<Alignment>> {
    let (n, m) = (b.len(), c.len());
    let gap = n.abs_diff(m) as f64;
    let index = ShingleIndex::new(c);
    let classes = ClassTable::new(b, c);
    let mut w = fixed.unwrap_or(INITIAL_HALF_WIDTH);
    // The first round's path, when asked for and that round is rejected.
    let mut first: Option<Alignment> = None;
    // The previous round's banded optimum: this round, whose band holds that round's, costs
    // no more.
    let mut previous: Option<f64> = None;
    let lower_bound = |w: usize| 2.0 * GAP_OPEN + (gap + 2.0 * w as f64) * GAP_EXTEND;
    loop {
        let grid = Grid::new(b, c, &index, &classes, w);
        let cells = grid.cells();
        if cells as u64 > max_cells {
            return match fixed {
                // A fixed band too large around the diagonal: the linear bands instead.
                Some(w) if n > 0 => Ok(cheapest_linear(
                    (b, c),
                    (&index, &classes),
                    w,
                    budget,
                    checkpoint_values,
                )),
                _ => Err(first),
            };
        }
        // Choices are recorded up to the whole budget in the first round and in a round
        // certain to be accepted; a later round that may well be rejected (two unrelated runs
        // widen round after round) records at most `uncertain_budget` bytes, and is traced
        // from its boundary rows if it is accepted after all. Only time and memory change.
        let certain = fixed.is_some()
            || w >= n.max(m)
            || previous.is_none_or(|p| p + ACCEPT_MARGIN < lower_bound(w));
        let round_budget = if certain {
            budget
        } else {
            budget.min(uncertain_budget)
        };
        let round = Round::sweep(&grid, budget, round_budget, checkpoint_values);
        let cost = round.cost;
        let full = w >= n.max(m) || fixed.is_some();
        let accepted = full || cost + ACCEPT_MARGIN < lower_bound(w);
        previous = Some(cost);
        if accepted || (keep_first && w == INITIAL_HALF_WIDTH && fixed.is_none()) {
            let traced = round.trace(&grid, budget);
            if accepted {
                return Ok(traced);
            }
            first = Some(traced);
        }
        let band_cells = |w: usize| Grid::new(b, c, &index, &classes, w).cells() as u64;
        w = next_half_width(w, cost, gap, n.max(m), band_cells, max_cells);
    }
}

/// The cheapest of the paths in the linear bands of half-width `w` ([`Band::linear`]), the
/// first of them on equal cost.
fn cheapest_linear(
    (b, c): (&[AlignTurn<'_>], &[AlignTurn<'_>]),
    (index, classes): (&ShingleIndex, &ClassTable),
    w: usize,
    budget: usize,
    checkpoint_values: usize,
) -> Alignment {
    let mut cheapest: Option<Alignment> = None;
    for band in Band::linear(w) {
        let grid = Grid::with_band(b, c, index, classes, band);
        let path = Round::sweep(&grid, budget, budget, checkpoint_values).trace(&grid, budget);
        if cheapest.as_ref().is_none_or(|best| path.cost < best.cost) {
            cheapest = Some(path);
        }
    }
    cheapest.unwrap_or(Alignment {
        steps: Vec::new(),
        cost: f64::INFINITY,
    })
}

/// One evaluated band: the optimum's cost and what tracing its path needs.
struct Round {
    cost: f64,
    choices: Option<Choices>,
    bounds: Option<Vec<usize>>,
    /// Boundary rows' in-band values, top-down.
    checkpoints: Vec<(usize, Vec<f64>)>,
}

impl Round {
    /// Evaluates every row of `grid`'s band, recording choice bytes when the band holds at
    /// most `record_budget` cells; beyond that, the values of each segment's boundary row, so
    /// the path is traced with one more pass a segment at a time — unless those rows would
    /// themselves exceed `checkpoint_values`; then Hirschberg-style recursion.
    fn sweep(
        grid: &Grid<'_>,
        budget: usize,
        record_budget: usize,
        checkpoint_values: usize,
    ) -> Round {
        let n = grid.n;
        let mut choices = (grid.cells() <= record_budget).then(|| Choices::record(grid, 0, n + 1));
        let bounds = if choices.is_none() {
            let b = segments(grid, budget);
            let kept: usize = b[1..b.len() - 1].iter().map(|&i| 3 * grid.width(i)).sum();
            (kept <= checkpoint_values).then_some(b)
        } else {
            None
        };
        let mut checkpoints: Vec<(usize, Vec<f64>)> = Vec::new();
        let top = grid.sweep_rows(
            0,
            n + 1,
            None,
            |i, j, p| {
                if let Some(ch) = choices.as_mut() {
                    ch.set(grid, i, j, p);
                }
            },
            |i, values| {
                if let Some(b) = &bounds {
                    if i > 0 && b.binary_search(&i).is_ok() {
                        checkpoints.push((i, grid.band_slice(i, values)));
                    }
                }
            },
        );
        checkpoints.reverse();
        Round {
            cost: top[0][0],
            choices,
            bounds,
            checkpoints,
        }
    }

    /// The round's path.
    fn trace(self, grid: &Grid<'_>, budget: usize) -> Alignment {
        Alignment {
            steps: trace(
                grid,
                self.choices.as_ref(),
                self.bounds.as_deref(),
                &self.checkpoints,
                budget,
            ),
            cost: self.cost,
        }
    }
}

/// The next band half-width after a rejected round with banded optimum `cost`. `needed` is the
/// width at which the out-of-band lower bound exceeds `cost`: a wider band can only lower the
/// optimum, so a round there is certain to be accepted. When that round costs at most three
/// times the cells of a 4× band (and fits `max_cells`), veer goes straight to it — the usual
/// case for long, nearly identical traces, whose banded optimum is already the optimum;
/// otherwise the band grows 2× to 4×, since the true optimum may be well below `cost`. The
/// schedule changes only the running time, never the result.
fn next_half_width(
    w: usize,
    cost: f64,
    gap: f64,
    full: usize,
    cells: impl Fn(usize) -> u64,
    max_cells: u64,
) -> usize {
    let needed = ((cost + ACCEPT_MARGIN - 2.0 * GAP_OPEN) / (2.0 * GAP_EXTEND) - gap / 2.0)
        .floor()
        .max(0.0);
    let needed = if needed.is_finite() && needed < 1e15 {
        needed as usize + 1
    } else {
        usize::MAX
    };
    let capped = needed.clamp(w.saturating_mul(2), w.saturating_mul(4));
    // Any width from `full` on is the whole table.
    let needed = needed.min(full.max(1));
    if needed <= capped {
        return capped;
    }
    let jump = cells(needed);
    if jump <= max_cells && jump <= cells(capped).saturating_mul(3) {
        needed
    } else {
        capped
    }
}
