//! The pass/fail outcome of repeated trials : per-case pass
//! rates and pass^k on the real Inspect AI logs checked against the samples' own scores,
//! `--outcome FIELD`, `--outcome FILE.jsonl`, `--outcome-threshold`, and their bad inputs.

use crate::common::{diff_schema_violations, veer_ok};
use std::collections::BTreeMap;
use std::path::Path;
use veer_engine::trials::scripted::{agentlog, Script};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Passes per case of an Inspect `.eval` log, read straight from its sample members (not
/// through veer's reader): a sample passes when its `includes` score is `C` and it has no
/// error. Returns case → (passes, trials).
fn passes_in_log(name: &str) -> BTreeMap<String, (u32, u32)> {
    let mut out: BTreeMap<String, (u32, u32)> = BTreeMap::new();
    for (member, bytes) in crate::inspect_ai::members(name) {
        if !member.starts_with("samples/") {
            continue;
        }
        let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        let id = match &v["id"] {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let errored = !v["error"].is_null();
        let pass = !errored && v["scores"]["includes"]["value"] == "C";
        let e = out.entry(id).or_default();
        e.0 += u32::from(pass);
        e.1 += 1;
    }
    out
}

/// C(n, k) as a float (small n).
fn choose(n: u32, k: u32) -> f64 {
    if k > n {
        return 0.0;
    }
    (0..k).fold(1.0, |acc, i| acc * f64::from(n - i) / f64::from(i + 1))
}

/// τ-bench's pass^k, computed here independently: the mean over cases of C(c, k)/C(n, k).
fn pass_hat(cases: &BTreeMap<String, (u32, u32)>, k: u32) -> f64 {
    cases
        .values()
        .map(|&(c, n)| choose(c, k) / choose(n, k))
        .sum::<f64>()
        / cases.len() as f64
}

fn diff_json(extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "diff",
        "tests/fixtures/inspect/baseline.eval",
        "tests/fixtures/inspect/candidate.eval",
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    let r = veer_ok(&args, 0);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(
        diff_schema_violations(&v).is_empty(),
        "{:?}",
        diff_schema_violations(&v)
    );
    v
}

fn check_against_logs(v: &serde_json::Value) {
    let (base, cand) = (
        passes_in_log("baseline.eval"),
        passes_in_log("candidate.eval"),
    );
    // What the fixtures hold (README): the baseline answers correctly in samples 1 and
    // orders/ORD-7 and errors in 3; the candidate guesses wrong everywhere.
    assert_eq!(base["1"], (2, 2));
    assert_eq!(base["3"], (0, 2));
    assert_eq!(cand["1"], (0, 2));
    let cases = v["trials"]["cases"].as_array().unwrap();
    assert_eq!(cases.len(), base.len());
    for case in cases {
        let key = case["case"].as_str().unwrap();
        let (bp, bn) = base[key];
        let (cp, cn) = cand[key];
        let p = &case["passes"];
        assert_eq!(p["baseline"], bp, "{key}: {p}");
        assert_eq!(p["candidate"], cp, "{key}: {p}");
        assert_eq!(case["baseline_trials"], bn);
        assert_eq!(case["candidate_trials"], cn);
        let rate = |x: u32, n: u32| f64::from(x) / f64::from(n);
        assert!((p["baseline_rate"].as_f64().unwrap() - rate(bp, bn)).abs() < 1e-12);
        assert!((p["candidate_rate"].as_f64().unwrap() - rate(cp, cn)).abs() < 1e-12);
    }
    let block = &v["trials"]["pass_hat_k"];
    for (side, counts) in [("baseline", &base), ("candidate", &cand)] {
        let values = block[side]["values"].as_array().unwrap();
        let k_max = counts.values().map(|c| c.1).min().unwrap();
        assert_eq!(values.len() as u32, k_max, "{block}");
        for (k, got) in values.iter().enumerate() {
            let want = pass_hat(counts, k as u32 + 1);
            assert!(
                (got.as_f64().unwrap() - want).abs() < 1e-12,
                "{side} k={k}: {got} vs {want}"
            );
        }
    }
    // Hand check of the same numbers: baseline passes 2/2, 0/2, 2/2 → pass^1 = pass^2 = 2/3.
    assert!((block["baseline"]["values"][1].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-12);
    assert_eq!(block["candidate"]["values"][0], 0.0);
}

#[test]
fn outcome_rates_and_pass_hat_k_on_real_inspect_logs_match_their_scores() {
    // The default source: the metadata outcome veer's reader derives from Inspect's scores.
    let v = diff_json(&[]);
    assert_eq!(v["trials"]["pass_hat_k"]["outcome"], "outcome");
    check_against_logs(&v);
    // The same from the scorer's field by name; the report names the field.
    let v = diff_json(&["--outcome", "scores.includes"]);
    let block = &v["trials"]["pass_hat_k"];
    assert_eq!(block["outcome"], "field", "{block}");
    assert_eq!(block["field"], "scores.includes", "{block}");
    assert_eq!(v["trials"]["cases"][0]["passes"]["outcome"], "field");
    // Errored samples have no score: the field is missing, which is exit 2 naming it.
    let r = veer_ok(
        &[
            "diff",
            "tests/fixtures/inspect/baseline.eval",
            "tests/fixtures/inspect/candidate.eval",
            "--outcome",
            "scores.nope",
        ],
        2,
    );
    assert!(
        r.stderr.contains("metadata field `scores.nope`: missing"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("hint:"), "{}", r.stderr);
}

/// Writes `cases` cases × `k` trials under `dir` as `CASE/run-N.agentlog`, each trial's
/// metadata record given `extra(case, trial)` fields.
fn write_side(
    dir: &Path,
    seed: u64,
    cases: usize,
    k: u32,
    extra: &dyn Fn(usize, u32) -> serde_json::Value,
) {
    for c in 0..cases {
        let key = format!("case-{c:02}");
        std::fs::create_dir_all(dir.join(&key)).unwrap();
        for t in 1..=k {
            let text = agentlog(&key, t, seed, &Script::default());
            let (first, rest) = text.split_once('\n').unwrap();
            let mut meta: serde_json::Value = serde_json::from_str(first).unwrap();
            assert_eq!(meta["kind"], "metadata");
            if let serde_json::Value::Object(add) = extra(c, t) {
                for (key, value) in add {
                    meta["payload"][key] = value;
                }
            }
            let text = format!("{meta}\n{rest}");
            std::fs::write(dir.join(&key).join(format!("run-{t}.agentlog")), text).unwrap();
        }
    }
}

fn run_json(base: &Path, cand: &Path, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["diff", s(base), s(cand), "--format", "json"];
    args.extend_from_slice(extra);
    let r = veer_ok(&args, 0);
    serde_json::from_str(&r.stdout).unwrap()
}

#[test]
fn numeric_scores_pass_at_the_threshold_inclusive_and_need_it() {
    let tmp = tempfile::tempdir().unwrap();
    let (base, cand) = (tmp.path().join("base"), tmp.path().join("cand"));
    // Scores by trial: baseline 0.5, 0.75, 1.0 in every case; candidate 0.25, 0.5, 0.5.
    let b = |_: usize, t: u32| serde_json::json!({"score": ([0.5, 0.75, 1.0])[t as usize - 1]});
    let c = |_: usize, t: u32| serde_json::json!({"score": ([0.25, 0.5, 0.5])[t as usize - 1]});
    write_side(&base, 1, 2, 3, &b);
    write_side(&cand, 2, 2, 3, &c);
    // Without a threshold a score of 0.5 is an error naming the flag, with file and field.
    let r = veer_ok(&["diff", s(&base), s(&cand)], 2);
    assert!(
        r.stderr
            .contains("metadata field `score`: score 0.5 is neither 0 nor 1"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("case-00/run-1.agentlog"), "{}", r.stderr);
    assert!(
        r.stderr.contains("hint: pass --outcome-threshold X"),
        "{}",
        r.stderr
    );
    // At 0.5 (inclusive): baseline 3/3, candidate 2/3 per case.
    let v = run_json(&base, &cand, &["--outcome-threshold", "0.5"]);
    let block = &v["trials"]["pass_hat_k"];
    assert_eq!(block["outcome"], "outcome");
    assert_eq!(block["threshold"], 0.5);
    for case in v["trials"]["cases"].as_array().unwrap() {
        assert_eq!(case["passes"]["baseline"], 3, "{case}");
        assert_eq!(case["passes"]["candidate"], 2, "{case}");
    }
    // pass^k of 2/3 per case: 2/3, C(2,2)/C(3,2) = 1/3, 0.
    let want = [2.0 / 3.0, 1.0 / 3.0, 0.0];
    for (k, w) in want.iter().enumerate() {
        let got = block["candidate"]["values"][k].as_f64().unwrap();
        assert!((got - w).abs() < 1e-12, "k={k}: {got}");
    }
    // At 0.75: baseline 2/3, candidate 0/3. Extreme thresholds just compare.
    let v = run_json(&base, &cand, &["--outcome-threshold", "0.75"]);
    assert_eq!(v["trials"]["cases"][0]["passes"]["baseline"], 2);
    assert_eq!(v["trials"]["cases"][0]["passes"]["candidate"], 0);
    let v = run_json(&base, &cand, &["--outcome-threshold=-1e308"]);
    assert_eq!(v["trials"]["cases"][1]["passes"]["candidate"], 3);
    let v = run_json(&base, &cand, &["--outcome-threshold", "1e308"]);
    assert_eq!(v["trials"]["cases"][1]["passes"]["baseline"], 0);
    let r = veer_ok(
        &["diff", s(&base), s(&cand), "--outcome-threshold", "nan"],
        2,
    );
    assert!(r.stderr.contains("not a finite number"), "{}", r.stderr);
}

#[test]
fn an_outcome_file_keys_side_case_and_trial_and_bad_lines_are_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let (base, cand) = (tmp.path().join("base"), tmp.path().join("cand"));
    let none = |_: usize, _: u32| serde_json::json!({});
    write_side(&base, 1, 2, 3, &none);
    write_side(&cand, 2, 2, 3, &none);
    let file = tmp.path().join("outcomes.jsonl");
    let mut lines = String::new();
    for side in ["baseline", "candidate"] {
        for case in ["case-00", "case-01"] {
            for trial in 1..=3 {
                // The baseline passes every trial; the candidate fails trial 3 of case-01.
                let pass = side == "baseline" || case == "case-00" || trial < 3;
                let value = if pass { "\"C\"" } else { "\"I\"" };
                lines.push_str(&format!(
                    "{{\"side\": \"{side}\", \"case\": \"{case}\", \"trial\": {trial}, \"outcome\": {value}}}\n"
                ));
            }
        }
    }
    std::fs::write(&file, &lines).unwrap();
    let v = run_json(&base, &cand, &["--outcome", s(&file)]);
    let block = &v["trials"]["pass_hat_k"];
    assert_eq!(block["outcome"], "file", "{block}");
    assert_eq!(block["file"], s(&file));
    let cases = v["trials"]["cases"].as_array().unwrap();
    assert_eq!(cases[0]["passes"]["candidate"], 3);
    assert_eq!(cases[1]["passes"]["candidate"], 2);
    assert_eq!(cases[1]["passes"]["baseline"], 3);
    assert!(diff_schema_violations(&v).is_empty());
    // A line that matches no trace is a warning; the run goes on.
    let extra = format!("{lines}{{\"side\": \"candidate\", \"case\": \"case-09\", \"trial\": 1, \"outcome\": true}}\n");
    std::fs::write(&file, &extra).unwrap();
    let r = veer_ok(&["diff", s(&base), s(&cand), "--outcome", s(&file)], 0);
    assert!(
        r.stderr
            .contains(":13: candidate case `case-09` trial 1 matches no trace; ignored"),
        "{}",
        r.stderr
    );
    // A trial without a line is exit 2, naming it, before anything is measured.
    let missing: String = lines.lines().skip(1).map(|l| format!("{l}\n")).collect();
    std::fs::write(&file, missing).unwrap();
    let r = veer_ok(&["diff", s(&base), s(&cand), "--outcome", s(&file)], 2);
    assert!(
        r.stderr
            .contains("no outcome for baseline case `case-00` trial 1 (case-00/run-1.agentlog)"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("hint: every trial compared needs a line"),
        "{}",
        r.stderr
    );
    // Bad lines: file:line, the field and a hint.
    for (line, want) in [
        (
            "{\"side\": \"both\", \"case\": \"a\", \"trial\": 1, \"outcome\": true}",
            ":2: field `side`",
        ),
        (
            "{\"side\": \"baseline\", \"case\": \"a\", \"trial\": 1, \"outcome\": 0.4}",
            ":2: field `outcome`: score 0.4 is neither 0 nor 1",
        ),
        (
            "{\"side\": \"baseline\", \"case\": \"a\", \"outcome\": true}",
            ":2: field `trial`: missing",
        ),
        ("{oops", ":2: not JSON"),
    ] {
        let first = lines.lines().next().unwrap();
        std::fs::write(&file, format!("{first}\n{line}\n")).unwrap();
        let r = veer_ok(&["diff", s(&base), s(&cand), "--outcome", s(&file)], 2);
        assert!(r.stderr.contains(want), "{line}: {}", r.stderr);
        assert!(r.stderr.contains("hint:"), "{line}: {}", r.stderr);
    }
    let r = veer_ok(
        &[
            "diff",
            s(&base),
            s(&cand),
            "--outcome",
            s(&tmp.path().join("none.jsonl")),
        ],
        2,
    );
    assert!(
        r.stderr.contains("cannot read the outcome file"),
        "{}",
        r.stderr
    );
}

#[test]
fn an_outcome_field_by_dotted_path_and_a_missing_one() {
    let tmp = tempfile::tempdir().unwrap();
    let (base, cand) = (tmp.path().join("base"), tmp.path().join("cand"));
    let b = |_: usize, _: u32| serde_json::json!({"scores": {"accuracy": true}});
    // The candidate fails trial 1 of every case.
    let c = |_: usize, t: u32| serde_json::json!({"scores": {"accuracy": t != 1}});
    write_side(&base, 1, 2, 3, &b);
    write_side(&cand, 2, 2, 3, &c);
    let r = veer_ok(
        &["diff", s(&base), s(&cand), "--outcome", "scores.accuracy"],
        0,
    );
    assert!(
        r.stdout.contains("pass^k (k = 1..3; outcome: field scores.accuracy): baseline 1.00, 1.00, 1.00 · candidate 0.67, 0.33, 0.00"),
        "{}",
        r.stdout
    );
    let v = run_json(&base, &cand, &["--outcome", "scores.accuracy"]);
    assert_eq!(v["trials"]["pass_hat_k"]["field"], "scores.accuracy");
    assert_eq!(v["trials"]["cases"][0]["passes"]["candidate"], 2);
    assert_eq!(v["trials"]["pass_hat_k"]["baseline"]["values"][2], 1.0);
    let r = veer_ok(&["diff", s(&base), s(&cand), "--outcome", "scores.acc"], 2);
    assert!(
        r.stderr.contains("baseline trial case-00/run-1.agentlog of case `case-00`: metadata field `scores.acc`: missing"),
        "{}",
        r.stderr
    );
}
