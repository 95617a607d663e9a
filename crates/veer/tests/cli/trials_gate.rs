//! The trials gate's verdict, end to end: cases missing from one side fail the gate by default
//! and are named in the gate line (`--allow-missing` and `trials.allow_missing` excuse them),
//! and `veer gate` on the saved report re-decides it and says what `veer diff` said.

use crate::common::veer_ok;
use std::path::Path;
use veer_engine::trials::scripted::{agentlog, Script};

/// `cases` cases of `k` trials of the default script as `CASE/run-N.agentlog`.
fn write_side(dir: &Path, seed: u64, cases: &[&str], k: u32) {
    for key in cases {
        std::fs::create_dir_all(dir.join(key)).unwrap();
        for t in 1..=k {
            let text = agentlog(key, t, seed, &Script::default());
            std::fs::write(dir.join(key).join(format!("run-{t}.agentlog")), text).unwrap();
        }
    }
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn missing_cases_fail_the_gate_by_name_unless_allowed_and_veer_gate_agrees() {
    let tmp = tempfile::tempdir().unwrap();
    let (base, cand) = (tmp.path().join("base"), tmp.path().join("cand"));
    write_side(&base, 1, &["cancel", "refund", "status"], 3);
    // The candidate's eval job crashed after the first case.
    write_side(&cand, 2, &["cancel"], 3);
    let diff = |extra: &[&str], code: i32| {
        let mut a = vec!["diff", s(&base), s(&cand), "--fail-on", "severe"];
        a.extend_from_slice(extra);
        veer_ok(&a, code)
    };
    let r = diff(&[], 1);
    assert!(
        r.stderr
            .contains("tripped: cases on one side only: refund, status"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("fail: cases on one side only: refund, status; exiting 1"),
        "{}",
        r.stderr
    );
    assert!(r.stdout.contains("2 missing"), "{}", r.stdout);
    // Excused by the flag: listed, not gating.
    let r = diff(&["--allow-missing"], 0);
    assert!(r.stdout.contains("2 missing"), "{}", r.stdout);
    assert!(!r.stderr.contains("tripped:"), "{}", r.stderr);
    // …and by the settings file.
    let config = tmp.path().join("veer.toml");
    std::fs::write(&config, "[trials]\nallow_missing = true\n").unwrap();
    let mut a = vec!["--config", s(&config), "diff", s(&base), s(&cand)];
    a.extend(["--fail-on", "severe"]);
    veer_ok(&a, 0);
    // `veer gate` on the saved report: the same trips, the same gate line, the same exit.
    let report = tmp.path().join("report.json");
    diff(&["--format", "json", "-o", s(&report)], 1);
    let g = veer_ok(&["gate", s(&report), "--fail-on", "severe"], 1);
    assert!(
        g.stdout
            .contains("tripped: cases on one side only: refund, status"),
        "{}",
        g.stdout
    );
    assert!(
        g.stderr
            .contains("fail: cases on one side only: refund, status; exiting 1"),
        "{}",
        g.stderr
    );
    assert!(!g.stderr.contains("worst signal severity"), "{}", g.stderr);
    veer_ok(&["gate", s(&report), "--fail-on", "never"], 0);
    // A report made with --allow-missing stays excused when re-gated.
    let allowed = tmp.path().join("allowed.json");
    diff(
        &["--allow-missing", "--format", "json", "-o", s(&allowed)],
        0,
    );
    veer_ok(&["gate", s(&allowed), "--fail-on", "severe"], 0);
}
