//! What the engine looks at in one trace: its pairs (responses with their requests), the
//! per-pair context that `when:` and paths read, the tool calls attached to each pair and the
//! policy session of each pair (spec `policy.md` §2, `trace-formats.md` §2.2).

use rayon::prelude::*;
use serde_json::Value;
use std::sync::OnceLock;
use veer_trace::views::ToolCall;
use veer_trace::Json;
use veer_trace::Trace;

fn empty_object() -> &'static Json {
    static EMPTY: OnceLock<Json> = OnceLock::new();
    EMPTY.get_or_init(Json::empty_object)
}

fn payload_or_empty(v: &Json) -> &Json {
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
    pub request: &'a Json,
    /// The response payload (`{}` when null).
    pub response: &'a Json,
    /// `request.model` if truthy, else `response.model`, else null.
    pub model: Json,
    /// `response.stop_reason` (null when absent).
    pub stop_reason: Json,
    /// The response text: text parts joined with `"\n"`; a string `content` is the text.
    pub text: Json,
    /// Names of the calls attached to the pair, in call order.
    pub tool_names: Json,
}

impl<'a> PairContext<'a> {
    /// The value of a root, `None` for an unknown root.
    pub fn root(&self, name: &str) -> Option<&Json> {
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

fn truthy(v: &Json) -> bool {
    match v {
        Json::Null => false,
        Json::Bool(b) => *b,
        Json::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Json::String(s) => !s.is_empty(),
        Json::Array(a) => !a.is_empty(),
        Json::Object(o) => !o.is_empty(),
    }
}

/// One pair of the trace.
#[derive(Debug, Clone)]
pub(crate) struct PairView<'a> {
    /// Absolute 0-based pair index.
    pub index: usize,
    /// The context `when:` and paths read.
    pub context: PairContext<'a>,
    /// Indices into [`TraceView::calls`] of the calls attached to this pair, in call order.
    pub calls: Vec<usize>,
    /// The policy session of the pair.
    pub session: usize,
    /// Input, output and thinking tokens of the response ([`USAGE_FIELDS`], for
    /// `max_total_tokens`, spec §5.6): a number counts as its value, a decimal string as that
    /// number, absent or null as 0.
    pub usage_tokens: [f64; 3],
    /// Usage fields present but not numbers, as `(field, raw JSON)`; they count as 0.
    pub usage_problems: Vec<(&'static str, String)>,
    /// The response text as JSON ([`crate::schema::parse_text`]), parsed on first use and
    /// shared by every `must_match_json_schema` rule.
    pub text_json: OnceLock<Result<Value, String>>,
    /// Token counts of the response text (`must_be_grounded`), on first use, shared likewise.
    pub text_tokens: OnceLock<std::collections::HashMap<String, usize>>,
}

/// The usage fields `max_total_tokens` sums, in the order it reports them.
pub(crate) const USAGE_FIELDS: [&str; 3] = ["input_tokens", "output_tokens", "thinking_tokens"];

/// The count of one usage field: `None` when present but not a number.
fn usage_count(v: Option<&Json>) -> Option<f64> {
    match v {
        None | Some(Json::Null) => Some(0.0),
        Some(Json::Number(n)) => n.as_f64(),
        Some(Json::String(s)) => s.trim().parse::<f64>().ok().filter(|x| x.is_finite()),
        Some(_) => None,
    }
}

/// The token counts of a response payload and the fields that could not be counted.
fn usage_tokens(response: &Json) -> ([f64; 3], Vec<(&'static str, String)>) {
    let usage = response.get("usage");
    let mut counts = [0.0; 3];
    let mut problems = Vec::new();
    for (slot, key) in counts.iter_mut().zip(USAGE_FIELDS) {
        let v = usage.and_then(|u| u.get(key));
        match usage_count(v) {
            Some(x) => *slot = x,
            None => problems.push((key, v.map(Json::to_string).unwrap_or_default())),
        }
    }
    (counts, problems)
}

/// A trace prepared once for evaluating every rule of a policy.
#[derive(Debug, Clone)]
pub(crate) struct TraceView<'a> {
    /// The pairs, in order.
    pub pairs: Vec<PairView<'a>>,
    /// Every tool call of the trace (spec §2.3), in call order.
    pub calls: Vec<ToolCall>,
}

impl<'a> TraceView<'a> {
    /// Builds the view of `trace`.
    pub fn new(trace: &'a Trace) -> TraceView<'a> {
        let ((calls, turns), sessions) = rayon::join(
            || {
                let calls = trace.tool_calls();
                let turns = trace.turns_with(&calls);
                (calls, turns)
            },
            || trace.policy_sessions(),
        );
        // Each pair's context is built on its own; in parallel, gathered in turn order.
        let pairs: Vec<PairView<'a>> = turns
            .par_iter()
            .map(|turn| {
                let response_record = &trace.records[turn.response];
                let request: &'a Json = match turn.request {
                    Some(r) => payload_or_empty(&trace.records[r].payload),
                    None => empty_object(),
                };
                let response = payload_or_empty(&response_record.payload);
                let model = match request.get("model") {
                    Some(m) if truthy(m) => m.clone(),
                    _ => match response.get("model") {
                        Some(m) if truthy(m) => m.clone(),
                        _ => Json::Null,
                    },
                };
                let stop_reason = response.get("stop_reason").cloned().unwrap_or(Json::Null);
                let view = veer_trace::views::Response {
                    record: response_record,
                    record_index: turn.response,
                    turn: turn.index,
                };
                let text = Json::from(view.text("\n"));
                let tool_names = Json::Array(
                    turn.tool_calls
                        .iter()
                        .map(|&c| Json::from(calls[c].name.clone()))
                        .collect(),
                );
                let (usage_tokens, usage_problems) = usage_tokens(response);
                PairView {
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
                    usage_tokens,
                    usage_problems,
                    text_json: OnceLock::new(),
                    text_tokens: OnceLock::new(),
                }
            })
            .collect();
        TraceView { pairs, calls }
    }
}
