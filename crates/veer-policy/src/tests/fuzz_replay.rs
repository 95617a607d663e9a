//! Replays the committed fuzz corpora and crash regressions of the policy targets
//! (`fuzz/corpus/<target>/`, `fuzz/regressions/<target>/`) through the very bodies the fuzz
//! targets run (`crate::fuzzing`): CI replays the corpus, not the fuzzer (docs/fuzzing.md).

use crate::fuzzing;
use std::path::{Path, PathBuf};
use veer_trace::agentlog::reader::read_agentlog_bytes;
use veer_trace::ReadOptions;

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

fn replay(target: &str, min: usize, body: impl Fn(&[u8])) {
    let files = inputs(target);
    assert!(files.len() >= min, "{target}: seed corpus present");
    for f in files {
        let data = std::fs::read(&f).unwrap();
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(&data)));
        assert!(caught.is_ok(), "{target}: {} fails", f.display());
    }
}

#[test]
fn policy_loader_corpus() {
    let bytes = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples/refund-agent/candidate.agentlog"),
    )
    .unwrap();
    let trace = read_agentlog_bytes("candidate.agentlog", &bytes, &ReadOptions::default()).unwrap();
    replay("policy_loader", 5, |d| fuzzing::policy_loader(d, &trace));
}

#[test]
fn when_resolver_corpus() {
    replay("when_resolver", 5, fuzzing::when_resolver);
}

#[test]
fn ltl_parser_corpus() {
    replay("ltl_parser", 5, fuzzing::ltl_parser);
}
