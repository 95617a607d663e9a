//! A trials diff whose file listing went to sorted runs on disk gives the
//! same report — the same JSON bytes and the same gate — as one whose listing was held in
//! memory, at every run size; cases whose files are scattered over directories (keyed by their
//! metadata) are put back together.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use veer_base::Level;
use veer_engine::trials::layout::{self, Layout};
use veer_engine::trials::measure::MeasureOptions;
use veer_engine::trials::outcome::OutcomeRule;
use veer_engine::trials::scripted::{agentlog, Script};
use veer_engine::trials::{analyse, TrialsOptions};
use veer_trace::ReadOptions;

/// 12 cases × 3 trials a side under `dir/baseline` and `dir/candidate`: every fourth case
/// changed on the candidate side; case 5 on the baseline side only. Cases 0–5 are laid out
/// `CASE/run-N`, the others scattered as `batch-T/CASE.agentlog` with the case in the
/// metadata record.
fn write_suite(dir: &Path) {
    let (same, changed) = Script::steady_and_changed();
    for (side, offset) in [("baseline", 0), ("candidate", 100)] {
        for c in 0..12u32 {
            if c == 5 && side == "candidate" {
                continue;
            }
            let key = format!("case-{c:02}");
            let script = if side == "candidate" && c % 4 == 0 {
                &changed
            } else {
                &same
            };
            for t in 1..=3u32 {
                let text = agentlog(&key, t + offset, 7, script);
                let file = if c < 6 {
                    dir.join(side).join(&key).join(format!("run-{t}.agentlog"))
                } else {
                    dir.join(side)
                        .join(format!("batch-{t}"))
                        .join(format!("{key}.agentlog"))
                };
                std::fs::create_dir_all(file.parent().unwrap()).unwrap();
                std::fs::write(&file, text).unwrap();
            }
        }
    }
}

fn layout_of(dir: &Path, run_files: usize) -> Layout {
    layout::list_cases(
        &dir.join("baseline"),
        Some(&dir.join("candidate")),
        None,
        layout::peek_identity,
        run_files,
        &mut |_| {},
    )
    .unwrap()
}

fn report(layout: Layout) -> (String, bool) {
    let read = ReadOptions::default();
    let outcome = OutcomeRule::default();
    let measure = MeasureOptions {
        read: &read,
        policy: None,
        coverage: None,
        max_align_cells: 1 << 20,
        outcome: &outcome,
        lanes: false,
    };
    let options = TrialsOptions {
        seed: 3,
        ..TrialsOptions::default()
    };
    let r = analyse(
        "b",
        "c",
        layout,
        measure,
        &options,
        Level::Minor,
        false,
        &|| {},
    )
    .unwrap();
    (serde_json::to_string_pretty(&r).unwrap(), r.gate.tripped)
}

#[test]
fn a_listing_in_sorted_runs_gives_the_report_of_one_held_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    write_suite(dir.path());
    let held = layout_of(dir.path(), usize::MAX);
    assert!(!held.spilled());
    assert_eq!(held.len(), 12, "scattered cases are put back together");
    assert_eq!(held.trial_counts(), (36, 33));
    assert!(held.has_trials());
    let (want, tripped) = report(held);
    assert!(tripped, "the planted changes trip the gate: {want}");
    assert!(want.contains("\"missing\""), "{want}");
    for run_files in [1, 4, 13, 35] {
        let spilled = layout_of(dir.path(), run_files);
        assert!(spilled.spilled(), "run size {run_files}");
        assert_eq!(spilled.len(), 12);
        let (got, got_tripped) = report(spilled);
        assert_eq!(got, want, "run size {run_files}");
        assert_eq!(got_tripped, tripped);
    }
}
