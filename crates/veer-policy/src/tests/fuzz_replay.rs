//! Replays the committed fuzz corpora and crash regressions of the policy targets
//! (`fuzz/corpus/<target>/`, `fuzz/regressions/<target>/`) through the very bodies the fuzz
//! targets run (`crate::fuzzing`): CI replays the corpus, not the fuzzer (docs/fuzzing.md).

use crate::fuzzing;
use std::path::Path;
use veer_trace::agentlog::reader::read_agentlog_bytes;
use veer_trace::fuzzing::replay_corpus;
use veer_trace::ReadOptions;

#[test]
fn policy_loader_corpus() {
    let bytes = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples/refund-agent/candidate.agentlog"),
    )
    .unwrap();
    let trace = read_agentlog_bytes("candidate.agentlog", &bytes, &ReadOptions::default()).unwrap();
    replay_corpus("policy_loader", 5, |d| fuzzing::policy_loader(d, &trace));
}

#[test]
fn when_resolver_corpus() {
    replay_corpus("when_resolver", 5, fuzzing::when_resolver);
}

#[test]
fn ltl_parser_corpus() {
    replay_corpus("ltl_parser", 5, fuzzing::ltl_parser);
}
