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
//! Memory. While the band holds at most [`CHOICE_BUDGET`] cells, the acceptance pass records
//! one choice byte per cell and the path is read from them. Beyond that the band is cut into
//! segments of at most that many cells; the acceptance pass keeps the values of each
//! segment's boundary row, and an accepted round is traced one segment at a time, each
//! re-evaluated from its boundary with its choices recorded — one more pass in all. Should
//! even the boundary rows exceed [`CHECKPOINT_VALUES`], the path is recovered
//! Hirschberg-style: a pass over the lower half of a row range keeps the boundary row's values,
//! a pass over the upper half carries, for every cell, where the greedy path from it first
//! enters the middle row; the two halves are then solved recursively. Every pass evaluates the
//! rows with the same kernel in the same order, so values — and therefore choices — are
//! bit-identical to the one-pass evaluation. Memory is then O(m · log n) floats plus the fixed
//! choice budget, never quadratic; time grows by a factor of about log₂(n·w / budget).

use super::band::Band;
use super::cost::{AlignTurn, ClassTable};
use super::shingle_index::ShingleIndex;
use super::{Alignment, Step, GAP_EXTEND, GAP_OPEN};

/// Half-width of the first band.
pub const INITIAL_HALF_WIDTH: usize = 32;
/// Most in-band cells whose choice bytes are kept at once (16 MiB).
pub const CHOICE_BUDGET: usize = 16 << 20;
/// Most row values kept as segment checkpoints (64 MiB of `f64`); beyond it the traceback
/// recurses instead.
pub const CHECKPOINT_VALUES: usize = 8 << 20;
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

/// Values of the three states along one row, indexed by column (`m + 2` entries each).
type RowValues = [Vec<f64>; 3];

/// The problem: both sides and the band of one round.
struct Grid<'a> {
    b: &'a [AlignTurn<'a>],
    c: &'a [AlignTurn<'a>],
    index: &'a ShingleIndex,
    classes: &'a ClassTable,
    n: usize,
    m: usize,
    band: Band,
}

impl<'a> Grid<'a> {
    fn new(
        b: &'a [AlignTurn<'a>],
        c: &'a [AlignTurn<'a>],
        index: &'a ShingleIndex,
        classes: &'a ClassTable,
        w: usize,
    ) -> Grid<'a> {
        Grid::with_band(b, c, index, classes, Band::diagonal(b.len(), c.len(), w))
    }

    /// The grid of any band (both sides non-empty for the linear bands).
    fn with_band(
        b: &'a [AlignTurn<'a>],
        c: &'a [AlignTurn<'a>],
        index: &'a ShingleIndex,
        classes: &'a ClassTable,
        band: Band,
    ) -> Grid<'a> {
        Grid {
            b,
            c,
            index,
            classes,
            n: b.len(),
            m: c.len(),
            band,
        }
    }

    /// In-band cells over all rows.
    fn cells(&self) -> usize {
        (0..=self.n).map(|i| self.width(i)).sum()
    }

    /// Inclusive column range of row `i` ([`Band::cols`]).
    fn cols(&self, i: usize) -> (usize, usize) {
        self.band.cols(i, self.n, self.m)
    }

    fn width(&self, i: usize) -> usize {
        let (a, z) = self.cols(i);
        z + 1 - a
    }

    fn empty_row(&self) -> RowValues {
        [
            vec![INF; self.m + 2],
            vec![INF; self.m + 2],
            vec![INF; self.m + 2],
        ]
    }

    /// Evaluates row `i` into `cur` from row `i + 1` in `next` (ignored when `i == n`), calling
    /// `record(j, packed choices)` for every in-band cell, right to left. Reads outside a row's
    /// band count as +∞, so stale vector contents never matter.
    fn row(
        &self,
        i: usize,
        next: &RowValues,
        cur: &mut RowValues,
        costs: &[f64],
        mut record: impl FnMut(usize, u8),
    ) {
        let (n, m) = (self.n, self.m);
        let (ja, jz) = self.cols(i);
        let (na, nz) = if i < n { self.cols(i + 1) } else { (1, 0) };
        let below = |s: usize, j: usize| {
            if i < n && j >= na && j <= nz {
                next[s][j]
            } else {
                INF
            }
        };
        for j in (ja..=jz).rev() {
            if i == n && j == m {
                for v in cur.iter_mut() {
                    v[j] = 0.0;
                }
                record(j, 0);
                continue;
            }
            let pair = if i < n && j < m {
                costs[j - ja] + below(0, j + 1)
            } else {
                INF
            };
            let del_y = below(2, j);
            let ins_x = if j < jz { cur[1][j + 1] } else { INF };
            let mut packed = 0u8;
            for s in 0..3u8 {
                let del = del_y + if s == Y { GAP_EXTEND } else { GAP_OPEN };
                let ins = ins_x + if s == X { GAP_EXTEND } else { GAP_OPEN };
                let best = pair.min(del).min(ins);
                let pick = if pair <= best + TIE {
                    PAIR
                } else if del <= best + TIE {
                    DELETE
                } else {
                    INSERT
                };
                cur[s as usize][j] = best;
                packed |= pick << (2 * s);
            }
            record(j, packed);
        }
    }

    /// The pair costs of row `i`'s band cells (index `j − ja`); row `n` and column `m` have
    /// no pair and are left at 0 (never read).
    fn pair_costs(&self, i: usize) -> Vec<f64> {
        let (ja, jz) = self.cols(i);
        let mut costs = vec![0.0; jz + 1 - ja];
        if i < self.n {
            let mut shared = vec![0u32; costs.len()];
            self.index.shared_row(&self.b[i], ja, &mut shared);
            for (k, cost) in costs.iter_mut().enumerate() {
                let j = ja + k;
                if j < self.m {
                    *cost = self
                        .classes
                        .cost(i, j, &self.b[i], &self.c[j], || shared[k] as usize);
                }
            }
        }
        costs
    }

    /// Calls `each(i, pair costs of row i)` for rows `bottom − 1` down to `top`. The costs —
    /// most of a cell's work, and independent of the DP — are computed in parallel a chunk of
    /// rows ahead while `each` runs on the current chunk; `each` still sees the rows in order.
    fn for_rows_desc(&self, top: usize, bottom: usize, mut each: impl FnMut(usize, &[f64]) + Send) {
        use rayon::prelude::*;
        let rows: Vec<usize> = (top..bottom).rev().collect();
        let per_chunk = (COST_CHUNK_CELLS / (self.m + 1)).max(1);
        let compute = |rs: &[usize]| -> Vec<Vec<f64>> {
            rs.par_iter().map(|&i| self.pair_costs(i)).collect()
        };
        let mut chunks = rows.chunks(per_chunk);
        let mut current = chunks.next().map(|rs| (rs, compute(rs)));
        while let Some((rs, costs)) = current.take() {
            let ahead = chunks.next();
            let ((), next) = rayon::join(
                || {
                    for (&i, c) in rs.iter().zip(&costs) {
                        each(i, c);
                    }
                },
                || ahead.map(|a| (a, compute(a))),
            );
            current = next;
        }
    }

    /// Evaluates rows `bottom − 1` down to `top` from the values of row `bottom` (`None`:
    /// `bottom == n + 1`, nothing below). Returns row `top`'s values.
    fn sweep(
        &self,
        top: usize,
        bottom: usize,
        boundary: Option<&RowValues>,
        record: impl FnMut(usize, usize, u8) + Send,
    ) -> RowValues {
        self.sweep_rows(top, bottom, boundary, record, |_, _| {})
    }

    /// [`Grid::sweep`], also handing each evaluated row's values to `on_row(i, values)`.
    fn sweep_rows(
        &self,
        top: usize,
        bottom: usize,
        boundary: Option<&RowValues>,
        mut record: impl FnMut(usize, usize, u8) + Send,
        mut on_row: impl FnMut(usize, &RowValues) + Send,
    ) -> RowValues {
        let mut next = match boundary {
            Some(v) => v.clone(),
            None => self.empty_row(),
        };
        let mut cur = self.empty_row();
        self.for_rows_desc(top, bottom, |i, costs| {
            self.row(i, &next, &mut cur, costs, |j, p| record(i, j, p));
            on_row(i, &cur);
            std::mem::swap(&mut next, &mut cur);
        });
        next
    }

    /// The in-band values of row `i` (three states, columns `cols(i)`).
    fn band_slice(&self, i: usize, values: &RowValues) -> Vec<f64> {
        let (a, z) = self.cols(i);
        values
            .iter()
            .flat_map(|v| v[a..=z].iter().copied())
            .collect()
    }

    /// A full row of values from [`Grid::band_slice`] (out-of-band entries +∞).
    fn row_from_band_slice(&self, i: usize, slice: &[f64]) -> RowValues {
        let (a, z) = self.cols(i);
        let w = z + 1 - a;
        let mut row = self.empty_row();
        for (s, v) in row.iter_mut().enumerate() {
            v[a..=z].copy_from_slice(&slice[s * w..(s + 1) * w]);
        }
        row
    }
}

/// One forward step from `(i, j, state)` by `choice`.
fn step(choice: u8, i: &mut usize, j: &mut usize, state: &mut u8, n: usize, m: usize) -> Step {
    match choice {
        PAIR if *i < n && *j < m => {
            let s = Step::Match(*i, *j);
            *i += 1;
            *j += 1;
            *state = M;
            s
        }
        INSERT if *j < m => {
            let s = Step::Insert(*j);
            *j += 1;
            *state = X;
            s
        }
        _ if *i < n => {
            let s = Step::Delete(*i);
            *i += 1;
            *state = Y;
            s
        }
        _ => {
            let s = Step::Insert(*j);
            *j += 1;
            *state = X;
            s
        }
    }
}

/// Choice bytes of rows `top..bottom` (row-major over each row's band).
struct Choices {
    top: usize,
    start: Vec<usize>,
    bytes: Vec<u8>,
}

impl Choices {
    fn record(grid: &Grid<'_>, top: usize, bottom: usize) -> Choices {
        let mut start = Vec::with_capacity(bottom - top + 1);
        let mut acc = 0;
        for i in top..bottom {
            start.push(acc);
            acc += grid.width(i);
        }
        start.push(acc);
        Choices {
            top,
            start,
            bytes: vec![0; acc],
        }
    }

    fn slot(&self, grid: &Grid<'_>, i: usize, j: usize) -> usize {
        self.start[i - self.top] + (j - grid.cols(i).0)
    }

    fn set(&mut self, grid: &Grid<'_>, i: usize, j: usize, packed: u8) {
        let k = self.slot(grid, i, j);
        if let Some(b) = self.bytes.get_mut(k) {
            *b = packed;
        }
    }

    fn get(&self, grid: &Grid<'_>, i: usize, j: usize, state: u8) -> u8 {
        let byte = self.bytes.get(self.slot(grid, i, j)).copied().unwrap_or(0);
        (byte >> (2 * state)) & 3
    }
}

/// Follows the greedy path from `(i, j, state)` through recorded rows until it enters row
/// `bottom` (or reaches (n, m)); returns the entry column and state.
fn follow(
    grid: &Grid<'_>,
    choices: &Choices,
    bottom: usize,
    mut i: usize,
    mut j: usize,
    mut state: u8,
    steps: &mut Vec<Step>,
) -> (usize, u8) {
    let (n, m) = (grid.n, grid.m);
    while i < bottom && !(i == n && j == m) {
        let c = choices.get(grid, i, j, state);
        steps.push(step(c, &mut i, &mut j, &mut state, n, m));
    }
    (j, state)
}

/// Appends the greedy path from `(top, j, state)` until it enters row `bottom` (the end when
/// `bottom == n + 1`), recording one choice byte per cell of rows `top..bottom`.
fn trace_recorded(
    grid: &Grid<'_>,
    top: usize,
    bottom: usize,
    boundary: Option<&RowValues>,
    (j, state): (usize, u8),
    steps: &mut Vec<Step>,
) -> (usize, u8) {
    let mut choices = Choices::record(grid, top, bottom);
    grid.sweep(top, bottom, boundary, |i, jj, p| {
        choices.set(grid, i, jj, p)
    });
    follow(grid, &choices, bottom, top, j, state, steps)
}

/// Row boundaries `0 = r₀ < r₁ < … < r_k = n + 1` splitting the band into segments of at
/// most `budget` cells (a row wider than the budget is a segment by itself).
fn segments(grid: &Grid<'_>, budget: usize) -> Vec<usize> {
    let mut bounds = vec![0];
    let mut acc = 0;
    for i in 0..=grid.n {
        let w = grid.width(i);
        if acc > 0 && acc + w > budget {
            bounds.push(i);
            acc = 0;
        }
        acc += w;
    }
    bounds.push(grid.n + 1);
    bounds
}

/// Appends the greedy path from `(top, j, state)` until it enters row `bottom` (the end when
/// `bottom == n + 1`), using at most `budget` choice bytes at a time.
fn trace_segment(
    grid: &Grid<'_>,
    top: usize,
    bottom: usize,
    boundary: Option<&RowValues>,
    (j, state): (usize, u8),
    budget: usize,
    steps: &mut Vec<Step>,
) -> (usize, u8) {
    let cells: usize = (top..bottom).map(|i| grid.width(i)).sum();
    if cells <= budget || bottom - top <= 2 {
        return trace_recorded(grid, top, bottom, boundary, (j, state), steps);
    }
    let mid = top + (bottom - top) / 2;
    let mid_values = grid.sweep(mid, bottom, boundary, |_, _, _| {});
    // Where the greedy path from each cell of rows top..mid first enters row `mid`.
    let width = grid.m + 2;
    let mut ptr_next = vec![(0u32, 0u8); 3 * width];
    let mut ptr_cur = vec![(0u32, 0u8); 3 * width];
    let mut entry = (0usize, M);
    let mut next = mid_values.clone();
    let mut cur = grid.empty_row();
    grid.for_rows_desc(top, mid, |i, costs| {
        grid.row(i, &next, &mut cur, costs, |jj, packed| {
            for s in 0..3u8 {
                let target = match (packed >> (2 * s)) & 3 {
                    PAIR if i + 1 == mid => (jj as u32 + 1, M),
                    PAIR => ptr_next[3 * (jj + 1) + M as usize],
                    DELETE if i + 1 == mid => (jj as u32, Y),
                    DELETE => ptr_next[3 * jj + Y as usize],
                    _ => ptr_cur[3 * (jj + 1) + X as usize],
                };
                ptr_cur[3 * jj + s as usize] = target;
            }
        });
        if i == top {
            let (c, s) = ptr_cur[3 * j + state as usize];
            entry = (c as usize, s);
        }
        std::mem::swap(&mut next, &mut cur);
        std::mem::swap(&mut ptr_next, &mut ptr_cur);
    });
    drop((next, cur, ptr_next, ptr_cur));
    trace_segment(grid, top, mid, Some(&mid_values), (j, state), budget, steps);
    drop(mid_values);
    trace_segment(grid, mid, bottom, boundary, entry, budget, steps)
}

/// The optimal alignment of `b` and `c` under veer's Gotoh definition; exact at every size.
pub fn align(b: &[AlignTurn<'_>], c: &[AlignTurn<'_>]) -> Alignment {
    align_with_budget(b, c, choice_budget(b.len(), c.len()))
}

/// Choice bytes kept at once for an `n × m` alignment: [`CHOICE_BUDGET`], or 256 bytes per
/// turn when more — under 1% of the ~30 KB a turn of a loaded trace takes, and enough for a
/// long near-identical pair's accepted band to be traced in the pass that accepts it.
pub fn choice_budget(n: usize, m: usize) -> usize {
    CHOICE_BUDGET.max((n + m).saturating_mul(256))
}

/// [`align`] keeping at most `budget` choice bytes at once (tests use tiny budgets to exercise
/// the divide-and-conquer traceback).
pub fn align_with_budget(b: &[AlignTurn<'_>], c: &[AlignTurn<'_>], budget: usize) -> Alignment {
    align_with_budgets(b, c, budget, CHECKPOINT_VALUES)
}

/// [`align_with_budget`] keeping at most `checkpoint_values` row values as segment
/// checkpoints (0 forces the recursive traceback whenever there is more than one segment).
pub fn align_with_budgets(
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
pub fn align_within(b: &[AlignTurn<'_>], c: &[AlignTurn<'_>], max_cells: u64) -> Option<Alignment> {
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
pub fn align_or_first_band(
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
pub fn align_in_band(
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

/// The path of an evaluated round: read from its choice bytes when they were recorded, else
/// re-evaluated a segment at a time from the boundary rows kept in `checkpoints` (top-down
/// order), else recovered by recursion.
fn trace(
    grid: &Grid<'_>,
    choices: Option<&Choices>,
    bounds: Option<&[usize]>,
    checkpoints: &[(usize, Vec<f64>)],
    budget: usize,
) -> Vec<Step> {
    let n = grid.n;
    let mut steps = Vec::with_capacity(grid.n + grid.m);
    match (choices, bounds) {
        (Some(ch), _) => {
            follow(grid, ch, n + 1, 0, 0, M, &mut steps);
        }
        (None, Some(b)) => {
            let mut at = (0, M);
            for (t, seg) in b.windows(2).enumerate() {
                let boundary = checkpoints
                    .get(t)
                    .map(|(i, slice)| grid.row_from_band_slice(*i, slice));
                at = trace_recorded(grid, seg[0], seg[1], boundary.as_ref(), at, &mut steps);
            }
        }
        (None, None) => {
            trace_segment(grid, 0, n + 1, None, (0, M), budget, &mut steps);
        }
    }
    steps
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
