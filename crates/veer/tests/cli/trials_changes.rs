//! `veer diff BASE_DIR CAND_DIR` with repeated trials: what changed, in words. A candidate
//! that calls the same tools with a renamed argument is told apart by its calls (the trials
//! behaviour distance reads argument keys and values), and the case names the change from the
//! modal trial of each side with the trials that show it.

use crate::common::{diff_schema_violations, veer_ok};
use std::path::Path;
use veer_engine::trials::scripted::{agentlog, Script};

/// One trial of the scripted agent, with the argument key `case` of every `tool` call renamed
/// to `to` when `rename` is given.
fn trial(case: &str, t: u32, seed: u64, rename: Option<(&str, &str)>) -> String {
    let text = agentlog(case, t, seed, &Script::default());
    let Some((tool, to)) = rename else {
        return text;
    };
    let mut out = String::new();
    for line in text.lines() {
        let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
        if let Some(parts) = v["payload"]["content"].as_array_mut() {
            for p in parts {
                if p["type"] == "tool_use" && p["name"] == tool {
                    let input = p["input"].as_object_mut().unwrap();
                    let value = input.remove("case").unwrap();
                    input.insert(to.to_string(), value);
                }
            }
        }
        out.push_str(&v.to_string());
        out.push('\n');
    }
    out
}

/// Three cases of three trials a side, `CASE/run-N.agentlog`; the candidate's `case-00`
/// renames the `lookup_order` argument.
fn write_side(dir: &Path, seed: u64, renamed: bool) {
    for c in 0..3 {
        let key = format!("case-{c:02}");
        std::fs::create_dir_all(dir.join(&key)).unwrap();
        for t in 1..=3 {
            let rename = (renamed && c == 0).then_some(("lookup_order", "order_id"));
            std::fs::write(
                dir.join(&key).join(format!("run-{t}.agentlog")),
                trial(&key, t, seed, rename),
            )
            .unwrap();
        }
    }
}

#[test]
fn trials_case_names_a_renamed_argument_from_its_modal_trials() {
    let tmp = tempfile::tempdir().unwrap();
    let (base, cand) = (tmp.path().join("base"), tmp.path().join("cand"));
    write_side(&base, 11, false);
    write_side(&cand, 12, true);
    let (b, c) = (base.to_str().unwrap(), cand.to_str().unwrap());
    let r = veer_ok(&["diff", b, c, "--format", "json"], 0);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(diff_schema_violations(&v), Vec::<String>::new());
    let cases = v["trials"]["cases"].as_array().unwrap();
    let change =
        "argument renamed `lookup_order(case → order_id)` (3/3 candidate trials, 0/3 baseline)";
    assert_eq!(cases[0]["case"], "case-00");
    assert_eq!(
        cases[0]["changes"],
        serde_json::json!([change]),
        "{}",
        cases[0]
    );
    // The renamed call moves the behaviour distance across sides, not within them.
    let behaviour = &cases[0]["behaviour"];
    assert!(behaviour["d_bc"].as_f64().unwrap() > 0.0, "{behaviour}");
    assert!(behaviour["excess"].as_f64().unwrap() > 0.0, "{behaviour}");
    // The modal trials, and the candidate's first differing response: its first turn (the
    // lookup, or the extra search before it), line 3 or 5 of the file.
    let modal = &cases[0]["modal"];
    assert!(
        modal["baseline_file"]
            .as_str()
            .unwrap()
            .starts_with("case-00/run-"),
        "{modal}"
    );
    assert!(
        modal["candidate_file"]
            .as_str()
            .unwrap()
            .starts_with("case-00/run-"),
        "{modal}"
    );
    let line = modal["candidate_line"].as_u64().unwrap();
    assert!(line == 3 || line == 5, "{modal}");
    // The unchanged cases name no change in their calls.
    for case in &cases[1..] {
        assert!(case.get("changes").is_none(), "{case}");
    }
    // The terminal and Markdown case lines say it too.
    let r = veer_ok(&["diff", b, c], 0);
    if std::env::var_os("VEER_SHOW").is_some() {
        eprintln!("{}", r.stdout);
    }
    let line = r.stdout.lines().find(|l| l.contains("case-00 —")).unwrap();
    assert!(line.ends_with(&format!("; {change}")), "{}", r.stdout);
    let r = veer_ok(&["diff", b, c, "--format", "markdown"], 0);
    assert!(r.stdout.contains(change), "{}", r.stdout);
}

/// Three cases of three trials a side, the candidate's skipping `check_policy` in every trial.
fn write_skipping(dir: &Path, seed: u64, skip: bool) {
    let script = Script {
        skip_tool: skip.then_some(1),
        ..Script::default()
    };
    for c in 0..3 {
        let key = format!("case-{c:02}");
        std::fs::create_dir_all(dir.join(&key)).unwrap();
        for t in 1..=3 {
            std::fs::write(
                dir.join(&key).join(format!("run-{t}.agentlog")),
                agentlog(&key, t, seed, &script),
            )
            .unwrap();
        }
    }
}

#[test]
fn trials_a_dropped_call_is_a_change_never_an_improvement() {
    let tmp = tempfile::tempdir().unwrap();
    let (base, cand) = (tmp.path().join("base"), tmp.path().join("cand"));
    write_skipping(&base, 21, false);
    write_skipping(&cand, 22, true);
    let (b, c) = (base.to_str().unwrap(), cand.to_str().unwrap());
    // No policy: the fewer calls alone are the signal.
    let r = veer_ok(&["diff", b, c, "--fail-on", "severe"], 1);
    let suite = r
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("tool_calls "))
        .unwrap();
    assert!(suite.contains("effect -1.00 calls"), "{}", r.stdout);
    assert!(
        suite.ends_with("regressed") || suite.contains("regressed,"),
        "{}",
        r.stdout
    );
    assert!(!suite.contains("improved"), "{}", r.stdout);
    assert!(
        r.stderr.contains("tripped: axis tool_calls"),
        "{}",
        r.stderr
    );
    for case in ["case-00", "case-01", "case-02"] {
        let line = r
            .stdout
            .lines()
            .find(|l| l.contains(&format!("{case} —")))
            .unwrap();
        assert!(
            line.contains(
                "dropped `check_policy` before `issue_refund` (3/3 candidate trials, 0/3 baseline)"
            ),
            "{}",
            r.stdout
        );
    }
}
