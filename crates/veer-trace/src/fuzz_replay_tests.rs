//! Replays the committed fuzz corpora (`fuzz/corpus/<target>/`) and crash regressions
//! (`fuzz/regressions/<target>/`) through the very bodies the fuzz targets run
//! (`crate::fuzzing`), as ordinary tests: CI replays the corpus, not the fuzzer
//! (docs/fuzzing.md).

use crate::fuzzing::{agentlog_reader, otel_reader, replay_corpus, traxr_reader};

#[test]
fn agentlog_reader_corpus() {
    replay_corpus("agentlog_reader", 10, agentlog_reader);
}

#[test]
fn traxr_reader_corpus() {
    replay_corpus("traxr_reader", 5, traxr_reader);
}

#[test]
fn otel_reader_corpus() {
    replay_corpus("otel_reader", 5, otel_reader);
}
