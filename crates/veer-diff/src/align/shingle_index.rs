//! Which candidate turns hold each shingle ([`ShingleIndex`]), so the turn alignment counts
//! the shingles a baseline turn shares with a whole band row in one pass over its own
//! shingles instead of merging two sorted lists per cell.

use super::cost::AlignTurn;

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
/// `BITMAP_MIN_SHARE` get a bitmap over the turns, read a word at a time across the band
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
    pub(crate) fn shared_row(&self, turn: &AlignTurn<'_>, first: usize, counts: &mut [u32]) {
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

    fn intersection(a: &[u32], b: &[u32]) -> usize {
        a.iter().filter(|x| b.binary_search(x).is_ok()).count()
    }

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
}
