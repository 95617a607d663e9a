//! Small random traces for property tests: a few tool names, argument keys and values, a small
//! vocabulary of words, stop reasons and usage numbers, so that random pairs share structure.

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use veer_trace::{Format, Kind, Record, Trace};

/// One generated turn.
#[derive(Debug, Clone)]
pub(crate) struct GenTurn {
    pub tools: Vec<(u8, u8, u8)>,
    pub words: Vec<u8>,
    pub stop: u8,
    pub output_tokens: u16,
    pub latency: u16,
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
        prop::collection::vec((0u8..3, 0u8..3, 0u8..3), 0..3),
        prop::collection::vec(0u8..8, 0..12),
        0u8..3,
        0u16..300,
        0u16..2000,
    )
        .prop_map(|(tools, words, stop, output_tokens, latency)| GenTurn {
            tools,
            words,
            stop,
            output_tokens,
            latency,
        })
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
        payload,
        extra_envelope: Map::new(),
        origin: None,
    }
}

/// A trace with one metadata record and one response per generated turn.
pub(crate) fn build(turns: &[GenTurn]) -> Trace {
    let mut t = Trace::new("gen", Format::Agentlog);
    t.records.push(record(Kind::Metadata, json!({})));
    for g in turns {
        let mut content = Vec::new();
        let text: Vec<&str> = g.words.iter().map(|&w| WORDS[w as usize]).collect();
        content.push(json!({"type": "text", "text": text.join(" ")}));
        for &(n, k, v) in &g.tools {
            let mut input = Map::new();
            for key in KEYS[k as usize] {
                input.insert((*key).to_string(), json!(v));
            }
            content.push(json!({"type": "tool_use", "name": NAMES[n as usize], "input": input}));
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
