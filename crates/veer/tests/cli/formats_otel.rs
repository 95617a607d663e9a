//! OpenTelemetry OTLP/JSON input in every command, `veer convert`, and the near-miss errors.
//! The vectors are written by the real SDKs and instrumentations (tests/fixtures/otel).

use crate::common::{veer, veer_ok};
use serde_json::Value;

const DIR: &str = "tests/fixtures/otel";
/// Each instrumentation's vectors: (directory, file suffix).
const VECTORS: [(&str, &str); 7] = [
    ("openai-v2/content", ".json"),
    ("openai-v2/no-content", ".json"),
    ("anthropic/content", ".otlp.jsonl"),
    ("anthropic/no-content", ".json"),
    ("anthropic-openllmetry-legacy/content", ".json"),
    ("openinference/content", ".otlp.jsonl"),
    ("openinference/no-content", ".json"),
];

fn side(dir: &str, suffix: &str, variant: &str) -> String {
    format!("{DIR}/{dir}/{variant}{suffix}")
}

fn diff_json(b: &str, c: &str) -> Value {
    let r = veer_ok(&["diff", b, c, "--format", "json"], 0);
    serde_json::from_str(&r.stdout).unwrap()
}

/// The report without what names the files (paths; and the file in each warning).
fn without_paths(mut v: Value) -> Value {
    for k in ["baseline", "candidate"] {
        v[k]["path"] = Value::Null;
    }
    if let Some(ws) = v["warnings"].as_array_mut() {
        for w in ws {
            let s = w.as_str().unwrap();
            *w = Value::String(s.split_once(": ").map_or(s, |(_, rest)| rest).to_string());
        }
    }
    v
}

#[test]
fn diff_finds_the_changed_tool_call_in_every_vector() {
    for (dir, suffix) in VECTORS {
        let v = diff_json(
            &side(dir, suffix, "baseline"),
            &side(dir, suffix, "candidate"),
        );
        let fd = &v["first_divergence"];
        assert_eq!(fd["baseline_turn"], 1, "{dir}: {fd}");
        assert_eq!(fd["candidate_turn"], 1, "{dir}");
        assert_eq!(fd["primary_axis"], "trajectory", "{dir}");
        assert!(
            fd["explanation"].as_str().unwrap().contains("send_email"),
            "{dir}"
        );
        assert!(v["structural"]["d_norm"].as_f64().unwrap() > 0.0, "{dir}");
        let traj = v["axes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["axis"] == "trajectory")
            .unwrap();
        assert!(traj["ci95_high"].as_f64().unwrap() > 0.0, "{dir}");
        let warned = v["warnings"].as_array().unwrap().iter().any(|w| {
            w.as_str()
                .unwrap()
                .contains("semantic, verbosity and refusal axes cannot be judged")
        });
        assert_eq!(
            warned,
            dir.ends_with("no-content"),
            "{dir}: {}",
            v["warnings"]
        );
    }
}

#[test]
fn an_agentlog_baseline_diffs_against_an_otel_candidate() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().join("base.agentlog");
    let base = base.to_str().unwrap();
    veer_ok(
        &[
            "convert",
            &side("openai-v2/content", ".json", "baseline"),
            "-o",
            base,
        ],
        0,
    );
    let v = diff_json(base, &side("openai-v2/content", ".json", "candidate"));
    assert_eq!(v["first_divergence"]["baseline_turn"], 1);
}

#[test]
fn converted_traces_diff_exactly_like_their_sources() {
    let tmp = tempfile::tempdir().unwrap();
    for (dir, suffix) in VECTORS {
        let mut converted = Vec::new();
        for variant in ["baseline", "candidate"] {
            let out = tmp
                .path()
                .join(format!("{}-{variant}.agentlog", dir.replace('/', "-")));
            let out = out.to_str().unwrap().to_string();
            veer_ok(&["convert", &side(dir, suffix, variant), "-o", &out], 0);
            // Canonical: the strict reader (content ids, parents, timestamps) accepts it.
            let r = veer_ok(&["inspect", "--strict", "--format", "json", &out], 0);
            let inspect: Value = serde_json::from_str(&r.stdout).unwrap();
            assert_eq!(inspect["traces"][0]["format"], "agentlog");
            converted.push(out);
        }
        let original = diff_json(
            &side(dir, suffix, "baseline"),
            &side(dir, suffix, "candidate"),
        );
        let again = diff_json(&converted[0], &converted[1]);
        assert_eq!(without_paths(original), without_paths(again), "{dir}");
    }
}

#[test]
fn convert_writes_a_metadata_record_naming_the_source_format_and_version() {
    let r = veer_ok(
        &[
            "convert",
            &side("openinference/content", ".json", "baseline"),
        ],
        0,
    );
    let first: Value = serde_json::from_str(r.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(first["kind"], "metadata");
    assert_eq!(first["payload"]["tags"]["source_format"], "otel");
    assert_eq!(first["payload"]["sdk"]["name"], "veer");
    assert_eq!(
        first["payload"]["sdk"]["version"],
        env!("CARGO_PKG_VERSION")
    );
}

#[test]
fn convert_reads_an_export_split_over_files_in_any_order() {
    // Split one export's spans over two files, given in both orders.
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(side("openai-v2/content", ".json", "baseline")),
    )
    .unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let mut parts = Vec::new();
    for (i, rs) in doc["resourceSpans"].as_array().unwrap().iter().enumerate() {
        for (j, ss) in rs["scopeSpans"].as_array().unwrap().iter().enumerate() {
            for (k, span) in ss["spans"].as_array().unwrap().iter().enumerate() {
                let one = serde_json::json!({"resourceSpans": [{"resource": rs["resource"], "scopeSpans": [{"scope": ss["scope"], "spans": [span]}]}]});
                let p = tmp.path().join(format!("part-{i}-{j}-{k}.json"));
                std::fs::write(&p, serde_json::to_string(&one).unwrap()).unwrap();
                parts.push(p.to_str().unwrap().to_string());
            }
        }
    }
    assert!(parts.len() > 3);
    let mut args = vec!["convert".to_string()];
    args.extend(parts.iter().cloned());
    let forward = veer_ok(&args.iter().map(String::as_str).collect::<Vec<_>>(), 0).stdout;
    args[1..].reverse();
    let backward = veer_ok(&args.iter().map(String::as_str).collect::<Vec<_>>(), 0).stdout;
    assert_eq!(forward, backward);
    let whole = veer_ok(
        &["convert", &side("openai-v2/content", ".json", "baseline")],
        0,
    )
    .stdout;
    assert_eq!(forward, whole);
}

#[test]
fn convert_refuses_to_overwrite_its_input() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("x.json");
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(side("openai-v2/content", ".json", "baseline"));
    std::fs::copy(&src, &p).unwrap();
    let before = std::fs::read(&p).unwrap();
    let p = p.to_str().unwrap();
    let r = veer_ok(&["convert", p, "-o", p], 2);
    assert!(
        r.stderr
            .contains("refusing to write the report over an input"),
        "{}",
        r.stderr
    );
    assert_eq!(std::fs::read(p).unwrap(), before);
}

#[test]
fn check_applies_a_policy_to_otel_traces() {
    let policy = format!("{DIR}/policy/refund.yaml");
    for (dir, suffix) in VECTORS {
        let r = veer_ok(
            &[
                "check",
                &side(dir, suffix, "baseline"),
                "--policy",
                &policy,
                "--format",
                "json",
            ],
            0,
        );
        let v: Value = serde_json::from_str(&r.stdout).unwrap();
        assert_eq!(
            v["traces"][0]["violations"].as_array().unwrap().len(),
            0,
            "{dir}: {v}"
        );
        let r = veer(&[
            "check",
            &side(dir, suffix, "candidate"),
            "--policy",
            &policy,
            "--format",
            "json",
        ]);
        assert_eq!(r.code, 1, "{dir}: {}", r.stderr);
        let v: Value = serde_json::from_str(&r.stdout).unwrap();
        let rules: Vec<&str> = v["traces"][0]["violations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["rule_id"].as_str().unwrap())
            .collect();
        assert!(
            rules.contains(&"refund-issued") && rules.contains(&"no-email"),
            "{dir}: {rules:?}"
        );
    }
}

#[test]
fn inspect_names_the_detected_format() {
    let r = veer_ok(
        &["inspect", &side("openai-v2/content", ".json", "baseline")],
        0,
    );
    assert!(
        r.stdout.contains("(otel, 11 records, 3 turns, 1 session)"),
        "{}",
        r.stdout
    );
    let r = veer_ok(
        &[
            "inspect",
            "--format",
            "json",
            &side("openinference/content", ".otlp.jsonl", "candidate"),
        ],
        0,
    );
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["traces"][0]["format"], "otel");
}

#[test]
fn a_directory_of_otel_files_reads_in_directory_mode() {
    let r = veer_ok(
        &[
            "inspect",
            &format!("{DIR}/openai-v2/content"),
            "--format",
            "json",
        ],
        0,
    );
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["traces"].as_array().unwrap().len(), 4);
    let r = veer_ok(&["scan", &format!("{DIR}/openai-v2/content")], 0);
    assert!(r.code == 0, "{}", r.stdout);
}

fn write(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> String {
    let p = dir.path().join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn near_misses_get_specific_hints() {
    let tmp = tempfile::tempdir().unwrap();
    let binary = write(
        &tmp,
        "spans.json",
        b"\x0a\x8c\x02\x0a\x1f\x0a\x0c\x00\x01service.name",
    );
    let r = veer_ok(&["inspect", &binary], 2);
    assert!(
        r.stderr.contains("binary OTLP protobuf") && r.stderr.contains("export OTLP as JSON"),
        "{}",
        r.stderr
    );

    let http = write(&tmp, "http.json", br#"{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"b7ad6b7169203331","name":"GET","attributes":[{"key":"http.method","value":{"stringValue":"GET"}}]}]}]}]}"#);
    let r = veer_ok(&["inspect", &http], 2);
    assert!(
        r.stderr.contains("no model calls found in 1 spans"),
        "{}",
        r.stderr
    );

    let completion = write(&tmp, "resp.json", br#"{"id":"chatcmpl-1","object":"chat.completion","model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"hi"}}]}"#);
    let r = veer_ok(&["diff", &completion, &http], 2);
    assert!(
        r.stderr.contains("single chat-completions response")
            && r.stderr.contains("record the whole agent run"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("veer reads: agentlog"), "{}", r.stderr);

    let other = write(&tmp, "other.json", b"{\"hello\": \"world\"}\n");
    let r = veer_ok(&["inspect", &other], 2);
    assert!(
        r.stderr.contains("not a trace format veer reads") && r.stderr.contains("otel ("),
        "{}",
        r.stderr
    );
}

#[test]
fn bad_otlp_names_file_line_and_field() {
    let tmp = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(side("openai-v2/content", ".otlp.jsonl", "baseline")),
    )
    .unwrap();
    let cut = write(&tmp, "cut.jsonl", &text.as_bytes()[..text.len() / 2]);
    let r = veer_ok(&["inspect", &cut], 2);
    assert!(
        r.stderr.contains("cut.jsonl:1:") && r.stderr.contains("cut off"),
        "{}",
        r.stderr
    );
    let wrong = text.replacen("\"startTimeUnixNano\":\"", "\"startTimeUnixNano\":[\"", 1);
    let wrong = write(&tmp, "wrong.jsonl", format!("{text}{wrong}").as_bytes());
    let r = veer_ok(&["inspect", &wrong], 2);
    assert!(
        r.stderr
            .contains("wrong.jsonl:2: resourceSpans[0].scopeSpans[0].spans[0].startTimeUnixNano"),
        "{}",
        r.stderr
    );
}

/// Framework and trace-store exports, written by the real libraries (tests/fixtures/otel/*/
/// SOURCE.md), diffed against each other: (baseline, candidate).
const EXPORT_PAIRS: [(&str, &str); 4] = [
    ("adk/legacy/spans.json", "jaeger/adk-legacy.jaeger.json"),
    ("tempo/adk-legacy.tempo-old.json", "vercel-ai/spans.json"),
    ("pydantic-ai/v5.json", "pydantic-ai/v2.json"),
    ("adk/current/logs.json", "adk/legacy/spans.json"),
];

#[test]
fn framework_and_store_exports_convert_to_strict_agentlogs_that_diff_alike() {
    let tmp = tempfile::tempdir().unwrap();
    for (n, (b, c)) in EXPORT_PAIRS.iter().enumerate() {
        let mut converted = Vec::new();
        for (side, rel) in [("b", b), ("c", c)] {
            let out = tmp.path().join(format!("{n}-{side}.agentlog"));
            let out = out.to_str().unwrap().to_string();
            veer_ok(&["convert", &format!("{DIR}/{rel}"), "-o", &out], 0);
            let r = veer_ok(&["inspect", "--strict", "--format", "json", &out], 0);
            let inspect: Value = serde_json::from_str(&r.stdout).unwrap();
            assert_eq!(inspect["traces"][0]["format"], "agentlog", "{rel}");
            converted.push(out);
        }
        let original = diff_json(&format!("{DIR}/{b}"), &format!("{DIR}/{c}"));
        let again = diff_json(&converted[0], &converted[1]);
        for key in [
            "pair_count",
            "axes",
            "worst_severity",
            "divergences",
            "drill_down",
        ] {
            assert_eq!(original[key], again[key], "{b} vs {c}: {key}");
        }
    }
}

#[test]
fn a_trace_export_and_its_logs_export_convert_as_one() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("adk.agentlog");
    let out = out.to_str().unwrap().to_string();
    let spans = format!("{DIR}/adk/current/spans.json");
    let logs = format!("{DIR}/adk/current/logs.json");
    let r = veer_ok(&["convert", &logs, &spans, "-o", &out], 0);
    assert!(!r.stderr.contains("not captured"), "{}", r.stderr);
    let r = veer_ok(&["inspect", "--strict", "--format", "json", &out], 0);
    let inspect: Value = serde_json::from_str(&r.stdout).unwrap();
    let turns = inspect["traces"][0]["turns"].as_array().map(Vec::len);
    assert_eq!(turns, Some(2), "{}", r.stdout);
    assert_eq!(
        inspect["traces"][0]["turns"][0]["tools"][0]["name"],
        "get_weather"
    );
}
