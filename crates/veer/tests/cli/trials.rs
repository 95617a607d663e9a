//! `veer diff BASE_DIR CAND_DIR` with repeated trials: layouts, verdicts, the gate,
//! the formats, determinism and bad input.

use crate::common::{diff_schema_violations, veer, veer_ok};
use std::path::Path;
use veer_engine::trials::scripted::{agentlog, Script};

/// Writes `cases` cases of `k` trials of `script` under `dir` as `CASE/run-N.agentlog`
/// (`planted` cases, from the first, run `changed` instead).
fn write_side(dir: &Path, seed: u64, cases: usize, k: u32, planted: usize, changed: &Script) {
    for c in 0..cases {
        let key = format!("case-{c:02}");
        let script = if c < planted {
            changed.clone()
        } else {
            Script::default()
        };
        std::fs::create_dir_all(dir.join(&key)).unwrap();
        for t in 1..=k {
            let text = agentlog(&key, t, seed, &script);
            std::fs::write(dir.join(&key).join(format!("run-{t}.agentlog")), text).unwrap();
        }
    }
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

const POLICY: &str = "apiVersion: shadow.dev/v1alpha1\nrules:\n  - id: checks-policy\n    kind: must_call_once\n    severity: error\n    params: {tool: check_policy}\n";

fn skip_check() -> Script {
    Script {
        skip_tool: Some(1),
        ..Script::default()
    }
}

#[test]
fn trials_unchanged_agent_passes_and_a_skipped_tool_names_the_cases() {
    let tmp = tempfile::tempdir().unwrap();
    let (base, same, changed) = (
        tmp.path().join("base"),
        tmp.path().join("same"),
        tmp.path().join("changed"),
    );
    write_side(&base, 1, 4, 6, 0, &Script::default());
    write_side(&same, 2, 4, 6, 0, &Script::default());
    write_side(&changed, 3, 4, 6, 2, &skip_check());
    let policy = tmp.path().join("p.yaml");
    std::fs::write(&policy, POLICY).unwrap();
    let args = |cand: &Path| {
        vec![
            "diff".to_string(),
            s(&base).to_string(),
            s(cand).to_string(),
            "--policy".into(),
            s(&policy).to_string(),
            "--fail-on".into(),
            "severe".into(),
        ]
    };
    let run = |cand: &Path, code: i32| {
        let a = args(cand);
        veer_ok(&a.iter().map(String::as_str).collect::<Vec<_>>(), code)
    };
    // Two samples of the same agent: no false alarm.
    let r = run(&same, 0);
    assert!(
        r.stdout
            .contains("4 cases with repeated trials (24 baseline / 24 candidate trials)"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("0 regressed"), "{}", r.stdout);
    // The candidate skips check_policy in two cases: those two are regressed, by rule.
    let r = run(&changed, 1);
    assert!(
        r.stdout.contains("case-00 — regressed (6 vs 6 trials)"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("case-01 — regressed"), "{}", r.stdout);
    assert!(r.stdout.contains("checks-policy 0/6 → 6/6"), "{}", r.stdout);
    assert!(!r.stdout.contains("case-02 — regressed"), "{}", r.stdout);
    assert!(
        r.stderr
            .contains("tripped: rule checks-policy in case-00, case-01"),
        "{}",
        r.stderr
    );
    // The same in JSON, valid against the schema, and the Markdown PR comment.
    let mut a = args(&changed);
    a.extend(["--format".into(), "json".into()]);
    let r = veer_ok(&a.iter().map(String::as_str).collect::<Vec<_>>(), 1);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let t = &v["trials"];
    for key in [
        "layout",
        "alpha",
        "seed",
        "cases",
        "axes",
        "rules",
        "pass_hat_k",
        "plan",
    ] {
        assert!(t.get(key).is_some(), "trials.{key} missing");
    }
    assert_eq!(t["cases"][0]["verdict"], "regressed");
    assert_eq!(t["cases"][0]["rules"][0]["deterministic_break"], true);
    assert_eq!(t["cases"][3]["verdict"], "unchanged", "{}", t["cases"][3]);
    assert_eq!(t["layout"]["sources"][0], "metadata");
    assert_eq!(diff_schema_violations(&v), Vec::<String>::new());
    let mut a = args(&changed);
    a.extend(["--format".into(), "markdown".into()]);
    let r = veer_ok(&a.iter().map(String::as_str).collect::<Vec<_>>(), 1);
    assert!(r.stdout.starts_with("### veer: FAIL"), "{}", r.stdout);
    let shown = r
        .stdout
        .lines()
        .filter(|l| l.starts_with("| `case-"))
        .count();
    assert_eq!(
        shown,
        t["cases"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["verdict"] != "unchanged")
            .count(),
        "one line per case that is not unchanged:\n{}",
        r.stdout
    );
    let mut a = args(&changed);
    a.extend(["--format".into(), "junit".into()]);
    let r = veer_ok(&a.iter().map(String::as_str).collect::<Vec<_>>(), 1);
    assert_eq!(r.stdout.matches("<testcase ").count(), 4);
    assert_eq!(r.stdout.matches("<failure ").count(), 2);
    let mut a = args(&changed);
    a.extend(["--format".into(), "sarif".into()]);
    let r = veer_ok(&a.iter().map(String::as_str).collect::<Vec<_>>(), 1);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let results = v["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "{v}");
    // Each result is at a candidate trial file and line, under a rule the log describes.
    let rules = v["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap();
    assert!(!rules.is_empty(), "{v}");
    assert!(!r.stdout.contains("example.invalid"), "{v}");
    for res in results {
        let uri = res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .unwrap();
        assert!(uri.ends_with(".agentlog"), "a trial file: {uri}");
        assert!(
            res["locations"][0]["physicalLocation"]["region"]["startLine"].as_u64() >= Some(1),
            "{res}"
        );
        let rule = res["ruleId"].as_str().unwrap();
        assert!(rules.iter().any(|x| x["id"] == rule), "{rule} described");
    }
    let mut a = args(&changed);
    a.extend(["--format".into(), "github".into()]);
    let r = veer_ok(&a.iter().map(String::as_str).collect::<Vec<_>>(), 1);
    let errors: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.starts_with("::error file="))
        .collect();
    assert_eq!(errors.len(), 2, "{}", r.stdout);
    assert!(
        errors.iter().all(|l| l.contains(".agentlog")),
        "{}",
        r.stdout
    );
    let mut a = args(&changed);
    a.extend(["--format".into(), "markdown".into()]);
    let r = veer_ok(&a.iter().map(String::as_str).collect::<Vec<_>>(), 1);
    assert!(
        r.stdout.contains("| measure | effect | 95% interval |")
            && r.stdout.contains("| rule `checks-policy` |"),
        "the suite table: {}",
        r.stdout
    );
    let mut a = args(&changed);
    a.extend(["--format".into(), "html".into()]);
    let r = veer_ok(&a.iter().map(String::as_str).collect::<Vec<_>>(), 1);
    assert!(r.stdout.starts_with("<!DOCTYPE html>"), "{}", r.stdout);
    assert!(
        r.stdout.contains("<section class=\"case\" id=\"case-0\"><h3>case-00 <span class=\"sev sev-severe\">regressed</span>"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("<th>behaviour distance</th>"),
        "{}",
        r.stdout
    );
    // The typical trials of each side, turn by turn, for the cases that changed.
    assert!(
        r.stdout.contains("<table class=\"lanes turns\">"),
        "{}",
        r.stdout
    );
}

/// JSON of a run on `threads` worker threads.
fn json_on(threads: &str, base: &Path, cand: &Path) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_veer"))
        .args(["diff", s(base), s(cand), "--format", "json"])
        .current_dir(root)
        .env("RAYON_NUM_THREADS", threads)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn trials_json_is_the_same_bytes_on_one_and_several_threads() {
    let tmp = tempfile::tempdir().unwrap();
    let (base, cand) = (tmp.path().join("b"), tmp.path().join("c"));
    // 3 vs 7 trials: past the exact permutation limit nowhere, k differs between sides.
    write_side(&base, 5, 5, 3, 0, &Script::default());
    write_side(&cand, 6, 5, 7, 0, &Script::default());
    let one = json_on("1", &base, &cand);
    assert_eq!(one, json_on("3", &base, &cand));
    let v: serde_json::Value = serde_json::from_str(&one).unwrap();
    assert_eq!(v["trials"]["cases"][0]["baseline_trials"], 3);
    assert_eq!(v["trials"]["cases"][0]["candidate_trials"], 7);
}

#[test]
fn trials_missing_failed_and_single_trial_cases() {
    let tmp = tempfile::tempdir().unwrap();
    let (base, cand) = (tmp.path().join("b"), tmp.path().join("c"));
    write_side(&base, 1, 3, 3, 0, &Script::default());
    write_side(&cand, 2, 3, 3, 0, &Script::default());
    // case-00: one side only; case-01: a trial without responses; case-02: k = 1 on both.
    std::fs::remove_dir_all(cand.join("case-00")).unwrap();
    std::fs::write(cand.join("case-01/run-2.agentlog"), "{\"version\":\"0.1\",\"id\":\"m\",\"kind\":\"metadata\",\"ts\":\"2026-01-01T00:00:00.000Z\",\"parent\":null,\"payload\":{}}\n").unwrap();
    for t in [2, 3] {
        std::fs::remove_file(base.join(format!("case-02/run-{t}.agentlog"))).unwrap();
        std::fs::remove_file(cand.join(format!("case-02/run-{t}.agentlog"))).unwrap();
    }
    let r = veer_ok(&["diff", s(&base), s(&cand), "--fail-on", "severe"], 1);
    assert!(
        r.stdout.contains("case-00 — missing (3 vs 0 trials)"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("case-01 — failed"), "{}", r.stdout);
    assert!(r.stdout.contains("no model response"), "{}", r.stdout);
    assert!(
        r.stdout.contains("noise not estimated (one trial a side)"),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr
            .contains("cases that could not be measured: case-01"),
        "{}",
        r.stderr
    );
    // --fail-on inconclusive also trips on the case that cannot be decided.
    let r = veer(&["diff", s(&base), s(&cand), "--fail-on", "inconclusive"]);
    assert!(
        r.stderr.contains("inconclusive cases: case-02"),
        "{}",
        r.stderr
    );
}

#[test]
fn trials_siblings_metadata_and_case_pattern_layouts() {
    let tmp = tempfile::tempdir().unwrap();
    let (base, cand) = (tmp.path().join("b"), tmp.path().join("c"));
    for (dir, seed) in [(&base, 1), (&cand, 2)] {
        std::fs::create_dir_all(dir).unwrap();
        for t in 1..=3 {
            let text = agentlog("refund", t, seed, &Script::default());
            std::fs::write(dir.join(format!("refund.{t}.agentlog")), &text).unwrap();
            // Names that say nothing; the metadata record names case and trial.
            std::fs::write(
                dir.join(format!("x{t}.agentlog")),
                agentlog("cancel", t, seed, &Script::default()),
            )
            .unwrap();
        }
    }
    let r = veer_ok(&["diff", s(&base), s(&cand), "--format", "json"], 0);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let cases: Vec<&str> = v["trials"]["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["case"].as_str().unwrap())
        .collect();
    assert_eq!(cases, ["cancel", "refund"]);
    // A pattern overrides: every file is one case.
    let r = veer_ok(
        &[
            "diff",
            s(&base),
            s(&cand),
            "--format",
            "json",
            "--case-pattern",
            "^(?P<case>[a-z]+)",
        ],
        0,
    );
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["trials"]["layout"]["sources"][0], "pattern");
    assert_eq!(v["trials"]["cases"][0]["case"], "refund");
    assert_eq!(v["trials"]["cases"][1]["case"], "x");
    // A bad pattern is exit 2 with a hint.
    let r = veer_ok(
        &[
            "diff",
            s(&base),
            s(&cand),
            "--case-pattern",
            "(?P<trial>[0-9]+",
        ],
        2,
    );
    assert!(r.stderr.contains("--case-pattern"), "{}", r.stderr);
    let r = veer_ok(
        &[
            "diff",
            s(&base),
            s(&cand),
            "--case-pattern",
            "(?P<trial>[0-9]+)",
        ],
        2,
    );
    assert!(r.stderr.contains("no named group `case`"), "{}", r.stderr);
    assert!(r.stderr.contains("hint:"), "{}", r.stderr);
    // A bad margin is a usage error.
    let r = veer_ok(&["diff", s(&base), s(&cand), "--margin", "speed=3"], 2);
    assert!(r.stderr.contains("unknown axis `speed`"), "{}", r.stderr);
}

#[test]
fn trials_off_and_single_trial_directories_are_the_path_paired_report() {
    let tmp = tempfile::tempdir().unwrap();
    let (base, cand) = (tmp.path().join("b"), tmp.path().join("c"));
    write_side(&base, 1, 2, 2, 0, &Script::default());
    write_side(&cand, 2, 2, 2, 0, &Script::default());
    let off = veer_ok(
        &[
            "diff",
            s(&base),
            s(&cand),
            "--format",
            "json",
            "--trials",
            "off",
        ],
        0,
    );
    let v: serde_json::Value = serde_json::from_str(&off.stdout).unwrap();
    assert_eq!(v["pairs"].as_array().unwrap().len(), 4);
    assert!(v.get("trials").is_none());
    // One trial per case: auto gives the path-paired bytes.
    for dir in [&base, &cand] {
        for c in ["case-00", "case-01"] {
            std::fs::remove_file(dir.join(c).join("run-2.agentlog")).unwrap();
        }
    }
    let auto = veer_ok(&["diff", s(&base), s(&cand), "--format", "json"], 0);
    let off = veer_ok(
        &[
            "diff",
            s(&base),
            s(&cand),
            "--format",
            "json",
            "--trials",
            "off",
        ],
        0,
    );
    assert_eq!(auto.stdout, off.stdout);
    assert!(!auto.stdout.contains("\"trials\""));
}

#[test]
fn trials_plan_says_the_cases_and_trials_needed() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().join("b");
    write_side(&base, 1, 6, 4, 0, &Script::default());
    let r = veer_ok(&["plan", s(&base), "--mde", "20"], 0);
    assert!(
        r.stdout
            .contains("6 cases (6 with two or more trials), 4.0 trials per case"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("cases needed at 4.0 trials a side"),
        "{}",
        r.stdout
    );
    let r = veer_ok(&["plan", s(&base), "--mde", "20", "--format", "json"], 0);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["axis"], "latency");
    assert!(v["plan"]["cases_needed"].as_u64().unwrap() >= 2);
    let r = veer_ok(&["plan", s(&base), "--mde", "0"], 2);
    assert!(r.stderr.contains("--mde"), "{}", r.stderr);
    let r = veer_ok(&["plan", s(&base), "--mde", "5", "--axis", "speed"], 2);
    assert!(r.stderr.contains("unknown axis"), "{}", r.stderr);
}

/// `veer gate` on a saved trials report exits as the `veer diff` that wrote it did, at every
/// `--fail-on` (the gate reads the report into its type and re-decides).
#[test]
fn gate_on_a_saved_trials_report_exits_as_the_diff_did() {
    let tmp = tempfile::tempdir().unwrap();
    let (base, changed) = (tmp.path().join("base"), tmp.path().join("changed"));
    write_side(&base, 1, 4, 6, 0, &Script::default());
    write_side(&changed, 3, 4, 6, 2, &skip_check());
    let policy = tmp.path().join("p.yaml");
    std::fs::write(&policy, POLICY).unwrap();
    let report = tmp.path().join("report.json");
    let p = s(&policy);
    veer_ok(
        &[
            "diff",
            s(&base),
            s(&changed),
            "--policy",
            p,
            "--format",
            "json",
            "-o",
            s(&report),
        ],
        0,
    );
    for level in ["never", "minor", "moderate", "severe"] {
        let diff = veer(&[
            "diff",
            s(&base),
            s(&changed),
            "--policy",
            p,
            "--fail-on",
            level,
        ]);
        let gate = veer(&["gate", s(&report), "--fail-on", level]);
        assert_eq!(
            gate.code, diff.code,
            "{level}: {}\n{}",
            gate.stdout, gate.stderr
        );
    }
    // The planted regression trips a set gate.
    veer_ok(&["gate", s(&report), "--fail-on", "severe"], 1);
}

#[test]
fn trials_reports_go_into_history_saved_or_while_diffing() {
    let tmp = tempfile::tempdir().unwrap();
    let (base, changed) = (tmp.path().join("base"), tmp.path().join("changed"));
    write_side(&base, 1, 3, 4, 0, &Script::default());
    write_side(&changed, 3, 3, 4, 1, &skip_check());
    let policy = tmp.path().join("p.yaml");
    std::fs::write(&policy, POLICY).unwrap();
    let (report, db) = (tmp.path().join("r.json"), tmp.path().join("h.sqlite"));
    let history = format!("--history={}", s(&db));
    veer_ok(
        &[
            "diff",
            s(&base),
            s(&changed),
            "--policy",
            s(&policy),
            "--format",
            "json",
            "-o",
            s(&report),
        ],
        0,
    );
    // Added from the saved report, and recorded by the diff itself (terminal format).
    veer_ok(&["history", "add", s(&report), "--db", s(&db)], 0);
    veer_ok(
        &[
            "diff",
            s(&base),
            s(&changed),
            "--policy",
            s(&policy),
            &history,
        ],
        0,
    );
    let export = veer_ok(&["history", "export", "--db", s(&db)], 0).stdout;
    let rows: Vec<serde_json::Value> = export
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2, "{export}");
    for row in &rows {
        assert_eq!(row["report_kind"], "trials", "{row}");
        assert_eq!(row["pairs"], 3, "{row}");
        let cases = row["cases"].as_array().unwrap();
        assert_eq!(cases.len(), 3, "{row}");
        assert_eq!(cases[0]["case"], "case-00");
        assert_eq!(cases[0]["verdict"], "regressed", "{row}");
        assert_eq!(cases[0]["source"], "trials");
        let rule = &row["rules"][0];
        assert_eq!(rule["rule"], "checks-policy", "{row}");
        assert_eq!(rule["candidate_violations"], 4, "{row}");
        assert_eq!(rule["baseline_violations"], 0, "{row}");
        let axes: Vec<&str> = row["axes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["axis"].as_str().unwrap())
            .collect();
        assert!(axes.contains(&"latency"), "{row}");
    }
    assert_eq!(rows[0]["cases"], rows[1]["cases"]);
    assert_eq!(rows[0]["gate"], rows[1]["gate"]);
}

/// The trials page renders in headless Chromium without console errors, with the gate, the
/// suite table and each case's section (its typical trials side by side when it changed).
#[test]
fn trials_html_renders_in_a_browser() {
    let Some(browser) = crate::html::browser_or_skip("trials_html_renders_in_a_browser") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let (base, changed) = (tmp.path().join("base"), tmp.path().join("changed"));
    write_side(&base, 1, 3, 3, 0, &Script::default());
    write_side(&changed, 3, 3, 3, 1, &skip_check());
    let page = tmp.path().join("trials.html");
    veer_ok(
        &[
            "diff",
            s(&base),
            s(&changed),
            "--format",
            "html",
            "-o",
            s(&page),
        ],
        0,
    );
    let (dom, console) =
        crate::html::open_in_browser(&browser, &page, &tmp.path().join("trials.png"));
    assert_eq!(console, Vec::<String>::new(), "console output");
    assert!(
        dom.contains("data-ready=\"1\""),
        "the script did not finish"
    );
    for needle in [
        "id=\"verdict\"",
        "<h2>Cases</h2>",
        "id=\"case-0\"",
        "id=\"case-2\"",
    ] {
        assert!(dom.contains(needle), "{needle} missing");
    }
}
