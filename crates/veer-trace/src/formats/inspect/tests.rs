//! The Inspect reader on logs written by inspect-ai itself (tests/fixtures/inspect/, made by
//! its generate.py) and on damaged copies of them made here.

use super::sample::{outcome_of, score_of};
use super::*;
use crate::model::Kind;
use serde_json::json;
use std::io::Write;
use veer_base::format::Format;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/inspect")
        .join(name)
}

fn all(name: &str) -> Vec<InspectSample> {
    read_inspect_log(&fixture(name), &ReadOptions::default())
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap()
}

fn meta(s: &InspectSample) -> serde_json::Value {
    serde_json::to_value(&s.trace.records[0].payload).unwrap()
}

#[test]
fn every_sample_epoch_of_an_eval_log_is_one_trace() {
    let log = read_inspect_log(&fixture("baseline.eval"), &ReadOptions::default()).unwrap();
    assert_eq!(log.info().task, "lookup_task");
    assert_eq!(log.info().model, "mockllm/model");
    assert_eq!(log.info().epochs, 2);
    assert_eq!(log.len(), 6);
    let samples: Vec<InspectSample> = log.map(Result::unwrap).collect();
    let keys: Vec<(&str, u64)> = samples.iter().map(|s| (s.case.as_str(), s.trial)).collect();
    assert_eq!(
        keys,
        [
            ("1", 1),
            ("1", 2),
            ("3", 1),
            ("3", 2),
            ("orders/ORD-7", 1),
            ("orders/ORD-7", 2)
        ]
    );
    let ok = &samples[0];
    assert_eq!(ok.trace.format, Format::Inspect);
    assert_eq!(ok.trace.run_label.as_deref(), Some("1/trial-1"));
    let m = meta(ok);
    assert_eq!(m["case"], json!("1"));
    assert_eq!(m["trial"], json!(1));
    assert_eq!(m["outcome"], json!("pass"));
    assert_eq!(m["score"], json!(1.0));
    assert_eq!(m["scores"], json!({"includes": "C"}));
    assert_eq!(m["tags"]["source_format"], json!("inspect-ai"));
    assert_eq!(m["tags"]["model"], json!("mockllm/model"));
    let names: Vec<String> = ok.trace.tool_calls().into_iter().map(|c| c.name).collect();
    assert_eq!(names, ["lookup"]);
    let turns = ok.trace.turns();
    assert_eq!(turns.len(), 2);
    let first = &ok.trace.records[turns[0].response];
    assert_eq!(first.payload["stop_reason"], json!("tool_use"));
    assert!(first.payload["usage"]["input_tokens"].as_u64().unwrap() > 0);
    assert_eq!(
        ok.trace.records[turns[0].tool_results[0]].payload["output"],
        json!("sunny, 21 C")
    );
    let last = &ok.trace.records[turns[1].response];
    assert_eq!(last.payload["stop_reason"], json!("end_turn"));
    assert_eq!(
        last.payload["content"][0]["text"],
        json!("It is sunny, 21 C.")
    );
    assert!(ok.trace.warnings.is_empty(), "{:?}", ok.trace.warnings);
}

#[test]
fn an_errored_sample_carries_its_error_and_outcome() {
    let samples = all("baseline.eval");
    let errored = &samples[2];
    assert_eq!(errored.case, "3");
    let m = meta(errored);
    assert_eq!(m["outcome"], json!("error"));
    assert!(m["error"]
        .as_str()
        .unwrap()
        .contains("lookup backend failed"));
    let last = errored.trace.records.last().unwrap();
    assert_eq!(last.kind, Kind::Error);
    assert_eq!(last.payload["code"], json!("sample_error"));
}

#[test]
fn the_candidate_skips_the_tool_and_fails() {
    let samples = all("candidate.eval");
    assert_eq!(samples.len(), 6);
    for s in samples.iter().filter(|s| s.case != "3") {
        assert!(s.trace.tool_calls().is_empty());
        assert_eq!(meta(s)["outcome"], json!("fail"));
    }
}

#[test]
fn a_json_log_reads_like_an_eval_log() {
    let json = all("baseline.json");
    let keys: Vec<(&str, u64)> = json.iter().map(|s| (s.case.as_str(), s.trial)).collect();
    assert_eq!(keys, [("1", 1), ("3", 1)]);
    let eval = all("baseline.eval");
    for (j, e) in json.iter().zip([&eval[0], &eval[2]]) {
        let kinds = |s: &InspectSample| -> Vec<Kind> {
            s.trace.records.iter().map(|r| r.kind.clone()).collect()
        };
        assert_eq!(kinds(j), kinds(e));
        assert_eq!(meta(j)["outcome"], meta(e)["outcome"]);
    }
}

#[test]
fn single_trace_entry_points_take_one_sample_and_refuse_several() {
    let t = crate::load_trace(&fixture("one-sample.eval"), &ReadOptions::default()).unwrap();
    assert_eq!(t.format, Format::Inspect);
    assert_eq!(t.tool_calls().len(), 1);
    let e = crate::load_trace(&fixture("baseline.eval"), &ReadOptions::default()).unwrap_err();
    assert!(e.message.contains("6 sample-epochs"), "{e}");
    assert!(e.hint.unwrap().contains("veer convert"));
    let e = crate::load_trace(&fixture("baseline.json"), &ReadOptions::default()).unwrap_err();
    assert!(e.message.contains("2 sample-epochs"), "{e}");
}

/// The members of a fixture, in archive order (decompressed).
fn members(name: &str) -> Vec<(String, Vec<u8>)> {
    let bytes = std::fs::read(fixture(name)).unwrap();
    let mut z = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    (0..z.len())
        .map(|i| {
            let mut f = z.by_index(i).unwrap();
            let mut out = Vec::new();
            f.read_to_end(&mut out).unwrap();
            (f.name().to_string(), out)
        })
        .collect()
}

/// A zstd-compressed archive of `members`.
fn archive(members: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut w = ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let o = SimpleFileOptions::default().compression_method(CompressionMethod::Zstd);
    for (name, bytes) in members {
        w.start_file(name.as_str(), o).unwrap();
        w.write_all(bytes).unwrap();
    }
    w.finish().unwrap().into_inner()
}

fn read_bytes(bytes: Vec<u8>) -> Result<Vec<InspectSample>, TraceError> {
    read_inspect_bytes("bad.eval", bytes, &ReadOptions::default())?.collect()
}

#[test]
fn a_rewritten_archive_reads_the_same() {
    let again = read_bytes(archive(&members("baseline.eval"))).unwrap();
    let original = all("baseline.eval");
    assert_eq!(again.len(), original.len());
    assert_eq!(again[0].trace.records, original[0].trace.records);
}

#[test]
fn damaged_archives_name_the_member() {
    let good = std::fs::read(fixture("baseline.eval")).unwrap();
    let e = read_bytes(good[..good.len() / 2].to_vec()).unwrap_err();
    assert!(e.message.contains("not a readable zip archive"), "{e}");
    assert!(e.hint.unwrap().contains("truncated"));

    let mut m = members("baseline.eval");
    m.retain(|(n, _)| n != "header.json");
    let e = read_bytes(archive(&m)).unwrap_err();
    assert_eq!(e.field, "header.json");

    let mut m = members("baseline.eval");
    for (n, b) in &mut m {
        if n == "samples/1_epoch_2.json" {
            *b = b"{\"id\": 1, oops".to_vec();
        }
    }
    let e = read_bytes(archive(&m)).unwrap_err();
    assert_eq!(e.field, "samples/1_epoch_2.json");
    assert!(e.message.contains("not valid JSON"), "{e}");

    let mut m = members("baseline.eval");
    for (n, b) in &mut m {
        if n == "samples/1_epoch_1.json" {
            let mut v: serde_json::Value = serde_json::from_slice(b).unwrap();
            v["messages"][1]["tool_calls"][0]["function"] = json!(7);
            *b = serde_json::to_vec(&v).unwrap();
        }
    }
    let e = read_bytes(archive(&m)).unwrap_err();
    assert_eq!(
        e.field,
        "samples/1_epoch_1.json#messages[1].tool_calls[0].function"
    );
}

#[test]
fn a_member_past_the_cap_is_refused_while_it_streams() {
    // A highly compressible member, larger decompressed than the cap: refused after at most
    // cap + 1 bytes, whatever its header says.
    let mut m = members("one-sample.eval");
    m.push(("samples/9_epoch_1.json".into(), vec![b' '; 64 << 10]));
    let bytes = archive(&m);
    let log = archive::open_capped(
        "bomb.eval",
        std::io::Cursor::new(bytes),
        &ReadOptions::default(),
        32 << 10,
    )
    .unwrap();
    let e = log.collect::<Result<Vec<_>, _>>().unwrap_err();
    assert_eq!(e.field, "samples/9_epoch_1.json");
    assert!(e.message.contains("more than 32768 bytes"), "{e}");
}

#[test]
fn scores_read_as_inspect_reads_them() {
    assert_eq!(score_of(&json!("C")), Some(1.0));
    assert_eq!(score_of(&json!("P")), Some(0.5));
    assert_eq!(score_of(&json!("I")), Some(0.0));
    assert_eq!(score_of(&json!("Yes")), Some(1.0));
    assert_eq!(score_of(&json!("0.25")), Some(0.25));
    assert_eq!(score_of(&json!(true)), Some(1.0));
    assert_eq!(score_of(&json!({"a": 1})), None);
    // A partial score is no outcome by itself: `veer diff --outcome-threshold` decides.
    assert_eq!(outcome_of(Some(&json!(0.5)), false), None);
    assert_eq!(outcome_of(Some(&json!("P")), false), None);
    assert_eq!(outcome_of(Some(&json!(0)), false), Some("fail"));
    assert_eq!(outcome_of(Some(&json!(1)), false), Some("pass"));
    assert_eq!(outcome_of(None, true), Some("error"));
    assert_eq!(outcome_of(None, false), None);
}

#[test]
fn case_ids_become_safe_distinct_file_names() {
    assert_eq!(case_file_name("1"), "1");
    assert_eq!(case_file_name("task-7.b_c"), "task-7.b_c");
    let slash = case_file_name("orders/ORD-7");
    assert!(
        slash.starts_with("orders_ORD-7-") && slash.len() == 21,
        "{slash}"
    );
    assert_ne!(case_file_name("orders_ORD-7"), slash);
    for bad in ["..", ".", "", "../../etc", "a\\b", "é", &"x".repeat(300)] {
        let n = case_file_name(bad);
        assert!(
            !n.is_empty() && !n.starts_with('.') && !n.contains(['/', '\\']),
            "{n}"
        );
        assert!(n.len() <= 73, "{n}");
    }
}
