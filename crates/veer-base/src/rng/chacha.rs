//! The bootstrap's random-number generator: ChaCha with 12 rounds seeded from a `u64` through
//! a PCG32 expansion, and unbiased index draws by widening multiplication with rejection
//! (spec `diff.md` §3.2). This reproduces, word for word, the sequence Shadow's bootstrap draws
//! (`rand` 0.8 `StdRng::seed_from_u64` and `gen_range(0..n)` on `u32`), written from the
//! published algorithm descriptions.

/// Number of ChaCha rounds (ChaCha12).
const ROUNDS: usize = 12;

/// A ChaCha12 keystream read as consecutive little-endian `u32` words.
#[derive(Debug, Clone)]
pub struct ChaCha12 {
    key: [u32; 8],
    counter: u64,
    block: [u32; 16],
    index: usize,
}

impl ChaCha12 {
    /// The generator for `seed`: the 32-byte key is eight PCG32 outputs (little-endian) of a
    /// state starting at `seed`; block counter and stream id start at 0.
    pub fn seed_from_u64(seed: u64) -> ChaCha12 {
        const MUL: u64 = 6_364_136_223_846_793_005;
        const INC: u64 = 11_634_580_027_462_260_723;
        let mut state = seed;
        let mut key = [0u32; 8];
        for word in &mut key {
            state = state.wrapping_mul(MUL).wrapping_add(INC);
            let xorshifted = (((state >> 18) ^ state) >> 27) as u32;
            let rot = (state >> 59) as u32;
            // Four little-endian bytes read back as one little-endian word: the value itself.
            *word = xorshifted.rotate_right(rot);
        }
        ChaCha12 {
            key,
            counter: 0,
            block: [0; 16],
            index: 16,
        }
    }

    /// The next keystream word.
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        if self.index == 16 {
            self.refill();
        }
        let v = self.block[self.index];
        self.index += 1;
        v
    }

    /// A uniform index in `0..n` (`n ≥ 1`, at most `u32::MAX`): `zone = (n << lz(n)) − 1`;
    /// draw `v`, accept the high word of `v·n` when its low word is `≤ zone`.
    #[inline]
    pub fn index_below(&mut self, n: u32) -> u32 {
        let range = n.max(1);
        let zone = (range << range.leading_zeros()).wrapping_sub(1);
        loop {
            let v = self.next_u32();
            let prod = u64::from(v) * u64::from(range);
            let hi = (prod >> 32) as u32;
            let lo = prod as u32;
            if lo <= zone {
                return hi;
            }
        }
    }

    /// Appends `count` indices below `n` to `out`: exactly what `count` calls of
    /// [`ChaCha12::index_below`] return, leaving the generator where they would. ChaCha blocks
    /// depend only on the key and their counter, so whole blocks are computed `LANES` at a
    /// time (one vector lane per block) and in parallel; only the cheap
    /// accept/reject scan runs in order. Exactly as many words as needed are generated (a
    /// rejected word is made up by drawing the deficit again), so none is lost.
    pub fn indices_below(&mut self, n: u32, count: usize, out: &mut Vec<u32>) {
        let range = n.max(1);
        let zone = (range << range.leading_zeros()).wrapping_sub(1);
        let target = out.len() + count;
        out.reserve(count);
        let mut words = Vec::new();
        while out.len() < target {
            // A bounded buffer: at most 1 MiB of words at a time.
            words.resize((target - out.len()).min(1 << 18), 0);
            self.keystream(&mut words);
            // Branch-free compaction: every word's index is stored at the next free slot,
            // which only advances when the word is accepted (the zone rejects up to half the
            // words depending on the range, e.g. 24% for 100,000, so a branch would mispredict).
            let start = out.len();
            out.resize(start + words.len(), 0);
            let dst = &mut out[start..];
            let mut k = 0;
            for &v in &words {
                let prod = u64::from(v) * u64::from(range);
                if let Some(o) = dst.get_mut(k) {
                    *o = (prod >> 32) as u32;
                }
                k += usize::from(prod as u32 <= zone);
            }
            out.truncate(start + k);
        }
    }

    /// Fills `out` with the next keystream words, as repeated [`ChaCha12::next_u32`] would.
    fn keystream(&mut self, out: &mut [u32]) {
        use rayon::prelude::*;
        let mut k = 0;
        while self.index < 16 && k < out.len() {
            out[k] = self.block[self.index];
            self.index += 1;
            k += 1;
        }
        let rest = &mut out[k..];
        let whole = rest.len() / (16 * LANES);
        let (key, first) = (self.key, self.counter);
        // Tasks of 64 lane groups (16 KiB of words) keep the scheduling cost negligible; a
        // single task runs here.
        let task = |t: usize, words: &mut [u32]| {
            for (g, group) in words.chunks_mut(16 * LANES).enumerate() {
                let c = first.wrapping_add(((t * 64 + g) * LANES) as u64);
                blocks(&key, c, group);
            }
        };
        let filled = &mut rest[..whole * 16 * LANES];
        if whole <= 64 {
            task(0, filled);
        } else {
            filled
                .par_chunks_mut(16 * LANES * 64)
                .enumerate()
                .for_each(|(t, words)| task(t, words));
        }
        self.counter = first.wrapping_add((whole * LANES) as u64);
        for w in &mut rest[whole * 16 * LANES..] {
            *w = self.next_u32();
        }
    }

    // Kept out of line so the per-word path stays a few inlined instructions.
    #[inline(never)]
    fn refill(&mut self) {
        let words = [self.counter as u32, (self.counter >> 32) as u32, 0, 0];
        self.block = block(&self.key, words, ROUNDS);
        self.counter = self.counter.wrapping_add(1);
        self.index = 0;
    }
}

/// The ChaCha block function with `rounds` rounds: state = constants, key, `tail` (words
/// 12–15: block counter and stream id), permuted, then added to the input state.
fn block(key: &[u32; 8], tail: [u32; 4], rounds: usize) -> [u32; 16] {
    let mut input = [0u32; 16];
    input[0] = 0x6170_7865;
    input[1] = 0x3320_646e;
    input[2] = 0x7962_2d32;
    input[3] = 0x6b20_6574;
    input[4..12].copy_from_slice(key);
    input[12..16].copy_from_slice(&tail);
    let mut x = input;
    for _ in 0..rounds / 2 {
        quarter(&mut x, 0, 4, 8, 12);
        quarter(&mut x, 1, 5, 9, 13);
        quarter(&mut x, 2, 6, 10, 14);
        quarter(&mut x, 3, 7, 11, 15);
        quarter(&mut x, 0, 5, 10, 15);
        quarter(&mut x, 1, 6, 11, 12);
        quarter(&mut x, 2, 7, 8, 13);
        quarter(&mut x, 3, 4, 9, 14);
    }
    let mut out = [0u32; 16];
    for (o, (a, b)) in out.iter_mut().zip(x.iter().zip(input.iter())) {
        *o = a.wrapping_add(*b);
    }
    out
}

fn quarter(x: &mut [u32; 16], a: usize, b: usize, c: usize, d: usize) {
    x[a] = x[a].wrapping_add(x[b]);
    x[d] = (x[d] ^ x[a]).rotate_left(16);
    x[c] = x[c].wrapping_add(x[d]);
    x[b] = (x[b] ^ x[c]).rotate_left(12);
    x[a] = x[a].wrapping_add(x[b]);
    x[d] = (x[d] ^ x[a]).rotate_left(8);
    x[c] = x[c].wrapping_add(x[d]);
    x[b] = (x[b] ^ x[c]).rotate_left(7);
}

/// Blocks computed by one call of [`blocks`].
const LANES: usize = 8;

/// `LANES` consecutive ChaCha12 blocks, counters `first..first + LANES` (stream id 0), written
/// to `out` (`16 × LANES` words) in keystream order: the same words as [`block`] gives each.
/// Eight blocks in 256-bit vectors where the processor has AVX2 (detected at run time), four
/// at a time in 128-bit vectors otherwise (SSE2, part of every x86_64 target), one at a time
/// elsewhere.
fn blocks(key: &[u32; 8], first: u64, out: &mut [u32]) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2 (checked just above).
            unsafe { blocks_avx2(key, first, out) }
        } else {
            let (low, high) = out.split_at_mut(64);
            // SAFETY: the function only needs SSE2, which this build targets (checked by the
            // cfg above; every x86_64 processor has it).
            unsafe {
                blocks_sse2(key, first, low);
                blocks_sse2(key, first.wrapping_add(4), high);
            }
        }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    for (l, chunk) in out.chunks_mut(16).take(LANES).enumerate() {
        let c = first.wrapping_add(l as u64);
        chunk.copy_from_slice(&block(key, [c as u32, (c >> 32) as u32, 0, 0], ROUNDS));
    }
}

/// One ChaCha double round (a column round, then a diagonal round) on a state of 16 vectors,
/// one block per lane: the quarter rounds of [`quarter`], written once for both vector widths
/// with the width's add, xor, or and shift intrinsics passed in.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
macro_rules! double_round {
    ($x:ident, $($f:ident),+) => {
        vector_quarter!($x, [0, 4, 8, 12], $($f),+);
        vector_quarter!($x, [1, 5, 9, 13], $($f),+);
        vector_quarter!($x, [2, 6, 10, 14], $($f),+);
        vector_quarter!($x, [3, 7, 11, 15], $($f),+);
        vector_quarter!($x, [0, 5, 10, 15], $($f),+);
        vector_quarter!($x, [1, 6, 11, 12], $($f),+);
        vector_quarter!($x, [2, 7, 8, 13], $($f),+);
        vector_quarter!($x, [3, 4, 9, 14], $($f),+);
    };
}

/// One quarter round of [`double_round`] on the state words `[a, b, c, d]` (literal indices,
/// so the state stays in registers).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
macro_rules! vector_quarter {
    ($x:ident, [$a:literal, $b:literal, $c:literal, $d:literal],
     $add:ident, $xor:ident, $or:ident, $shl:ident, $shr:ident) => {
        $x[$a] = $add($x[$a], $x[$b]);
        let v = $xor($x[$d], $x[$a]);
        $x[$d] = $or($shl::<16>(v), $shr::<16>(v));
        $x[$c] = $add($x[$c], $x[$d]);
        let v = $xor($x[$b], $x[$c]);
        $x[$b] = $or($shl::<12>(v), $shr::<20>(v));
        $x[$a] = $add($x[$a], $x[$b]);
        let v = $xor($x[$d], $x[$a]);
        $x[$d] = $or($shl::<8>(v), $shr::<24>(v));
        $x[$c] = $add($x[$c], $x[$d]);
        let v = $xor($x[$b], $x[$c]);
        $x[$b] = $or($shl::<7>(v), $shr::<25>(v));
    };
}

/// [`blocks`] with one 256-bit vector per state word, one block per 32-bit lane (the same
/// quarter rounds as [`quarter`], eight blocks at once).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "avx2")]
fn blocks_avx2(key: &[u32; 8], first: u64, out: &mut [u32]) {
    use std::arch::x86_64::{
        __m256i, _mm256_add_epi32, _mm256_castsi256_si128, _mm256_extracti128_si256,
        _mm256_or_si256, _mm256_set1_epi32, _mm256_setr_epi32, _mm256_slli_epi32,
        _mm256_srli_epi32, _mm256_xor_si256, _mm_cvtsi128_si64, _mm_unpackhi_epi64,
    };
    let head = [0x6170_7865u32, 0x3320_646e, 0x7962_2d32, 0x6b20_6574];
    let mut input: [__m256i; 16] = [_mm256_set1_epi32(0); 16];
    for (w, v) in head.iter().chain(key.iter()).enumerate() {
        input[w] = _mm256_set1_epi32(*v as i32);
    }
    let c: [u64; 8] = std::array::from_fn(|l| first.wrapping_add(l as u64));
    let low: [i32; 8] = std::array::from_fn(|l| c[l] as i32);
    let high: [i32; 8] = std::array::from_fn(|l| (c[l] >> 32) as i32);
    input[12] = _mm256_setr_epi32(
        low[0], low[1], low[2], low[3], low[4], low[5], low[6], low[7],
    );
    input[13] = _mm256_setr_epi32(
        high[0], high[1], high[2], high[3], high[4], high[5], high[6], high[7],
    );
    let mut x = input;
    for _ in 0..ROUNDS / 2 {
        double_round!(
            x,
            _mm256_add_epi32,
            _mm256_xor_si256,
            _mm256_or_si256,
            _mm256_slli_epi32,
            _mm256_srli_epi32
        );
    }
    for (w, (&xs, &is)) in x.iter().zip(input.iter()).enumerate() {
        let v = _mm256_add_epi32(xs, is);
        for (half, lanes) in [_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v)]
            .into_iter()
            .enumerate()
        {
            let lo = _mm_cvtsi128_si64(lanes) as u64;
            let hi = _mm_cvtsi128_si64(_mm_unpackhi_epi64(lanes, lanes)) as u64;
            let base = half * 64 + w;
            out[base] = lo as u32;
            out[base + 16] = (lo >> 32) as u32;
            out[base + 32] = hi as u32;
            out[base + 48] = (hi >> 32) as u32;
        }
    }
}

/// Four blocks (counters `first..first + 4`, 64 words) with one 128-bit vector per state
/// word, one block per lane (the same quarter rounds as [`quarter`], four blocks at once).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "sse2")]
fn blocks_sse2(key: &[u32; 8], first: u64, out: &mut [u32]) {
    use std::arch::x86_64::{
        __m128i, _mm_add_epi32, _mm_cvtsi128_si64, _mm_or_si128, _mm_set1_epi32, _mm_setr_epi32,
        _mm_slli_epi32, _mm_srli_epi32, _mm_unpackhi_epi64, _mm_xor_si128,
    };
    let head = [0x6170_7865u32, 0x3320_646e, 0x7962_2d32, 0x6b20_6574];
    let mut input: [__m128i; 16] = [_mm_set1_epi32(0); 16];
    for (w, v) in head.iter().chain(key.iter()).enumerate() {
        input[w] = _mm_set1_epi32(*v as i32);
    }
    let c: [u64; 4] = std::array::from_fn(|l| first.wrapping_add(l as u64));
    input[12] = _mm_setr_epi32(c[0] as i32, c[1] as i32, c[2] as i32, c[3] as i32);
    input[13] = _mm_setr_epi32(
        (c[0] >> 32) as i32,
        (c[1] >> 32) as i32,
        (c[2] >> 32) as i32,
        (c[3] >> 32) as i32,
    );
    let mut x = input;
    for _ in 0..ROUNDS / 2 {
        double_round!(
            x,
            _mm_add_epi32,
            _mm_xor_si128,
            _mm_or_si128,
            _mm_slli_epi32,
            _mm_srli_epi32
        );
    }
    for (w, (&xs, &is)) in x.iter().zip(input.iter()).enumerate() {
        let v = _mm_add_epi32(xs, is);
        let lo = _mm_cvtsi128_si64(v) as u64;
        let hi = _mm_cvtsi128_si64(_mm_unpackhi_epi64(v, v)) as u64;
        out[w] = lo as u32;
        out[16 + w] = (lo >> 32) as u32;
        out[32 + w] = hi as u32;
        out[48 + w] = (hi >> 32) as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The block function with 20 rounds reproduces RFC 7539 §2.3.2 (key 00..1f, counter 1,
    /// nonce 00:00:00:09:00:00:00:4a:00:00:00:00); veer runs the same code with 12 rounds.
    /// The parallel block path gives the same indices as one draw at a time, for ranges with
    /// rare and with frequent rejections, across block boundaries and successive calls.
    #[test]
    fn indices_below_equals_repeated_index_below() {
        for n in [1u32, 7, 1000, 100_003, (1 << 31) + 1, u32::MAX] {
            let mut one = ChaCha12::seed_from_u64(42);
            let mut many = ChaCha12::seed_from_u64(42);
            // Start mid-block.
            for _ in 0..5 {
                assert_eq!(one.index_below(n), many.index_below(n));
            }
            for count in [0usize, 1, 15, 16, 17, 1000, 4099, 9000, 270_000] {
                let expected: Vec<u32> = (0..count).map(|_| one.index_below(n)).collect();
                let mut got = vec![9];
                many.indices_below(n, count, &mut got);
                assert_eq!(&got[1..], &expected[..], "n {n} count {count}");
            }
            assert_eq!(
                one.next_u32(),
                many.next_u32(),
                "n {n}: same position after"
            );
        }
    }

    /// The lane-parallel blocks are the one-at-a-time blocks, including across the 32-bit
    /// counter carry.
    #[test]
    fn lane_blocks_equal_single_blocks() {
        let key = ChaCha12::seed_from_u64(9).key;
        for first in [0u64, 5, u64::from(u32::MAX) - 3, u64::MAX - 2] {
            let single: Vec<u32> = (0..LANES)
                .flat_map(|l| {
                    let c = first.wrapping_add(l as u64);
                    block(&key, [c as u32, (c >> 32) as u32, 0, 0], ROUNDS)
                })
                .collect();
            let mut out = [0u32; 16 * LANES];
            blocks(&key, first, &mut out);
            assert_eq!(out[..], single[..], "first {first}");
            // Each vector width on its own, whichever `blocks` picked on this machine.
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            {
                let mut sse = [0u32; 16 * LANES];
                let (low, high) = sse.split_at_mut(64);
                // SAFETY: SSE2 is in the build target (cfg above); AVX2 is detected first.
                unsafe {
                    blocks_sse2(&key, first, low);
                    blocks_sse2(&key, first.wrapping_add(4), high);
                }
                assert_eq!(sse[..], single[..], "SSE2, first {first}");
                if std::arch::is_x86_feature_detected!("avx2") {
                    let mut avx = [0u32; 16 * LANES];
                    unsafe { blocks_avx2(&key, first, &mut avx) };
                    assert_eq!(avx[..], single[..], "AVX2, first {first}");
                } else {
                    eprintln!("AVX2 blocks not tested: this processor has no AVX2");
                }
            }
        }
    }

    #[test]
    fn block_function_matches_rfc7539() {
        let mut key = [0u32; 8];
        for (i, k) in key.iter_mut().enumerate() {
            let b = (4 * i) as u32;
            *k = b | ((b + 1) << 8) | ((b + 2) << 16) | ((b + 3) << 24);
        }
        let out = block(&key, [1, 0x0900_0000, 0x4a00_0000, 0], 20);
        assert_eq!(
            out,
            [
                0xe4e7_f110,
                0x1559_3bd1,
                0x1fdd_0f50,
                0xc471_20a3,
                0xc7f4_d1c7,
                0x0368_c033,
                0x9aaa_2204,
                0x4e6c_d4c3,
                0x4664_82d2,
                0x09aa_9f07,
                0x05d7_c214,
                0xa202_8bd9,
                0xd19c_12b5,
                0xb94e_16de,
                0xe883_d0cb,
                0x4e3c_50a2,
            ]
        );
    }

    #[test]
    fn same_seed_same_stream() {
        let mut a = ChaCha12::seed_from_u64(42);
        let mut b = ChaCha12::seed_from_u64(42);
        let xs: Vec<u32> = (0..40).map(|_| a.next_u32()).collect();
        let ys: Vec<u32> = (0..40).map(|_| b.next_u32()).collect();
        assert_eq!(xs, ys);
        let mut c = ChaCha12::seed_from_u64(43);
        assert_ne!(xs[0], c.next_u32());
    }

    #[test]
    fn index_draws_stay_in_range() {
        let mut r = ChaCha12::seed_from_u64(7);
        for n in 1..50u32 {
            for _ in 0..20 {
                assert!(r.index_below(n) < n);
            }
        }
    }
}
