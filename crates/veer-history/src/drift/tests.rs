//! The detectors' behaviour on hand-made series, extreme values, and their false-alarm rates
//! and detection delays measured on simulated histories (seeded: the same figures every run;
//! the figures are the ones in docs/history.md).

use super::*;

/// SplitMix64: a small seeded generator for the simulations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / 9_007_199_254_740_992.0
    }
    fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.unit();
        let u2 = self.unit();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }
    /// Student's t with 3 degrees of freedom, scaled to unit variance (heavy tails).
    fn t3(&mut self) -> f64 {
        let z = self.normal();
        let chi2: f64 = (0..3).map(|_| self.normal().powi(2)).sum();
        z / (chi2 / 3.0).sqrt() / 3.0_f64.sqrt()
    }
}

#[test]
fn robust_scale_matches_hand_figures() {
    // median 3, MAD 1 (screen σ 1.4826): all kept; mean 3, SD √(10/4).
    let (m, s) = robust_center_scale(&[1.0, 2.0, 3.0, 4.0, 5.0]).unwrap();
    assert_eq!(m, 3.0);
    assert!((s - 2.5_f64.sqrt()).abs() < 1e-12);
    // an outlier is screened out: the mean and SD of 1..4.
    let (m2, s2) = robust_center_scale(&[1.0, 2.0, 3.0, 4.0, 1e9]).unwrap();
    assert!((m2 - 2.5).abs() < 1e-12);
    assert!((s2 - (5.0_f64 / 3.0).sqrt()).abs() < 1e-12);
    // MAD 0 (most values equal): the screen falls back to 1.2533 × the mean absolute
    // deviation (0.6 here, so 2 is within 3 screened σ and kept).
    let (m3, s3) = robust_center_scale(&[0.0, 0.0, 0.0, 1.0, 2.0]).unwrap();
    assert!((m3 - 0.6).abs() < 1e-12);
    assert!((s3 - 0.8_f64.sqrt()).abs() < 1e-12);
    assert_eq!(robust_center_scale(&[2.0; 5]), None);
    assert_eq!(robust_center_scale(&[0.0, 0.0, 0.0, 0.0, 10.0]), None);
}

#[test]
fn a_step_signals_at_the_step_computed_by_hand() {
    let s = DriftSettings {
        warmup: 5,
        k: 0.5,
        h: 4.0,
        z_clip: 1e6,
        ..DriftSettings::default()
    };
    // warm-up 1..5: center 3, σ √2.5. Then 3 + 3σ each step: z = 3, C⁺ += 2.5 → 2.5, 5.0
    // (> 4 at the second monitored value, index 6).
    let sd = 2.5_f64.sqrt();
    let mut v = vec![1.0, 2.0, 3.0, 4.0, 5.0];
    v.extend([3.0 + 3.0 * sd; 3]);
    let d = axis_cusum(&v, &s);
    assert_eq!(d.status, DriftStatus::Drift);
    assert_eq!(d.direction, Some(DriftDirection::Up));
    assert_eq!(d.first_signal, Some(6));
    assert!((d.statistic - 7.5).abs() < 1e-9, "{}", d.statistic);
    // downward too
    let mut w = vec![1.0, 2.0, 3.0, 4.0, 5.0];
    w.extend([3.0 - 3.0 * sd; 3]);
    let d = axis_cusum(&w, &s);
    assert_eq!(d.direction, Some(DriftDirection::Down));
    // a shift that went away: past drift
    let mut p = v.clone();
    p.extend([3.0; 40]);
    let d = axis_cusum(&p, &s);
    assert_eq!(d.status, DriftStatus::PastDrift);
    assert_eq!(d.first_signal, Some(6));
    // at the center throughout: in control, statistic 0
    let mut q = vec![1.0, 2.0, 3.0, 4.0, 5.0];
    q.extend([3.0; 50]);
    let d = axis_cusum(&q, &s);
    assert_eq!((d.status, d.statistic), (DriftStatus::InControl, 0.0));
}

#[test]
fn short_or_flat_series_are_inconclusive() {
    let s = DriftSettings::default();
    let d = axis_cusum(&[1.0; 30], &s);
    assert_eq!(d.status, DriftStatus::Inconclusive);
    assert!(d.reason.unwrap().contains("needs the 30"));
    let d = axis_cusum(&[1.0; 40], &s);
    assert_eq!(d.status, DriftStatus::Inconclusive);
    assert!(d.reason.unwrap().contains("all equal"));
    assert_eq!(
        case_cusum(&[false; 3], &s).status,
        DriftStatus::Inconclusive
    );
    assert_eq!(axis_cusum(&[], &s).status, DriftStatus::Inconclusive);
}

#[test]
fn extreme_values_stay_finite() {
    let s = DriftSettings {
        warmup: 5,
        z_clip: f64::INFINITY,
        ..DriftSettings::default()
    };
    let mut v = vec![-1e308, -1e-300, 0.0, 1e-300, 1e308];
    v.extend([f64::MAX, f64::MIN, f64::MAX, 0.0]);
    let d = axis_cusum(&v, &s);
    assert!(d.statistic.is_finite());
    let tiny = [0.0, 1e-320, 2e-320, 3e-320, 4e-320, 1e308];
    let d = axis_cusum(&tiny, &s);
    assert!(d.statistic.is_finite());
    assert_eq!(d.status, DriftStatus::Drift);
    let long = vec![f64::MAX; 100_000];
    let mut series = vec![0.0, 1.0, 2.0, 3.0, 4.0];
    series.extend(long);
    let d = axis_cusum(&series, &s);
    assert!(d.statistic.is_finite() && d.statistic > 1e6);
}

#[test]
fn case_cusum_signals_a_case_that_starts_failing() {
    let s = DriftSettings::default();
    let mut bad = vec![false; 40];
    assert_eq!(case_cusum(&bad, &s).status, DriftStatus::InControl);
    // p0 = 0.5/31, odds ratio 3: each bad verdict adds ln(p1/p0) = ln(3/(1+2·p0)) ≈ 1.0890;
    // six in a row make 6.53 > 6 (five make 5.44).
    let p0: f64 = 0.5 / 31.0;
    let w = (3.0 / (1.0 + 2.0 * p0)).ln();
    assert!(5.0 * w < 6.0 && 6.0 * w > 6.0);
    bad.extend([true; 8]);
    let d = case_cusum(&bad, &s);
    assert_eq!(d.status, DriftStatus::Drift);
    assert_eq!(d.first_signal, Some(45));
    assert!((d.center.unwrap() - p0).abs() < 1e-12);
    assert!((d.statistic - 8.0 * w).abs() < 1e-9);
}

#[test]
fn bad_verdicts() {
    for v in ["regressed", "fail", "severe", "moderate", "error"] {
        assert!(is_bad_verdict(v), "{v}");
    }
    for v in ["pass", "none", "minor", "inconclusive", "improved"] {
        assert!(!is_bad_verdict(v), "{v}");
    }
}

/// The share of `runs` simulated histories (warm-up + `monitored` comparisons, in control)
/// that signal at least once, and the mean delay (comparisons after the shift, first one = 1)
/// to a signal when a shift of `shift` σ starts at the first monitored comparison.
fn axis_sim(seed: u64, runs: usize, monitored: usize, shift: f64, heavy: bool) -> (f64, f64) {
    let s = DriftSettings::default();
    let mut rng = Rng(seed);
    let (mut alarms, mut delay_sum, mut detected) = (0usize, 0usize, 0usize);
    for _ in 0..runs {
        let v: Vec<f64> = (0..s.warmup + monitored)
            .map(|i| {
                let e = if heavy { rng.t3() } else { rng.normal() };
                e + if i >= s.warmup { shift } else { 0.0 }
            })
            .collect();
        if let Some(at) = axis_cusum(&v, &s).first_signal {
            alarms += 1;
            delay_sum += at + 1 - s.warmup;
            detected += 1;
        }
    }
    (
        alarms as f64 / runs as f64,
        delay_sum as f64 / detected.max(1) as f64,
    )
}

fn case_sim(seed: u64, runs: usize, monitored: usize, p0: f64, p_after: f64) -> (f64, f64) {
    let s = DriftSettings::default();
    let mut rng = Rng(seed);
    let (mut alarms, mut delay_sum) = (0usize, 0usize);
    for _ in 0..runs {
        let v: Vec<bool> = (0..s.warmup + monitored)
            .map(|i| rng.unit() < if i >= s.warmup { p_after } else { p0 })
            .collect();
        if let Some(at) = case_cusum(&v, &s).first_signal {
            alarms += 1;
            delay_sum += at + 1 - s.warmup;
        }
    }
    (
        alarms as f64 / runs as f64,
        delay_sum as f64 / alarms.max(1) as f64,
    )
}

/// False alarms of the default settings over 100 monitored comparisons after a 30-comparison
/// warm-up, the warm-up's estimation error included (10,000 simulated histories each).
#[test]
fn false_alarm_rates_by_simulation() {
    let normal = axis_sim(1, 10_000, 100, 0.0, false).0;
    let heavy = axis_sim(2, 10_000, 100, 0.0, true).0;
    let case_rates: Vec<f64> = [0.01, 0.05, 0.1, 0.2]
        .iter()
        .enumerate()
        .map(|(i, &p)| case_sim(10 + i as u64, 10_000, 100, p, p).0)
        .collect();
    eprintln!(
        "false alarms in 100: axis normal {normal:.4}, t3 {heavy:.4}; case p0 .01 .05 .1 .2: {case_rates:?}"
    );
    assert!(normal < 0.04, "{normal}");
    assert!(heavy < 0.09, "{heavy}");
    for r in &case_rates {
        assert!(*r < 0.10, "{case_rates:?}");
    }
}

/// Detection of planted shifts: how often, and how fast (mean comparisons after the shift).
#[test]
fn detection_delay_by_simulation() {
    let mut axis = Vec::new();
    for (i, shift) in [1.0, 2.0, 3.0].iter().enumerate() {
        axis.push(axis_sim(20 + i as u64, 2_000, 100, *shift, false));
    }
    let mut case = Vec::new();
    for (i, (p0, p1)) in [(0.05, 0.3), (0.05, 0.5), (0.1, 0.5)].iter().enumerate() {
        case.push(case_sim(30 + i as u64, 2_000, 100, *p0, *p1));
    }
    eprintln!("axis shift 1σ 2σ 3σ (rate, delay): {axis:?}; case (rate, delay): {case:?}");
    assert!(axis[0].0 > 0.85 && axis[0].1 < 32.0, "{axis:?}");
    assert!(axis[1].0 > 0.99 && axis[1].1 < 9.0, "{axis:?}");
    assert!(axis[2].0 > 0.99 && axis[2].1 < 6.0, "{axis:?}");
    assert!(case[0].0 > 0.95, "{case:?}");
    assert!(case[1].0 > 0.99 && case[1].1 < 20.0, "{case:?}");
}
