//! The pair cost of two turns (spec `diff.md` §9.3) on features interned once per turn:
//! shape strings, normalised texts, stop reasons and tool inputs become integer ids, so the
//! DP compares integers and merges sorted vectors, never strings or JSON.

use super::{W_ARGS, W_SEM, W_STOP, W_STRUCT};
use crate::turn::DiffTurn;
use std::collections::HashMap;

/// One turn's alignment features as interned ids.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlignTurn<'a> {
    /// Sorted, deduplicated shape-string ids.
    pub shape: Vec<u32>,
    /// Id of the whole shape set (equal sets, equal ids).
    pub shape_set: u32,
    /// Number of tool-use blocks.
    pub count: usize,
    /// Id of the whitespace-normalised text.
    pub text: u32,
    /// Whether the normalised text is empty.
    pub text_empty: bool,
    /// Sorted shingle ids of the normalised text (borrowed from the turn, see
    /// `crate::turn::SideIds`).
    pub shingles: &'a [u32],
    /// Id of the stop reason.
    pub stop: u32,
    /// (tool-name id, canonical-input id) per distinct tool name, sorted by name id.
    pub inputs: Vec<(u32, u32)>,
}

#[derive(Default)]
struct Interner<'a> {
    ids: HashMap<&'a [u8], u32>,
}

impl<'a> Interner<'a> {
    fn id(&mut self, s: &'a [u8]) -> u32 {
        let next = self.ids.len() as u32;
        *self.ids.entry(s).or_insert(next)
    }
}

#[derive(Default)]
struct Tables<'a> {
    shapes: Interner<'a>,
    shape_sets: HashMap<Vec<u32>, u32>,
    texts: Interner<'a>,
    stops: Interner<'a>,
    names: Interner<'a>,
    values: Interner<'a>,
}

impl<'a> Tables<'a> {
    fn turn(&mut self, t: &'a DiffTurn) -> AlignTurn<'a> {
        let f = &t.features;
        let mut shape: Vec<u32> = f
            .shape
            .iter()
            .map(|s| self.shapes.id(s.as_bytes()))
            .collect();
        shape.sort_unstable();
        shape.dedup();
        let next = self.shape_sets.len() as u32;
        let shape_set = *self.shape_sets.entry(shape.clone()).or_insert(next);
        let mut inputs: Vec<(u32, u32)> = f
            .inputs
            .iter()
            .map(|(name, input)| {
                (
                    self.names.id(name.as_bytes()),
                    self.values.id(&input.canonical),
                )
            })
            .collect();
        inputs.sort_unstable();
        AlignTurn {
            shape,
            shape_set,
            count: f.tool_count,
            text: self.texts.id(f.normalized_text().as_bytes()),
            text_empty: f.normalized_text().is_empty(),
            shingles: &t.shingle_ids,
            stop: self.stops.id(f.stop_reason.as_bytes()),
            inputs,
        }
    }
}

/// Interns both sides' features with shared tables (ids only need to be equal for equal
/// values; their numbering never affects a result).
pub fn intern<'a>(
    baseline: &'a [DiffTurn],
    candidate: &'a [DiffTurn],
) -> (Vec<AlignTurn<'a>>, Vec<AlignTurn<'a>>) {
    let mut tables = Tables::default();
    let b = baseline.iter().map(|t| tables.turn(t)).collect();
    let c = candidate.iter().map(|t| tables.turn(t)).collect();
    (b, c)
}

/// Size of the intersection of two ascending, duplicate-free slices. Branch-free merge: the
/// DP calls this for every in-band cell, and on unrelated texts a mispredicted branch per
/// element cost more than the comparisons.
fn intersection<T: Ord + Copy>(a: &[T], b: &[T]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        n += usize::from(x == y);
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
    n
}

/// Jaccard index of two ascending, duplicate-free sets: 1 when both are empty.
pub(crate) fn jaccard<T: Ord + Copy>(a: &[T], b: &[T]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let inter = intersection(a, b);
    inter as f64 / (a.len() + b.len() - inter) as f64
}

/// Whether some tool name present on both sides has a different input (canonical bytes).
pub(crate) fn inputs_differ(a: &AlignTurn<'_>, b: &AlignTurn<'_>) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < a.inputs.len() && j < b.inputs.len() {
        let (na, va) = a.inputs[i];
        let (nb, vb) = b.inputs[j];
        match na.cmp(&nb) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                if va != vb {
                    return true;
                }
                i += 1;
                j += 1;
            }
        }
    }
    false
}

/// The components of one pair cost, each in [0, 1].
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PairCost {
    /// `max(shape distance, count distance)`.
    pub structural: f64,
    /// Shingle Jaccard of the normalised texts (1 when equal or both empty).
    pub text_similarity: f64,
    /// Whether the stop reasons differ.
    pub stop_differs: bool,
    /// Equal non-empty shapes with a differing argument value.
    pub args_differ: bool,
    /// `0.40·structural + 0.25·(1 − sim) + 0.15·stop + 0.20·args`, in [0, 1).
    pub cost: f64,
}

/// The pair cost with its components.
pub(crate) fn pair_cost(a: &AlignTurn<'_>, b: &AlignTurn<'_>) -> PairCost {
    pair_cost_with(a, b, || intersection(a.shingles, b.shingles))
}

/// [`pair_cost`] with the number of shingles the two texts share supplied by `shared`
/// (called only when the texts differ); the DP counts them a row at a time from a
/// [`super::shingle_index::ShingleIndex`]. Same formula, same doubles.
pub(crate) fn pair_cost_with(
    a: &AlignTurn<'_>,
    b: &AlignTurn<'_>,
    shared: impl FnOnce() -> usize,
) -> PairCost {
    // Equal sets have Jaccard index exactly 1.
    let shape_dist = if a.shape_set == b.shape_set {
        0.0
    } else {
        1.0 - jaccard(&a.shape, &b.shape)
    };
    let count_dist = if a.count == b.count {
        0.0
    } else {
        let (lo, hi) = if a.count < b.count {
            (a.count, b.count)
        } else {
            (b.count, a.count)
        };
        ((hi - lo) as f64 / hi as f64).min(1.0)
    };
    let structural = shape_dist.max(count_dist);
    let text_similarity = text_similarity(a, b, shared);
    let stop_differs = a.stop != b.stop;
    let args_differ = a.shape_set == b.shape_set && !a.shape.is_empty() && inputs_differ(a, b);
    let cost = W_STRUCT * structural
        + W_SEM * (1.0 - text_similarity)
        + W_STOP * f64::from(u8::from(stop_differs))
        + W_ARGS * f64::from(u8::from(args_differ));
    PairCost {
        structural,
        text_similarity,
        stop_differs,
        args_differ,
        cost,
    }
}

/// Shingle Jaccard of the two normalised texts: 1 when equal or both empty; `shared` (the
/// number of common shingles) is called only when needed.
fn text_similarity(a: &AlignTurn<'_>, b: &AlignTurn<'_>, shared: impl FnOnce() -> usize) -> f64 {
    if a.text == b.text
        || (a.text_empty && b.text_empty)
        || (a.shingles.is_empty() && b.shingles.is_empty())
    {
        1.0
    } else {
        let inter = shared();
        inter as f64 / (a.shingles.len() + b.shingles.len() - inter) as f64
    }
}

/// Each turn's class on one side (numbered by first appearance) and the first turn of each
/// class. A class is the turn's shapes, tool count and stop reason.
fn classify(side: &[AlignTurn<'_>]) -> (Vec<u32>, Vec<usize>) {
    type Key<'k> = (&'k [u32], usize, u32);
    let mut ids: HashMap<Key<'_>, u32> = HashMap::new();
    let mut firsts = Vec::new();
    let classes = side
        .iter()
        .enumerate()
        .map(|(k, t)| {
            let next = ids.len() as u32;
            *ids.entry((&t.shape, t.count, t.stop)).or_insert_with(|| {
                firsts.push(k);
                next
            })
        })
        .collect();
    (classes, firsts)
}

/// Most (baseline class × candidate class) entries [`ClassTable`] precomputes (16 MiB).
const MAX_CLASS_PAIRS: usize = 1 << 20;

/// The structural and stop-reason parts of every pair cost, precomputed per pair of
/// *classes*: turns with the same shapes, tool count and stop reason share a class, and agents
/// repeat a handful of them, so the DP reads one table entry per cell instead of merging
/// shape lists; argument values are compared only where the shapes are equal. Falls back to
/// [`pair_cost_with`] when the classes are too many.
pub(crate) struct ClassTable {
    b: Vec<u32>,
    c: Vec<u32>,
    width: usize,
    /// Per class pair: `W_STRUCT · structural`, whether the stops differ, whether the shapes
    /// are equal and non-empty (so argument values count).
    entries: Option<Vec<(f64, bool, bool)>>,
}

impl ClassTable {
    /// Classifies both sides and, when small enough, fills the table.
    pub fn new(b: &[AlignTurn<'_>], c: &[AlignTurn<'_>]) -> ClassTable {
        let (bc, b_first) = classify(b);
        let (cc, c_first) = classify(c);
        let width = c_first.len();
        let entries = (b_first.len().saturating_mul(width) <= MAX_CLASS_PAIRS).then(|| {
            let mut e = Vec::with_capacity(b_first.len() * width);
            for &x in &b_first {
                for &y in &c_first {
                    // The text never reaches these components.
                    let p = pair_cost_with(&b[x], &c[y], || 0);
                    let same_shape = b[x].shape_set == c[y].shape_set && !b[x].shape.is_empty();
                    e.push((W_STRUCT * p.structural, p.stop_differs, same_shape));
                }
            }
            e
        });
        ClassTable {
            b: bc,
            c: cc,
            width,
            entries,
        }
    }

    /// The pair cost of baseline turn `i` (`a`) and candidate turn `j` (`b`): the same double
    /// as `pair_cost_with(a, b, shared).cost`.
    #[inline]
    pub fn cost(
        &self,
        i: usize,
        j: usize,
        a: &AlignTurn<'_>,
        b: &AlignTurn<'_>,
        shared: impl FnOnce() -> usize,
    ) -> f64 {
        let Some(entries) = &self.entries else {
            return pair_cost_with(a, b, shared).cost;
        };
        let (structural, stop_differs, same_shape) =
            entries[self.b[i] as usize * self.width + self.c[j] as usize];
        let args_differ = same_shape && inputs_differ(a, b);
        structural
            + W_SEM * (1.0 - text_similarity(a, b, shared))
            + W_STOP * f64::from(u8::from(stop_differs))
            + W_ARGS * f64::from(u8::from(args_differ))
    }
}

/// Hashing for shingle keys, which are already 64-bit hashes of the text: one multiply mixes
/// them enough for a table, where SipHash spent more time than the lookup it served. Fixed,
/// so tables (whose order veer never reads) are the same on every run.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ShingleHash;

impl std::hash::BuildHasher for ShingleHash {
    type Hasher = ShingleHasher;
    fn build_hasher(&self) -> ShingleHasher {
        ShingleHasher(0)
    }
}

/// The hasher of [`ShingleHash`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct ShingleHasher(u64);

impl std::hash::Hasher for ShingleHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u32(&mut self, x: u32) {
        self.write_u64(u64::from(x));
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0 ^ x)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(29);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jaccard_rules() {
        assert_eq!(jaccard::<u32>(&[], &[]), 1.0);
        assert_eq!(jaccard(&[1u32], &[]), 0.0);
        assert_eq!(jaccard(&[1u32, 2], &[2, 3]), 1.0 / 3.0);
    }
}
