//! The edit script of [`veer_base::edit_script::edit_script`] — same distance, same decomposition,
//! same alignment, traxr's backtrack order and ties included — for traces of any length and any
//! distance, in memory that grows like `m · √n` bits instead of `m · n` bytes.
//!
//! Why: the full table needs a byte per cell (90 GB for two 300,000-event traces) and the
//! diagonal fronts of [`crate::diagonal`] grow with the square of the distance, so two long
//! traces that differ almost everywhere had no structural block at all.
//!
//! How. Myers' bit-vector algorithm in Hyyrö's form for the Levenshtein distance: each column
//! `j` of the table (one event of the perturbed sequence) is held as two bit vectors of the
//! vertical differences `D(i, j) − D(i − 1, j) ∈ {−1, 0, +1}` over all rows `i`, and the next
//! column follows in O(m / 64) word operations. A first pass keeps the vectors of every K-th
//! column (K ≈ √n) as checkpoints, each over the words its band evaluated (see [`Band`]). The
//! backtrack then re-evaluates one block of K columns at a time from its checkpoint, last block
//! first, keeping for each cell the two answers traxr's rule asks of it: with the horizontal
//! differences `Δh(i, j) = D(i, j) − D(i, j − 1)`, is `D(i − 1, j − 1) = D(i, j) − 1`
//! (`Δh(i, j) + Δv(i, j − 1) = 1`) and is `D(i, j − 1) = D(i, j) − 1` (`Δh(i, j) = +1`) — so
//! the walk (match, then substitution, then insertion, then deletion) is the full table's, step
//! for step. A block only re-evaluates the band's rows at or above the walk's current row (a
//! column's low rows never depend on its high rows), in one pair of vectors advanced in place,
//! so the second pass costs about half the first.
//!
//! A common suffix is matched first by traxr's walk whatever precedes it, so it is split off
//! before the passes. Time O(m · n / 64) word operations; memory about `(2n/K + 2K) · h / 8`
//! bytes for a band `h` rows high (at most m), plus one bit per row for each frequent symbol.
//! (Before 2026-11-27 checkpoints and blocks held every row and a block both
//! difference vectors of every column: `(2n/K + 4K) · m / 8` bytes, 67 MB on two unrelated
//! 200,000-event traces, and as much for two traces 9,600 edits apart.)

use veer_base::edit_script::{edit_script, EditOp, EditScript};

/// Bits per word.
const WORD: usize = 64;
/// Most words kept as dense match vectors (64 MiB); rarer symbols are set and cleared in a
/// scratch vector per column instead.
const DENSE_WORDS: usize = 8 << 20;

/// Where the rows holding each symbol are: dense vectors for frequent symbols, row lists for
/// the rest.
struct MatchVectors {
    /// Words per column vector.
    words: usize,
    /// Dense vectors, `words` each, indexed by `slot[symbol]` when it is `Dense`.
    dense: Vec<u64>,
    /// Per symbol id (dense numbering of the values of `a`): its representation.
    slot: Vec<Slot>,
    /// Rows (0-based) of sparse symbols, concatenated; `Slot::Sparse` holds a range.
    rows: Vec<u32>,
    /// Symbol id of each value, as a sorted table for lookup.
    ids: Vec<(u32, u32)>,
}

#[derive(Clone, Copy)]
enum Slot {
    Dense(usize),
    Sparse(usize, usize),
}

impl MatchVectors {
    fn new(a: &[u32], dense_words: usize) -> MatchVectors {
        let words = a.len().div_ceil(WORD);
        let mut values: Vec<u32> = a.to_vec();
        values.sort_unstable();
        values.dedup();
        let ids: Vec<(u32, u32)> = values
            .iter()
            .enumerate()
            .map(|(k, &v)| (v, k as u32))
            .collect();
        let id_of = |v: u32| {
            ids.binary_search_by_key(&v, |&(x, _)| x)
                .map(|k| ids[k].1 as usize)
                .unwrap_or(0)
        };
        let mut count = vec![0usize; values.len()];
        for &x in a {
            count[id_of(x)] += 1;
        }
        // Densest symbols first (ties by id, so the layout is deterministic).
        let mut order: Vec<usize> = (0..values.len()).collect();
        order.sort_by(|&x, &y| count[y].cmp(&count[x]).then(x.cmp(&y)));
        let dense_slots = dense_words / words.max(1);
        let mut slot = vec![Slot::Sparse(0, 0); values.len()];
        let mut sparse_total = 0usize;
        let mut dense_count = 0usize;
        for (rank, &s) in order.iter().enumerate() {
            if rank < dense_slots {
                slot[s] = Slot::Dense(dense_count);
                dense_count += 1;
            } else {
                slot[s] = Slot::Sparse(sparse_total, sparse_total);
                sparse_total += count[s];
            }
        }
        let mut dense = vec![0u64; dense_count * words];
        let mut rows = vec![0u32; sparse_total];
        for (r, &x) in a.iter().enumerate() {
            let s = id_of(x);
            match &mut slot[s] {
                Slot::Dense(k) => dense[*k * words + r / WORD] |= 1u64 << (r % WORD),
                Slot::Sparse(_, end) => {
                    rows[*end] = r as u32;
                    *end += 1;
                }
            }
        }
        MatchVectors {
            words,
            dense,
            slot,
            rows,
            ids,
        }
    }

    /// The match vector of `symbol` (rows of `a` equal to it), using `scratch` (all zero on
    /// entry and on return) for sparse symbols; `fill(vector)` is called with it.
    fn with<R>(&self, symbol: u32, scratch: &mut [u64], fill: impl FnOnce(&[u64]) -> R) -> R {
        let found = self
            .ids
            .binary_search_by_key(&symbol, |&(x, _)| x)
            .map(|k| self.slot[self.ids[k].1 as usize]);
        match found {
            Ok(Slot::Dense(k)) => fill(&self.dense[k * self.words..(k + 1) * self.words]),
            Ok(Slot::Sparse(start, end)) => {
                for &r in &self.rows[start..end] {
                    scratch[r as usize / WORD] |= 1u64 << (r as usize % WORD);
                }
                let out = fill(scratch);
                for &r in &self.rows[start..end] {
                    scratch[r as usize / WORD] = 0;
                }
                out
            }
            Err(_) => fill(scratch),
        }
    }
}

/// Advances one column over the first `eq.len()` words: `vp`/`vn` hold the vertical
/// differences of column `j − 1` on entry and of column `j` on return. `steps`, when given,
/// receives the backtrack's two questions at each cell (i, j) of the column (bit `i − 1` = row
/// `i`): is D(i − 1, j − 1) = D(i, j) − 1 (a substitution may lead here: the horizontal
/// difference Δh(i, j) plus the vertical Δv(i, j − 1) is 1), and is D(i, j − 1) = D(i, j) − 1
/// (an insertion may: Δh(i, j) = +1). The top row always grows by one (`D(0, j) = j`).
#[inline]
fn advance(
    eq: &[u64],
    vp: &mut [u64],
    vn: &mut [u64],
    mut steps: Option<(&mut [u64], &mut [u64])>,
) {
    let mut carry = false;
    let mut hp_in = 1u64;
    let mut hn_in = 0u64;
    for w in 0..eq.len() {
        let (e, p, n) = (eq[w], vp[w], vn[w]);
        let (s1, c1) = (e & p).overflowing_add(p);
        let (s2, c2) = s1.overflowing_add(carry as u64);
        carry = c1 | c2;
        let d0 = (s2 ^ p) | e | n;
        let hp = n | !(d0 | p);
        let hn = p & d0;
        if let Some((diag, left)) = steps.as_mut() {
            // Δh + Δv(j − 1) = 1: (+1, 0) or (0, +1).
            diag[w] = (hp & !(p | n)) | (!(hp | hn) & p);
            left[w] = hp;
        }
        let hp_s = (hp << 1) | hp_in;
        let hn_s = (hn << 1) | hn_in;
        hp_in = hp >> 63;
        hn_in = hn >> 63;
        vp[w] = hn_s | !(d0 | hp_s);
        vn[w] = d0 & hp_s;
    }
}

/// Compares `seq1` (clean) with `seq2` (perturbed); equal to
/// [`veer_base::edit_script::edit_script`] on every input.
pub(crate) fn edit_script_bitparallel(seq1: &[u32], seq2: &[u32]) -> EditScript {
    script_with(seq1, seq2, DENSE_WORDS, FIRST_BAND)
}

/// [`edit_script_bitparallel`] with at most `dense_words` words of dense match vectors and a
/// first band `first_band` wider than the length difference (tests use narrow ones).
fn script_with(seq1: &[u32], seq2: &[u32], dense_words: usize, first_band: usize) -> EditScript {
    let suffix = seq1
        .iter()
        .rev()
        .zip(seq2.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a, b) = (&seq1[..seq1.len() - suffix], &seq2[..seq2.len() - suffix]);
    let (m, n) = (a.len(), b.len());
    // Backwards: the suffix's matches come first, then the walk's steps.
    let mut ops = Vec::with_capacity(m.max(n) + suffix);
    ops.extend(
        (0..suffix)
            .rev()
            .map(|k| EditOp::Match { i: m + k, j: n + k }),
    );
    let distance = if m == 0 || n == 0 {
        let e = edit_script(a, b);
        ops.extend(e.ops.into_iter().rev());
        e.distance
    } else {
        walk(a, b, dense_words, first_band, &mut ops)
    };
    EditScript::from_backtrack(distance, seq1.len(), seq2.len(), ops)
}

/// The first band's threshold beyond the length difference (see [`Band`]).
const FIRST_BAND: usize = 512;

/// The rows evaluated in each column: every cell `(i, j)` whose lower bound
/// `|i − j| + |(m − i) − (n − j)|` on the cost of any path through it is at most `t`, rounded
/// out to whole words; `t ≥ m + n` is the whole table.
///
/// Cells outside the band are never evaluated: a word entering at the bottom starts from the
/// column-0 differences (+1 per row) and the row above the first evaluated word is taken to
/// grow by +1 per column. Both only overstate D (a cell is never more than one above its
/// upper or left neighbour), so every evaluated value is ≥ the true one and equals it on every
/// optimal path that stays in the band. When the distance found is ≤ `t` every optimal path
/// does (its cells' lower bounds are ≤ the distance), so the distance is exact and the
/// backtrack — which only visits optimal-path cells and asks whether a neighbour is exactly
/// one less, which an overstated value can only be when it is true — is the full table's.
#[derive(Debug, Clone, Copy)]
struct Band {
    m: usize,
    /// Lowest and highest `i − j` in the band, or None: the whole table.
    offsets: Option<(i64, i64)>,
}

impl Band {
    fn new(m: usize, n: usize, t: usize) -> Band {
        let delta = n as i64 - m as i64;
        let t = t as i64;
        let offsets =
            (t < (m + n) as i64 && t >= delta.abs()).then(|| (-((t + delta) / 2), (t - delta) / 2));
        Band { m, offsets }
    }

    /// Inclusive word range evaluated in column `j` (1 ≤ j ≤ n); never empty.
    fn words(&self, j: usize) -> (usize, usize) {
        let last = (self.m - 1) / WORD;
        match self.offsets {
            None => (0, last),
            Some((lo, hi)) => {
                let top = (j as i64 + lo).max(1) as usize;
                let bottom = (j as i64 + hi).clamp(1, self.m as i64) as usize;
                ((top.min(self.m) - 1) / WORD, (bottom - 1) / WORD)
            }
        }
    }

    fn is_whole(&self) -> bool {
        self.offsets.is_none()
    }
}

/// The vertical differences of columns 0, K, 2K, … (K = `block`), each over the words its
/// band evaluated (column 0: none). The words below a column's band were never evaluated and
/// hold column 0's differences (+1 every row); the words above it are never evaluated again.
struct Checkpoints {
    block: usize,
    /// Per checkpoint: where its words start in `store`, its first word and its word count;
    /// `vp` words then `vn` words.
    spans: Vec<(usize, usize, usize)>,
    store: Vec<u64>,
}

impl Checkpoints {
    /// Sets `vp`/`vn` over words `first..=last` to the differences of column `c` (a multiple
    /// of the block).
    fn restore(&self, c: usize, first: usize, last: usize, vp: &mut [u64], vn: &mut [u64]) {
        for w in first..=last {
            vp[w] = u64::MAX;
            vn[w] = 0;
        }
        let Some(&(at, top, len)) = self.spans.get(c / self.block) else {
            return;
        };
        for w in first.max(top)..=last {
            if w < top + len {
                vp[w] = self.store[at + w - top];
                vn[w] = self.store[at + len + w - top];
            }
        }
    }
}

/// Pass 1 over the band: D(m, n) as evaluated (exact when ≤ the band's `t`), and the
/// checkpoints every `block` columns.
fn first_pass(pv: &MatchVectors, b: &[u32], band: &Band, block: usize) -> (usize, Checkpoints) {
    let (m, words) = (band.m, pv.words);
    let mut scratch = vec![0u64; words];
    let mut vp = vec![u64::MAX; words];
    let mut vn = vec![0u64; words];
    let mut checkpoints = Checkpoints {
        block,
        spans: Vec::new(),
        store: Vec::new(),
    };
    // D at row 64·lo of the current column (the row above the first evaluated word).
    let mut boundary = 0isize;
    let mut lo = 0usize;
    for (j, &symbol) in b.iter().enumerate() {
        if j % block == 0 {
            let (top, len) = match j {
                0 => (0, 0),
                _ => {
                    let (top, bottom) = band.words(j);
                    (top, bottom + 1 - top)
                }
            };
            let store = &mut checkpoints.store;
            checkpoints.spans.push((store.len(), top, len));
            store.extend_from_slice(&vp[top..top + len]);
            store.extend_from_slice(&vn[top..top + len]);
        }
        let (top, bottom) = band.words(j + 1);
        // Words leaving the band: carry the boundary value down through them (column j).
        for w in lo..top {
            boundary += vp[w].count_ones() as isize - vn[w].count_ones() as isize;
        }
        lo = top;
        boundary += 1;
        pv.with(symbol, &mut scratch, |eq| {
            advance(
                &eq[top..=bottom],
                &mut vp[top..=bottom],
                &mut vn[top..=bottom],
                None,
            )
        });
    }
    // Down column n from the boundary row to row m.
    let mut d = boundary;
    for (w, (&p, &q)) in vp.iter().zip(&vn).enumerate().skip(lo) {
        let rows = (m - w * WORD).min(WORD);
        let mask = if rows == WORD {
            u64::MAX
        } else {
            (1u64 << rows) - 1
        };
        d += (p & mask).count_ones() as isize - (q & mask).count_ones() as isize;
    }
    (d.max(0) as usize, checkpoints)
}

/// Both passes for non-empty `a`, `b`: the distance; the backtrack's operations are pushed on
/// `ops`, backwards.
/// The band starts [`FIRST_BAND`] wider than the length difference; a distance found above
/// its threshold is an upper bound of the true one, so the band of that distance is certain to
/// be accepted: at most two rounds, and the whole table only when the distance requires it.
/// (The narrow round's bound was within 0.1% of the distance on the 100,000-turn `synth`
/// pairs; growing 4× a round instead spent a quarter more work on unrelated runs.)
fn walk(
    a: &[u32],
    b: &[u32],
    dense_words: usize,
    first_band: usize,
    ops: &mut Vec<EditOp>,
) -> usize {
    let (m, n) = (a.len(), b.len());
    let pv = MatchVectors::new(a, dense_words);
    let words = pv.words;
    let block = (n as f64).sqrt().ceil().max(16.0) as usize;
    let mut t = m.abs_diff(n) + first_band;
    let (band, distance, checkpoints) = loop {
        let band = Band::new(m, n, t);
        let (d, checkpoints) = first_pass(&pv, b, &band, block);
        if d <= t || band.is_whole() {
            break (band, d, checkpoints);
        }
        // `d` overstates at most: the band of threshold `d` holds every optimal path, so the
        // next round is the last.
        t = d;
    };
    let mut scratch = vec![0u64; words];
    let (mut vp, mut vn) = (vec![0u64; words], vec![0u64; words]);

    // Pass 2: blocks from the last, each re-evaluated from its checkpoint, keeping for each of
    // its columns the two backtrack bits of the words evaluated (the band's, none below the
    // walk's row: a column's upper rows never depend on its lower ones).
    let (mut i, mut j) = (m, n);
    // Per column of the block: where its bits start, its first word and its word count
    // (`diag` words then `left` words).
    let mut spans: Vec<(usize, usize, usize)> = Vec::with_capacity(block);
    let mut bits: Vec<u64> = Vec::new();
    while i > 0 && j > 0 {
        let c0 = (j - 1) / block * block;
        let used = i.div_ceil(WORD);
        let first = band.words(c0 + 1).0;
        let last = band.words(j).1.min(used - 1);
        if first <= last {
            checkpoints.restore(c0, first, last, &mut vp, &mut vn);
        }
        spans.clear();
        bits.clear();
        for col in c0 + 1..=j {
            let (top, bottom) = band.words(col);
            let end = (bottom + 1).min(used);
            let len = end.saturating_sub(top);
            spans.push((bits.len(), top, len));
            if len == 0 {
                continue;
            }
            let at = bits.len();
            bits.resize(at + 2 * len, 0);
            let (diag, left) = bits[at..].split_at_mut(len);
            pv.with(b[col - 1], &mut scratch, |eq| {
                advance(
                    &eq[top..end],
                    &mut vp[top..end],
                    &mut vn[top..end],
                    Some((diag, left)),
                )
            });
        }
        // Walk within the block: column j is local k = j − c0 (1..=cols).
        while i > 0 && j > c0 {
            let op = if a[i - 1] == b[j - 1] {
                EditOp::Match { i: i - 1, j: j - 1 }
            } else {
                // The walk stays on optimal paths, which stay in the band: (i, j)'s word was
                // evaluated (outside it, both answers are no).
                let (at, top, len) = spans[j - c0 - 1];
                let (w, bit) = ((i - 1) / WORD, (i - 1) % WORD);
                let ask = |k: usize| {
                    (top..top + len).contains(&w) && (bits[at + k * len + w - top] >> bit) & 1 == 1
                };
                if ask(0) {
                    EditOp::Substitution { i: i - 1, j: j - 1 }
                } else if ask(1) {
                    EditOp::Insertion { j: j - 1 }
                } else {
                    EditOp::Deletion { i: i - 1 }
                }
            };
            (i, j, _) = op.step_back(i, j);
            ops.push(op);
        }
    }
    // The table's edges: only insertions along row 0, only deletions down column 0.
    ops.extend((0..j).rev().map(|j| EditOp::Insertion { j }));
    ops.extend((0..i).rev().map(|i| EditOp::Deletion { i }));
    distance
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use veer_base::edit_script::edit_script;

    fn same(a: &[u32], b: &[u32]) {
        assert_eq!(
            edit_script_bitparallel(a, b),
            edit_script(a, b),
            "{a:?} {b:?}"
        );
    }

    #[test]
    fn spec_cases_match_the_full_table() {
        let cases: &[(&str, &str)] = &[
            ("", ""),
            ("", "abc"),
            ("ab", ""),
            ("abc", "abc"),
            ("abc", "axc"),
            ("kitten", "sitting"),
            ("A", "AA"),
            ("AB", "ABC"),
            ("AB", "BA"),
            ("ab", "xyz"),
        ];
        for (a, b) in cases {
            let a: Vec<u32> = a.chars().map(u32::from).collect();
            let b: Vec<u32> = b.chars().map(u32::from).collect();
            same(&a, &b);
        }
    }

    #[test]
    fn word_and_block_edges() {
        // Lengths around 64-bit words and the √n block size, tiny alphabet (ties everywhere).
        let mut x = 7u64;
        let mut next = || {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (x >> 33) as u32 % 3
        };
        for &(m, n) in &[(63, 64), (64, 64), (65, 63), (128, 1), (1, 300), (300, 257)] {
            let a: Vec<u32> = (0..m).map(|_| next()).collect();
            let b: Vec<u32> = (0..n).map(|_| next()).collect();
            same(&a, &b);
            same(&b, &a);
        }
    }

    #[test]
    fn rare_symbols_use_the_scratch_vector() {
        // Room for two dense vectors only: every other symbol goes through the scratch vector.
        let a: Vec<u32> = (0..2_000)
            .map(|i| if i % 5 == 0 { 1 } else { i % 37 })
            .collect();
        let b: Vec<u32> = (0..1_900)
            .map(|i| if i % 3 == 0 { 1 } else { i % 41 })
            .collect();
        for dense in [0, 2 * 2_000usize.div_ceil(64), usize::MAX] {
            assert_eq!(script_with(&a, &b, dense, FIRST_BAND), edit_script(&a, &b));
            assert_eq!(script_with(&b, &a, dense, FIRST_BAND), edit_script(&b, &a));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        #[test]
        fn equals_the_full_table_small(
            a in proptest::collection::vec(0u32..3, 0..90),
            b in proptest::collection::vec(0u32..3, 0..90),
        ) {
            prop_assert_eq!(edit_script_bitparallel(&a, &b), edit_script(&a, &b));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        /// Narrow first bands: the band rounds, the rows leaving and entering the band and the
        /// backtrack through a band, against the full table.
        #[test]
        fn banded_equals_the_full_table(
            a in proptest::collection::vec(0u32..3, 0..200),
            b in proptest::collection::vec(0u32..3, 0..200),
            edits in proptest::collection::vec((0usize..200, 0u32..3), 0..12),
            related in any::<bool>(),
            first_band in 0usize..40,
        ) {
            let b = if related { edited(&a, &edits) } else { b };
            prop_assert_eq!(script_with(&a, &b, DENSE_WORDS, first_band), edit_script(&a, &b));
        }
    }

    /// `a` with each (position, symbol) edit applied: replace, delete or insert by symbol % 3.
    fn edited(a: &[u32], edits: &[(usize, u32)]) -> Vec<u32> {
        let mut c = a.to_vec();
        for &(at, s) in edits {
            if c.is_empty() {
                c.push(s);
                continue;
            }
            let at = at % c.len();
            match s % 3 {
                0 => c[at] = s,
                1 => {
                    c.remove(at);
                }
                _ => c.insert(at, s),
            }
        }
        c
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        #[test]
        fn equals_the_full_table_long(
            a in proptest::collection::vec(0u32..4, 0..3000),
            b in proptest::collection::vec(0u32..4, 0..3000),
            edits in proptest::collection::vec((0usize..3000, 0u32..4), 0..200),
            related in any::<bool>(),
        ) {
            // Either two unrelated sequences or a sequence and an edited copy of it.
            let b = if related { edited(&a, &edits) } else { b };
            prop_assert_eq!(edit_script_bitparallel(&a, &b), edit_script(&a, &b));
        }
    }
}
