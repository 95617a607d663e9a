//! What trace stores hand back: Grafana Tempo's `batches` and Jaeger's UI JSON, detected by
//! content and read as the spans they hold (`tests/fixtures/otel/tempo`, `…/jaeger`).

use super::*;
use crate::load::{load_bytes, Document};
use crate::options::ReadOptions;

fn detected(rel: &str) -> Result<Trace, crate::error::TraceError> {
    let (name, bytes) = fixture(rel);
    match load_bytes(&name, &bytes, &ReadOptions::default())? {
        Document::Trace(t) => Ok(t),
        _ => panic!("{rel}: not a trace"),
    }
}

fn assert_adk_counts(t: &Trace, rel: &str) {
    // `adk/expected.py`: 2 model calls, one get_weather, 271 / 20 tokens.
    assert_eq!(t.format, Format::Otel, "{rel}");
    assert_eq!(t.responses().len(), 2, "{rel}");
    assert_eq!(tool_names(t), ["get_weather"], "{rel}");
    let sum = |k: &str| -> f64 { t.responses().iter().filter_map(|r| r.usage(k)).sum() };
    assert_eq!(sum("input_tokens"), 271.0, "{rel}");
    assert_eq!(sum("output_tokens"), 20.0, "{rel}");
    assert_eq!(t.responses()[0].stop_reason(), Some("tool_use"), "{rel}");
    assert_eq!(
        t.responses()[1].text(" "),
        "It is sunny in Paris, 25 degrees.",
        "{rel}"
    );
}

#[test]
fn tempo_batches_read_as_the_spans_they_hold_in_either_naming() {
    let direct = read_fixture("adk/legacy/spans.json");
    for rel in [
        "tempo/adk-legacy.tempo.json",
        "tempo/adk-legacy.tempo-old.json",
    ] {
        let t = detected(rel).unwrap_or_else(|e| panic!("{rel}: {e}"));
        assert_adk_counts(&t, rel);
        // The same records as the OTLP export they were stored from.
        let ids = |t: &Trace| t.records.iter().map(|r| r.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&t), ids(&direct), "{rel}");
    }
    // The old naming holds every batch twice: read once, with a warning.
    let old = detected("tempo/adk-legacy.tempo-old.json").unwrap();
    assert!(old
        .warnings
        .iter()
        .any(|w| w.message.contains("more than once")));
}

#[test]
fn jaeger_ui_json_reads_as_the_spans_it_holds() {
    let t = detected("jaeger/adk-legacy.jaeger.json").unwrap_or_else(|e| panic!("{e}"));
    assert_adk_counts(&t, "jaeger");
    let calls = t.tool_calls();
    assert_eq!(calls[0].arguments.get("city"), Some(&json!("Paris")));
}

#[test]
fn jaegers_own_fixture_is_read_as_jaeger_and_holds_no_model_call() {
    // 5 span records, 4 distinct span ids (one given twice), no GenAI attributes.
    let e = detected("jaeger/ui_01.json").unwrap_err();
    assert!(
        e.to_string().contains("no model calls found in 5 spans"),
        "{e}"
    );
}

#[test]
fn a_broken_jaeger_document_names_the_field() {
    let bad = br#"{"data": [{"traceID": "1", "spans": [{"traceID": "1", "spanID": 7}]}]}"#;
    let e = match load_bytes("bad.json", bad, &ReadOptions::default()) {
        Err(e) => e,
        Ok(_) => panic!("read"),
    };
    let text = e.to_string();
    assert!(text.contains("spanID"), "{text}");
    assert!(text.contains("Jaeger"), "{text}");
}

#[test]
fn cut_store_exports_fail_with_an_error_never_a_panic() {
    for rel in [
        "jaeger/adk-legacy.jaeger.json",
        "tempo/adk-legacy.tempo.json",
        "adk/legacy/logs.json",
    ] {
        let (name, bytes) = fixture(rel);
        for cut in (1..bytes.len()).step_by(bytes.len() / 37 + 1) {
            let r = load_bytes(&name, &bytes[..cut], &ReadOptions::default());
            assert!(r.is_err(), "{rel} cut at {cut} read");
        }
    }
}

#[test]
fn jaeger_json_with_its_keys_in_another_order_is_read_too() {
    let (_, bytes) = fixture("jaeger/adk-legacy.jaeger.json");
    let v: Value = serde_json::from_slice(&bytes).unwrap();
    // `spans` and `processes` before `traceID`, `total` before `data`.
    let trace = &v["data"][0];
    let reordered = json!({
        "total": 0,
        "data": [{"spans": trace["spans"], "processes": trace["processes"], "traceID": trace["traceID"]}],
    });
    let text = serde_json::to_vec_pretty(&reordered).unwrap();
    let t = match load_bytes("r.json", &text, &ReadOptions::default()).unwrap() {
        Document::Trace(t) => t,
        _ => panic!("not a trace"),
    };
    assert_adk_counts(&t, "reordered");
}
