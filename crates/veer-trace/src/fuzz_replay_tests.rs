//! Replays the committed fuzz corpora (`fuzz/corpus/<target>/`) and crash regressions
//! (`fuzz/regressions/<target>/`) through the same code the fuzz targets run, as ordinary
//! tests: CI replays the corpus, not the fuzzer (docs/fuzzing.md).

use crate::agentlog::reader::read_agentlog_bytes;
use crate::agentlog::writer::write_agentlog;
use crate::load::{load_bytes, Document};
use crate::options::ReadOptions;
use std::path::{Path, PathBuf};

fn inputs(target: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let mut files = Vec::new();
    for dir in ["corpus", "regressions"] {
        if let Ok(entries) = std::fs::read_dir(root.join(dir).join(target)) {
            files.extend(entries.filter_map(|e| e.ok()).map(|e| e.path()));
        }
    }
    files.sort();
    files
}

#[test]
fn agentlog_reader_corpus() {
    let files = inputs("agentlog_reader");
    assert!(files.len() >= 10, "seed corpus present");
    for f in files {
        let data = std::fs::read(&f).unwrap();
        let small = ReadOptions {
            strict: false,
            max_line_bytes: 1 << 16,
        };
        if let Ok(trace) = read_agentlog_bytes("fuzz.agentlog", &data, &small) {
            let _ = trace.features();
            let _ = trace.tool_calls();
            let _ = trace.turns();
            let _ = trace.policy_sessions();
            let mut out = Vec::new();
            write_agentlog(&trace, &mut out).unwrap();
            assert!(
                read_agentlog_bytes("fuzz.agentlog", &out, &small).is_ok(),
                "{}",
                f.display()
            );
        }
        let strict = ReadOptions {
            strict: true,
            max_line_bytes: 1 << 16,
        };
        let _ = read_agentlog_bytes("fuzz.agentlog", &data, &strict);
    }
}

#[test]
fn traxr_reader_corpus() {
    let files = inputs("traxr_reader");
    assert!(files.len() >= 5, "seed corpus present");
    for f in files {
        let data = std::fs::read(&f).unwrap();
        for strict in [false, true] {
            let options = ReadOptions {
                strict,
                max_line_bytes: 1 << 16,
            };
            if let Ok(doc) = load_bytes("fuzz.json", &data, &options) {
                let traces = match doc {
                    Document::Trace(t) => vec![t],
                    Document::Results(r) => r.traces.into_iter().map(|(_, t)| t).collect(),
                    Document::AnalyzerCase(c) => vec![c.clean, c.perturbed],
                };
                for t in traces {
                    let _ = t.features();
                    let _ = t.turns();
                    let mut out = Vec::new();
                    write_agentlog(&t, &mut out).unwrap();
                }
            }
        }
    }
}
