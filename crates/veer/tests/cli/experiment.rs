//! `veer experiment analyze`: snapshots of every format on traxr's experiment goldens, the
//! exact summary-text and Markdown-row vectors of spec `experiment.md` §11.5, parity of the
//! JSON with traxr's goldens (§14.2), determinism and `--expected-answer`. `experiment pair` is
//! in `experiment_pair.rs`, directory experiments in `experiment_dir.rs`, bad inputs, `-o`
//! and help in `experiment_errors.rs`.

use crate::common::{fixtures, veer_ok};
use serde_json::Value;

const GOLDENS: [&str; 2] = ["builtin_stub", "external_mock"];

pub(crate) fn golden(name: &str) -> String {
    format!("tests/fixtures/traxr/goldens/{name}.json")
}

pub(crate) fn analyze(name: &str, format: &str) -> String {
    veer_ok(
        &["experiment", "analyze", &golden(name), "--format", format],
        0,
    )
    .stdout
}

pub(crate) fn shadow(name: &str, side: &str) -> String {
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
