//! The Gotoh DP kernel on one band: the [`Grid`] of a round (both sides, their pair costs and
//! the band), evaluating a row from the row below it, and sweeping a range of rows bottom-up
//! with the pair costs computed a chunk of rows ahead in parallel.

use super::{COST_CHUNK_CELLS, DELETE, INF, INSERT, PAIR, TIE, X, Y};
use crate::align::band::Band;
use crate::align::cost::{AlignTurn, ClassTable};
use crate::align::shingle_index::ShingleIndex;
use crate::align::{GAP_EXTEND, GAP_OPEN};

/// Values of the three states along one row, indexed by column (`m + 2` entries each).
pub(super) type RowValues = [Vec<f64>; 3];

/// The problem: both sides and the band of one round.
pub(super) struct Grid<'a> {
    b: &'a [AlignTurn<'a>],
    c: &'a [AlignTurn<'a>],
    index: &'a ShingleIndex,
    classes: &'a ClassTable,
    pub(super) n: usize,
    pub(super) m: usize,
    band: Band,
}

impl<'a> Grid<'a> {
    pub(super) fn new(
        b: &'a [AlignTurn<'a>],
        c: &'a [AlignTurn<'a>],
        index: &'a ShingleIndex,
        classes: &'a ClassTable,
        w: usize,
    ) -> Grid<'a> {
        Grid::with_band(b, c, index, classes, Band::diagonal(b.len(), c.len(), w))
    }

    /// The grid of any band (both sides non-empty for the linear bands).
    pub(super) fn with_band(
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
    pub(super) fn cells(&self) -> usize {
        (0..=self.n).map(|i| self.width(i)).sum()
    }

    /// Inclusive column range of row `i` ([`Band::cols`]).
    pub(super) fn cols(&self, i: usize) -> (usize, usize) {
        self.band.cols(i, self.n, self.m)
    }

    pub(super) fn width(&self, i: usize) -> usize {
        let (a, z) = self.cols(i);
        z + 1 - a
    }

    pub(super) fn empty_row(&self) -> RowValues {
        [
            vec![INF; self.m + 2],
            vec![INF; self.m + 2],
            vec![INF; self.m + 2],
        ]
    }

    /// Evaluates row `i` into `cur` from row `i + 1` in `next` (ignored when `i == n`), calling
    /// `record(j, packed choices)` for every in-band cell, right to left. Reads outside a row's
    /// band count as +∞, so stale vector contents never matter.
    pub(super) fn row(
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
    pub(super) fn for_rows_desc(
        &self,
        top: usize,
        bottom: usize,
        mut each: impl FnMut(usize, &[f64]) + Send,
    ) {
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
    pub(super) fn sweep(
        &self,
        top: usize,
        bottom: usize,
        boundary: Option<&RowValues>,
        record: impl FnMut(usize, usize, u8) + Send,
    ) -> RowValues {
        self.sweep_rows(top, bottom, boundary, record, |_, _| {})
    }

    /// [`Grid::sweep`], also handing each evaluated row's values to `on_row(i, values)`.
    pub(super) fn sweep_rows(
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
    pub(super) fn band_slice(&self, i: usize, values: &RowValues) -> Vec<f64> {
        let (a, z) = self.cols(i);
        values
            .iter()
            .flat_map(|v| v[a..=z].iter().copied())
            .collect()
    }

    /// A full row of values from [`Grid::band_slice`] (out-of-band entries +∞).
    pub(super) fn row_from_band_slice(&self, i: usize, slice: &[f64]) -> RowValues {
        let (a, z) = self.cols(i);
        let w = z + 1 - a;
        let mut row = self.empty_row();
        for (s, v) in row.iter_mut().enumerate() {
            v[a..=z].copy_from_slice(&slice[s * w..(s + 1) * w]);
        }
        row
    }
}
