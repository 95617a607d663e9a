//! Drift detection over a history: CUSUM control charts (Page 1954; Montgomery, *Introduction
//! to Statistical Quality Control*, 8th ed., §9.1 for the tabular CUSUM and Reynolds &
//! Stoumbos 1999 for the Bernoulli CUSUM) on each axis' deltas and each case's verdicts.
//!
//! - **Axes**: a two-sided tabular CUSUM on standardized deltas, z = (x − μ̂)/σ̂, with
//!   C⁺ = max(0, C⁺ + z − k) and C⁻ = max(0, C⁻ − z − k); a signal when either exceeds h.
//!   μ̂ and σ̂ come from the first `warmup` values, robustly: the median, and 1.4826 × the
//!   median absolute deviation (falling back to 1.2533 × the mean absolute deviation when more
//!   than half the warm-up values are equal). A warm-up with no spread at all is
//!   `inconclusive`: there is nothing to scale a departure by.
//! - **Cases**: a one-sided Bernoulli CUSUM on "the verdict is bad" (regressed, failed, error,
//!   moderate or severe): B = max(0, B + w), w = ln(p₁/p₀) on a bad verdict and
//!   ln((1 − p₁)/(1 − p₀)) on a good one, with p₀ the warm-up's bad rate (smoothed,
//!   (bad + ½)/(warmup + 1), so a clean warm-up is not p₀ = 0) and p₁ the rate whose odds are
//!   [`DriftSettings::case_odds_ratio`] times p₀'s; a signal when B exceeds `case_h`.
//!
//! Everything is pure: series in, statuses out. Work is linear in the series' lengths; no loop
//! runs a number of times a value decides. Statistics are clamped (|z| ≤ `Z_CLAMP`) so
//! extreme values cannot overflow. The false-alarm rates and detection delays of the default
//! settings are measured by simulation in this file's tests and written in docs/history.md.

use crate::store::Entry;
use crate::trend::verdict_level;
use std::collections::BTreeMap;
use veer_contract::history::{
    Detection, DriftDirection, DriftReport, DriftStatus, SeriesDrift, SignalAt,
};

/// The largest standardized step one comparison can add to an axis CUSUM (in σ): keeps the
/// statistic finite whatever the deltas (a step this large signals at once anyway).
pub(crate) const Z_CLAMP: f64 = 1e6;

/// The detector's settings; [`Default`] gives the documented ones.
#[derive(Debug, Clone, PartialEq)]
pub struct DriftSettings {
    /// Comparisons at the start of each series that estimate its in-control level (≥ 5).
    pub warmup: usize,
    /// The axis CUSUM's allowance k, in σ (k = δ/2 is tuned to a shift of δ σ).
    pub k: f64,
    /// The axis CUSUM's decision limit h, in σ.
    pub h: f64,
    /// Each standardized delta is clipped to ±this many σ before it enters the axis CUSUM
    /// (a robust CUSUM: one wild comparison cannot signal on its own; a sustained shift does).
    pub z_clip: f64,
    /// The odds ratio of the bad-verdict rate the case CUSUM is tuned to detect (> 1).
    pub case_odds_ratio: f64,
    /// The case CUSUM's decision limit, in log-likelihood-ratio units.
    pub case_h: f64,
}

impl Default for DriftSettings {
    fn default() -> Self {
        DriftSettings {
            warmup: 30,
            k: 0.75,
            h: 8.0,
            z_clip: 3.0,
            case_odds_ratio: 3.0,
            case_h: 6.0,
        }
    }
}

fn inconclusive(n: usize, limit: f64, reason: String) -> Detection {
    Detection {
        status: DriftStatus::Inconclusive,
        direction: None,
        n,
        center: None,
        sigma: None,
        first_signal: None,
        statistic: 0.0,
        limit,
        reason: Some(reason),
    }
}

fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

/// The robust location and scale of `values` (finite): a median/MAD screen, then the mean
/// and standard deviation of the values within 3 screened σ of the median (so one wild
/// warm-up value does not set the limits, and the estimate keeps the standard deviation's
/// efficiency on clean data). The screen's σ is 1.4826 × the MAD, or 1.2533 × the mean
/// absolute deviation when the MAD is 0. None for fewer than 2 kept values or no spread.
pub(crate) fn robust_center_scale(values: &[f64]) -> Option<(f64, f64)> {
    if values.is_empty() {
        return None;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let m = median(&v);
    let mut dev: Vec<f64> = v.iter().map(|x| (x - m).abs()).collect();
    dev.sort_by(f64::total_cmp);
    let mad = 1.4826 * median(&dev);
    let screen = if mad > 0.0 && mad.is_finite() {
        mad
    } else {
        1.2533 * dev.iter().map(|d| d / dev.len() as f64).sum::<f64>()
    };
    if !(screen > 0.0 && screen.is_finite()) {
        return None;
    }
    let kept: Vec<f64> = v
        .iter()
        .copied()
        .filter(|x| ((x - m) / screen).abs() <= 3.0)
        .collect();
    if kept.len() < 2 {
        return None;
    }
    let n = kept.len() as f64;
    // Centred on the median first so huge values do not overflow the sums.
    let mean_dev = kept.iter().map(|x| (x - m) / n).sum::<f64>();
    let var = kept
        .iter()
        .map(|x| ((x - m) / screen - mean_dev / screen).powi(2))
        .sum::<f64>()
        / (n - 1.0);
    let sigma = screen * var.sqrt();
    (sigma > 0.0 && sigma.is_finite()).then_some((m + mean_dev, sigma))
}

fn too_few(n: usize, warmup: usize, limit: f64) -> Detection {
    inconclusive(
        n,
        limit,
        format!(
            "{n} comparison{} with a value; the detector needs the {warmup} of the warm-up and at least one more",
            if n == 1 { "" } else { "s" }
        ),
    )
}

/// The status from the first signal and the exceedance at the latest comparison.
fn finish(
    first: Option<(usize, DriftDirection)>,
    last: Option<DriftDirection>,
) -> (DriftStatus, Option<DriftDirection>) {
    match (last, first) {
        (Some(d), _) => (DriftStatus::Drift, Some(d)),
        (None, Some((_, d))) => (DriftStatus::PastDrift, Some(d)),
        (None, None) => (DriftStatus::InControl, None),
    }
}

/// The two-sided tabular CUSUM of an axis' `values` (oldest first, finite).
pub(crate) fn axis_cusum(values: &[f64], s: &DriftSettings) -> Detection {
    let n = values.len();
    let warmup = s.warmup.max(5);
    if n <= warmup {
        return too_few(n, warmup, s.h);
    }
    let Some((center, sigma)) = robust_center_scale(&values[..warmup]) else {
        return inconclusive(
            n,
            s.h,
            format!("the {warmup} warm-up values are all equal: no spread to set limits from"),
        );
    };
    let (mut hi, mut lo) = (0.0_f64, 0.0_f64);
    let mut first = None;
    let mut last_exceed = None;
    for (i, x) in values.iter().enumerate().skip(warmup) {
        let z = (x - center) / sigma;
        let z = if z.is_nan() {
            0.0
        } else {
            z.clamp(-s.z_clip.min(Z_CLAMP), s.z_clip.min(Z_CLAMP))
        };
        hi = (hi + z - s.k).max(0.0);
        lo = (lo - z - s.k).max(0.0);
        last_exceed = if hi > s.h {
            Some(DriftDirection::Up)
        } else if lo > s.h {
            Some(DriftDirection::Down)
        } else {
            None
        };
        if first.is_none() {
            first = last_exceed.map(|d| (i, d));
        }
    }
    let statistic = hi.max(lo);
    let (status, direction) = finish(first, last_exceed);
    Detection {
        status,
        direction,
        n,
        center: Some(center),
        sigma: Some(sigma),
        first_signal: first.map(|f| f.0),
        statistic,
        limit: s.h,
        reason: None,
    }
}

/// The Bernoulli CUSUM of a case's verdicts (`true` = bad), oldest first.
pub(crate) fn case_cusum(bad: &[bool], s: &DriftSettings) -> Detection {
    let n = bad.len();
    let warmup = s.warmup.max(5);
    if n <= warmup {
        return too_few(n, warmup, s.case_h);
    }
    let x = bad[..warmup].iter().filter(|b| **b).count();
    let p0 = (x as f64 + 0.5) / (warmup as f64 + 1.0);
    let r = s.case_odds_ratio.max(1.0 + 1e-9);
    let p1 = r * p0 / (1.0 - p0 + r * p0);
    let w_bad = (p1 / p0).ln();
    let w_good = ((1.0 - p1) / (1.0 - p0)).ln();
    let mut b = 0.0_f64;
    let mut first = None;
    let mut above = false;
    for (i, is_bad) in bad.iter().enumerate().skip(warmup) {
        b = (b + if *is_bad { w_bad } else { w_good }).max(0.0);
        above = b > s.case_h;
        if above && first.is_none() {
            first = Some((i, DriftDirection::Up));
        }
    }
    let (status, direction) = finish(first, above.then_some(DriftDirection::Up));
    Detection {
        status,
        direction,
        n,
        center: Some(p0),
        sigma: None,
        first_signal: first.map(|f| f.0),
        statistic: b,
        limit: s.case_h,
        reason: None,
    }
}

/// Whether a case verdict counts as bad for the case CUSUM: its level (see
/// [`verdict_level`]) is `moderate` or `severe`.
pub(crate) fn is_bad_verdict(verdict: &str) -> bool {
    matches!(verdict_level(verdict), "moderate" | "severe")
}

fn signal_at(entries: &[&Entry], d: &Detection) -> Option<SignalAt> {
    d.first_signal
        .and_then(|i| entries.get(i))
        .map(|e| SignalAt {
            id: e.id,
            recorded_at_ms: e.provenance.recorded_at_ms,
            commit: e.provenance.commit.clone(),
        })
}

/// Runs the detectors over `entries` (oldest first): each axis on the comparisons with a
/// delta for it, each case on the comparisons with a verdict for it.
pub fn drift(entries: &[Entry], s: &DriftSettings) -> DriftReport {
    let mut order: Vec<String> = Vec::new();
    let mut axes: BTreeMap<String, (Vec<f64>, Vec<&Entry>)> = BTreeMap::new();
    let mut cases: BTreeMap<String, (Vec<bool>, Vec<&Entry>)> = BTreeMap::new();
    for e in entries {
        for a in &e.summary.axes {
            let Some(delta) = a.delta.filter(|d| d.is_finite()) else {
                continue;
            };
            let slot = axes.entry(a.axis.name().to_string()).or_insert_with(|| {
                order.push(a.axis.name().to_string());
                (Vec::new(), Vec::new())
            });
            slot.0.push(delta);
            slot.1.push(e);
        }
        for c in &e.summary.cases {
            let slot = cases.entry(c.case.clone()).or_default();
            slot.0.push(is_bad_verdict(&c.verdict));
            slot.1.push(e);
        }
    }
    let axes = order
        .into_iter()
        .filter_map(|name| {
            let (values, at) = axes.remove(&name)?;
            let detection = axis_cusum(&values, s);
            Some(SeriesDrift {
                signal_at: signal_at(&at, &detection),
                name,
                detection,
            })
        })
        .collect();
    let cases = cases
        .into_iter()
        .map(|(name, (bad, at))| {
            let detection = case_cusum(&bad, s);
            SeriesDrift {
                signal_at: signal_at(&at, &detection),
                name,
                detection,
            }
        })
        .collect();
    DriftReport { axes, cases }
}

#[cfg(test)]
mod tests;
