//! The body of the `sse_stream` fuzz target (`fuzz/fuzz_targets/sse_stream.rs`), kept in the
//! library so the fuzzer and the corpus-replay test run the same code (docs/fuzzing.md). It
//! panics only when an invariant breaks.

use crate::api::Api;
use crate::sse::EventReader;

const APIS: [Api; 3] = [Api::ChatCompletions, Api::Responses, Api::Messages];

/// Any bytes as (endpoint, split point, stream): the first byte picks the endpoint, the second
/// where the stream is cut in two chunks. The events must not depend on the split; the
/// reassembly must end in a response or an error, never a panic; and the same bytes read as a
/// JSON body must map to a request and a response record without panicking.
pub fn sse_stream(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Some((&cut, stream)) = rest.split_first() else {
        return;
    };
    let api = APIS[usize::from(pick) % APIS.len()];
    let mut whole = Vec::new();
    let mut reader = EventReader::new();
    reader.feed(stream, &mut whole);
    let at = usize::from(cut).min(stream.len());
    let mut split = Vec::new();
    let mut r2 = EventReader::new();
    r2.feed(&stream[..at], &mut split);
    r2.feed(&stream[at..], &mut split);
    assert_eq!(whole, split, "events depend on where the stream was cut");
    assert_eq!(reader.has_pending(), r2.has_pending());
    let mut asm = api.assembler();
    let ok = whole.iter().all(|e| asm.event(e).is_ok());
    if ok {
        let _ = asm.finish();
    }
    if let Ok(serde_json::Value::Object(body)) = serde_json::from_slice(stream) {
        let _ = api.request(&body);
        let _ = api.response(&serde_json::Value::Object(body));
    }
}

#[cfg(test)]
mod tests {
    /// The committed corpus and crash regressions, through the fuzz body.
    #[test]
    fn corpus_replays() {
        veer_trace::fuzzing::replay_corpus("sse_stream", 6, super::sse_stream);
    }
}
