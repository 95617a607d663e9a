//! `veer diff --policy --fail-on`: the policy comparison inside the diff report, the merge gate
//! and its exit codes (spec `policy.md` §9, §12), checked against the Shadow
//! refund-causal-diagnosis vectors; and the `structural` block of every diff (`cli.md`).

use crate::common::{fixtures, veer, veer_ok};
use crate::diff::schema_errors;
use serde_json::Value;

const DIR: &str = "tests/fixtures/shadow/refund-causal-diagnosis";
const FAIL_SEVERE: &str =
    "fail: worst signal severity 3 >= --fail-on threshold severe (3); exiting 1 to gate the merge.";

fn sides(s: &str) -> (String, String) {
    (
        format!("{DIR}/baseline_traces/{s}.agentlog"),
        format!("{DIR}/candidate_traces/{s}.agentlog"),
    )
}

fn policy() -> String {
    format!("{DIR}/policy.yaml")
}

fn json(args: &[&str], code: i32) -> Value {
    let r = veer_ok(args, code);
    serde_json::from_str(&r.stdout).unwrap()
}

/// Shadow's violation records with veer's `session: null` and `tags: []` added.
/// Shadow's `must_call_before` detail (`` `A` must be called before `B` (was: first_idx=F,
/// then_idx=T) ``, 0-based, −1 for none) in veer's words, which name the calls from 1.
fn veer_detail(shadow: &str) -> String {
    let Some((head, was)) = shadow.split_once(" (was: first_idx=") else {
        return shadow.to_string();
    };
    let (first, then) = head
        .trim_start_matches('`')
        .split_once("` must be called before `")
        .unwrap();
    let then = then.trim_end_matches('`');
    let (fi, ti) = was.trim_end_matches(')').split_once(", then_idx=").unwrap();
    let ti: i64 = ti.parse().unwrap();
    match fi.parse::<i64>().unwrap() {
        -1 => format!(
            "`{then}` was called (call {}) with no `{first}` call before it",
            ti + 1
        ),
        fi => format!(
            "`{then}` was called (call {}) before `{first}` (call {})",
            ti + 1,
            fi + 1
        ),
    }
}

/// Shadow's violations with veer's fields (session, tags) and wording.
fn shadow_violations(v: &Value) -> Value {
    let mut v = v.clone();
    for item in v.as_array_mut().unwrap() {
        let o = item.as_object_mut().unwrap();
        let pair = o.remove("pair_index").unwrap();
        let detail = Value::from(veer_detail(o.remove("detail").unwrap().as_str().unwrap()));
        o.insert("session".into(), Value::Null);
        o.insert("pair_index".into(), pair);
        o.insert("detail".into(), detail);
        o.insert("tags".into(), Value::Array(vec![]));
    }
    v
}

#[test]
fn policy_block_matches_shadow_and_exit_codes_follow_the_level() {
    for s in ["s1", "s2", "s3"] {
        let (b, c) = sides(s);
        let p = policy();
        for (level, code) in [("never", 0), ("minor", 1), ("moderate", 1), ("severe", 1)] {
            let r = veer_ok(
                &[
                    "diff",
                    &b,
                    &c,
                    "--policy",
                    &p,
                    "--fail-on",
                    level,
                    "--format",
                    "json",
                    // The reference pairs by index.
                    "--pair-by",
                    "index",
                ],
                code,
            );
            let v: Value = serde_json::from_str(&r.stdout).unwrap();
            let expected: Value = serde_json::from_str(
                &std::fs::read_to_string(fixtures().join(format!(
                    "shadow/refund-causal-diagnosis/expected/policy_{s}_{level}.json"
                )))
                .unwrap(),
            )
            .unwrap();
            let shadow = &expected["policy_diff"];
            for key in [
                "baseline_violations",
                "candidate_violations",
                "regressions",
                "fixes",
            ] {
                assert_eq!(
                    v["policy"][key],
                    shadow_violations(&shadow[key]),
                    "{s} {level} {key}"
                );
            }
            assert_eq!(
                v["policy"]["regressions"][0]["rule_id"],
                "confirm-before-refund"
            );
            assert_eq!(v["gate"]["fail_on"], level);
            assert_eq!(v["gate"]["worst"], "severe");
            assert_eq!(v["gate"]["tripped"], code == 1);
            assert_eq!(schema_errors(&v), Vec::<String>::new(), "{s} {level}");
            if level == "severe" {
                assert_eq!(
                    r.stderr.trim_end().lines().last(),
                    Some(FAIL_SEVERE),
                    "{}",
                    r.stderr
                );
            }
            if level == "never" {
                assert!(!r.stderr.contains("fail:"), "{}", r.stderr);
            }
        }
    }
}

#[test]
fn swapping_sides_swaps_regressions_and_fixes() {
    let (b, c) = sides("s1");
    let p = policy();
    let forward = json(&["diff", &b, &c, "--policy", &p, "--format", "json"], 0);
    let back = json(&["diff", &c, &b, "--policy", &p, "--format", "json"], 0);
    assert_eq!(forward["policy"]["regressions"], back["policy"]["fixes"]);
    assert_eq!(forward["policy"]["fixes"], back["policy"]["regressions"]);
    assert_eq!(back["policy"]["regressions"], Value::Array(vec![]));
    // The severe axes still trip a severe gate without any regression.
    let r = veer_ok(&["diff", &c, &b, "--policy", &p, "--fail-on", "severe"], 1);
    assert!(r.stdout.contains("fixes (1):"), "{}", r.stdout);
}

#[test]
fn a_trace_against_itself_has_no_regressions_and_passes_every_gate() {
    let (b, _) = sides("s2");
    let p = policy();
    for level in ["minor", "moderate", "severe"] {
        let v = json(
            &[
                "diff",
                &b,
                &b,
                "--policy",
                &p,
                "--fail-on",
                level,
                "--format",
                "json",
            ],
            0,
        );
        assert_eq!(v["policy"]["regressions"], Value::Array(vec![]));
        assert_eq!(v["policy"]["fixes"], Value::Array(vec![]));
        assert_eq!(v["gate"]["worst"], "none");
        assert_eq!(v["structural"]["d_norm"], 0.0);
        assert_eq!(v["structural"]["t_star"], Value::Null);
    }
}

#[test]
fn every_format_shows_the_policy_comparison() {
    let (b, c) = sides("s1");
    let p = policy();
    let terminal = veer_ok(&["diff", &b, &c, "--policy", &p], 0).stdout;
    let section = &terminal[terminal.find("Policy diff").unwrap()..];
    let section = &section[..section.find("\n\n").unwrap_or(section.len())];
    insta::assert_snapshot!(section);
    let markdown = veer_ok(&["diff", &b, &c, "--policy", &p, "--format", "markdown"], 0).stdout;
    assert!(markdown.contains("### Policy"), "{markdown}");
    assert!(markdown.contains("**Regressions (1)**"), "{markdown}");
    assert!(markdown.contains("confirm-before-refund"), "{markdown}");
    // JUnit fails exactly what tripped the gate: nothing with the gate off (exit 0), the
    // regression under `--fail-on minor` (exit 1).
    let junit = veer_ok(&["diff", &b, &c, "--policy", &p, "--format", "junit"], 0).stdout;
    assert!(
        junit.contains("name=\"regression: confirm-before-refund\""),
        "{junit}"
    );
    assert!(
        junit.contains("policy\" tests=\"1\" failures=\"0\""),
        "{junit}"
    );
    let gated = &["diff", &b, &c, "--policy", &p, "--format", "junit"];
    let junit = veer_ok(&[gated.as_slice(), &["--fail-on", "minor"]].concat(), 1).stdout;
    assert!(
        junit.contains("policy\" tests=\"1\" failures=\"1\""),
        "{junit}"
    );
}

#[test]
fn directory_mode_gates_over_every_pair() {
    let p = policy();
    let b = format!("{DIR}/baseline_traces");
    let c = format!("{DIR}/candidate_traces");
    let r = veer_ok(
        &[
            "diff",
            &b,
            &c,
            "--policy",
            &p,
            "--fail-on",
            "severe",
            "--format",
            "json",
        ],
        1,
    );
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["gate"]["tripped"], true);
    assert_eq!(v["pairs"].as_array().unwrap().len(), 3);
    for pair in v["pairs"].as_array().unwrap() {
        assert_eq!(
            pair["report"]["policy"]["regressions"]
                .as_array()
                .unwrap()
                .len(),
            1
        );
    }
    assert_eq!(schema_errors(&v), Vec::<String>::new());
    assert_eq!(r.stderr.trim_end().lines().last(), Some(FAIL_SEVERE));
    veer_ok(&["diff", &b, &c, "--policy", &p], 0);
}

#[test]
fn a_bad_policy_stops_the_diff_before_anything_is_measured() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("p.yaml");
    std::fs::write(
        &bad,
        "rules:\n  - id: x\n    kind: no_cal\n    params: {tool: a}\n",
    )
    .unwrap();
    let (b, c) = sides("s1");
    let r = veer(&["diff", &b, &c, "--policy", bad.to_str().unwrap()]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("no_call"),
        "did-you-mean hint: {}",
        r.stderr
    );
    assert!(r.stdout.is_empty());
    let r = veer(&["diff", &b, &c, "--policy", "no/such/policy.yaml"]);
    assert_eq!(r.code, 2);
    let r = veer(&["diff", &b, &c, "--fail-on", "huge"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("never, minor, moderate or severe"),
        "{}",
        r.stderr
    );
}

#[test]
fn structural_block_is_in_every_diff() {
    let (b, c) = sides("s1");
    let v = json(&["diff", &b, &c, "--format", "json"], 0);
    let s = &v["structural"];
    let keys: Vec<&str> = s.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "d_norm",
            "t_star",
            "t_star_norm",
            "first_divergence_type",
            "edit_distance",
            "control_flow"
        ]
    );
    let d = s["d_norm"].as_f64().unwrap();
    assert!(d > 0.0 && d <= 1.0, "{s}");
    let e = &s["edit_distance"];
    let parts = ["substitutions", "insertions", "deletions"]
        .iter()
        .map(|k| e[k].as_u64().unwrap())
        .sum::<u64>();
    assert_eq!(parts, e["distance"].as_u64().unwrap());
    let t = s["t_star_norm"].as_f64().unwrap();
    assert!((0.0..1.0).contains(&t));
    let terminal = veer_ok(&["diff", &b, &c], 0).stdout;
    assert!(terminal.contains("event-level structure"), "{terminal}");
}

/// Past the budget nothing is dropped: the structural block is the same exact block, and the
/// turn alignment is anchored (and says so) instead of missing.
#[test]
fn over_the_alignment_budget_the_alignment_is_anchored() {
    let (b, c) = sides("s1");
    let full: Value =
        serde_json::from_str(&veer_ok(&["diff", &b, &c, "--format", "json"], 0).stdout).unwrap();
    assert_eq!(
        full.get("alignment"),
        None,
        "exact reports carry no alignment key"
    );
    let r = veer_ok(
        &["diff", &b, &c, "--format", "json", "--max-align-cells", "1"],
        0,
    );
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["alignment"], "anchored");
    assert_eq!(v["structural"], full["structural"]);
    assert!(v["structural"].is_object());
    assert!(v["first_divergence"].is_object(), "{}", r.stdout);
    assert_eq!(v["first_divergence"], full["first_divergence"]);
    let warnings = v["warnings"].to_string();
    assert!(!warnings.contains("not computed"), "{warnings}");
    // The behaviour axes are still all there.
    assert_eq!(v["axes"].as_array().unwrap().len(), 9);
    let r = veer(&["diff", &b, &c, "--max-align-cells", "0"]);
    assert_eq!(r.code, 2);
}

/// The diff's structural block and `veer experiment pair` measure the same events: equal
/// numbers on every Shadow example pair (the experiment metrics carry the traxr parity tests).
#[test]
fn structural_block_equals_experiment_pair() {
    for name in [
        "demo",
        "customer-support",
        "devops-agent",
        "er-triage",
        "refund-agent-audit",
    ] {
        let b = format!("tests/fixtures/shadow/{name}/baseline.agentlog");
        let c = format!("tests/fixtures/shadow/{name}/candidate.agentlog");
        let d = json(&["diff", &b, &c, "--format", "json"], 0);
        let p = json(&["experiment", "pair", &b, &c, "--format", "json"], 0);
        let s = &d["structural"];
        assert_eq!(s["d_norm"], p["d_norm"], "{name}");
        assert_eq!(s["t_star"], p["t_star"], "{name}");
        assert_eq!(s["t_star_norm"], p["t_star_norm"], "{name}");
        assert_eq!(
            s["first_divergence_type"], p["first_divergence_type"],
            "{name}"
        );
        assert_eq!(s["control_flow"], p["control_flow_changes"], "{name}");
        for k in ["distance", "substitutions", "insertions", "deletions"] {
            assert_eq!(s["edit_distance"][k], p["edit_distance"][k], "{name} {k}");
        }
    }
}
