//! Tracing the optimal path forward from (0, 0): from recorded choice bytes, one segment at a
//! time from checkpointed boundary rows, or Hirschberg-style by recursion when even those rows
//! would exceed the checkpoint budget (the memory scheme of [`super`]).

use super::grid::{Grid, RowValues};
use super::{DELETE, INSERT, M, PAIR, X, Y};
use crate::align::Step;

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
pub(super) struct Choices {
    top: usize,
    start: Vec<usize>,
    bytes: Vec<u8>,
}

impl Choices {
    pub(super) fn record(grid: &Grid<'_>, top: usize, bottom: usize) -> Choices {
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

    pub(super) fn set(&mut self, grid: &Grid<'_>, i: usize, j: usize, packed: u8) {
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
pub(super) fn segments(grid: &Grid<'_>, budget: usize) -> Vec<usize> {
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

/// The path of an evaluated round: read from its choice bytes when they were recorded, else
/// re-evaluated a segment at a time from the boundary rows kept in `checkpoints` (top-down
/// order), else recovered by recursion.
pub(super) fn trace(
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
