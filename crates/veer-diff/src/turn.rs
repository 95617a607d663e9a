//! What the diff needs from one response, computed once per turn before any measure runs:
//! the shared [`TurnFeatures`] of `veer-trace` plus the few values only the diff reads (the
//! `"\n"`-joined text for drill-down, the ordered shape sequence, cost
//! inputs, thinking parts, the first object-input key set).

use veer_trace::features::{shape_string, turn_features, TurnFeatures};
use veer_trace::views::Response;
use veer_trace::Json;
use veer_trace::Trace;

/// Token counts and flags the cost axis reads from one response.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CostInputs {
    /// `model`, when a string.
    pub model: Option<String>,
    /// `usage.input_tokens`, when a number.
    pub input_tokens: Option<f64>,
    /// `usage.output_tokens`, when a number.
    pub output_tokens: Option<f64>,
    /// `usage.cached_input_tokens` (0 when missing).
    pub cached_input_tokens: f64,
    /// `usage.cached_write_5m_tokens` (0 when missing).
    pub cached_write_5m_tokens: f64,
    /// `usage.cached_write_1h_tokens` (0 when missing).
    pub cached_write_1h_tokens: f64,
    /// `usage.thinking_tokens` (0 when missing).
    pub thinking_tokens: f64,
    /// Payload `batch == true`.
    pub batch: bool,
}

/// One response as the diff sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffTurn {
    /// The shared per-turn features (tokens, shapes, inputs, text, shingles, stop, usage).
    pub features: TurnFeatures,
    /// Text parts joined with `"\n"` (drill-down), when that differs from `features.text`
    /// (more than one part); read it with [`DiffTurn::text_nl`].
    pub text_nl_if_other: Option<String>,
    /// `name(k1,k2)` per tool-use block, in content order (drill-down trajectory).
    pub shape_sequence: Vec<String>,
    /// Sorted top-level keys of the first tool-use block whose input is an object
    /// (conformance tool intent).
    pub first_object_keys: Option<Vec<String>>,
    /// Number of content parts with `type == "thinking"`.
    pub thinking_parts: usize,
    /// Cost inputs.
    pub cost: CostInputs,
}

impl DiffTurn {
    /// Builds the diff's view of one response.
    pub fn from_response(r: &Response<'_>) -> DiffTurn {
        let features = turn_features(r);
        let text_nl = r.text("\n");
        let text_nl_if_other = (text_nl != features.text).then_some(text_nl);
        let mut shape_sequence = Vec::new();
        let mut first_object_keys = None;
        for b in r.tool_uses() {
            shape_sequence.push(shape_string(b.name.unwrap_or("_"), b.input));
            if first_object_keys.is_none() {
                if let Some(Json::Object(m)) = b.input {
                    let mut keys: Vec<String> = m.keys().map(str::to_string).collect();
                    keys.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
                    keys.dedup();
                    first_object_keys = Some(keys);
                }
            }
        }
        let thinking_parts = match r.record.field("content") {
            Some(Json::Array(parts)) => parts
                .iter()
                .filter(|p| p.get("type").and_then(Json::as_str) == Some("thinking"))
                .count(),
            _ => 0,
        };
        let count = |key: &str| r.usage(key).filter(|v| v.is_finite()).unwrap_or(0.0);
        let cost = CostInputs {
            model: r.model().map(str::to_string),
            input_tokens: r.usage("input_tokens"),
            output_tokens: r.usage("output_tokens"),
            cached_input_tokens: count("cached_input_tokens"),
            cached_write_5m_tokens: count("cached_write_5m_tokens"),
            cached_write_1h_tokens: count("cached_write_1h_tokens"),
            thinking_tokens: count("thinking_tokens"),
            batch: r.record.field("batch") == Some(&Json::Bool(true)),
        };
        DiffTurn {
            features,
            text_nl_if_other,
            shape_sequence,
            first_object_keys,
            thinking_parts,
            cost,
        }
    }
}

impl DiffTurn {
    /// Text parts joined with `"\n"` (drill-down).
    pub fn text_nl(&self) -> &str {
        self.text_nl_if_other
            .as_deref()
            .unwrap_or(&self.features.text)
    }
}

/// The diff's view of every response of a trace, in turn order.
pub fn diff_turns(trace: &Trace) -> Vec<DiffTurn> {
    trace
        .responses()
        .iter()
        .map(DiffTurn::from_response)
        .collect()
}
