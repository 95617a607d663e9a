//! The body of the `run_outputs` fuzz target (`fuzz/fuzz_targets/run_outputs.rs`): what
//! `veer experiment run` reads back from an agent run — its stdout (the answer), an answer
//! file, and the run marker `run.json` of an earlier invocation (which may have been edited or
//! cut short by hand). Kept in the library so the fuzzer and the corpus-replay test run the
//! same code (docs/fuzzing.md); it panics only when an invariant breaks.

use crate::{answer_from_file, answer_from_stdout, RunMarker};

/// Any bytes as an agent's stdout, as an answer file and as a run marker. An answer is never
/// blank, has no surrounding whitespace and is (trimmed) one of the lines of the output; the
/// file answer is the trimmed text. A marker that parses writes back and parses to itself.
pub fn run_outputs(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Some(a) = answer_from_stdout(data) {
        assert!(!a.is_empty() && a == a.trim(), "answer {a:?}");
        assert!(
            text.lines().any(|l| l.trim() == a),
            "answer {a:?} is a line"
        );
    } else {
        assert!(text.lines().all(|l| l.trim().is_empty()));
    }
    match answer_from_file(data) {
        Some(a) => assert_eq!(a, text.trim()),
        None => assert!(text.trim().is_empty()),
    }
    if let Ok(marker) = serde_json::from_slice::<RunMarker>(data) {
        let written = serde_json::to_vec_pretty(&marker).unwrap_or_default();
        let back: Option<RunMarker> = serde_json::from_slice(&written).ok();
        assert_eq!(back.as_ref(), Some(&marker), "a marker round-trips");
    }
}

#[cfg(test)]
mod tests {
    /// The committed corpus and crash regressions, through the fuzz body.
    #[test]
    fn corpus_replays() {
        veer_trace::fuzzing::replay_corpus("run_outputs", 6, super::run_outputs);
    }
}
