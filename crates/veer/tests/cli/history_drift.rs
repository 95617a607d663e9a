//! `veer history drift` and `veer history flaky`: a planted shift on main is signalled with
//! exit code 1 and an in-control history is not; a case flipping on re-runs of one commit is
//! listed, proposed, and appended to the quarantine file without touching what is there.

use super::baseline::{ok_in, veer_in};
use std::fs;
use std::path::Path;

/// A minimal directory report: one axis delta, case verdicts, the gate.
pub(crate) fn report(cost: f64, cases: &[(&str, &str)]) -> String {
    let cases: Vec<String> = cases
        .iter()
        .map(|(c, v)| format!(r#"{{"case":"{c}","verdict":"{v}"}}"#))
        .collect();
    format!(
        r#"{{"schema_version":"1","pairs":[],"aggregate":{{"trace_pairs":1,"axes":[{{"axis":"cost","worst_severity":"none","median_delta":{cost}}}]}},"trials":{{"cases":[{}]}},"gate":{{"fail_on":"moderate","worst":"none","tripped":false,"errors":0}}}}"#,
        cases.join(",")
    )
}

/// Adds one comparison (commit, branch, day index) to the workspace's history.
pub(crate) fn add(d: &Path, i: usize, json: &str, commit: &str, branch: &str) {
    let file = format!("r{i}.json");
    fs::write(d.join(&file), json).unwrap();
    let time = format!("2026-{:02}-{:02}T00:00:00Z", 1 + i / 28, 1 + i % 28);
    ok_in(
        d,
        &[
            "history", "add", &file, "--commit", commit, "--branch", branch, "--time", &time,
        ],
        0,
    );
}

/// A deterministic in-control wiggle around 0 (period 7, SD ≈ 0.02).
fn wiggle(i: usize) -> f64 {
    [0.0, 0.02, -0.03, 0.01, -0.01, 0.03, -0.02][i % 7]
}

#[test]
fn a_planted_shift_on_main_is_drift_and_exit_1() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    for i in 0..40 {
        let shifted = i >= 32;
        let cost = wiggle(i) + if shifted { 0.5 } else { 0.0 };
        let verdict = if i >= 32 { "regressed" } else { "pass" };
        add(
            d,
            i,
            &report(cost, &[("refund", verdict), ("steady", "pass")]),
            &format!("c{i}"),
            "main",
        );
    }
    // other branches are not main's history
    add(d, 99, &report(9.0, &[("refund", "pass")]), "x", "feature");
    let r = ok_in(d, &["history", "drift", "--format", "json"], 1);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["comparisons"], 40);
    assert_eq!(v["drifting"], true);
    let cost = &v["axes"][0];
    assert_eq!(cost["name"], "cost");
    assert_eq!(cost["status"], "drift");
    assert_eq!(cost["direction"], "up");
    // the first shifted comparison has z = 0.5/σ ≫ clip 3: +2.25 per step, so the 4th crosses 8
    assert_eq!(cost["first_signal"], 35, "{cost}");
    assert_eq!(cost["signal_at"]["commit"], "c35");
    let cases = v["cases"].as_array().unwrap();
    assert_eq!(cases[0]["name"], "refund");
    assert_eq!(cases[0]["status"], "drift");
    assert_eq!(cases[1]["name"], "steady");
    assert_eq!(cases[1]["status"], "in_control");
    // same bytes twice
    let again = ok_in(d, &["history", "drift", "--format", "json"], 1);
    assert_eq!(r.stdout, again.stdout);
    let text = ok_in(d, &["history", "drift"], 1);
    insta::assert_snapshot!("history_drift_text", text.stdout);
    let md = ok_in(
        d,
        &["history", "drift", "--format", "markdown", "--axis", "cost"],
        1,
    );
    insta::assert_snapshot!("history_drift_markdown_axis", md.stdout);
    // the trend page shows the drift of main's series
    ok_in(
        d,
        &["history", "report", "--branch", "main", "-o", "trend.html"],
        0,
    );
    let html = fs::read_to_string(d.join("trend.html")).unwrap();
    assert!(html.contains("<td>drift ↑ from #36</td>"), "{html}");
    assert!(html.contains("<td>drift ↑ from #38</td>"), "{html}");
    assert!(html.contains("<td>in control</td>"), "{html}");
    // only the case
    let r = ok_in(
        d,
        &["history", "drift", "--case", "steady", "--format", "json"],
        0,
    );
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["axes"].as_array().unwrap().len(), 0);
    assert_eq!(v["cases"].as_array().unwrap().len(), 1);
    // the feature branch has too few comparisons: inconclusive, exit 0
    let r = ok_in(
        d,
        &[
            "history", "drift", "--branch", "feature", "--format", "json",
        ],
        0,
    );
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["axes"][0]["status"], "inconclusive");
}

#[test]
fn an_in_control_history_is_exit_0_and_bad_flags_are_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    for i in 0..36 {
        add(
            d,
            i,
            &report(wiggle(i), &[("refund", "pass")]),
            &format!("c{i}"),
            "main",
        );
    }
    let r = ok_in(d, &["history", "drift", "--format", "json"], 0);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["drifting"], false);
    assert_eq!(v["axes"][0]["status"], "in_control");
    let r = ok_in(d, &["history", "drift", "--warmup", "4"], 2);
    assert!(r.stderr.contains("--warmup"), "{}", r.stderr);
    let r = veer_in(d, &["history", "drift", "--db", "missing.sqlite"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("hint:"), "{}", r.stderr);
}

#[test]
fn flaky_cases_are_listed_proposed_and_appended() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    // `flaky` flips on the re-run of c1; `changed` differs only between commits
    add(
        d,
        0,
        &report(0.0, &[("flaky", "pass"), ("changed", "pass")]),
        "c1",
        "main",
    );
    add(
        d,
        1,
        &report(0.0, &[("flaky", "regressed"), ("changed", "pass")]),
        "c1",
        "main",
    );
    add(
        d,
        2,
        &report(0.0, &[("flaky", "pass"), ("changed", "regressed")]),
        "c2",
        "main",
    );
    add(d, 3, &report(0.0, &[("held", "pass")]), "c3", "main");
    add(d, 4, &report(0.0, &[("held", "failed")]), "c3", "main");
    let mine = "# team notes stay\nquarantine:\n  - case: held\n    reason: known\n    expires: 2999-12-31\n";
    fs::create_dir_all(d.join(".veer")).unwrap();
    fs::write(d.join(".veer/quarantine.yaml"), mine).unwrap();
    let r = ok_in(d, &["history", "flaky", "--format", "json", "--propose"], 0);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let names: Vec<&str> = v["flaky"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["case"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["flaky", "held"]);
    assert_eq!(v["flaky"][1]["quarantined"], true);
    assert_eq!(v["proposed"].as_array().unwrap().len(), 1);
    assert_eq!(v["proposed"][0]["case"], "flaky");
    assert!(v["proposed"][0]["reason"].as_str().unwrap().starts_with(
        "verdict flipped on 1 of 1 re-run commit (1 bad, 1 good verdicts); last on c1"
    ));
    // --propose alone writes nothing
    assert_eq!(
        fs::read_to_string(d.join(".veer/quarantine.yaml")).unwrap(),
        mine
    );
    let r = ok_in(d, &["history", "flaky", "--write"], 0);
    assert!(
        r.stderr.contains("added 1 quarantine entry"),
        "{}",
        r.stderr
    );
    let after = fs::read_to_string(d.join(".veer/quarantine.yaml")).unwrap();
    assert!(after.starts_with(mine), "{after}");
    assert!(after.contains("  - case: \"flaky\"\n"), "{after}");
    // again: nothing new, file unchanged
    let r = ok_in(d, &["history", "flaky", "--write"], 0);
    assert!(r.stderr.contains("nothing to add"), "{}", r.stderr);
    assert_eq!(
        fs::read_to_string(d.join(".veer/quarantine.yaml")).unwrap(),
        after
    );
    // a malformed quarantine file: exit 2 naming line and field, left alone
    let broken = "quarantine:\n  - case: x\n    reason: r\n    expires: tomorrow\n";
    fs::write(d.join(".veer/quarantine.yaml"), broken).unwrap();
    let r = ok_in(d, &["history", "flaky", "--write"], 2);
    assert!(
        r.stderr
            .contains(".veer/quarantine.yaml:4: (quarantine[0].expires)"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("hint:"), "{}", r.stderr);
    assert_eq!(
        fs::read_to_string(d.join(".veer/quarantine.yaml")).unwrap(),
        broken
    );
}

/// The cells of `row`'s line of a `history show` table (the line starting with `row `).
fn show_line<'a>(text: &'a str, row: &str) -> &'a str {
    text.lines()
        .find(|l| l.starts_with(&format!("{row} ")))
        .unwrap_or_else(|| panic!("no row {row} in\n{text}"))
}

#[test]
fn history_show_has_a_drift_column() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    // the shift of the drift test above: cost signals at c35, the case `refund` at c37
    for i in 0..40 {
        let shifted = i >= 32;
        let cost = wiggle(i) + if shifted { 0.5 } else { 0.0 };
        let verdict = if shifted { "regressed" } else { "pass" };
        add(
            d,
            i,
            &report(cost, &[("refund", verdict), ("steady", "pass")]),
            &format!("c{i}"),
            "main",
        );
    }
    let text = ok_in(d, &["history", "show"], 0).stdout;
    assert!(text.contains("  drift  "), "{text}");
    let cost = show_line(&text, "cost");
    assert!(cost.contains("↑ since 2026-02-08 c35"), "{cost}");
    let refund = show_line(&text, "refund");
    assert!(refund.contains("↑ since 2026-02-10 c37"), "{refund}");
    let steady = show_line(&text, "steady");
    assert!(steady.contains("  -  "), "{steady}");
    assert!(!text.contains("? = inconclusive"), "{text}");
    let json = ok_in(d, &["history", "show", "--format", "json"], 0).stdout;
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["axes"][0]["axis"], "cost");
    assert_eq!(v["axes"][0]["drift"]["status"], "drift");
    assert_eq!(v["axes"][0]["drift"]["direction"], "up");
    assert_eq!(v["axes"][0]["drift"]["since"]["commit"], "c35");
    assert_eq!(v["cases"][1]["case"], "steady");
    assert_eq!(
        v["cases"][1]["drift"],
        serde_json::json!({"status": "in_control"})
    );
    // per case: the case's own row
    let one = ok_in(d, &["history", "show", "--case", "refund"], 0).stdout;
    assert!(
        show_line(&one, "refund").contains("↑ since 2026-02-10 c37"),
        "{one}"
    );
    // over the last comparisons only, the detector has too few to judge
    let before = ok_in(
        d,
        &[
            "history",
            "show",
            "--format",
            "json",
            "--since",
            "2026-02-09",
        ],
        0,
    )
    .stdout;
    let v: serde_json::Value = serde_json::from_str(&before).unwrap();
    // 8 comparisons shown: too few for the 30-comparison warm-up
    assert_eq!(v["axes"][0]["drift"]["status"], "inconclusive");
    let text = ok_in(d, &["history", "show", "--since", "2026-02-09"], 0).stdout;
    assert!(show_line(&text, "cost").contains("  ?  "), "{text}");
    assert!(
        text.contains("? = inconclusive (fewer than 30 comparisons"),
        "{text}"
    );
}

#[test]
fn history_show_without_drift_shows_a_dash() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    for i in 0..36 {
        add(
            d,
            i,
            &report(wiggle(i), &[("refund", "pass")]),
            &format!("c{i}"),
            "main",
        );
    }
    let text = ok_in(d, &["history", "show"], 0).stdout;
    for row in ["cost", "refund"] {
        let line = show_line(&text, row);
        assert!(line.contains("  -  "), "{line}");
        assert!(!line.contains('↑') && !line.contains('↓'), "{line}");
    }
    let json = ok_in(d, &["history", "show", "--format", "json"], 0).stdout;
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        v["axes"][0]["drift"],
        serde_json::json!({"status": "in_control"})
    );
    assert_eq!(
        v["cases"][0]["drift"],
        serde_json::json!({"status": "in_control"})
    );
}
