//! The body of the `distributions` fuzz target (`fuzz/fuzz_targets/distributions.rs`), kept in
//! the library so the fuzzer and the corpus-replay test run exactly the same code
//! (docs/fuzzing.md). It panics only when an invariant breaks.

use super::{hotelling_t2, HotellingResult, PValue, DEFAULT_ALPHA};
use veer_base::fdist::{
    beta_inc_work, f_cdf_work, f_ppf_work, f_sf_work, ncf_cdf_work, CF_CAP, NCF_WORK_BOUND,
    PPF_WORK_BOUND,
};

/// Values a fingerprint entry takes from one byte: 0–239 are `k/16` (0–14.9375), the rest
/// pick the extremes (zero, ±huge, tiny, NaN, ±∞, a latency in milliseconds, …).
const SPECIAL: [f64; 16] = [
    0.0,
    1.0,
    -1.0,
    1e300,
    -1e300,
    1e-300,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::MAX,
    f64::MIN_POSITIVE,
    0.5,
    1e15,
    86_400_000.0,
    1e-12,
    5e-324,
];

/// Any bytes: the first 40, as five little-endian doubles `(f, d1, d2, nc, q)`, go to every
/// distribution function — each stays within its documented iteration bound, returns a
/// probability or NaN, the `F` CDF and survival function sum to 1 (within 10⁻⁹, the
/// incomplete beta's accuracy: at `x = y = ½` with `a = b` both are computed the same way),
/// and the non-central CDF is at most the central one (these two with degrees of freedom of at
/// least 10⁻⁶). The rest: three bytes pick
/// `n1, n2 ∈ 2..=6` (at most `C(12, 6) = 924` exact relabellings) and `D ∈ 1..=12`, the
/// following bytes are the fingerprint entries (one byte each, cycled; see `SPECIAL`), and
/// the Hotelling test runs on them with every p-value method — the p-value and power are
/// probabilities, and the same inputs give the same result twice.
pub fn distributions(data: &[u8]) {
    let mut values = [0.0f64; 5];
    for (v, chunk) in values.iter_mut().zip(data.chunks_exact(8)) {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(chunk);
        *v = f64::from_le_bytes(bytes);
    }
    let [f, d1, d2, nc, q] = values;
    check_distributions(f, d1, d2, nc, q);
    // Also as degrees of freedom of a realistic size and F values of the same bits.
    check_distributions(
        f,
        d1.abs().min(1e9).ceil(),
        d2.abs().min(1e9).ceil(),
        nc.abs(),
        q,
    );
    if let Some(rest) = data.get(40..) {
        check_hotelling(rest);
    }
}

fn probability(p: f64) -> bool {
    p.is_nan() || (0.0..=1.0).contains(&p)
}

fn check_distributions(f: f64, d1: f64, d2: f64, nc: f64, q: f64) {
    let (sf, n) = f_sf_work(f, d1, d2);
    assert!(
        n <= CF_CAP && probability(sf),
        "f_sf({f}, {d1}, {d2}) = {sf} in {n}"
    );
    let (cdf, n) = f_cdf_work(f, d1, d2);
    assert!(
        n <= CF_CAP && probability(cdf),
        "f_cdf({f}, {d1}, {d2}) = {cdf} in {n}"
    );
    if d1.min(d2) >= 1e-6 && !sf.is_nan() && !cdf.is_nan() {
        assert!(
            (sf + cdf - 1.0).abs() <= 1e-9,
            "f_sf + f_cdf at ({f}, {d1}, {d2}): {sf} + {cdf}"
        );
    }
    let (ncdf, n) = ncf_cdf_work(f, d1, d2, nc);
    assert!(
        n <= NCF_WORK_BOUND && probability(ncdf),
        "ncf_cdf({f}, {d1}, {d2}, {nc}) = {ncdf} in {n}"
    );
    // Degrees of freedom below 10⁻⁶ (never the test's: D ≥ 1, n₁ + n₂ − D − 1 ≥ 1) make
    // `I = 1 − I_v(b, a)` cancel to its last bits: only the bounds and ranges are checked there.
    let accurate = d1.min(d2) >= 1e-6;
    if accurate && !ncdf.is_nan() && !cdf.is_nan() {
        assert!(
            ncdf <= cdf + 1e-9,
            "ncf_cdf({f}, {d1}, {d2}, {nc}) = {ncdf} > f_cdf {cdf}"
        );
    }
    let (x, n) = f_ppf_work(q, d1, d2);
    assert!(
        n <= PPF_WORK_BOUND && (x.is_nan() || x >= 0.0),
        "f_ppf({q}, {d1}, {d2}) = {x} in {n}"
    );
    let y = f / (1.0 + f.abs());
    let (p, n) = beta_inc_work(d1, d2, y, 1.0 - y);
    assert!(
        n <= CF_CAP && probability(p),
        "I_{y}({d1}, {d2}) = {p} in {n}"
    );
}

/// One fingerprint entry from one byte.
fn entry(b: u8) -> f64 {
    match b.checked_sub(240) {
        None => f64::from(b) / 16.0,
        Some(k) => SPECIAL[usize::from(k)],
    }
}

fn check_hotelling(data: &[u8]) {
    let [a, b, c, entries @ ..] = data else {
        return;
    };
    let (n1, n2, d) = (
        2 + usize::from(*a % 5),
        2 + usize::from(*b % 5),
        1 + usize::from(*c % 12),
    );
    let mut cells = entries.iter().copied().cycle().map(entry);
    let mut sample = |n: usize| -> Vec<Vec<f64>> {
        (0..n)
            .map(|_| (0..d).map(|_| cells.next().unwrap_or(0.0)).collect())
            .collect()
    };
    let (x1, x2) = (sample(n1), sample(n2));
    for method in [
        PValue::F,
        PValue::ExactWhenSmall,
        PValue::MonteCarlo { count: 20, seed: 7 },
    ] {
        let result = hotelling_t2(&x1, &x2, DEFAULT_ALPHA, method);
        assert!(
            result.is_ok(),
            "rows of one width, two or more a side: the test runs"
        );
        let Ok(r) = result else {
            return;
        };
        assert!(probability(r.p_value), "p {}", r.p_value);
        assert!(
            r.power.is_none_or(|p| (0.0..=1.0).contains(&p)),
            "power {:?}",
            r.power
        );
        let again = hotelling_t2(&x1, &x2, DEFAULT_ALPHA, method).ok();
        assert!(again.is_some_and(|g| same(&g, &r)), "not deterministic");
    }
}

/// Equal results, NaN equal to NaN (compared by bits).
fn same(a: &HotellingResult, b: &HotellingResult) -> bool {
    format!("{a:?}") == format!("{b:?}")
}

#[cfg(test)]
mod tests {
    /// Every committed corpus input of the `distributions` target replays without a broken
    /// invariant (`veer_trace::fuzzing::replay_corpus`, shared by every crate's replay test).
    #[test]
    fn corpus_replays() {
        veer_trace::fuzzing::replay_corpus("distributions", 10, super::distributions);
    }
}
