//! `veer experiment pair` and `veer experiment analyze`: snapshots of every format on traxr's
//! experiment goldens, the exact summary-text and Markdown-row vectors of spec
//! `experiment.md` §11.5, parity of the JSON with traxr's goldens (§14.1, §14.2) and the
//! `.agentlog` vectors (§12.4) through the binary, a directory experiment with a corrupt
//! perturbed run, bad inputs (exit 2 with a clear message) and determinism.

use crate::common::{fixtures, veer, veer_ok};
use serde_json::Value;
use std::path::Path;

const GOLDENS: [&str; 2] = ["builtin_stub", "external_mock"];

fn golden(name: &str) -> String {
    format!("tests/fixtures/traxr/goldens/{name}.json")
}

fn analyze(name: &str, format: &str) -> String {
    veer_ok(
        &["experiment", "analyze", &golden(name), "--format", format],
        0,
    )
    .stdout
}

fn shadow(name: &str, side: &str) -> String {
    format!("tests/fixtures/shadow/{name}/{side}.agentlog")
}

/// traxr's summary for `builtin_stub` (§11.5) with veer's line 1.
const BUILTIN_SUMMARY: &str = "veer experiment summary
  agent kind: builtin (capture: builtin)
  pairs: 2 (2 scored, 0 skipped)
  manifestations:
     50%  loop_or_extended_execution
     50%  no_observable_effect
  d_norm: mean 0.3929, max 0.7857 over 2 pair(s)
  noise floor (d_norm): unmeasured (deterministic built-in path)
  recovery rate: 100% of diverged pairs kept their answer
  token overhead: mean 2.00x
";

/// traxr's summary for `external_mock` (§11.5) with veer's line 1.
const EXTERNAL_SUMMARY: &str = "veer experiment summary
  agent kind: external (capture: tier0)
  pairs: 2 (2 scored, 0 skipped)
  manifestations:
    100%  no_observable_effect
  d_norm: mean 0.0000, max 0.0000 over 2 pair(s)
  noise floor (d_norm): 0.0000 over 1 clean re-run(s); 2 of 2 measured pair(s) within floor
  token overhead: mean 1.00x
";

#[test]
fn analyze_goldens_in_every_format() {
    for name in GOLDENS {
        for format in ["terminal", "json", "markdown", "csv"] {
            insta::assert_snapshot!(format!("analyze_{name}_{format}"), analyze(name, format));
        }
    }
}

#[test]
fn summary_text_is_traxrs_byte_for_byte() {
    for (name, expected) in [
        ("builtin_stub", BUILTIN_SUMMARY),
        ("external_mock", EXTERNAL_SUMMARY),
    ] {
        let terminal = analyze(name, "terminal");
        assert!(
            terminal.starts_with(&format!("{expected}\n")),
            "{name}:\n{terminal}"
        );
        let markdown = analyze(name, "markdown");
        assert!(
            markdown.contains(&format!("## Summary\n\n```\n{expected}```\n")),
            "{name}:\n{markdown}"
        );
    }
}

#[test]
fn markdown_pair_rows_are_traxrs() {
    let md = analyze("builtin_stub", "markdown");
    let lines: Vec<&str> = md.lines().collect();
    let header = "| item | perturbation | status | d_norm | <=floor | t* | manifestation | \
                  answer_changed | recovery | control flow | tokens |";
    let at = lines
        .iter()
        .position(|l| *l == header)
        .expect("pairs header");
    assert_eq!(
        lines[at + 1],
        "|---|---|---|---|---|---|---|---|---|---|---|"
    );
    assert_eq!(
        lines[at + 2],
        "| sample.csv | column_swap | ok | 0.0000 | — | — | no_observable_effect | no | — | — | 1.00x |"
    );
    assert_eq!(
        lines[at + 3],
        "| sample.csv | null_content | ok | 0.7857 | — | step 0 · routing_decision | \
         loop_or_extended_execution | no | yes | 1× −tool call, 9× +routing, ran longer | 3.00x |"
    );
    assert!(
        md.starts_with("# veer experiment report\n\n## Fingerprint\n\n- **agent_kind**: builtin\n")
    );
    assert!(md.contains(
        "## Manifestations\n\n- **loop_or_extended_execution** (50%) — The perturbed run ran \
         longer, with extra control-flow changes.\n- **no_observable_effect** (50%) — No change \
         in either the trace or the answer.\n"
    ));
}

/// Without veer's own keys (`schema_version`, `errors`, the extra aggregates and the `noise`
/// block of noise-aware labels) the JSON equals traxr's golden (spec §14.2), and it is written
/// in traxr's layout: ASCII only, two-space indent, a trailing newline.
#[test]
fn analyze_json_equals_traxrs_export() {
    for name in GOLDENS {
        let text = analyze(name, "json");
        assert!(text.is_ascii() && text.ends_with("}\n"), "{name}");
        assert!(text.starts_with("{\n  \"aggregates\": {\n"), "{name}");
        let mut ours: Value = serde_json::from_str(&text).unwrap();
        let o = ours.as_object_mut().unwrap();
        assert_eq!(o.remove("schema_version"), Some(Value::from("1")));
        assert_eq!(o.remove("errors"), Some(Value::Array(vec![])));
        // Present exactly when the results hold clean re-runs (external_mock has one).
        assert_eq!(
            o.remove("noise").is_some(),
            o["noise_floor_runs"].as_u64() > Some(0),
            "{name}"
        );
        let agg = o["aggregates"].as_object_mut().unwrap();
        assert!(agg.remove("by_perturbation").is_some());
        assert!(agg.remove("by_manifestation_group").is_some());
        let theirs: Value = serde_json::from_str(
            &std::fs::read_to_string(fixtures().join(format!("traxr/goldens/{name}.json")))
                .unwrap(),
        )
        .unwrap();
        assert_eq!(ours, theirs, "{name}");
    }
}

#[test]
fn analyze_json_is_deterministic() {
    for name in GOLDENS {
        assert_eq!(analyze(name, "json"), analyze(name, "json"), "{name}");
    }
    let args = [
        "experiment",
        "pair",
        "tests/fixtures/shadow/demo/baseline.agentlog",
        "tests/fixtures/shadow/demo/candidate.agentlog",
        "--format",
        "json",
        "--detail",
    ];
    assert_eq!(veer_ok(&args, 0).stdout, veer_ok(&args, 0).stdout);
}

#[test]
fn expected_answer_overrides_the_results_file() {
    let csv = veer_ok(
        &[
            "experiment",
            "analyze",
            &golden("builtin_stub"),
            "--expected",
            "41",
            "--format",
            "csv",
        ],
        0,
    )
    .stdout;
    // task_success is column 11: false for both pairs now.
    for row in csv.lines().skip(1) {
        assert!(row.contains("}\",false,false,"), "{row}");
    }
}

/// `veer experiment pair CASE.json` equals the analyzer's `output.summary` on every §6 key.
#[test]
fn pair_on_analyzer_goldens() {
    for case in ["known_tstar", "single_edit"] {
        let path = format!("tests/fixtures/traxr/analyzer_goldens/{case}.json");
        let json = veer_ok(&["experiment", "pair", &path, "--format", "json"], 0).stdout;
        insta::assert_snapshot!(format!("pair_{case}_json"), json);
        let terminal = veer_ok(&["experiment", "pair", &path], 0).stdout;
        insta::assert_snapshot!(format!("pair_{case}_terminal"), terminal);

        let ours: Value = serde_json::from_str(&json).unwrap();
        let case_file: Value = serde_json::from_str(
            &std::fs::read_to_string(
                fixtures().join(format!("traxr/analyzer_goldens/{case}.json")),
            )
            .unwrap(),
        )
        .unwrap();
        let summary = case_file["output"]["summary"].as_object().unwrap();
        for (key, expected) in summary {
            assert_eq!(&ours[key], expected, "{case}: {key}");
        }
    }
}

#[test]
fn pair_on_agentlog_fixtures() {
    let (b, c) = (shadow("demo", "baseline"), shadow("demo", "candidate"));
    let json = veer_ok(&["experiment", "pair", &b, &c, "--format", "json"], 0);
    insta::assert_snapshot!("pair_demo_json", json.stdout);
    let terminal = veer_ok(&["experiment", "pair", &b, &c], 0);
    insta::assert_snapshot!("pair_demo_terminal", terminal.stdout);
    assert!(
        terminal
            .stdout
            .contains("noise floor (d_norm): UNMEASURED — divergence below the (unknown)"),
        "{}",
        terminal.stdout
    );
    assert!(
        terminal.stderr.contains("warning: noise floor unmeasured"),
        "{}",
        terminal.stderr
    );
    // With a clean re-run the floor is measured and the warning is gone.
    let with_rerun = veer_ok(&["experiment", "pair", &b, &c, "--rerun", &b], 0);
    assert!(
        with_rerun.stdout.contains(
            "noise floor (d_norm): 0.0000 over 1 clean re-run(s); this pair is above the floor"
        ),
        "{}",
        with_rerun.stdout
    );
    assert!(
        !with_rerun.stderr.contains("noise floor"),
        "{}",
        with_rerun.stderr
    );
}

/// (fixture, d_norm, t*, divergence type, token overhead).
type Vector = (&'static str, f64, Option<i64>, Option<&'static str>, f64);

/// The `.agentlog` vectors of spec §12.4 through the binary.
#[test]
fn pair_agentlog_vectors() {
    let cases: [Vector; 6] = [
        (
            "demo",
            0.2,
            Some(3),
            Some("llm_finish_reason_change"),
            1.097938144329897,
        ),
        (
            "customer-support",
            0.3333333333333333,
            Some(1),
            Some("different_tool_requested"),
            1.079696394686907,
        ),
        (
            "devops-agent",
            1.0,
            Some(1),
            Some("different_tool_requested"),
            0.9152432231711846,
        ),
        (
            "er-triage",
            0.8,
            Some(1),
            Some("different_tool_requested"),
            1.070498242712425,
        ),
        ("harmful-content-judge", 1.0, None, None, 1.1721311475409837),
        (
            "refund-agent-audit",
            1.0,
            Some(1),
            Some("event_missing_in_perturbed"),
            1.3717498243148278,
        ),
    ];
    for (name, d_norm, t_star, kind, tokens) in cases {
        let out = veer_ok(
            &[
                "experiment",
                "pair",
                &shadow(name, "baseline"),
                &shadow(name, "candidate"),
                "--format",
                "json",
            ],
            0,
        );
        let v: Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(v["d_norm"].as_f64(), Some(d_norm), "{name}");
        assert_eq!(v["t_star"].as_i64(), t_star, "{name}");
        assert_eq!(v["divergence_type"].as_str(), kind, "{name}");
        assert_eq!(v["token_overhead"].as_f64(), Some(tokens), "{name}");
        assert_eq!(
            v["manifestation"], "structural_divergence_with_outcome_change",
            "{name}"
        );
        assert_eq!(v["answer_changed"], true, "{name}");
        assert_eq!(v["recovery"], false, "{name}");
        assert_eq!(v["task_success"], Value::Null, "{name}");
    }
}

/// Builds `<tmp>/item-7` with a baseline, one clean re-run and two perturbed runs, one of
/// them corrupt.
fn experiment_dir(tmp: &Path, with_rerun: bool) -> std::path::PathBuf {
    let dir = tmp.join("item-7");
    std::fs::create_dir_all(dir.join("perturbed")).unwrap();
    let fx = fixtures().join("shadow");
    std::fs::copy(
        fx.join("demo/baseline.agentlog"),
        dir.join("baseline.agentlog"),
    )
    .unwrap();
    if with_rerun {
        std::fs::create_dir_all(dir.join("reruns")).unwrap();
        std::fs::copy(
            fx.join("demo/baseline.agentlog"),
            dir.join("reruns/run-2.agentlog"),
        )
        .unwrap();
    }
    std::fs::copy(
        fx.join("demo/candidate.agentlog"),
        dir.join("perturbed/content_filter.agentlog"),
    )
    .unwrap();
    std::fs::write(dir.join("perturbed/corrupt.agentlog"), "{\"not json\n").unwrap();
    dir
}

fn scrub(text: &str, tmp: &Path) -> String {
    text.replace(&tmp.display().to_string(), "[TMP]")
}

#[test]
fn directory_experiment_with_a_corrupt_run() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = experiment_dir(tmp.path(), true);
    let d = dir.display().to_string();

    let terminal = veer_ok(&["experiment", "analyze", &d], 0);
    insta::assert_snapshot!("directory_terminal", scrub(&terminal.stdout, tmp.path()));
    assert!(
        !terminal.stderr.contains("noise floor"),
        "{}",
        terminal.stderr
    );

    let json = veer_ok(&["experiment", "analyze", &d, "--format", "json"], 0);
    let v: Value = serde_json::from_str(&json.stdout).unwrap();
    let pairs = v["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 2);
    assert_eq!(pairs[0]["perturbation"], "content_filter");
    assert_eq!(pairs[0]["item_id"], "item-7");
    assert_eq!(pairs[0]["status_perturbed"], "ok");
    assert_eq!(pairs[0]["d_norm"], 0.2);
    assert_eq!(pairs[0]["within_noise_floor"], false);
    assert_eq!(pairs[1]["perturbation"], "corrupt");
    assert_eq!(pairs[1]["status_perturbed"], "error");
    assert_eq!(pairs[1]["d_norm"], Value::Null);
    assert_eq!(v["noise_floor"], 0.0);
    assert_eq!(v["noise_floor_runs"], 1);
    let errors = v["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0]
            .as_str()
            .unwrap()
            .starts_with("perturbed run corrupt: "),
        "{errors:?}"
    );
    assert!(
        json.stderr.contains("warning: perturbed run corrupt: "),
        "{}",
        json.stderr
    );
    let labels: Vec<&String> = v["traces"].as_object().unwrap().keys().collect();
    assert_eq!(
        labels,
        ["baseline", "item-7::content_filter", "noise_floor_1"]
    );
    assert_eq!(
        v["fingerprint"]["files"],
        serde_json::json!([
            "baseline.agentlog",
            "reruns/run-2.agentlog",
            "perturbed/content_filter.agentlog",
            "perturbed/corrupt.agentlog"
        ])
    );

    let csv = veer_ok(&["experiment", "analyze", &d, "--format", "csv"], 0);
    insta::assert_snapshot!("directory_csv", scrub(&csv.stdout, tmp.path()));
    let md = veer_ok(&["experiment", "analyze", &d, "--format", "markdown"], 0);
    assert!(
        md.stdout.contains("## Errors\n\n- perturbed run corrupt: "),
        "{}",
        md.stdout
    );
}

#[test]
fn directory_without_reruns_warns_that_the_floor_is_unmeasured() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = experiment_dir(tmp.path(), false);
    let r = veer_ok(
        &[
            "experiment",
            "analyze",
            &dir.display().to_string(),
            "--expected",
            "x",
        ],
        0,
    );
    assert!(
        r.stdout.contains(
            "  noise floor (d_norm): UNMEASURED — divergence below the (unknown) sampling-noise \
             floor may be reported as contamination. Set noise_floor_runs >= 1 for external \
             agents.\n"
        ),
        "{}",
        r.stdout
    );
    let floor_lines: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("warning: noise floor unmeasured"))
        .collect();
    assert_eq!(floor_lines.len(), 1, "{}", r.stderr);
    assert!(floor_lines[0].contains("reruns/"), "{}", r.stderr);
}

fn expect_error(args: &[&str], needles: &[&str]) {
    let r = veer(args);
    assert_eq!(
        r.code, 2,
        "{args:?}\nstdout:\n{}\nstderr:\n{}",
        r.stdout, r.stderr
    );
    assert!(r.stdout.is_empty(), "{args:?}: {}", r.stdout);
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    for n in needles {
        assert!(
            r.stderr.contains(n),
            "{args:?}: missing {n:?} in\n{}",
            r.stderr
        );
    }
}

#[test]
fn bad_inputs_exit_2_naming_what_is_missing() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();

    let empty = root.join("empty");
    std::fs::create_dir(&empty).unwrap();
    expect_error(
        &["experiment", "analyze", &empty.display().to_string()],
        &[
            "directory holds no traces",
            "hint: an experiment directory holds baseline",
        ],
    );

    let no_base = root.join("no-base");
    std::fs::create_dir_all(no_base.join("perturbed")).unwrap();
    std::fs::copy(
        fixtures().join("shadow/demo/candidate.agentlog"),
        no_base.join("perturbed/x.agentlog"),
    )
    .unwrap();
    expect_error(
        &["experiment", "analyze", &no_base.display().to_string()],
        &["no baseline trace (expected ", "baseline.agentlog"],
    );

    let no_perturbed = root.join("no-perturbed");
    std::fs::create_dir_all(&no_perturbed).unwrap();
    std::fs::copy(
        fixtures().join("shadow/demo/baseline.agentlog"),
        no_perturbed.join("baseline.agentlog"),
    )
    .unwrap();
    expect_error(
        &["experiment", "analyze", &no_perturbed.display().to_string()],
        &["no perturbed/ directory"],
    );
    std::fs::create_dir(no_perturbed.join("perturbed")).unwrap();
    expect_error(
        &["experiment", "analyze", &no_perturbed.display().to_string()],
        &["perturbed: no perturbed traces"],
    );

    expect_error(
        &[
            "experiment",
            "analyze",
            &root.join("missing").display().to_string(),
        ],
        &["missing: (file): no such file or directory"],
    );

    let mut results: Value = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join("traxr/goldens/builtin_stub.json")).unwrap(),
    )
    .unwrap();
    results["traces"]
        .as_object_mut()
        .unwrap()
        .remove("baseline");
    let no_base_results = root.join("results.json");
    std::fs::write(&no_base_results, results.to_string()).unwrap();
    expect_error(
        &[
            "experiment",
            "analyze",
            &no_base_results.display().to_string(),
        ],
        &["traces.baseline: the results file has no baseline trace"],
    );

    expect_error(
        &["experiment", "analyze", &shadow("demo", "baseline")],
        &["a single trace, not an experiment"],
    );
    expect_error(
        &["experiment", "pair", &shadow("demo", "baseline")],
        &["missing PERTURBED"],
    );
    expect_error(
        &[
            "experiment",
            "pair",
            &golden("builtin_stub"),
            &shadow("demo", "baseline"),
        ],
        &["results file", "veer experiment analyze"],
    );
    expect_error(
        &[
            "experiment",
            "pair",
            &shadow("demo", "baseline"),
            &root.join("nope.agentlog").display().to_string(),
        ],
        &["nope.agentlog: (file): no such file or directory"],
    );
    expect_error(
        &[
            "experiment",
            "analyze",
            &golden("builtin_stub"),
            "--format",
            "junit",
        ],
        &["invalid value 'junit'"],
    );
}

#[test]
fn output_file_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("report.md");
    let r = veer_ok(
        &[
            "experiment",
            "analyze",
            &golden("external_mock"),
            "--format",
            "markdown",
            "-o",
            &out.display().to_string(),
        ],
        0,
    );
    assert!(r.stdout.is_empty());
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        analyze("external_mock", "markdown")
    );
}

#[test]
fn help_explains_with_examples() {
    for cmd in [
        &["experiment", "--help"][..],
        &["experiment", "pair", "--help"],
        &["experiment", "analyze", "--help"],
    ] {
        let r = veer_ok(cmd, 0);
        assert!(r.stdout.contains("Example"), "{cmd:?}: {}", r.stdout);
    }
}

/// A perturbation whose effect the clean re-runs show on their own keeps traxr's class and is
/// labelled `within_noise` in veer's own `noise` block; traxr's pair layout is unchanged.
#[test]
fn an_effect_the_clean_reruns_show_too_is_within_noise() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("item-8");
    std::fs::create_dir_all(dir.join("perturbed")).unwrap();
    std::fs::create_dir_all(dir.join("reruns")).unwrap();
    let fx = fixtures().join("shadow/demo");
    std::fs::copy(fx.join("baseline.agentlog"), dir.join("baseline.agentlog")).unwrap();
    // A clean re-run that drifted as far as the perturbed run does.
    std::fs::copy(
        fx.join("candidate.agentlog"),
        dir.join("reruns/run-2.agentlog"),
    )
    .unwrap();
    std::fs::copy(
        fx.join("candidate.agentlog"),
        dir.join("perturbed/content_filter.agentlog"),
    )
    .unwrap();
    let d = dir.display().to_string();
    let json = veer_ok(&["experiment", "analyze", &d, "--format", "json"], 0);
    let v: Value = serde_json::from_str(&json.stdout).unwrap();
    let pair = &v["pairs"][0];
    assert!(pair.get("within_noise").is_none(), "traxr's pair layout");
    assert_eq!(pair["d_norm"], 0.2);
    let noise = &v["noise"];
    assert_eq!(noise["spread"]["clean_runs"], 2);
    assert_eq!(noise["spread"]["d_norm"], 0.2);
    assert_eq!(noise["pairs"][0]["within_noise"], true);
    assert_eq!(noise["pairs"][0]["manifestation"], pair["manifestation"]);
    assert_eq!(
        (
            noise["within_noise"].as_u64(),
            noise["beyond_noise"].as_u64()
        ),
        (Some(1), Some(0))
    );
    let terminal = veer_ok(&["experiment", "analyze", &d], 0);
    assert!(
        terminal
            .stdout
            .contains("beyond noise: 0 of 1 measured pair(s); within noise: 1"),
        "{}",
        terminal.stdout
    );
    // Byte-identical across thread counts.
    let one = std::process::Command::new(env!("CARGO_BIN_EXE_veer"))
        .args(["experiment", "analyze", &d, "--format", "json"])
        .env("RAYON_NUM_THREADS", "1")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&one.stdout), json.stdout);
}
