//! Spilled vs in-memory trials reports: a suite whose case results go to a
//! temporary file gives the same trials block — the same JSON bytes, the same gate — as one
//! held in memory, whatever the spill threshold; and the temporary file is removed with the
//! report.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use veer_base::Level;
use veer_contract::trials::{LayoutBlock, TrialsBlock};
use veer_contract::verdict::Verdict;
use veer_engine::trials::compose::{case_raw_of, CaseRaw};
use veer_engine::trials::measure::{measure_traces, TrialFailure};
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

/// 30 cases of 6 trials a side: 6 with a planted change, one on the baseline only, one that
/// failed, one quarantined regression.
fn raws(options: &TrialsOptions) -> Vec<CaseRaw> {
    let (same, changed) = Script::steady_and_changed();
    (0..30)
        .map(|c| {
            let key = format!("case-{c:02}");
            match c {
                7 => return case_raw_of(&key, (6, 0), None, None, options),
                8 => {
                    let failure = TrialFailure {
                        file: format!("{key}/run-2.agentlog"),
                        error: "line 3: field `events`: not an array".into(),
                        hint: Some("re-record it".into()),
                    };
                    return case_raw_of(&key, (6, 6), Some(Err(failure)), None, options);
                }
                _ => {}
            }
            let b: Vec<Trace> = (1..=6).map(|t| trace(&key, t, 11, &same)).collect();
            let script = if c % 5 == 0 { &changed } else { &same };
            let cand: Vec<Trace> = (1..=6).map(|t| trace(&key, t + 100, 11, script)).collect();
            let m = measure_traces(&b, &cand, None, 1 << 20);
            case_raw_of(&key, (6, 6), Some(Ok(m)), None, options)
        })
        .collect()
}

fn run(spill_after: usize) -> (TrialsBlock, Verdict) {
    let options = TrialsOptions {
        seed: 5,
        spill_after,
        quarantine: ["case-10".to_string()].into_iter().collect(),
        warnings: vec!["q.yaml:3: quarantine of `gone` expired on 2026-01-01".into()],
        ..TrialsOptions::default()
    };
    let layout = LayoutBlock {
        sources: Vec::new(),
        cases: 30,
        baseline_trials: 180,
        candidate_trials: 174,
    };
    decide(layout, raws(&options), None, &options, Level::Minor, true).unwrap()
}

#[test]
fn a_spilled_report_is_byte_identical_to_one_held_in_memory() {
    let (memory, memory_gate) = run(usize::MAX);
    assert!(!memory.cases.spilled());
    let want = serde_json::to_string_pretty(&memory).unwrap();
    // The planted changes are found, and the report has every kind of case, so the comparison
    // covers every optional field.
    assert!(memory.verdicts.regressed >= 4, "{want}");
    assert_eq!((memory.verdicts.missing, memory.verdicts.failed), (1, 1));
    assert!(memory.cases.iter().any(|c| c.quarantined));
    for spill_after in [0, 1, 7, 29] {
        let (spilled, gate) = run(spill_after);
        assert!(spilled.cases.spilled(), "spill_after {spill_after}");
        assert_eq!(spilled.cases.len(), 30);
        assert_eq!(serde_json::to_string_pretty(&spilled).unwrap(), want);
        assert_eq!(spilled, memory);
        assert_eq!(gate, memory_gate);
        // Every pass reads the whole file again.
        assert_eq!(spilled.cases.iter().count(), 30);
        assert!(spilled.cases.read_error().is_none());
    }
    // At the threshold itself nothing is spilled.
    assert!(!run(30).0.cases.spilled());
}

#[test]
fn the_temporary_file_goes_with_the_report() {
    let (block, _) = run(0);
    let path = block.cases.spill_path().unwrap().to_path_buf();
    assert!(path.starts_with(std::env::temp_dir()), "{}", path.display());
    assert!(path.exists());
    let clone = block.clone();
    drop(block);
    assert!(path.exists(), "a clone shares the file");
    assert_eq!(clone.cases.iter().count(), 30);
    drop(clone);
    assert!(!path.exists(), "{} left behind", path.display());
    assert!(run(usize::MAX).0.cases.spill_path().is_none());
}
