//! Writing the `.agentlog` records of an assembled trace: metadata, a model call's request and
//! response (or error), tool calls and results, with content ids, a parent chain and
//! timestamps that never decrease.

use super::{Node, NOT_CAPTURED_TAG};
use crate::canonical::content_id;
use crate::formats::otel::calls::{with_tool_blocks, ModelCall, ToolRun};
use crate::json::{Json, JsonScratch, Object};
use crate::model::{Kind, Record};
use crate::timefmt::format_epoch_ms;
use rayon::prelude::*;
use serde_json::{json, Map, Value};
use veer_base::format::Format;

/// Writes records with content ids and a parent chain, timestamps never decreasing.
#[derive(Default)]
pub(super) struct Emitter {
    pub(super) records: Vec<Record>,
    /// Shares the object keys of the payloads built here.
    pub(super) keys: JsonScratch,
    pub(super) last_ms: i64,
}

impl Emitter {
    /// Appends a record; its content id and parent are filled in by [`Emitter::into_records`].
    fn push(
        &mut self,
        kind: Kind,
        at_ns: u64,
        line: Option<u64>,
        payload: Json,
        meta: Option<Map<String, Value>>,
    ) {
        let ms = i64::try_from(at_ns / 1_000_000)
            .unwrap_or(i64::MAX / 2)
            .max(self.last_ms);
        self.last_ms = ms;
        self.records.push(Record {
            line,
            kind,
            version: "0.1".into(),
            id: "".into(),
            ts: format_epoch_ms(ms).into(),
            parent: None,
            meta: meta.map(Box::new),
            payload,
            extra_envelope: None,
            origin: None,
        });
    }

    /// The records with content ids (computed on all cores) and the parent chain.
    pub(super) fn into_records(self) -> Vec<Record> {
        let mut records = self.records;
        records
            .par_iter_mut()
            .for_each(|r| r.id = content_id(&r.payload).into());
        for i in 1..records.len() {
            records[i].parent = Some(records[i - 1].id.clone());
        }
        records
    }

    pub(super) fn metadata(&mut self, session: &str, first: &Node, not_captured: Option<&str>) {
        let mut tags = Map::new();
        tags.insert("source_format".into(), json!(Format::Otel.name()));
        tags.insert("session".into(), json!(session));
        if let Some(count) = not_captured {
            tags.insert(NOT_CAPTURED_TAG.into(), json!(count));
        }
        let payload = json!({
            "sdk": {"name": "veer", "version": env!("CARGO_PKG_VERSION")},
            "tags": tags,
        });
        let mut meta = Map::new();
        meta.insert("trace_id".into(), Value::String(first.trace.clone()));
        let payload = self.keys.adopt(payload);
        self.push(Kind::Metadata, first.start, first.line, payload, Some(meta));
    }

    pub(super) fn model_turn(
        &mut self,
        n: &Node,
        call: ModelCall,
        tools: Vec<(usize, ToolRun)>,
        nodes: &[Node],
    ) {
        let ModelCall {
            request,
            response,
            tool_blocks,
            output_captured,
            finish_reason,
            error,
            ..
        } = call;
        self.push(Kind::ChatRequest, n.start, n.line, request, None);
        // Which tool_use block each tool span answers: by id, else the next unmatched block of
        // that name; a span with no block adds one (content not captured).
        // A block without an id (Gemini's function calls often have none) is matched by name
        // and takes the span's call id; a block with an id keeps it.
        let mut used = vec![false; tool_blocks.len()];
        let mut added: Vec<Value> = Vec::new();
        let mut named: Vec<(usize, String)> = Vec::new();
        let mut ids: Vec<String> = Vec::with_capacity(tools.len());
        // A span whose call id no block has (ADK numbers its logged calls `name_0` while the
        // tool span has its own id) takes the next unmatched block of its name.
        let mut tools = tools;
        for (span_index, run) in &mut tools {
            let by_name = |used: &[bool]| {
                tool_blocks
                    .iter()
                    .enumerate()
                    .position(|(b, p)| !used[b] && p.name.as_deref() == Some(&run.name))
            };
            let block = match &run.call_id {
                Some(id) => tool_blocks
                    .iter()
                    .enumerate()
                    .position(|(b, p)| !used[b] && p.id.as_deref() == Some(id))
                    .or_else(|| {
                        let known = tool_blocks.iter().any(|p| p.id.as_deref() == Some(id));
                        (!known).then(|| by_name(&used)).flatten()
                    }),
                None => by_name(&used),
            };
            let id = match block {
                Some(b) => {
                    used[b] = true;
                    // A tool span without captured arguments takes its block's (the model's
                    // call is where they were captured, e.g. on the logs signal).
                    let empty = match &run.arguments {
                        Json::Object(o) => o.is_empty(),
                        _ => true,
                    };
                    let input = &tool_blocks[b].input;
                    if empty && input.as_object().is_some_and(|o| !o.is_empty()) {
                        run.arguments = self.keys.adopt(input.clone());
                    }
                    if tool_blocks[b].id.is_none() {
                        if let Some(id) = &run.call_id {
                            named.push((b, id.clone()));
                        }
                    }
                    tool_blocks[b].id.clone()
                }
                None => {
                    let id = run
                        .call_id
                        .clone()
                        .unwrap_or_else(|| format!("span:{}", nodes[*span_index].id));
                    added.push(json!({"type": "tool_use", "id": id, "name": run.name, "input": run.arguments.to_value()}));
                    Some(id)
                }
            };
            ids.push(id.or_else(|| run.call_id.clone()).unwrap_or_default());
        }
        match &error {
            Some((code, message)) if !output_captured => {
                self.push(
                    Kind::Error,
                    n.end,
                    n.line,
                    json!({"source": "llm", "code": code, "message": message, "retriable": false})
                        .into(),
                    None,
                );
            }
            _ => {
                let payload = if added.is_empty() && named.is_empty() {
                    response
                } else {
                    with_tool_blocks(
                        &response,
                        added,
                        &named,
                        finish_reason.as_deref(),
                        &mut self.keys,
                    )
                };
                self.push(Kind::ChatResponse, n.end, n.line, payload, None);
            }
        }
        for ((span_index, run), id) in tools.into_iter().zip(ids) {
            let t = &nodes[span_index];
            self.tool_records(t.start, t.line, run, id);
        }
    }

    pub(super) fn tool(&mut self, n: &Node, run: ToolRun, id: Option<String>) {
        let id = id
            .or_else(|| run.call_id.clone())
            .unwrap_or_else(|| format!("span:{}", n.id));
        self.tool_records(n.start, n.line, run, id);
    }

    fn tool_records(&mut self, at: u64, line: Option<u64>, run: ToolRun, id: String) {
        let ToolRun {
            name,
            arguments,
            result,
            is_error,
            latency_ms,
            ..
        } = run;
        let arguments = match arguments {
            Json::Object(_) => arguments,
            _ => Json::empty_object(),
        };
        let keys = &mut self.keys;
        let call = Json::Object(Object::from_entries(vec![
            (keys.key("tool_name"), Json::from(name)),
            (keys.key("tool_call_id"), Json::from(id.as_str())),
            (keys.key("arguments"), arguments),
        ]));
        self.push(Kind::ToolCall, at, line, call, None);
        let keys = &mut self.keys;
        let result = Json::Object(Object::from_entries(vec![
            (keys.key("tool_call_id"), Json::from(id)),
            (keys.key("output"), result),
            (keys.key("is_error"), Json::from(is_error)),
            (keys.key("latency_ms"), Json::Number(latency_ms.into())),
        ]));
        self.push(
            Kind::ToolResult,
            at + latency_ms * 1_000_000,
            line,
            result,
            None,
        );
    }
}
