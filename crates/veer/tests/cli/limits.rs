//! Reading limits on generated hostile inputs (docs/limits.md): gzip bombs, a huge line, a
//! results file of many events and endless streams end with exit 2 and a message naming the
//! file, the limit and the flag — or, within the limits, are read — in bounded time under the
//! bad-input corpus's address-space limit. (The small cases are in `tests/bad_inputs/`.)

use super::bad_inputs::{check, run_bounded};
use std::io::Write;
use std::path::Path;

const RECORD: &str = r#"{"version":"0.1","id":"x","kind":"tool_result","ts":"2026-11-20T10:00:00.137Z","parent":null,"payload":{}}"#;

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap()
}

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// `member` repeated `times` times into `path` (gzip members concatenate into one stream).
fn write_repeated(path: &Path, member: &[u8], times: usize) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    for _ in 0..times {
        f.write_all(member).unwrap();
    }
    f.flush().unwrap();
}

#[test]
fn gzip_bomb_of_blank_lines_stops_at_the_byte_limit() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bomb.agentlog.gz");
    // ~10 GiB of newlines in ~10 MB of gzip.
    write_repeated(&p, &gzip(&vec![b'\n'; 8 << 20]), 1280);
    let limit = 32_000_000u64;
    for command in ["inspect", "scan"] {
        check(
            &format!("{command}-gzip-bomb-blank-lines"),
            &[
                command.into(),
                s(&p),
                "--max-trace-bytes".into(),
                limit.to_string(),
            ],
            2,
            &[
                format!(
                    "bomb.agentlog.gz: (file): trace is larger than the limit of {limit} bytes"
                ),
                "--max-trace-bytes N".into(),
            ],
        );
    }
}

#[test]
fn gzip_bomb_of_records_stops_at_the_record_limit() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("records.agentlog.gz");
    let member = gzip(format!("{RECORD}\n").repeat(1000).as_bytes());
    write_repeated(&p, &member, 10_000); // 10,000,000 records
    check(
        "gzip-bomb-records",
        &[
            "inspect".into(),
            s(&p),
            "--max-records".into(),
            "5000".into(),
        ],
        2,
        &[
            "records.agentlog.gz:5001: (file): more than the limit of 5000 records".into(),
            "raise the limit with --max-records N".into(),
        ],
    );
}

#[test]
fn a_huge_line_with_the_limit_raised_is_read_within_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("huge.agentlog");
    let mut bytes = Vec::with_capacity(200 << 20);
    bytes.extend_from_slice(br#"{"version":"0.1","id":"x","kind":"tool_result","ts":"2026-11-20T10:00:00.137Z","parent":null,"payload":{"output":""#);
    bytes.resize(200 << 20, b'y');
    bytes.extend_from_slice(b"\"}}\n");
    std::fs::write(&p, &bytes).unwrap();
    drop(bytes);
    let out = run_bounded(&[
        "inspect".into(),
        s(&p),
        "--format".into(),
        "json".into(),
        "--max-line-bytes".into(),
        "300000000".into(),
    ]);
    assert_eq!(out.code, 0, "stderr:\n{}", out.stderr);
    // Garbage of the same size is refused for what it is.
    let mut garbage = vec![b'{'; 1];
    garbage.resize(200 << 20, b'#');
    std::fs::write(&p, &garbage).unwrap();
    check(
        "huge-garbage-line",
        &[
            "inspect".into(),
            s(&p),
            "--max-line-bytes".into(),
            "300000000".into(),
        ],
        2,
        &["huge.agentlog:1: (line): invalid JSON".into()],
    );
}

#[test]
fn a_results_file_of_many_events_stops_at_the_record_limit() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("results.json");
    let golden = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/traxr/goldens/external_mock.json");
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(golden).unwrap()).unwrap();
    let events = doc["traces"]["baseline"]["events"].as_array().unwrap();
    let mut traces = serde_json::Map::new();
    for run in 0..4 {
        let evs: Vec<serde_json::Value> = (0..2500)
            .map(|i| {
                let mut e = events[i % events.len()].clone();
                e["sequence_index"] = i.into();
                e
            })
            .collect();
        traces.insert(
            format!("run{run}"),
            serde_json::json!({"run_label": format!("run{run}"), "events": evs}),
        );
    }
    let results = serde_json::json!({"traces": traces, "pairs": []});
    std::fs::write(&p, serde_json::to_vec(&results).unwrap()).unwrap();
    check(
        "many-event-results",
        &[
            "inspect".into(),
            s(&p),
            "--max-records".into(),
            "9999".into(),
        ],
        2,
        &[
            "results.json: (file): more than the limit of 9999 records".into(),
            "raise the limit with --max-records N".into(),
        ],
    );
    let out = run_bounded(&[
        "inspect".into(),
        s(&p),
        "--max-records".into(),
        "10000".into(),
    ]);
    assert_ne!(out.code, 2, "stderr:\n{}", out.stderr);
}

#[test]
fn limit_flags_are_listed_in_help() {
    for command in ["inspect", "diff", "check", "convert", "gate"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_veer"))
            .args([command, "--help"])
            .output()
            .unwrap();
        let help = String::from_utf8_lossy(&out.stdout);
        for flag in ["--max-line-bytes", "--max-trace-bytes", "--max-records"] {
            assert!(help.contains(flag), "{command} --help lacks {flag}");
        }
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_veer"))
        .args(["gate", "--help"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("--max-report-bytes"));
}
