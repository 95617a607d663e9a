//! Behaviour clustering for `veer mine`: a distance between behaviour signatures (what a trace
//! did — its tool calls with their argument shapes, its stop reasons, whether it failed — never
//! its values), k-medoids over those distances ([`pam`]) and the silhouette that says how well
//! the clusters separate and picks K when none is given. Pure functions of the signatures, their
//! counts and nothing else: no I/O, and parallel work never changes a result.
//!
//! The distance of two signatures, in [0, 1]:
//!
//! `D = 0.70 · d_calls + 0.15 · d_stops + 0.15 · d_outcome`
//!
//! - `d_calls`: the normalised generalised Levenshtein distance of the two call sequences
//!   (Yujian & Bo 2007, `2·G / (|a| + |b| + G)`), where `G` is the weighted edit distance with
//!   insertion and deletion cost 1, substitution cost 0 for the same tool and argument shape,
//!   ½ for the same tool with a different argument shape, 1 for another tool. These ground
//!   costs are a metric and substitution never costs more than two indels, so `d_calls` is a
//!   metric in [0, 1].
//! - `d_stops`: the Jaccard distance of the two sets of stop reasons (0 when both are empty).
//! - `d_outcome`: the share of the two outcome flags (error, policy violation) that differ.
//!
//! Each term is a metric, so `D` is one: symmetric, 0 only for equal signatures, and it keeps
//! the triangle inequality (checked by property tests).
//!
//! The trajectory alignment of [`crate::align`] is not reused here: it aligns turns on their
//! text, stop and argument values with affine gaps (a cost to locate a divergence, not a metric),
//! while clustering needs a metric on call shapes alone.

pub mod pam;
#[cfg(test)]
mod proptests;

use rayon::prelude::*;
use std::collections::HashMap;
use veer_contract::mine::BehaviourSignature;

/// Weight of the call-sequence term.
pub const W_CALLS: f64 = 0.70;
/// Weight of the stop-reason term.
pub const W_STOPS: f64 = 0.15;
/// Weight of the outcome (error, violation) term.
pub const W_OUTCOME: f64 = 0.15;

/// The most signatures one clustering takes: the distance matrix holds `n²` f64 (2,000
/// signatures: 32 MB).
pub const MAX_POINTS: usize = 2_000;

/// A signature with its strings replaced by ids, so the edit distance compares integers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interned {
    /// (tool id, shape id) per call, in order.
    calls: Vec<(u32, u32)>,
    /// Sorted, distinct stop-reason ids.
    stops: Vec<u32>,
    error: bool,
    violation: bool,
}

/// Interns every signature with one table, so equal strings get equal ids.
pub fn intern(signatures: &[BehaviourSignature]) -> Vec<Interned> {
    let mut tools: HashMap<&str, u32> = HashMap::new();
    let mut shapes: HashMap<&str, u32> = HashMap::new();
    let mut stops: HashMap<&str, u32> = HashMap::new();
    fn id<'a>(table: &mut HashMap<&'a str, u32>, s: &'a str) -> u32 {
        let next = table.len() as u32;
        *table.entry(s).or_insert(next)
    }
    signatures
        .iter()
        .map(|s| {
            let calls = s
                .calls
                .iter()
                .map(|c| (id(&mut tools, &c.tool), id(&mut shapes, &c.shape)))
                .collect();
            let mut st: Vec<u32> = s.stop_reasons.iter().map(|r| id(&mut stops, r)).collect();
            st.sort_unstable();
            st.dedup();
            Interned {
                calls,
                stops: st,
                error: s.error,
                violation: s.violation,
            }
        })
        .collect()
}

/// The weighted edit distance of two call sequences in half units (so it stays an integer):
/// indel 2, same tool and shape 0, same tool other shape 1, other tool 2.
fn edit_halves(a: &[(u32, u32)], b: &[(u32, u32)]) -> u64 {
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    if short.is_empty() {
        return 2 * long.len() as u64;
    }
    let mut prev: Vec<u64> = (0..=short.len() as u64).map(|j| 2 * j).collect();
    let mut cur = vec![0u64; short.len() + 1];
    for (i, x) in long.iter().enumerate() {
        cur[0] = 2 * (i as u64 + 1);
        for (j, y) in short.iter().enumerate() {
            let sub = if x == y {
                0
            } else if x.0 == y.0 {
                1
            } else {
                2
            };
            cur[j + 1] = (prev[j] + sub).min(prev[j + 1] + 2).min(cur[j] + 2);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[short.len()]
}

/// The normalised call-sequence distance, in [0, 1]: `2G / (|a| + |b| + G)`.
pub fn call_distance(a: &Interned, b: &Interned) -> f64 {
    let g = edit_halves(&a.calls, &b.calls);
    if g == 0 {
        return 0.0;
    }
    // With G = g/2: 2G / (|a|+|b|+G) = 2g / (2(|a|+|b|) + g).
    let len = (a.calls.len() + b.calls.len()) as u64;
    (2 * g) as f64 / (2 * len + g) as f64
}

/// Jaccard distance of two sorted id sets, in [0, 1]; 0 when both are empty.
fn jaccard_distance(a: &[u32], b: &[u32]) -> f64 {
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let union = a.len() + b.len() - common;
    if union == 0 {
        0.0
    } else {
        1.0 - common as f64 / union as f64
    }
}

/// The behaviour distance of two interned signatures, in [0, 1] (see the module docs).
pub fn distance(a: &Interned, b: &Interned) -> f64 {
    let outcome = (f64::from(u8::from(a.error != b.error))
        + f64::from(u8::from(a.violation != b.violation)))
        / 2.0;
    W_CALLS * call_distance(a, b)
        + W_STOPS * jaccard_distance(&a.stops, &b.stops)
        + W_OUTCOME * outcome
}

/// A symmetric `n × n` distance matrix, row-major.
#[derive(Debug, Clone, PartialEq)]
pub struct Matrix {
    n: usize,
    d: Vec<f64>,
}

impl Matrix {
    /// Number of points.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether there are no points.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The distance of points `i` and `j`.
    pub fn get(&self, i: usize, j: usize) -> f64 {
        self.d[i * self.n + j]
    }

    /// Row `i`: the distances of point `i` to every point.
    pub fn row(&self, i: usize) -> &[f64] {
        &self.d[i * self.n..(i + 1) * self.n]
    }

    /// A matrix from a row-major vector (`d.len()` must be `n²`; else `None`).
    pub fn from_rows(n: usize, d: Vec<f64>) -> Option<Matrix> {
        (n.checked_mul(n) == Some(d.len())).then_some(Matrix { n, d })
    }
}

/// Too many points for one clustering.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{points} signatures to cluster, more than the {max} one clustering takes")]
pub struct TooManyPoints {
    /// Points given.
    pub points: usize,
    /// [`MAX_POINTS`].
    pub max: usize,
}

/// The distances of every pair of signatures (on all cores; each entry is computed alone, so
/// the matrix is the same whatever the thread count). At most [`MAX_POINTS`] signatures.
pub fn distance_matrix(signatures: &[BehaviourSignature]) -> Result<Matrix, TooManyPoints> {
    let n = signatures.len();
    if n > MAX_POINTS {
        return Err(TooManyPoints {
            points: n,
            max: MAX_POINTS,
        });
    }
    let interned = intern(signatures);
    let upper: Vec<Vec<f64>> = (0..n)
        .into_par_iter()
        .map(|i| {
            (i + 1..n)
                .map(|j| distance(&interned[i], &interned[j]))
                .collect()
        })
        .collect();
    let mut d = vec![0.0; n * n];
    for (i, row) in upper.iter().enumerate() {
        for (off, &v) in row.iter().enumerate() {
            let j = i + 1 + off;
            d[i * n + j] = v;
            d[j * n + i] = v;
        }
    }
    Ok(Matrix { n, d })
}

#[cfg(test)]
mod tests {
    use super::*;
    use veer_contract::mine::CallShape;

    pub(crate) fn sig(calls: &[(&str, &str)], stops: &[&str], error: bool) -> BehaviourSignature {
        BehaviourSignature {
            calls: calls
                .iter()
                .map(|(t, s)| CallShape {
                    tool: t.to_string(),
                    shape: s.to_string(),
                })
                .collect(),
            stop_reasons: stops.iter().map(|s| s.to_string()).collect(),
            error,
            violation: false,
        }
    }

    fn d(a: &BehaviourSignature, b: &BehaviourSignature) -> f64 {
        let i = intern(&[a.clone(), b.clone()]);
        distance(&i[0], &i[1])
    }

    #[test]
    fn identical_signatures_are_at_zero() {
        let a = sig(
            &[("search", "q:string"), ("fetch", "url:string")],
            &["end_turn"],
            false,
        );
        assert_eq!(d(&a, &a), 0.0);
    }

    #[test]
    fn one_extra_call_by_hand() {
        // a = [x], b = [x, y]: G = 1 indel; d_calls = 2·1/(1+2+1) = 0.5; stops equal.
        let a = sig(&[("x", "")], &["end_turn"], false);
        let b = sig(&[("x", ""), ("y", "")], &["end_turn"], false);
        assert!((d(&a, &b) - 0.70 * 0.5).abs() < 1e-12);
    }

    #[test]
    fn same_tool_other_shape_costs_half_a_substitution() {
        // G = ½; d_calls = 2·½/(1+1+½) = 0.4.
        let a = sig(&[("x", "a:string")], &[], false);
        let b = sig(&[("x", "a:number")], &[], false);
        assert!((d(&a, &b) - 0.70 * 0.4).abs() < 1e-12);
        // Another tool: G = 1; d_calls = 2/(1+1+1) = 2/3.
        let c = sig(&[("y", "a:string")], &[], false);
        assert!((d(&a, &c) - 0.70 * 2.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn stop_and_outcome_terms_by_hand() {
        // Stops {end_turn} vs {end_turn, max_tokens}: Jaccard 1 - 1/2; error differs: ½.
        let a = sig(&[], &["end_turn"], false);
        let b = sig(&[], &["end_turn", "max_tokens"], true);
        assert!((d(&a, &b) - (0.15 * 0.5 + 0.15 * 0.5)).abs() < 1e-12);
        // Everything different: the distance is 1.
        let c = sig(&[("x", "")], &["a"], false);
        let e = BehaviourSignature {
            violation: true,
            ..sig(&[("y", "")], &["b"], true)
        };
        // d_calls = 2/3 for one substitution: 0.7·2/3 + 0.15 + 0.15.
        assert!((d(&c, &e) - (0.7 * 2.0 / 3.0 + 0.30)).abs() < 1e-12);
        // Empty against non-empty: G = |b|, d_calls = 2|b|/(|b|+|b|) = 1.
        let f = sig(&[], &["a"], false);
        let g = sig(&[("x", ""), ("y", "")], &["a"], false);
        assert!((d(&f, &g) - 0.70).abs() < 1e-12);
    }

    #[test]
    fn matrix_is_symmetric_with_zero_diagonal() {
        let s = vec![
            sig(&[("x", "")], &["a"], false),
            sig(&[("y", "")], &["a"], false),
            sig(&[("x", ""), ("y", "")], &["b"], true),
        ];
        let m = distance_matrix(&s).expect("small");
        for i in 0..3 {
            assert_eq!(m.get(i, i), 0.0);
            for j in 0..3 {
                assert_eq!(m.get(i, j), m.get(j, i));
            }
        }
        assert!(distance_matrix(&vec![s[0].clone(); MAX_POINTS + 1]).is_err());
    }
}
