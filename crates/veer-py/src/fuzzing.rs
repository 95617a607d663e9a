//! The body of the `pair_summary` fuzz target (`fuzz/fuzz_targets/pair_summary.rs`): any bytes
//! as a pair summary handed in from Python (`veer.merge_summaries`, `veer.finish_summary`),
//! kept in the library so the fuzzer and the corpus-replay test run the same code
//! (docs/fuzzing.md). Panics only when an invariant breaks.

use crate::api::{empty_summary, finish_summary, merge_summaries};

/// Any bytes as a summary: rejected with an error, or accepted, in which case the empty
/// summary is its identity under merge, it finishes, and merging it with itself without
/// deltas finishes with the same counts doubled.
pub fn pair_summary(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(same) = merge_summaries(text, &empty_summary(), true) else {
        return;
    };
    let left = merge_summaries(&empty_summary(), text, true);
    assert_eq!(
        left.as_ref().ok(),
        Some(&same),
        "the empty summary is an identity"
    );
    let finished = finish_summary(text, 0, None);
    assert!(finished.is_ok(), "an accepted summary finishes");
    assert_eq!(finished.ok(), finish_summary(&same, 0, None).ok());
    let twice = merge_summaries(text, text, false);
    assert!(twice.is_ok(), "an accepted summary merges with itself");
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_committed_corpus_replays() {
        veer_trace::fuzzing::replay_corpus("pair_summary", 2, super::pair_summary);
    }
}
