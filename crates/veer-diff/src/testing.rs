//! Small random traces for property tests: a few tool names, argument keys and values, a small
//! vocabulary of words, stop reasons and usage numbers, so that random pairs share structure.

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use veer_base::format::Format;
use veer_trace::{Kind, Record, Trace};

/// One generated turn.
#[derive(Debug, Clone)]
pub(crate) struct GenTurn {
    pub tools: Vec<(u8, u8, u8)>,
    pub words: Vec<u8>,
    pub stop: u8,
    pub output_tokens: u16,
    pub latency: u16,
    /// A `metadata` record (session boundary) precedes this turn.
    pub new_session: bool,
}

const NAMES: [&str; 3] = ["search", "refund", "lookup"];
const KEYS: [&[&str]; 3] = [&["id"], &["id", "amount"], &["query"]];
const WORDS: [&str; 8] = [
    "the",
    "refund",
    "was",
    "issued",
    "sorry",
    "I",
    "cannot",
    "help with that",
];
const STOPS: [&str; 3] = ["end_turn", "tool_use", "content_filter"];

pub(crate) fn gen_turn() -> impl Strategy<Value = GenTurn> {
    (
        prop::collection::vec((0u8..4, 0u8..5, 0u8..3), 0..3),
        prop::collection::vec(0u8..8, 0..12),
        0u8..3,
        0u16..300,
        0u16..2000,
        prop::bool::weighted(0.15),
    )
        .prop_map(
            |(tools, words, stop, output_tokens, latency, new_session)| GenTurn {
                tools,
                words,
                stop,
                output_tokens,
                latency,
                new_session,
            },
        )
}

pub(crate) fn gen_trace(max: usize) -> impl Strategy<Value = Vec<GenTurn>> {
    prop::collection::vec(gen_turn(), 0..max)
}

fn record(kind: Kind, payload: Value) -> Record {
    Record {
        line: None,
        kind,
        version: "0.1".into(),
        id: "x".into(),
        ts: "2026-01-01T00:00:00.000Z".into(),
        parent: None,
        meta: None,
        payload: payload.into(),
        extra_envelope: None,
        origin: None,
    }
}

/// A trace with one metadata record and one response per generated turn.
pub(crate) fn build(turns: &[GenTurn]) -> Trace {
    let mut t = Trace::new("gen", Format::Agentlog);
    t.records.push(record(Kind::Metadata, json!({})));
    for g in turns {
        if g.new_session {
            t.records.push(record(Kind::Metadata, json!({})));
        }
        let mut content = Vec::new();
        let text: Vec<&str> = g.words.iter().map(|&w| WORDS[w as usize]).collect();
        content.push(json!({"type": "text", "text": text.join(" ")}));
        for &(n, k, v) in &g.tools {
            // Names 0–2 are strings, 3 is a missing name; keys 0–2 are object inputs, 3 a
            // string input, 4 no input at all.
            let mut block = Map::new();
            block.insert("type".into(), json!("tool_use"));
            if let Some(name) = NAMES.get(n as usize) {
                block.insert("name".into(), json!(name));
            }
            match KEYS.get(k as usize) {
                Some(keys) => {
                    let input: Map<String, Value> = keys
                        .iter()
                        .map(|key| ((*key).to_string(), json!(v)))
                        .collect();
                    block.insert("input".into(), Value::Object(input));
                }
                None if k == 3 => {
                    block.insert("input".into(), json!(format!("raw {v}")));
                }
                None => {}
            }
            content.push(Value::Object(block));
        }
        t.records.push(record(
            Kind::ChatResponse,
            json!({
                "model": "m",
                "content": content,
                "stop_reason": STOPS[g.stop as usize],
                "usage": {"input_tokens": 10, "output_tokens": g.output_tokens},
                "latency_ms": g.latency,
            }),
        ));
    }
    t
}
