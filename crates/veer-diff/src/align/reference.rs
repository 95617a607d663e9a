//! Unbanded full-matrix evaluation of the same definition (tests only): every `F_s(i, j)`
//! stored, then the same forward trace. The banded DP must agree with it exactly.

use super::cost::{pair_cost, AlignTurn};
use super::{Alignment, Step, GAP_EXTEND, GAP_OPEN};

pub(crate) fn align(b: &[AlignTurn<'_>], c: &[AlignTurn<'_>]) -> Alignment {
    let (n, m) = (b.len(), c.len());
    let inf = f64::INFINITY;
    let idx = |i: usize, j: usize| i * (m + 1) + j;
    let mut f = [
        vec![inf; (n + 1) * (m + 1)],
        vec![inf; (n + 1) * (m + 1)],
        vec![inf; (n + 1) * (m + 1)],
    ];
    let options = |f: &[Vec<f64>; 3], i: usize, j: usize, s: usize| -> [f64; 3] {
        let pair = if i < n && j < m {
            pair_cost(&b[i], &c[j]).cost + f[0][idx(i + 1, j + 1)]
        } else {
            inf
        };
        let del = if i < n {
            f[2][idx(i + 1, j)] + if s == 2 { GAP_EXTEND } else { GAP_OPEN }
        } else {
            inf
        };
        let ins = if j < m {
            f[1][idx(i, j + 1)] + if s == 1 { GAP_EXTEND } else { GAP_OPEN }
        } else {
            inf
        };
        [pair, del, ins]
    };
    for i in (0..=n).rev() {
        for j in (0..=m).rev() {
            for s in 0..3 {
                let v = if i == n && j == m {
                    0.0
                } else {
                    let o = options(&f, i, j, s);
                    o[0].min(o[1]).min(o[2])
                };
                f[s][idx(i, j)] = v;
            }
        }
    }
    let mut steps = Vec::new();
    let (mut i, mut j, mut s) = (0, 0, 0);
    while i < n || j < m {
        let o = options(&f, i, j, s);
        let best = o[0].min(o[1]).min(o[2]);
        let k = o.iter().position(|&x| x <= best + 1e-12).unwrap_or(2);
        match k {
            0 => {
                steps.push(Step::Match(i, j));
                i += 1;
                j += 1;
                s = 0;
            }
            1 => {
                steps.push(Step::Delete(i));
                i += 1;
                s = 2;
            }
            _ => {
                steps.push(Step::Insert(j));
                j += 1;
                s = 1;
            }
        }
    }
    Alignment {
        steps,
        cost: f[0][0],
    }
}
