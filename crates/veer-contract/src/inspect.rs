//! `veer inspect`'s JSON document (`veer schema inspect`): one shape for every input — the
//! turns of each trace read, or the sample-epochs of an Inspect AI log. Filled by the binary
//! from the trace model, rendered by `veer-report`'s inspect printers.

use crate::policy::LiveDecision;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use veer_base::format::Format;

/// Version of the `veer inspect` JSON document: "2" since every input gives the same shape
/// (version "1" printed one trace as an object, several as an array, an Inspect AI log as
/// another object).
pub const INSPECT_SCHEMA_VERSION: &str = "2";

/// The `veer inspect --format json` document, one shape for every input: `traces` holds every
/// trace shown (one for a trace file, every run of a traxr results file; empty for an Inspect
/// AI log), `log` the summary of an Inspect AI log (absent otherwise).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct InspectDocument {
    /// JSON schema version ([`INSPECT_SCHEMA_VERSION`]).
    pub schema_version: Cow<'static, str>,
    /// One entry per trace, in input order.
    pub traces: Vec<InspectReport>,
    /// An Inspect AI log's samples; absent for other inputs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<LogReport>,
}

/// One tool call of a turn, as shown by `inspect`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct InspectTool {
    /// Tool name.
    pub name: String,
    /// Argument keys, sorted by bytes.
    pub arg_keys: Vec<String>,
}

/// One turn (response) of the trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct InspectTurn {
    /// Recorded session (split at metadata records), 0-based.
    pub session: usize,
    /// Turn index, 0-based.
    pub turn: usize,
    /// 1-based source line of the response (or event index + 1 for traxr).
    pub line: Option<u64>,
    /// Response model.
    pub model: Option<String>,
    /// Tool calls attached to the turn, in call order.
    pub tools: Vec<InspectTool>,
    /// `usage.input_tokens`.
    pub input_tokens: Option<f64>,
    /// `usage.output_tokens`.
    pub output_tokens: Option<f64>,
    /// `latency_ms`, in milliseconds.
    pub latency_ms: Option<f64>,
    /// `stop_reason` (`null` when missing).
    pub stop_reason: Option<String>,
    /// The response text (space-joined text parts).
    pub text: String,
}

/// The `inspect` report of one trace (an entry of the JSON document's `traces`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct InspectReport {
    /// The trace path.
    pub source: String,
    /// traxr run label, or the `.agentlog` file stem.
    pub run_label: Option<String>,
    /// `agentlog` or `traxr`.
    pub format: Format,
    /// Trace id (meta.trace_id or the first record's id).
    pub trace_id: String,
    /// Number of records (events for traxr).
    pub record_count: usize,
    /// Number of recorded sessions.
    pub session_count: usize,
    /// One entry per turn.
    pub turns: Vec<InspectTurn>,
    /// The live-policy decisions the recording holds (`veer record --policy … --enforce`):
    /// blocked (replaced, raised) and warned calls with their rule ids and turns, in file
    /// order; omitted when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub enforcement: Vec<LiveDecision>,
    /// Reader warnings.
    pub warnings: Vec<String>,
}

/// One sample-epoch as `veer inspect` lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SampleRow {
    /// Sample id.
    pub case: String,
    /// Epoch (1-based).
    pub trial: u64,
    /// `pass`, `fail`, `error`, or `null` when no score reads as one.
    pub outcome: Option<String>,
    /// Every scorer's value, by scorer name.
    pub scores: serde_json::Value,
    /// Number of turns (assistant messages).
    pub turns: usize,
    /// Tool names called, in order.
    pub tools: Vec<String>,
    /// Input tokens over all turns.
    pub input_tokens: u64,
    /// Output tokens over all turns.
    pub output_tokens: u64,
    /// The sample's error, when it ended in one.
    pub error: Option<String>,
    /// The file `veer convert -o DIR/` writes it to, relative to `DIR`.
    pub converts_to: String,
}

/// `veer inspect LOG`: the whole log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LogReport {
    /// The log path.
    pub source: String,
    /// Always `inspect-ai`.
    pub format: Format,
    /// `eval.task`.
    pub task: String,
    /// `eval.model`.
    pub model: String,
    /// The log's `status`.
    pub status: String,
    /// `eval.config.epochs`.
    pub epochs: u64,
    /// One row per sample-epoch, by sample id then epoch.
    pub samples: Vec<SampleRow>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_reads_back_to_itself_and_names_the_format_by_its_short_name() {
        let doc = InspectDocument {
            schema_version: INSPECT_SCHEMA_VERSION.into(),
            traces: vec![InspectReport {
                source: "run.jsonl".into(),
                run_label: None,
                format: Format::ClaudeCode,
                trace_id: "t1".into(),
                record_count: 3,
                session_count: 1,
                turns: vec![InspectTurn {
                    session: 0,
                    turn: 0,
                    line: Some(2),
                    model: Some("m".into()),
                    tools: vec![InspectTool {
                        name: "search".into(),
                        arg_keys: vec!["q".into()],
                    }],
                    input_tokens: Some(10.0),
                    output_tokens: None,
                    latency_ms: Some(1.5),
                    stop_reason: None,
                    text: "hi".into(),
                }],
                enforcement: Vec::new(),
                warnings: Vec::new(),
            }],
            log: None,
        };
        let text = serde_json::to_string(&doc).unwrap();
        assert!(text.contains(r#""format":"claude-code""#), "{text}");
        assert!(
            !text.contains("enforcement") && !text.contains(r#""log""#),
            "{text}"
        );
        let back: InspectDocument = serde_json::from_str(&text).unwrap();
        assert_eq!(back, doc);
    }
}
