//! What the engine looks at in one trace: its pairs (responses with their requests), the
//! per-pair context that `when:` and paths read, the tool calls attached to each pair and the
//! policy session of each pair (spec `policy.md` §2, `trace-formats.md` §2.2).

use serde_json::{Map, Value};
use std::sync::OnceLock;
use veer_trace::views::ToolCall;
use veer_trace::Trace;

fn empty_object() -> &'static Value {
    static EMPTY: OnceLock<Value> = OnceLock::new();
    EMPTY.get_or_init(|| Value::Object(Map::new()))
}

fn payload_or_empty(v: &Value) -> &Value {
    if v.is_null() {
        empty_object()
    } else {
        v
    }
}

/// The context of one pair: the roots a path can start with (spec §2.4).
#[derive(Debug, Clone)]
pub struct PairContext<'a> {
    /// The request payload (`{}` when the pair has no request).
    pub request: &'a Value,
    /// The response payload (`{}` when null).
    pub response: &'a Value,
    /// `request.model` if truthy, else `response.model`, else null.
    pub model: Value,
    /// `response.stop_reason` (null when absent).
    pub stop_reason: Value,
    /// The response text: text parts joined with `"\n"`; a string `content` is the text.
    pub text: Value,
    /// Names of the calls attached to the pair, in call order.
    pub tool_names: Value,
}

impl<'a> PairContext<'a> {
    /// The value of a root, `None` for an unknown root.
    pub fn root(&self, name: &str) -> Option<&Value> {
        match name {
            "request" => Some(self.request),
            "response" => Some(self.response),
            "model" => Some(&self.model),
            "stop_reason" => Some(&self.stop_reason),
            "text" => Some(&self.text),
            "tool_names" => Some(&self.tool_names),
            _ => None,
        }
    }

    /// The response text as a string.
    pub fn text(&self) -> &str {
        self.text.as_str().unwrap_or("")
    }

    /// The stop reason when it is a string.
    pub fn stop_reason(&self) -> Option<&str> {
        self.stop_reason.as_str()
    }
}

fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// One pair of the trace.
#[derive(Debug, Clone)]
pub struct Pair<'a> {
    /// Absolute 0-based pair index.
    pub index: usize,
    /// The context `when:` and paths read.
    pub context: PairContext<'a>,
    /// Indices into [`TraceView::calls`] of the calls attached to this pair, in call order.
    pub calls: Vec<usize>,
    /// The policy session of the pair.
    pub session: usize,
}

/// A trace prepared once for evaluating every rule of a policy.
#[derive(Debug, Clone)]
pub struct TraceView<'a> {
    /// The pairs, in order.
    pub pairs: Vec<Pair<'a>>,
    /// Every tool call of the trace (spec §2.3), in call order.
    pub calls: Vec<ToolCall>,
}

impl<'a> TraceView<'a> {
    /// Builds the view of `trace`.
    pub fn new(trace: &'a Trace) -> TraceView<'a> {
        let calls = trace.tool_calls();
        let sessions = trace.policy_sessions();
        let turns = trace.turns();
        let mut pairs = Vec::with_capacity(turns.len());
        for turn in &turns {
            let response_record = &trace.records[turn.response];
            let request: &'a Value = match turn.request {
                Some(r) => payload_or_empty(&trace.records[r].payload),
                None => empty_object(),
            };
            let response = payload_or_empty(&response_record.payload);
            let model = match request.get("model") {
                Some(m) if truthy(m) => m.clone(),
                _ => match response.get("model") {
                    Some(m) if truthy(m) => m.clone(),
                    _ => Value::Null,
                },
            };
            let stop_reason = response.get("stop_reason").cloned().unwrap_or(Value::Null);
            let view = veer_trace::views::Response {
                record: response_record,
                record_index: turn.response,
                turn: turn.index,
            };
            let text = Value::String(view.text("\n"));
            let tool_names = Value::Array(
                turn.tool_calls
                    .iter()
                    .map(|&c| Value::String(calls[c].name.clone()))
                    .collect(),
            );
            pairs.push(Pair {
                index: turn.index,
                context: PairContext {
                    request,
                    response,
                    model,
                    stop_reason,
                    text,
                    tool_names,
                },
                calls: turn.tool_calls.clone(),
                session: sessions.get(turn.index).copied().unwrap_or(0),
            });
        }
        TraceView { pairs, calls }
    }
}
