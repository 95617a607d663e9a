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
    /// [`crate::turn::SideIds`]).
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
pub fn jaccard<T: Ord + Copy>(a: &[T], b: &[T]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let inter = intersection(a, b);
    inter as f64 / (a.len() + b.len() - inter) as f64
}

/// Whether some tool name present on both sides has a different input (canonical bytes).
pub fn inputs_differ(a: &AlignTurn<'_>, b: &AlignTurn<'_>) -> bool {
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
pub struct PairCost {
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
pub fn pair_cost(a: &AlignTurn<'_>, b: &AlignTurn<'_>) -> PairCost {
    pair_cost_with(a, b, || intersection(a.shingles, b.shingles))
}

/// [`pair_cost`] with the number of shingles the two texts share supplied by `shared`
/// (called only when the texts differ); the DP counts them a row at a time from a
/// [`ShingleIndex`]. Same formula, same doubles.
pub fn pair_cost_with(
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
pub struct ClassTable {
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

/// Bits of the frequent-shingle sets (the most common candidate shingles are counted with
/// popcounts instead of postings).
const FREQUENT_WORDS: usize = 4;
/// A shingle held by fewer candidate turns than this stays in the postings.
const FREQUENT_MIN_POSTINGS: usize = 32;

/// A shingle held by at least one in this many candidate turns gets a bitmap over the turns
/// instead of a posting list: a bitmap is then no larger than the list (4 bytes per entry
/// against one bit per turn), and a band row reads its words directly instead of searching.
const BITMAP_MIN_SHARE: usize = 32;

/// [`ShingleIndex::tiers`] value of a shingle kept in the posting lists (or held by none).
const TIER_POSTINGS: u32 = 0;
/// [`ShingleIndex::tiers`] values from here on are bitmaps: `TIER_BITMAP + k` is bitmap `k`.
const TIER_BITMAP: u32 = 1 + 64 * FREQUENT_WORDS as u32;

/// Which candidate turns hold each shingle, so the shingles a baseline turn shares with every
/// candidate turn of a band row are counted in one pass over its own shingles —
/// O(shingles + shared) per row instead of a merge per cell.
///
/// Three tiers, by how many candidate turns hold a shingle. Boilerplate shingles (held by many
/// turns: templated replies, repeated tool prose) would make that pass as long as the band for
/// each of them, so the up to 256 most common ones are kept apart as a bit set per candidate
/// turn and counted with one popcount per cell. Other shingles held by at least one turn in
/// [`BITMAP_MIN_SHARE`] get a bitmap over the turns, read a word at a time across the band
/// (agents repeat a small vocabulary, and searching a long posting list per row cost more than
/// the counting). The rest keep a posting list. All three count exactly the same shingles.
///
/// Shingle ids are dense (numbered from 0 by the pair's dictionary), so the tables are
/// vectors indexed by id, and the posting lists one array cut by offsets (no map, no list
/// per shingle).
pub struct ShingleIndex {
    /// Shingle id → its tier: [`TIER_POSTINGS`], `1 + bit` for a frequent shingle (bit of
    /// [`ShingleIndex::bits`]), or `TIER_BITMAP + k` for bitmap `k`.
    tiers: Vec<u32>,
    /// Shingle id → start of its posting list in [`ShingleIndex::postings`]; the list ends at
    /// the next id's start (one more entry than ids; empty unless the tier is postings).
    offsets: Vec<u32>,
    /// Concatenated posting lists, candidate turn indices ascending within each.
    postings: Vec<u32>,
    /// Concatenated bitmaps, [`ShingleIndex::words`] words each (bit `j % 64` of word `j / 64`
    /// = candidate turn `j`).
    bitmaps: Vec<u64>,
    /// Words per bitmap.
    words: usize,
    /// Per candidate turn, which frequent shingles it holds.
    bits: Vec<[u64; FREQUENT_WORDS]>,
}

impl ShingleIndex {
    /// Indexes the candidate side.
    pub fn new(candidate: &[AlignTurn<'_>]) -> ShingleIndex {
        let ids = candidate
            .iter()
            .filter_map(|t| t.shingles.last())
            .max()
            .map_or(0, |&s| s as usize + 1);
        // How many candidate turns hold each shingle.
        let mut held = vec![0u32; ids];
        for t in candidate {
            for &s in t.shingles {
                held[s as usize] += 1;
            }
        }
        // The most common shingles, longest list first (ties by id: deterministic).
        let mut common: Vec<(u32, u32)> = held
            .iter()
            .enumerate()
            .filter(|&(_, &len)| len as usize >= FREQUENT_MIN_POSTINGS)
            .map(|(s, &len)| (len, s as u32))
            .collect();
        common.sort_unstable_by(|a, b| b.cmp(a));
        common.truncate(64 * FREQUENT_WORDS);
        let mut tiers = vec![TIER_POSTINGS; ids];
        for (bit, &(_, s)) in common.iter().enumerate() {
            tiers[s as usize] = 1 + bit as u32;
        }
        let mut bitmap_count = 0u32;
        for (tier, &len) in tiers.iter_mut().zip(&held) {
            if *tier == TIER_POSTINGS
                && len > 0
                && (len as usize).saturating_mul(BITMAP_MIN_SHARE) >= candidate.len()
            {
                *tier = TIER_BITMAP + bitmap_count;
                bitmap_count += 1;
            }
        }
        // Posting-list offsets (postings tier only), built in `held` itself: entry `s` becomes
        // the start of list `s`, advanced while filling below, so that after the fill it is the
        // end of list `s`.
        let mut total = 0u32;
        for (len, &tier) in held.iter_mut().zip(&tiers) {
            let n = if tier == TIER_POSTINGS { *len } else { 0 };
            *len = total;
            total += n;
        }
        let mut offsets = held;
        let words = candidate.len().div_ceil(64);
        let mut bits = vec![
            [0u64; FREQUENT_WORDS];
            if common.is_empty() {
                0
            } else {
                candidate.len()
            }
        ];
        let mut bitmaps = vec![0u64; bitmap_count as usize * words];
        let mut postings = vec![0u32; total as usize];
        for (j, t) in candidate.iter().enumerate() {
            for &s in t.shingles {
                match tiers[s as usize] {
                    TIER_POSTINGS => {
                        let at = &mut offsets[s as usize];
                        postings[*at as usize] = j as u32;
                        *at += 1;
                    }
                    tier if tier < TIER_BITMAP => {
                        let bit = (tier - 1) as usize;
                        bits[j][bit / 64] |= 1 << (bit % 64);
                    }
                    tier => {
                        let k = (tier - TIER_BITMAP) as usize;
                        bitmaps[k * words + j / 64] |= 1 << (j % 64);
                    }
                }
            }
        }
        // Entry `s` is now the end of list `s`: shift to starts.
        offsets.insert(0, 0);
        ShingleIndex {
            tiers,
            offsets,
            postings,
            bitmaps,
            words,
            bits,
        }
    }

    /// `counts[k]` = shingles `turn` shares with candidate turn `first + k`, for the
    /// `counts.len()` turns from `first`.
    pub fn shared_row(&self, turn: &AlignTurn<'_>, first: usize, counts: &mut [u32]) {
        counts.fill(0);
        let end = first + counts.len();
        let mut mine = [0u64; FREQUENT_WORDS];
        for &s in turn.shingles {
            let Some(&tier) = self.tiers.get(s as usize) else {
                // An id past every candidate shingle: no candidate turn holds it.
                continue;
            };
            if tier == TIER_POSTINGS {
                let (a, z) = (self.offsets[s as usize], self.offsets[s as usize + 1]);
                let list = &self.postings[a as usize..z as usize];
                let start = list.partition_point(|&j| (j as usize) < first);
                for &j in &list[start..] {
                    let j = j as usize;
                    if j >= end {
                        break;
                    }
                    counts[j - first] += 1;
                }
            } else if tier < TIER_BITMAP {
                let bit = tier - 1;
                mine[bit as usize / 64] |= 1 << (bit % 64);
            } else {
                let k = (tier - TIER_BITMAP) as usize;
                let map = &self.bitmaps[k * self.words..][..self.words];
                // A band row may reach one column past the last turn; no bit is set there.
                let last = end.min(self.words * 64);
                if first >= last {
                    continue;
                }
                let w0 = first / 64;
                for (w, &whole) in map.iter().enumerate().take((last - 1) / 64 + 1).skip(w0) {
                    let mut word = whole;
                    let base = w * 64;
                    if base < first {
                        word &= u64::MAX << (first - base);
                    }
                    if base + 64 > last {
                        word &= u64::MAX >> (base + 64 - last);
                    }
                    while word != 0 {
                        counts[base + word.trailing_zeros() as usize - first] += 1;
                        word &= word - 1;
                    }
                }
            }
        }
        if mine.iter().any(|&w| w != 0) {
            // A band row may reach one column past the last turn; that column has no turn.
            let last = end.min(self.bits.len()).max(first);
            for (count, theirs) in counts.iter_mut().zip(&self.bits[first..last]) {
                let mut both = 0;
                for (a, b) in mine.iter().zip(theirs) {
                    both += (a & b).count_ones();
                }
                *count += both;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shared-shingle counts from the index (postings and frequent-shingle bits) equal a
    /// direct intersection, whether or not shingles are common enough to become bits.
    #[test]
    fn shared_row_counts_equal_intersections() {
        let sets: Vec<Vec<u32>> = (0..300u32)
            .map(|j| {
                // Shingle 0..40 common to many turns, 1000.. rare, a few unique per turn.
                let mut v: Vec<u32> = (0..40).filter(|s| (j + s) % 3 != 0).collect();
                v.extend((0..5).map(|k| 1000 + (j * 7 + k) % 50));
                v.push(1_000_000 + j);
                v.sort_unstable();
                v.dedup();
                v
            })
            .collect();
        let turn = |sh: &'static [u32]| AlignTurn {
            shape: Vec::new(),
            shape_set: 0,
            count: 0,
            text: 0,
            text_empty: false,
            shingles: sh,
            stop: 0,
            inputs: Vec::new(),
        };
        let leaked: Vec<&'static [u32]> = sets
            .into_iter()
            .map(|v| &*Box::leak(v.into_boxed_slice()))
            .collect();
        let cand: Vec<AlignTurn<'static>> = leaked.iter().map(|s| turn(s)).collect();
        let index = ShingleIndex::new(&cand);
        let held = |s: usize| index.offsets[s + 1] > index.offsets[s];
        let tiers = |f: &dyn Fn(usize, u32) -> bool| {
            (0..index.tiers.len())
                .filter(|&s| f(s, index.tiers[s]))
                .count()
        };
        assert!(
            tiers(&|_, t| t != TIER_POSTINGS && t < TIER_BITMAP) > 0,
            "common shingles become bits"
        );
        assert!(
            tiers(&|_, t| t >= TIER_BITMAP) > 0,
            "others common get bitmaps"
        );
        assert!(
            tiers(&|s, t| t == TIER_POSTINGS && held(s)) > 0,
            "rare ones keep postings"
        );
        assert!(
            tiers(&|s, t| t != TIER_POSTINGS && held(s)) == 0,
            "no posting list for bits or bitmaps"
        );
        for row in [0usize, 17, 299] {
            let base = turn(leaked[row]);
            for (first, len) in [(0usize, 300usize), (40, 65), (290, 10)] {
                let mut counts = vec![0u32; len];
                index.shared_row(&base, first, &mut counts);
                for (k, &got) in counts.iter().enumerate() {
                    assert_eq!(
                        got as usize,
                        intersection(base.shingles, cand[first + k].shingles)
                    );
                }
            }
            // A band row reaching one column past the last turn counts nothing there.
            let mut counts = vec![0u32; 6];
            index.shared_row(&base, 295, &mut counts);
            assert_eq!(counts[5], 0);
            assert_eq!(
                counts[4] as usize,
                intersection(base.shingles, cand[299].shingles)
            );
        }
    }

    #[test]
    fn jaccard_rules() {
        assert_eq!(jaccard::<u32>(&[], &[]), 1.0);
        assert_eq!(jaccard(&[1u32], &[]), 0.0);
        assert_eq!(jaccard(&[1u32, 2], &[2, 3]), 1.0 / 3.0);
    }
}
