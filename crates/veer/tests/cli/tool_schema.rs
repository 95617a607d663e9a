//! `veer diff` reports how the offered tools changed (docs/tool-schema.md): two small traces
//! whose `search` tool lost `query` to `q` (a renamed parameter), turned `limit` from integer to
//! string (a type change), gained an optional `lang` and a reworded description. The block is
//! in every format; `--fail-on-schema` (or `diff.fail_on_schema`) makes it gate.

use crate::common::{diff_schema_violations, fixtures, veer_ok};
use serde_json::Value;

fn pair() -> (String, String) {
    let dir = fixtures().join("tool-schema");
    (
        dir.join("baseline.agentlog").display().to_string(),
        dir.join("candidate.agentlog").display().to_string(),
    )
}

/// The terminal report's tool-schema section (from its heading to the next blank line).
fn section(stdout: &str) -> String {
    let start = stdout.find("tool schema\n").expect("a tool schema section");
    let rest = &stdout[start..];
    let end = rest.find("\n\n").unwrap_or(rest.len());
    rest[..end].to_string()
}

#[test]
fn the_terminal_report_lists_each_classified_change_and_does_not_gate_by_default() {
    let (b, c) = pair();
    let out = veer_ok(&["diff", &b, &c], 0);
    insta::assert_snapshot!("terminal_section", section(&out.stdout));
}

#[test]
fn the_json_report_has_the_block_and_keeps_to_its_schema() {
    let (b, c) = pair();
    let out = veer_ok(&["diff", &b, &c, "--format", "json"], 0);
    let j: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(diff_schema_violations(&j), Vec::<String>::new());
    let t = &j["tool_schema"];
    assert_eq!(t["baseline_tools"], 2);
    assert_eq!(t["candidate_tools"], 2);
    assert_eq!(t["worst"], "breaking");
    assert_eq!(
        t["counts"],
        serde_json::json!({"breaking": 2, "compatible": 1, "cosmetic": 1})
    );
    let kinds: Vec<(&str, &str)> = t["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["parameter"].as_str().unwrap_or("-"),
                c["kind"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("-", "description_changed"),
            ("lang", "parameter_added"),
            ("limit", "type_changed"),
            ("q", "parameter_renamed"),
        ]
    );
    assert!(t.get("fail_on").is_none() && t.get("tripped").is_none());
    assert_eq!(j["gate"]["tripped"], false);
}

#[test]
fn fail_on_schema_trips_the_gate_at_its_class_only() {
    let (b, c) = pair();
    let out = veer_ok(&["diff", &b, &c, "--fail-on-schema", "breaking"], 1);
    assert!(
        out.stderr.contains("fail: the offered tools changed: 2 breaking change(s) (--fail-on-schema breaking); exiting 1"),
        "{}",
        out.stderr
    );
    assert!(
        out.stdout
            .contains("gate tripped by: tool schema (breaking)"),
        "{}",
        out.stdout
    );
    let j: Value = serde_json::from_str(
        &veer_ok(
            &[
                "diff",
                &b,
                &c,
                "--fail-on-schema",
                "breaking",
                "--format",
                "json",
            ],
            1,
        )
        .stdout,
    )
    .unwrap();
    assert_eq!(j["tool_schema"]["fail_on"], "breaking");
    assert_eq!(j["tool_schema"]["tripped"], true);
    assert_eq!(j["gate"]["tripped"], true);
    assert_eq!(diff_schema_violations(&j), Vec::<String>::new());
    // The same traces against themselves: nothing changed, nothing trips.
    veer_ok(&["diff", &b, &b, "--fail-on-schema", "cosmetic"], 0);
    // A set axis gate alone does not gate on the schema (here the renamed argument trips
    // the trajectory axis, not the tool schema).
    let axes = veer_ok(&["diff", &b, &c, "--fail-on", "severe"], 1);
    assert!(
        axes.stdout
            .contains("gate tripped by: axis trajectory (severe)"),
        "{}",
        axes.stdout
    );
    assert!(!axes.stdout.contains("tool schema ("), "{}", axes.stdout);
    // The setting does what the flag does.
    let tmp = tempfile::tempdir().unwrap();
    let toml = tmp.path().join("veer.toml");
    std::fs::write(&toml, "[diff]\nfail_on_schema = \"compatible\"\n").unwrap();
    veer_ok(&["--config", toml.to_str().unwrap(), "diff", &b, &c], 1);
    // A bad value is a usage error naming the choices.
    let bad = crate::common::veer(&["diff", &b, &c, "--fail-on-schema", "severe"]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(bad.stderr.contains("breaking"), "{}", bad.stderr);
}

#[test]
fn every_format_shows_the_block() {
    let (b, c) = pair();
    let run = |format: &str| {
        veer_ok(
            &[
                "diff",
                &b,
                &c,
                "--format",
                format,
                "--fail-on-schema",
                "breaking",
            ],
            1,
        )
        .stdout
    };
    let md = run("markdown");
    assert!(md.contains("### Tool schema"), "{md}");
    assert!(
        md.contains("| \u{274c} breaking | `search.q` | parameter_renamed | query | q |"),
        "{md}"
    );
    let html = run("html");
    assert!(html.contains("<h2>Tool schema</h2>"), "{html}");
    assert!(html.contains("parameter_renamed"), "{html}");
    let junit = run("junit");
    assert!(
        junit.contains("name=\"search.q parameter_renamed\""),
        "{junit}"
    );
    assert!(
        junit.contains("<failure type=\"breaking\" message=\"[breaking] search.q: parameter_renamed (query -&gt; q)\""),
        "{junit}"
    );
    for format in ["sarif", "github", "gitlab"] {
        let out = run(format);
        assert!(
            out.contains("search.q: parameter_renamed (query -> q)")
                || out.contains("search.q: parameter_renamed (query -\\u003e q)"),
            "{format}: {out}"
        );
    }
    let sarif: Value = serde_json::from_str(&run("sarif")).unwrap();
    let levels: Vec<&str> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| {
            r["ruleId"]
                .as_str()
                .is_some_and(|id| id.starts_with("tool-schema/"))
        })
        .map(|r| r["level"].as_str().unwrap())
        .collect();
    // Two breaking changes trip the gate (errors), the compatible one is a note; the
    // cosmetic one is left to the report.
    assert_eq!(levels, ["note", "error", "error"]);
}

#[test]
fn a_directory_diff_shows_each_pair_and_a_summary() {
    let (b, c) = pair();
    let tmp = tempfile::tempdir().unwrap();
    for (side, src) in [("b", &b), ("c", &c)] {
        std::fs::create_dir_all(tmp.path().join(side)).unwrap();
        std::fs::copy(src, tmp.path().join(side).join("shop.agentlog")).unwrap();
        std::fs::copy(&b, tmp.path().join(side).join("same.agentlog")).unwrap();
    }
    let (bd, cd) = (
        tmp.path().join("b").display().to_string(),
        tmp.path().join("c").display().to_string(),
    );
    let j: Value = serde_json::from_str(
        &veer_ok(
            &[
                "diff",
                &bd,
                &cd,
                "--trials",
                "off",
                "--fail-on-schema",
                "breaking",
                "--format",
                "json",
            ],
            1,
        )
        .stdout,
    )
    .unwrap();
    assert_eq!(diff_schema_violations(&j), Vec::<String>::new());
    let s = &j["tool_schema"];
    assert_eq!(s["pairs_with_changes"], 1);
    assert_eq!(s["tripped_pairs"], serde_json::json!(["shop.agentlog"]));
    assert_eq!(s["counts"]["breaking"], 2);
    let pairs = j["pairs"].as_array().unwrap();
    assert!(
        pairs[0]["report"].get("tool_schema").is_none(),
        "same.agentlog"
    );
    assert_eq!(pairs[1]["report"]["tool_schema"]["worst"], "breaking");
    let out = veer_ok(&["diff", &bd, &cd, "--trials", "off"], 0);
    assert!(
        out.stdout.contains(
            "offered tools changed in 1 trace pair(s): 2 breaking, 1 compatible, 1 cosmetic"
        ),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("shop.agentlog: [breaking] search.q: parameter_renamed (query -> q)"),
        "{}",
        out.stdout
    );
}

#[test]
fn veer_gate_re_applies_the_saved_threshold() {
    let (b, c) = pair();
    let tmp = tempfile::tempdir().unwrap();
    let saved = |name: &str, extra: &[&str], code: i32| {
        let path = tmp.path().join(name);
        let mut args = vec!["diff", b.as_str(), c.as_str(), "--format", "json"];
        args.extend_from_slice(extra);
        std::fs::write(&path, veer_ok(&args, code).stdout).unwrap();
        path.display().to_string()
    };
    let gated = saved("gated.json", &["--fail-on-schema", "breaking"], 1);
    let out = veer_ok(&["gate", &gated, "--fail-on", "never"], 1);
    assert!(
        out.stderr.contains("fail: the offered tools changed"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("gate disabled"), "{}", out.stderr);
    let plain = saved("plain.json", &[], 0);
    veer_ok(&["gate", &plain, "--fail-on", "never"], 0);
}

/// Repeated trials: each case's block compares the tools its baseline trials offered with its
/// candidate trials', and `--fail-on-schema` gates on it whatever `--fail-on` says.
#[test]
fn a_trials_diff_reports_each_cases_offered_tools_and_gates_on_them() {
    let (b, c) = pair();
    let dir = tempfile::tempdir().unwrap();
    for (side, src) in [("main", &b), ("pr", &c)] {
        for case in ["search-a", "search-b"] {
            let d = dir.path().join(side).join(case);
            std::fs::create_dir_all(&d).unwrap();
            // search-b offers the baseline's tools on both sides.
            let from = if case == "search-b" { &b } else { src };
            for k in 1..=2 {
                std::fs::copy(from, d.join(format!("trial-{k}.agentlog"))).unwrap();
            }
        }
    }
    let (main, pr) = (
        dir.path().join("main").display().to_string(),
        dir.path().join("pr").display().to_string(),
    );
    let out = veer_ok(
        &["diff", &main, &pr, "--fail-on", "never", "--format", "json"],
        0,
    );
    let j: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(diff_schema_violations(&j), Vec::<String>::new());
    let cases = j["trials"]["cases"].as_array().unwrap();
    let a = cases.iter().find(|c| c["case"] == "search-a").unwrap();
    let b_case = cases.iter().find(|c| c["case"] == "search-b").unwrap();
    assert_eq!(a["tool_schema"]["worst"], "breaking", "{a}");
    assert!(b_case.get("tool_schema").is_none(), "{b_case}");

    let out = veer_ok(
        &[
            "diff",
            &main,
            &pr,
            "--fail-on",
            "never",
            "--fail-on-schema",
            "breaking",
        ],
        1,
    );
    assert!(out.stdout.contains("tool schema:"), "{}", out.stdout);
    assert!(
        out.stdout
            .contains("offered tools changed (breaking) in search-a"),
        "{}",
        out.stdout
    );
    let md = veer_ok(
        &[
            "diff",
            &main,
            &pr,
            "--fail-on",
            "never",
            "--format",
            "markdown",
        ],
        0,
    );
    assert!(md.stdout.contains("offered tools:"), "{}", md.stdout);
    // A saved report keeps each case's threshold: `veer gate` re-decides the same.
    let saved = dir.path().join("trials.json");
    let saved = saved.to_str().unwrap();
    let args = [
        "diff",
        &main,
        &pr,
        "--fail-on",
        "never",
        "--fail-on-schema",
        "breaking",
        "--format",
        "json",
        "-o",
        saved,
    ];
    veer_ok(&args, 1);
    veer_ok(&["gate", saved, "--fail-on", "never"], 1);
}
