//! `veer diff --quarantine` with repeated trials (quarantined cases in the repeated-trials reports): a
//! quarantined case is still measured and shown, marked `quarantined` in every format, and
//! never trips the gate; an expired entry is a warning (stderr and the report) and gates again.

use crate::common::{diff_schema_violations, veer_ok};
use std::path::Path;
use veer_engine::trials::scripted::{agentlog, Script};

/// `cases` cases of 6 trials under `dir` as `CASE/run-N.agentlog`; the first `planted` skip
/// the `check_policy` call (a deterministic break of the policy's error rule).
fn write_side(dir: &Path, seed: u64, cases: usize, planted: usize) {
    for c in 0..cases {
        let key = format!("case-{c:02}");
        let script = Script {
            skip_tool: (c < planted).then_some(1),
            ..Script::default()
        };
        std::fs::create_dir_all(dir.join(&key)).unwrap();
        for t in 1..=6 {
            let text = agentlog(&key, t, seed, &script);
            std::fs::write(dir.join(&key).join(format!("run-{t}.agentlog")), text).unwrap();
        }
    }
}

const POLICY: &str = "apiVersion: shadow.dev/v1alpha1\nrules:\n  - id: checks-policy\n    kind: must_call_once\n    severity: error\n    params: {tool: check_policy}\n";

struct Setup {
    _tmp: tempfile::TempDir,
    base: String,
    cand: String,
    policy: String,
    quarantine: String,
}

/// Four cases, the first two regressed; the quarantine file lists `cases` expiring `expires`.
fn setup(cases: &[&str], expires: &str) -> Setup {
    let tmp = tempfile::tempdir().unwrap();
    let p = |n: &str| tmp.path().join(n).to_str().unwrap().to_string();
    write_side(&tmp.path().join("base"), 1, 4, 0);
    write_side(&tmp.path().join("cand"), 3, 4, 2);
    std::fs::write(tmp.path().join("p.yaml"), POLICY).unwrap();
    let mut q = String::from("quarantine:\n");
    for c in cases {
        q.push_str(&format!(
            "  - case: {c}\n    reason: flips on re-runs of main\n    expires: {expires}\n"
        ));
    }
    std::fs::write(tmp.path().join("q.yaml"), q).unwrap();
    Setup {
        base: p("base"),
        cand: p("cand"),
        policy: p("p.yaml"),
        quarantine: p("q.yaml"),
        _tmp: tmp,
    }
}

impl Setup {
    fn run(&self, extra: &[&str], code: i32) -> crate::common::Run {
        let mut args = vec![
            "diff",
            &self.base,
            &self.cand,
            "--policy",
            &self.policy,
            "--fail-on",
            "severe",
            "--quarantine",
            &self.quarantine,
        ];
        args.extend_from_slice(extra);
        veer_ok(&args, code)
    }
}

fn json(r: &crate::common::Run) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let bad = diff_schema_violations(&v);
    assert!(bad.is_empty(), "{bad:?}");
    v
}

#[test]
fn trials_quarantined_regressions_are_shown_marked_and_do_not_gate() {
    let s = setup(&["case-00", "case-01"], "2999-12-31");
    // Terminal: exit 0, both cases still regressed and marked; stderr names them.
    let r = s.run(&[], 0);
    for c in ["case-00", "case-01"] {
        assert!(
            r.stdout
                .contains(&format!("{c} — regressed, quarantined (6 vs 6 trials)")),
            "{}",
            r.stdout
        );
    }
    assert!(
        r.stdout.contains("case-03 — unchanged (6 vs 6"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("suite (all cases but the quarantined):"),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr
            .contains("quarantined (measured, not gating): case-00 regressed, case-01 regressed"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("tripped:"), "{}", r.stderr);
    // JSON: the mark on the quarantined entries only, the verdicts kept, the gate open.
    let v = json(&s.run(&["--format", "json"], 0));
    let cases = v["trials"]["cases"].as_array().unwrap();
    assert_eq!(cases[0]["quarantined"], true);
    assert_eq!(cases[0]["verdict"], "regressed");
    assert_eq!(cases[1]["quarantined"], true);
    assert!(cases[2].get("quarantined").is_none(), "{}", cases[2]);
    assert_eq!(v["trials"]["verdicts"]["regressed"], 2);
    assert_eq!(v["gate"]["tripped"], false);
    assert!(v["trials"].get("warnings").is_none());
    // The suite-level rule test leaves quarantined cases out: no other case violated it.
    assert_eq!(v["trials"]["rules"], serde_json::json!([]));
    // JUnit: no failure; SARIF: notes; GitHub: notices; Markdown: marked rows.
    let junit = s.run(&["--format", "junit"], 0).stdout;
    assert!(junit.contains("failures=\"0\""), "{junit}");
    assert!(!junit.contains("<failure"), "{junit}");
    let sarif: serde_json::Value =
        serde_json::from_str(&s.run(&["--format", "sarif"], 0).stdout).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    assert!(results.iter().all(|r| r["level"] == "note"), "{sarif}");
    let github = s.run(&["--format", "github"], 0).stdout;
    assert!(github.starts_with("::notice "), "{github}");
    assert!(!github.contains("::error"), "{github}");
    let md = s.run(&["--format", "markdown"], 0).stdout;
    assert!(
        md.contains("| `case-00` | regressed (quarantined) |"),
        "{md}"
    );
}

#[test]
fn trials_quarantine_of_one_case_leaves_the_other_gating() {
    let s = setup(&["case-00"], "2999-12-31");
    let r = s.run(&["--format", "json"], 1);
    let v = json(&r);
    let tripped = &v["trials"]["tripped"];
    assert_eq!(tripped[0]["measure"], "checks-policy", "{tripped}");
    assert_eq!(
        tripped[0]["cases"],
        serde_json::json!(["case-01"]),
        "{tripped}"
    );
    assert!(
        r.stderr.contains("tripped: rule checks-policy in case-01"),
        "{}",
        r.stderr
    );
}

#[test]
fn trials_expired_quarantine_warns_and_gates_again() {
    let s = setup(&["case-00", "case-01"], "2001-01-01");
    let warning = format!(
        "{}:2: quarantine of `case-00` expired on 2001-01-01; it gates again",
        s.quarantine
    );
    let r = s.run(&[], 1);
    assert!(
        r.stderr.contains(&format!("warning: {warning}")),
        "{}",
        r.stderr
    );
    assert!(
        r.stdout.contains(&format!("  warning: {warning}")),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("case-00 — regressed (6 vs 6"),
        "{}",
        r.stdout
    );
    let v = json(&s.run(&["--format", "json"], 1));
    let warnings = v["trials"]["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 2);
    assert!(
        warnings[0].as_str().unwrap().starts_with(&warning),
        "{warnings:?}"
    );
    assert!(v["trials"]["cases"][0].get("quarantined").is_none());
    assert_eq!(v["gate"]["tripped"], true);
}
