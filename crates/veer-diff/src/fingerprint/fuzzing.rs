//! The body of the `fingerprint` fuzz target (`fuzz/fuzz_targets/fingerprint.rs`), kept in the
//! library so the fuzzer and the corpus-replay test run exactly the same code
//! (docs/fuzzing.md). It panics only when an invariant breaks.

use super::{numeric_token_density, response_vector, FingerprintScales};
use veer_base::pytext::{py_float, py_float_accepts, py_int};

/// Any bytes: when they are JSON, as a `chat_response` payload; when they are UTF-8, as response
/// text and as a number token. Every fingerprint entry is finite and in [0, 1], the same twice;
/// `float()` acceptance and parsing agree, and an accepted `int()` is also an accepted `float()`.
pub fn fingerprint_any(data: &[u8]) {
    let scales = FingerprintScales::default();
    if let Ok(value) = serde_json::from_slice::<veer_trace::Json>(data) {
        let v = response_vector(&value, &scales);
        assert!(
            v.iter().all(|x| x.is_finite() && (0.0..=1.0).contains(x)),
            "{v:?}"
        );
        assert_eq!(v, response_vector(&value, &scales));
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let payload =
        veer_trace::Json::from(serde_json::json!({"content": [{"type": "text", "text": text}]}));
    let v = response_vector(&payload, &scales);
    assert!(v.iter().all(|x| (0.0..=1.0).contains(x)), "{v:?}");
    assert!((0.0..=1.0).contains(&numeric_token_density(text)));
    assert_eq!(py_float_accepts(text), py_float(text).is_some(), "{text:?}");
    if py_int(text).is_some() {
        assert!(
            py_float_accepts(text),
            "{text:?}: an int() that float() refuses"
        );
    }
}

#[cfg(test)]
mod tests {
    /// Every committed corpus input of the `fingerprint` target replays without a broken
    /// invariant (`veer_trace::fuzzing::replay_corpus`, shared by every crate's replay test).
    #[test]
    fn corpus_replays() {
        veer_trace::fuzzing::replay_corpus("fingerprint", 10, super::fingerprint_any);
    }
}
