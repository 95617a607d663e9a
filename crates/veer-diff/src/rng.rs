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
    /// depend only on the key and their counter, so whole blocks are computed in parallel;
    /// only the cheap accept/reject scan runs in order. Exactly as many words as needed are
    /// generated (a rejected word is made up by drawing the deficit again), so none is lost.
    pub fn indices_below(&mut self, n: u32, count: usize, out: &mut Vec<u32>) {
        let range = n.max(1);
        let zone = (range << range.leading_zeros()).wrapping_sub(1);
        let target = out.len() + count;
        let mut words = Vec::new();
        while out.len() < target {
            // A bounded buffer: at most 256 KiB of words at a time.
            words.resize((target - out.len()).min(1 << 16), 0);
            self.keystream(&mut words);
            for &v in &words {
                let prod = u64::from(v) * u64::from(range);
                if prod as u32 <= zone {
                    out.push((prod >> 32) as u32);
                }
            }
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
        let whole = rest.len() / 16;
        let (key, first) = (self.key, self.counter);
        rest[..whole * 16]
            .par_chunks_mut(16)
            .enumerate()
            .for_each(|(b, chunk)| {
                let c = first.wrapping_add(b as u64);
                chunk.copy_from_slice(&block(&key, [c as u32, (c >> 32) as u32, 0, 0], ROUNDS));
            });
        self.counter = first.wrapping_add(whole as u64);
        for w in &mut rest[whole * 16..] {
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
            for count in [0usize, 1, 15, 16, 17, 1000, 4099] {
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
