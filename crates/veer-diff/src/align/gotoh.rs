//! veer's exact three-state Gotoh alignment (spec `diff.md` §9.6), evaluated in a band around
//! the diagonal that doubles until no path leaving it can be optimal.
//!
//! `F_s(i, j)` is the cheapest cost of aligning `B[i..]` with `C[j..]` when the previous step
//! was in state `s` (M: pair or start, X: insertion, Y: deletion). Rows are evaluated from
//! `n` down to 0 and columns right to left, keeping two rows of values per state (O(m) floats)
//! and one choice byte per in-band cell. The path is traced forward from (0, 0) in state M,
//! taking at each cell the first option (pair, delete, insert) within 1e-12 of the minimum.
//!
//! Memory is O(m) floats plus one byte per in-band cell: O((n + m)·w) for a band of half-width
//! `w`. Similar traces are accepted at the first band (`w = 32`), so memory is linear in the
//! trace length; wholly different traces widen the band towards the full matrix.

use super::cost::{pair_cost, AlignTurn};
use super::{Alignment, Step, GAP_EXTEND, GAP_OPEN};

/// Half-width of the first band.
pub const INITIAL_HALF_WIDTH: usize = 32;
/// Tolerance within which two option values count as tied.
const TIE: f64 = 1e-12;
/// Margin by which the optimum must beat the out-of-band lower bound.
const ACCEPT_MARGIN: f64 = 1e-9;

const PAIR: u8 = 0;
const DELETE: u8 = 1;
const INSERT: u8 = 2;

/// Choices of the three states packed in one byte: bits 0–1 state M, 2–3 state X, 4–5 Y.
fn pack(m: u8, x: u8, y: u8) -> u8 {
    m | (x << 2) | (y << 4)
}

/// The band of one round: in-band cells satisfy `lo ≤ j − i ≤ hi`.
struct Band {
    lo: i64,
    hi: i64,
    n: usize,
    m: usize,
    /// Start offset into `choices` of each row's band.
    row_start: Vec<usize>,
}

impl Band {
    fn new(n: usize, m: usize, w: usize) -> Band {
        let d = m as i64 - n as i64;
        let w = w as i64;
        let mut band = Band {
            lo: d.min(0) - w,
            hi: d.max(0) + w,
            n,
            m,
            row_start: Vec::with_capacity(n + 2),
        };
        let mut acc = 0;
        for i in 0..=n {
            band.row_start.push(acc);
            let (a, b) = band.cols(i);
            acc += b + 1 - a;
        }
        band.row_start.push(acc);
        band
    }

    /// Inclusive column range of row `i` (never empty: the band contains the diagonal
    /// segment from (0, 0) to (n, m)).
    fn cols(&self, i: usize) -> (usize, usize) {
        let i = i as i64;
        let a = (i + self.lo).max(0);
        let b = (i + self.hi).min(self.m as i64);
        (a as usize, b.max(a) as usize)
    }

    fn cells(&self) -> usize {
        self.row_start[self.n + 1]
    }
}

/// Result of evaluating one band.
struct Round {
    /// `F_M(0, 0)`.
    cost: f64,
    /// One packed choice byte per in-band cell.
    choices: Vec<u8>,
}

fn evaluate(b: &[AlignTurn], c: &[AlignTurn], band: &Band) -> Round {
    let (n, m) = (b.len(), c.len());
    let inf = f64::INFINITY;
    let mut choices = vec![0u8; band.cells()];
    // Row i+1 ("next") and row i ("cur") values of the three states, indexed by column.
    let mut next = [vec![inf; m + 2], vec![inf; m + 2], vec![inf; m + 2]];
    let mut cur = [vec![inf; m + 2], vec![inf; m + 2], vec![inf; m + 2]];
    for i in (0..=n).rev() {
        // `cur` still holds row i+2; out-of-band cells of row i must read as +∞.
        if i + 2 <= n {
            let (a, z) = band.cols(i + 2);
            for v in &mut cur {
                v[a..=z].fill(inf);
            }
        }
        let (ja, jz) = band.cols(i);
        for j in (ja..=jz).rev() {
            let slot = band.row_start[i] + (j - ja);
            if i == n && j == m {
                for v in &mut cur {
                    v[j] = 0.0;
                }
                continue;
            }
            let pair = if i < n && j < m {
                pair_cost(&b[i], &c[j]).cost + next[0][j + 1]
            } else {
                inf
            };
            let del_y = if i < n { next[2][j] } else { inf };
            let ins_x = if j < m { cur[1][j + 1] } else { inf };
            let mut packed = [0u8; 3];
            for (s, choice) in packed.iter_mut().enumerate() {
                let del = del_y + if s == 2 { GAP_EXTEND } else { GAP_OPEN };
                let ins = ins_x + if s == 1 { GAP_EXTEND } else { GAP_OPEN };
                let best = pair.min(del).min(ins);
                let pick = if pair <= best + TIE {
                    PAIR
                } else if del <= best + TIE {
                    DELETE
                } else {
                    INSERT
                };
                cur[s][j] = best;
                *choice = pick;
            }
            choices[slot] = pack(packed[0], packed[1], packed[2]);
        }
        std::mem::swap(&mut cur, &mut next);
    }
    Round {
        cost: next[0][0],
        choices,
    }
}

fn trace(band: &Band, choices: &[u8]) -> Vec<Step> {
    let (n, m) = (band.n, band.m);
    let mut steps = Vec::with_capacity(n + m);
    let (mut i, mut j, mut state) = (0usize, 0usize, 0u8);
    while i < n || j < m {
        let (ja, _) = band.cols(i);
        let byte = choices[band.row_start[i] + (j - ja)];
        match (byte >> (2 * state)) & 3 {
            PAIR if i < n && j < m => {
                steps.push(Step::Match(i, j));
                i += 1;
                j += 1;
                state = 0;
            }
            DELETE if i < n => {
                steps.push(Step::Delete(i));
                i += 1;
                state = 2;
            }
            _ if j < m => {
                steps.push(Step::Insert(j));
                j += 1;
                state = 1;
            }
            _ => {
                steps.push(Step::Delete(i));
                i += 1;
                state = 2;
            }
        }
    }
    steps
}

/// The optimal alignment of `b` and `c` under veer's Gotoh definition; exact at every size.
pub fn align(b: &[AlignTurn], c: &[AlignTurn]) -> Alignment {
    let (n, m) = (b.len(), c.len());
    let gap = n.abs_diff(m) as f64;
    let mut w = INITIAL_HALF_WIDTH;
    loop {
        let band = Band::new(n, m, w);
        let round = evaluate(b, c, &band);
        let full = w >= n.max(m);
        let lower_bound = 2.0 * GAP_OPEN + (gap + 2.0 * w as f64) * GAP_EXTEND;
        if full || round.cost + ACCEPT_MARGIN < lower_bound {
            return Alignment {
                steps: trace(&band, &round.choices),
                cost: round.cost,
            };
        }
        w = w.saturating_mul(2);
    }
}
