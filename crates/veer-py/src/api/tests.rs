//! Unit tests of the Python package's Rust side ([`super`]).

use super::*;
use serde_json::Value;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

fn fixture(rel: &str) -> String {
    format!("{ROOT}/tests/fixtures/{rel}")
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or(Value::Null)
}

fn demo() -> (Input, Input) {
    (
        Input::Path(fixture("shadow/demo/baseline.agentlog")),
        Input::Path(fixture("shadow/demo/candidate.agentlog")),
    )
}

#[test]
fn bytes_diff_like_the_file_and_name_the_report_sides() {
    let (b, c) = demo();
    let bytes = |i: &Input, name: &str| Input::Bytes {
        name: name.to_string(),
        bytes: std::fs::read(i.name()).unwrap_or_default(),
    };
    let params = DiffParams::default();
    let from_files = diff(&b, &c, &params, false).map(|r| json(&r.0));
    let from_bytes = diff(&bytes(&b, "<b>"), &bytes(&c, "<c>"), &params, false).map(|r| json(&r.0));
    let (Ok(mut files), Ok(mut bytes)) = (from_files, from_bytes) else {
        panic!("the demo pair diffs");
    };
    assert_eq!(bytes["baseline"]["path"], "<b>");
    for r in [&mut files, &mut bytes] {
        r["baseline"]["path"] = Value::Null;
        r["candidate"]["path"] = Value::Null;
    }
    assert_eq!(files, bytes);
}

#[test]
fn a_bad_line_is_a_trace_error_with_its_line_and_field() {
    let (b, _) = demo();
    let bad = Input::Bytes {
        name: "bad".to_string(),
        bytes: b"{\"version\":\"0.1\"\n".to_vec(),
    };
    let e = diff(&b, &bad, &DiffParams::default(), false).err();
    let e = e.map(|e| (e.kind, e.file, e.line, e.field.is_some()));
    assert_eq!(
        e,
        Some((ErrorKind::Trace, Some("bad".to_string()), Some(1), true))
    );
}

#[test]
fn bad_arguments_are_input_errors() {
    let (b, c) = demo();
    for params in [
        DiffParams {
            top_k: 0,
            ..DiffParams::default()
        },
        DiffParams {
            fail_on: "often".to_string(),
            ..DiffParams::default()
        },
    ] {
        let e = diff(&b, &c, &params, false).err().map(|e| e.kind);
        assert_eq!(e, Some(ErrorKind::Input));
    }
    let e = diff(
        &b,
        &c,
        &DiffParams {
            pricing: Some(format!("{ROOT}/no/such/pricing.json")),
            ..DiffParams::default()
        },
        false,
    );
    assert_eq!(e.err().map(|e| e.kind), Some(ErrorKind::Pricing));
}

/// `redact: false` writes the report verbatim (the CLI's `--no-redact`); the default
/// replaces the secret in place, and the error of a bad input follows the same choice.
#[test]
fn redaction_is_chosen_per_call() {
    let (b, c) = demo();
    let named = Input::Bytes {
        name: "dana.lee@example.com".to_string(),
        bytes: std::fs::read(c.name()).unwrap_or_default(),
    };
    let report = |redact| {
        let params = DiffParams {
            redact,
            ..DiffParams::default()
        };
        diff(&b, &named, &params, false)
            .map(|r| r.0)
            .unwrap_or_default()
    };
    let (raw, redacted) = (report(false), report(true));
    assert!(raw.contains("\"path\": \"dana.lee@example.com\""), "{raw}");
    assert_eq!(
        redacted,
        raw.replace("dana.lee@example.com", "[REDACTED:email]")
    );
}

/// The verdict names what tripped the gate, as the CLI's "gate tripped by" line.
#[test]
fn the_verdict_names_the_trips() {
    let b = Input::Path(format!("{ROOT}/examples/refund-agent/baseline.agentlog"));
    let c = Input::Path(format!("{ROOT}/examples/refund-agent/candidate.agentlog"));
    let params = |fail_on: &str| DiffParams {
        policy: Some(format!("{ROOT}/examples/refund-agent/policy.yaml")),
        fail_on: fail_on.to_string(),
        ..DiffParams::default()
    };
    let v = diff(&b, &c, &params("minor"), false)
        .map(|r| json(&r.1))
        .unwrap_or_default();
    assert_eq!(v["tripped"], true);
    let trips = v["trips"].as_array().cloned().unwrap_or_default();
    assert!(trips.iter().any(|t| t["kind"] == "policy"), "{v}");
    let line = v["tripped_by"].as_str().unwrap_or_default();
    assert!(line.contains("policy rule"), "{line}");
    let v = diff(&b, &c, &params("never"), false)
        .map(|r| json(&r.1))
        .unwrap_or_default();
    assert_eq!(v["tripped"], false);
    assert_eq!(v["trips"], serde_json::json!([]));
    assert_eq!(v["tripped_by"], Value::Null);
}

/// Summaries merged without deltas and finished with the middle deltas give the same
/// block as the summaries with their deltas.
#[test]
fn middles_finish_like_the_deltas() {
    let pairs = ["demo", "customer-support", "er-triage", "devops-agent"];
    let mut full = empty_summary();
    let mut slim = empty_summary();
    for p in pairs {
        let b = Input::Path(fixture(&format!("shadow/{p}/baseline.agentlog")));
        let c = Input::Path(fixture(&format!("shadow/{p}/candidate.agentlog")));
        let s = diff(&b, &c, &DiffParams::default(), true)
            .ok()
            .and_then(|r| r.2)
            .unwrap_or_default();
        full = merge_summaries(&full, &s, true).unwrap_or_default();
        slim = merge_summaries(&slim, &s, false).unwrap_or_default();
    }
    let parsed = json(&full);
    let mut middles = Vec::new();
    for a in parsed["axes"].as_array().cloned().unwrap_or_default() {
        let mut d: Vec<f64> = a["deltas"]
            .as_array()
            .map(|v| v.iter().filter_map(Value::as_f64).collect())
            .unwrap_or_default();
        d.sort_by(f64::total_cmp);
        let n = d.len();
        let mid = match n {
            0 => vec![],
            _ if n % 2 == 1 => vec![d[n / 2]],
            _ => vec![d[n / 2 - 1], d[n / 2]],
        };
        middles.push((a["axis"].as_str().unwrap_or("").to_string(), mid));
    }
    let expected = finish_summary(&full, 3, None).ok();
    assert!(expected.is_some());
    assert_eq!(finish_summary(&slim, 3, Some(&middles)).ok(), expected);
    assert_eq!(json(&slim)["axes"][0]["deltas"], Value::Array(vec![]));
}

#[test]
fn read_gives_one_record_per_line() {
    let (b, _) = demo();
    let bytes = convert(std::slice::from_ref(&b), true).unwrap_or_default();
    let text = String::from_utf8(bytes).unwrap_or_default();
    assert!(text.lines().count() > 3);
    assert!(text.lines().all(|l| json(l)["kind"].is_string()));
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    const AXES: [&str; 9] = [
        "semantic",
        "trajectory",
        "safety",
        "verbosity",
        "latency",
        "cost",
        "reasoning",
        "judge",
        "conformance",
    ];

    fn delta() -> impl Strategy<Value = f64> {
        prop_oneof![
            Just(0.0),
            Just(-0.0),
            Just(1.0),
            -1.0e6..1.0e6f64,
            (-3i32..3).prop_map(f64::from),
        ]
    }

    proptest! {
        /// The medians from the middle deltas (the Spark job's path) equal the medians
        /// from all the deltas (the CLI's), whatever the deltas and their order.
        #[test]
        fn middles_give_the_medians_of_all_deltas(
            deltas in proptest::collection::vec(proptest::collection::vec(delta(), 0..12), 9),
        ) {
            let axes: Vec<Value> = AXES.iter().zip(&deltas).map(|(a, d)| serde_json::json!({
                "axis": a, "none": d.len(), "minor": 0, "moderate": 0, "severe": 0,
                "worst_severity": "none", "deltas": d,
            })).collect();
            let total: usize = deltas.iter().map(Vec::len).sum();
            let full = serde_json::json!({
                "trace_pairs": total, "pair_count": total, "traces_with_divergence": 0,
                "axes": axes,
            }).to_string();
            let slim = merge_summaries(&empty_summary(), &full, false);
            prop_assert!(slim.is_ok());
            let middles: Vec<(String, Vec<f64>)> = AXES.iter().zip(&deltas).map(|(a, d)| {
                let mut d = d.clone();
                d.sort_by(f64::total_cmp);
                let n = d.len();
                let mid = match n {
                    0 => vec![],
                    _ if n % 2 == 1 => vec![d[n / 2]],
                    _ => vec![d[n / 2 - 1], d[n / 2]],
                };
                (a.to_string(), mid)
            }).collect();
            let expected = finish_summary(&full, 0, None);
            prop_assert!(expected.is_ok());
            prop_assert_eq!(
                finish_summary(&slim.unwrap_or_default(), 0, Some(&middles)).ok(),
                expected.ok()
            );
        }
    }
}

#[test]
fn directories_pair_like_the_cli_and_none_in_common_is_an_input_error() {
    let root = tempfile_dir("pair");
    let (b, c) = (root.join("b"), root.join("c"));
    for (dir, names) in [
        (&b, ["x.agentlog", "only_b.agentlog"]),
        (&c, ["x.agentlog", "only_c.agentlog"]),
    ] {
        std::fs::create_dir_all(dir.join("sub")).unwrap_or_default();
        for n in names {
            std::fs::write(dir.join("sub").join(n), b"").unwrap_or_default();
        }
    }
    let (bs, cs) = (b.display().to_string(), c.display().to_string());
    let (matched, only_b, only_c) = pair_directories(&bs, &cs).unwrap_or_default();
    assert_eq!(matched, ["sub/x.agentlog"]);
    assert_eq!(only_b, ["sub/only_b.agentlog"]);
    assert_eq!(only_c, ["sub/only_c.agentlog"]);
    let e = pair_directories(
        &b.join("sub").display().to_string(),
        &root.display().to_string(),
    )
    .err()
    .map(|e| (e.kind, e.message));
    assert!(
        matches!(&e, Some((ErrorKind::Input, m)) if m.contains("has a counterpart")),
        "{e:?}"
    );
    std::fs::remove_dir_all(&root).unwrap_or_default();
}

/// A fresh empty directory under the system's temporary directory.
fn tempfile_dir(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("veer-py-{tag}-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).unwrap_or_default();
    std::fs::create_dir_all(&dir).unwrap_or_default();
    dir
}

#[test]
fn fail_on_schema_gates_a_path_diff_on_the_offered_tools() {
    let (b, c) = (
        fixture("tool-schema/baseline.agentlog"),
        fixture("tool-schema/candidate.agentlog"),
    );
    let verdict = |options: &str| {
        let params = run::RunParams::from_json(options).map_err(|e| e.message);
        let params = params.unwrap_or_else(|m| panic!("{m}"));
        let (report, verdict, _) =
            run::run(&b, &c, &params).unwrap_or_else(|e| panic!("{}", e.message));
        (json(&report), json(&verdict))
    };
    let (report, v) = verdict(r#"{"fail_on_schema": "breaking"}"#);
    assert_eq!(report["tool_schema"]["tripped"], true);
    assert_eq!(v["tripped"], true);
    let (report, v) = verdict("{}");
    assert_eq!(report["tool_schema"]["worst"], "breaking");
    assert_eq!(v["tripped"], false);
    let e = run::RunParams::from_json(r#"{"fail_on_schema": "severe"}"#)
        .and_then(|p| p.request(&b, &c).map(|_| ()))
        .err()
        .map(|e| e.message);
    assert!(
        matches!(&e, Some(m) if m.contains("fail_on_schema")),
        "{e:?}"
    );
}
