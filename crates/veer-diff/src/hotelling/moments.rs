//! One sample's means and centred cross-products, accumulated a row at a time in two passes
//! (sums, then products about the means) — the arithmetic of the test's own two-pass
//! computation, operation for operation, so that a sample too large to hold (a directory's
//! pooled responses) can be passed over twice from wherever its rows come from and give the
//! same doubles as the rows held in memory.

use super::linalg::Matrix;

/// The first pass: the count and per-dimension sums of the rows seen so far, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct RowSums {
    n: usize,
    sum: Vec<f64>,
}

impl RowSums {
    /// No rows yet, of width `d`.
    pub fn new(d: usize) -> RowSums {
        RowSums {
            n: 0,
            sum: vec![0.0; d],
        }
    }

    /// Adds one row (its first `d` values).
    pub fn add(&mut self, row: &[f64]) {
        for (m, x) in self.sum.iter_mut().zip(row) {
            *m += x;
        }
        self.n += 1;
    }

    /// Rows added so far.
    pub fn count(&self) -> usize {
        self.n
    }

    /// The per-dimension means (NaN without rows), starting the second pass.
    pub fn second_pass(&self) -> CrossProducts {
        let mut mean = self.sum.clone();
        for m in &mut mean {
            *m /= self.n as f64;
        }
        let d = mean.len();
        CrossProducts {
            n: self.n,
            cross: vec![vec![0.0; d]; d],
            centred: vec![0.0; d],
            mean,
        }
    }
}

/// The second pass: `Σ (x − x̄)(x − x̄)ᵀ` over the same rows in the same order.
#[derive(Debug, Clone, PartialEq)]
pub struct CrossProducts {
    n: usize,
    mean: Vec<f64>,
    centred: Vec<f64>,
    cross: Matrix,
}

impl CrossProducts {
    /// Adds one row; the rows must be those of the first pass, in its order.
    // The triangular update reads as its index form.
    #[allow(clippy::needless_range_loop)]
    pub fn add(&mut self, row: &[f64]) {
        let d = self.mean.len();
        for ((c, x), m) in self.centred.iter_mut().zip(row).zip(&self.mean) {
            *c = x - m;
        }
        for i in 0..d {
            let ci = self.centred[i];
            if ci == 0.0 {
                continue;
            }
            let row = &mut self.cross[i];
            for j in i..d {
                row[j] += ci * self.centred[j];
            }
        }
    }

    /// The sample's moments.
    pub fn finish(mut self) -> SampleMoments {
        let d = self.mean.len();
        for i in 0..d {
            for j in 0..i {
                self.cross[i][j] = self.cross[j][i];
            }
        }
        SampleMoments {
            n: self.n,
            mean: self.mean,
            cross: self.cross,
        }
    }
}

/// What the test reads of one sample.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleMoments {
    /// Number of rows.
    pub n: usize,
    /// Per-dimension means.
    pub mean: Vec<f64>,
    /// The unscaled centred cross-product matrix (`d × d`, symmetric).
    pub cross: Matrix,
}

/// The moments of `rows` (two passes over them).
pub fn moments<'a>(rows: impl Iterator<Item = &'a [f64]> + Clone, d: usize) -> SampleMoments {
    let mut sums = RowSums::new(d);
    rows.clone().for_each(|r| sums.add(r));
    let mut cross = sums.second_pass();
    rows.for_each(|r| cross.add(r));
    cross.finish()
}
