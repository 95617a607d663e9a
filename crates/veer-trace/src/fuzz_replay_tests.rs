//! Replays the committed fuzz corpora (`fuzz/corpus/<target>/`) and crash regressions
//! (`fuzz/regressions/<target>/`) through the very bodies the fuzz targets run
//! (`crate::fuzzing`), as ordinary tests: CI replays the corpus, not the fuzzer
//! (docs/fuzzing.md).

use crate::formats::Foreign;
use crate::fuzzing::{
    agentlog_reader, foreign_reader, inspect_reader, otel_reader, replay_corpus, traxr_reader,
};

#[test]
fn agentlog_reader_corpus() {
    replay_corpus("agentlog_reader", 10, agentlog_reader);
}

#[test]
fn traxr_reader_corpus() {
    replay_corpus("traxr_reader", 5, traxr_reader);
}

#[test]
fn foreign_reader_corpora() {
    for (target, format) in [
        ("agents_sdk_reader", Foreign::AgentsSdk),
        ("claude_code_reader", Foreign::ClaudeCode),
        ("codex_reader", Foreign::Codex),
        ("langfuse_reader", Foreign::Langfuse),
        ("langsmith_reader", Foreign::Langsmith),
        ("mcp_reader", Foreign::Mcp),
    ] {
        replay_corpus(target, 2, |d| foreign_reader(format, d));
    }
}

#[test]
fn otel_reader_corpus() {
    replay_corpus("otel_reader", 5, otel_reader);
}

#[test]
fn inspect_reader_corpus() {
    replay_corpus("inspect_reader", 3, inspect_reader);
}
