//! Calibration of the gate with repeated trials: comparisons of two samples
//! of the same stochastic scripted agent must trip the gate at a rate ≤ α plus binomial error,
//! and planted changes must be found. The always-on version is small enough for CI in debug;
//! the heavy one is `#[ignore]` (command and results in docs/trials.md).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use veer_base::Level;
use veer_contract::trials::LayoutBlock;
use veer_engine::trials::compose::{case_raw_of, CaseRaw};
use veer_engine::trials::measure::measure_traces;
use veer_engine::trials::scripted::{agentlog, Script};
use veer_engine::trials::{decide, TrialsOptions};
use veer_trace::{ReadOptions, Trace};

fn trace(case: &str, trial: u32, seed: u64, script: &Script) -> Trace {
    let text = agentlog(case, trial, seed, script);
    veer_trace::agentlog::reader::read_agentlog_bytes(
        "scripted",
        text.as_bytes(),
        &ReadOptions::default(),
    )
    .unwrap()
}

/// One comparison: `cases` cases of `k` trials a side; the candidate runs `changed` on the
/// cases whose index is below `planted`. Returns (gate tripped, regressed case count).
fn compare(seed: u64, cases: usize, k: u32, planted: usize, changed: &Script) -> (bool, usize) {
    let same = Script::default();
    let options = TrialsOptions {
        seed,
        ..TrialsOptions::default()
    };
    let raws: Vec<CaseRaw> = (0..cases)
        .map(|c| {
            let key = format!("case-{c:03}");
            let b: Vec<Trace> = (1..=k).map(|t| trace(&key, t, seed, &same)).collect();
            let script = if c < planted { changed } else { &same };
            let cand: Vec<Trace> = (1..=k)
                .map(|t| trace(&key, t + 1000, seed, script))
                .collect();
            let m = measure_traces(&b, &cand, None, 1 << 20);
            case_raw_of(&key, (k as usize, k as usize), Some(Ok(m)), None, &options)
        })
        .collect();
    let layout = LayoutBlock {
        sources: Vec::new(),
        cases,
        baseline_trials: cases * k as usize,
        candidate_trials: cases * k as usize,
    };
    let (block, gate) = decide(layout, raws, None, &options, Level::Severe, false).unwrap();
    (gate.tripped, block.verdicts.regressed)
}

/// The null trip rate over `runs` comparisons stays within α + 3 binomial standard errors.
fn null_rate(runs: u64, cases: usize, k: u32) {
    let alpha = 0.05;
    let trips = (0..runs)
        .filter(|&s| compare(s, cases, k, 0, &Script::default()).0)
        .count() as f64;
    let rate = trips / runs as f64;
    let bound = alpha + 3.0 * (alpha * (1.0 - alpha) / runs as f64).sqrt();
    eprintln!("null trip rate {rate:.4} over {runs} comparisons ({cases} cases × {k} trials a side), bound {bound:.4}");
    assert!(rate <= bound, "false alarms: {rate} > {bound}");
}

#[test]
fn same_agent_rarely_trips_the_gate() {
    null_rate(500, 3, 4);
}

#[test]
fn a_skipped_tool_is_found_in_the_planted_cases() {
    let skip = Script {
        skip_tool: Some(1),
        ..Script::default()
    };
    let mut found = 0;
    for seed in 0..20 {
        // Six trials a side: 5 vs 5 has 252 relabellings, and E is symmetric in the two
        // sides, so its smallest p (2/252) cannot pass Tarone's bar with several cases.
        let (tripped, regressed) = compare(seed, 4, 6, 2, &skip);
        found += usize::from(tripped && regressed >= 1);
    }
    assert!(found >= 18, "planted skip found in {found}/20");
}

#[test]
fn doubled_latency_is_found() {
    let slow = Script {
        latency_ms: 800.0,
        ..Script::default()
    };
    let found = (0..20).filter(|&s| compare(s, 4, 5, 4, &slow).0).count();
    assert!(found >= 18, "doubled latency found in {found}/20");
}

/// The heavy calibration: `cargo test -p veer-engine --release --test calibration -- --ignored`.
#[test]
#[ignore]
fn heavy_null_calibration() {
    null_rate(2000, 8, 5);
}
