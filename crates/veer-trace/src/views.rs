//! Typed views derived from a [`Trace`]: responses (turns), their text and tool-use blocks,
//! the trace's tool calls with the pair each belongs to, request/response turns, recorded
//! sessions and policy sessions (spec `trace-formats.md` §1.4, §2; `policy.md` §2.1–§2.3).
//!
//! Views borrow the trace and never copy payloads.

use crate::json::Json;
use crate::model::{Kind, Record, Trace};
use serde_json::{Map, Value};

/// One `chat_response` record seen as a turn.
#[derive(Debug, Clone, Copy)]
pub struct Response<'a> {
    /// The record.
    pub record: &'a Record,
    /// Index of the record in [`Trace::records`].
    pub record_index: usize,
    /// 0-based turn index among the trace's responses.
    pub turn: usize,
}

/// A `tool_use` content block of a response.
#[derive(Debug, Clone, Copy)]
pub struct ToolUse<'a> {
    /// `id`, when it is a string.
    pub id: Option<&'a str>,
    /// `name`, when it is a string (components choose their own default).
    pub name: Option<&'a str>,
    /// `input`, `None` when absent.
    pub input: Option<&'a Json>,
}

impl<'a> Response<'a> {
    /// The content parts when `content` is an array.
    fn parts(&self) -> &'a [Json] {
        match self.record.field("content") {
            Some(Json::Array(a)) => a,
            _ => &[],
        }
    }

    /// Text parts in order; a string `content` is one text part.
    pub(crate) fn text_parts(&self) -> impl Iterator<Item = &'a str> + 'a {
        let single = match self.record.field("content") {
            Some(Json::String(s)) => Some(&**s),
            _ => None,
        };
        single
            .into_iter()
            .chain(self.parts().iter().filter_map(|p| {
                let o = p.as_object()?;
                if o.get("type")?.as_str()? == "text" {
                    o.get("text")?.as_str()
                } else {
                    None
                }
            }))
    }

    /// Text parts joined with `sep` (`" "` for the diff, `"\n"` for policy and drill-down).
    pub fn text(&self, sep: &str) -> String {
        let mut out = String::new();
        for (i, t) in self.text_parts().enumerate() {
            if i > 0 {
                out.push_str(sep);
            }
            out.push_str(t);
        }
        out
    }

    /// [`Response::text`] without copying when there is at most one text part (borrowed from
    /// the trace); joined with `sep` otherwise.
    pub(crate) fn joined_text(&self, sep: &str) -> std::borrow::Cow<'a, str> {
        let mut parts = self.text_parts();
        let Some(first) = parts.next() else {
            return std::borrow::Cow::Borrowed("");
        };
        let Some(second) = parts.next() else {
            return std::borrow::Cow::Borrowed(first);
        };
        let mut out = String::with_capacity(first.len() + sep.len() + second.len());
        out.push_str(first);
        out.push_str(sep);
        out.push_str(second);
        for t in parts {
            out.push_str(sep);
            out.push_str(t);
        }
        std::borrow::Cow::Owned(out)
    }

    /// `tool_use` blocks in content order.
    pub fn tool_uses(&self) -> impl Iterator<Item = ToolUse<'a>> + 'a {
        self.parts().iter().filter_map(|p| {
            let o = p.as_object()?;
            if o.get("type")?.as_str()? != "tool_use" {
                return None;
            }
            Some(ToolUse {
                id: o.get("id").and_then(Json::as_str),
                name: o.get("name").and_then(Json::as_str),
                input: o.get("input"),
            })
        })
    }

    /// `thinking` parts' text, in order.
    pub fn thinking_parts(&self) -> impl Iterator<Item = &'a str> + 'a {
        self.parts().iter().filter_map(|p| {
            let o = p.as_object()?;
            if o.get("type")?.as_str()? == "thinking" {
                o.get("text").or_else(|| o.get("thinking"))?.as_str()
            } else {
                None
            }
        })
    }

    /// `stop_reason` when it is a string.
    pub fn stop_reason(&self) -> Option<&'a str> {
        self.record.str_field("stop_reason")
    }

    /// `model` when it is a string.
    pub fn model(&self) -> Option<&'a str> {
        self.record.str_field("model")
    }

    /// `usage.<key>` when it is a JSON number, as f64.
    pub fn usage(&self, key: &str) -> Option<f64> {
        self.record.field("usage")?.get(key)?.as_f64()
    }

    /// `latency_ms` when it is a JSON number, in milliseconds.
    pub fn latency_ms(&self) -> Option<f64> {
        self.record.field("latency_ms")?.as_f64()
    }
}

impl Trace {
    /// The `chat_response` records in order.
    pub fn responses(&self) -> Vec<Response<'_>> {
        self.records
            .iter()
            .enumerate()
            .filter(|(_, r)| r.kind == Kind::ChatResponse)
            .enumerate()
            .map(|(turn, (record_index, record))| Response {
                record,
                record_index,
                turn,
            })
            .collect()
    }
}

/// One tool call of a trace, attached to the pair (turn) that requested it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// Index of the record (a response holding the block, or a `tool_call` record).
    pub record_index: usize,
    /// The pair (turn index) the call belongs to; `None` when the trace has no response.
    pub pair_index: Option<usize>,
    /// Tool name (`""` when not a string).
    pub name: String,
    /// Arguments as an object (a string holding a JSON object is parsed; anything else is `{}`).
    pub arguments: Map<String, Value>,
    /// The block / call id, when a non-empty string.
    pub id: Option<String>,
    /// Whether it came from a `tool_use` block (else a standalone `tool_call` record).
    pub from_block: bool,
    /// Set when the arguments were not an object and were replaced by `{}`.
    pub arguments_replaced: bool,
}

fn arguments_of(v: Option<&Json>) -> (Map<String, Value>, bool) {
    match v {
        Some(Json::Object(m)) => (m.to_map(), false),
        Some(Json::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(Value::Object(m)) => (m, false),
            _ => (Map::new(), true),
        },
        None | Some(Json::Null) => (Map::new(), false),
        Some(_) => (Map::new(), true),
    }
}

impl Trace {
    /// The trace's tool calls in record order, deduplicated and attached per veer's rule
    /// (spec `policy.md` §2.3): blocks stand for `tool_call` records with the same id; other
    /// `tool_call` records belong to the most recent response before them (pair 0 if none).
    pub fn tool_calls(&self) -> Vec<ToolCall> {
        use rayon::prelude::*;
        // The calls of each response's tool-use blocks: independent per response, so built in
        // parallel (the argument maps are most of the work), then merged in record order.
        let responses: Vec<usize> = self
            .records
            .iter()
            .enumerate()
            .filter(|(_, r)| r.kind == Kind::ChatResponse)
            .map(|(i, _)| i)
            .collect();
        let mut blocks: Vec<Vec<ToolCall>> = responses
            .par_iter()
            .enumerate()
            .map(|(t, &i)| {
                let resp = Response {
                    record: &self.records[i],
                    record_index: i,
                    turn: t,
                };
                resp.tool_uses()
                    .map(|b| {
                        let (arguments, replaced) = arguments_of(b.input);
                        ToolCall {
                            record_index: i,
                            pair_index: Some(t),
                            name: b.name.unwrap_or("").to_string(),
                            arguments,
                            id: b.id.filter(|s| !s.is_empty()).map(str::to_string),
                            from_block: true,
                            arguments_replaced: replaced,
                        }
                    })
                    .collect()
            })
            .collect();
        let block_ids: std::collections::HashSet<String> = blocks
            .iter()
            .flatten()
            .filter_map(|c| c.id.clone())
            .collect();
        let has_response = !responses.is_empty();
        let mut kept_call_ids = std::collections::HashSet::new();
        let mut out = Vec::new();
        let mut turn: Option<usize> = None;
        for (i, r) in self.records.iter().enumerate() {
            match r.kind {
                Kind::ChatResponse => {
                    let t = turn.map_or(0, |t| t + 1);
                    turn = Some(t);
                    out.append(&mut blocks[t]);
                }
                Kind::ToolCall => {
                    let id = r.str_field("tool_call_id").filter(|s| !s.is_empty());
                    if let Some(id) = id {
                        if block_ids.contains(id) || !kept_call_ids.insert(id) {
                            continue;
                        }
                    }
                    let (arguments, replaced) = arguments_of(r.field("arguments"));
                    out.push(ToolCall {
                        record_index: i,
                        pair_index: turn.or(if has_response { Some(0) } else { None }),
                        name: r.str_field("tool_name").unwrap_or("").to_string(),
                        arguments,
                        id: id.map(str::to_string),
                        from_block: false,
                        arguments_replaced: replaced,
                    });
                }
                _ => {}
            }
        }
        out
    }
}

/// One turn: a response with the request that prompted it and the tool activity it caused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    /// 0-based turn (pair) index.
    pub index: usize,
    /// Record index of the request: the most recent `chat_request` since the previous
    /// response, if any.
    pub request: Option<usize>,
    /// Record index of the `chat_response`.
    pub response: usize,
    /// Indices into [`Trace::tool_calls`] of the calls attached to this turn.
    pub tool_calls: Vec<usize>,
    /// Record indices of `tool_result` records answering this turn's calls (by id), or, for
    /// results without a matching id, those that follow the response before the next one.
    pub tool_results: Vec<usize>,
}

impl Trace {
    /// The turns of the trace, one per response, in order.
    pub fn turns(&self) -> Vec<Turn> {
        self.turns_with(&self.tool_calls())
    }

    /// [`Trace::turns`] for a caller that already holds `calls = self.tool_calls()`, so the
    /// calls (and their argument maps) are built once.
    pub fn turns_with(&self, calls: &[ToolCall]) -> Vec<Turn> {
        let mut turns: Vec<Turn> = Vec::new();
        let mut pending_request = None;
        for (i, r) in self.records.iter().enumerate() {
            match r.kind {
                Kind::ChatRequest => pending_request = Some(i),
                Kind::ChatResponse => {
                    turns.push(Turn {
                        index: turns.len(),
                        request: pending_request.take(),
                        response: i,
                        tool_calls: Vec::new(),
                        tool_results: Vec::new(),
                    });
                }
                _ => {}
            }
        }
        let mut id_to_turn = std::collections::HashMap::new();
        for (ci, c) in calls.iter().enumerate() {
            if let Some(p) = c.pair_index {
                if let Some(t) = turns.get_mut(p) {
                    t.tool_calls.push(ci);
                }
                if let Some(id) = &c.id {
                    id_to_turn.entry(id.as_str()).or_insert(p);
                }
            }
        }
        let mut current: Option<usize> = None;
        for (i, r) in self.records.iter().enumerate() {
            match r.kind {
                Kind::ChatResponse => current = Some(current.map_or(0, |c| c + 1)),
                Kind::ToolResult => {
                    let by_id = r
                        .str_field("tool_call_id")
                        .and_then(|id| id_to_turn.get(id).copied());
                    if let Some(t) = by_id.or(current) {
                        if let Some(turn) = turns.get_mut(t) {
                            turn.tool_results.push(i);
                        }
                    }
                }
                _ => {}
            }
        }
        turns
    }
}

impl Trace {
    /// Recorded session of every response: split at `metadata` records, no heuristics (spec
    /// `trace-formats.md` §2.1). Returns (session per response, number of sessions).
    pub fn recorded_sessions(&self) -> (Vec<usize>, usize) {
        let mut session: Option<usize> = None;
        let mut leading = false;
        let mut out = Vec::new();
        for r in &self.records {
            match r.kind {
                Kind::Metadata => {
                    session = Some(match session {
                        None if leading => 1,
                        None => 0,
                        Some(s) => s + 1,
                    })
                }
                Kind::ChatResponse => {
                    if session.is_none() {
                        leading = true;
                    }
                    out.push(session.unwrap_or(0));
                }
                _ => {
                    if session.is_none() {
                        leading = true;
                    }
                }
            }
        }
        let count = match session {
            Some(s) => s + 1,
            None => usize::from(!self.records.is_empty()),
        };
        (out, count)
    }

    /// 1-based source line where each policy session starts, by session index as
    /// [`Trace::policy_sessions`] numbers them: the request of its first turn (the first
    /// `chat_request` after the previous response), or that turn's response when it has none;
    /// `None` for a record read from no line. Locations of session-level findings.
    pub fn policy_session_lines(&self) -> Vec<Option<u64>> {
        let sessions = self.policy_sessions();
        let mut out: Vec<Option<u64>> = Vec::new();
        let (mut request, mut turn) = (None, 0);
        for r in &self.records {
            match r.kind {
                Kind::ChatRequest => {
                    request = request.or(Some(r.line));
                }
                Kind::ChatResponse => {
                    let s = sessions.get(turn).copied().unwrap_or(0);
                    if out.len() <= s {
                        out.resize(s + 1, None);
                        out[s] = request.unwrap_or(r.line);
                    }
                    request = None;
                    turn += 1;
                }
                _ => {}
            }
        }
        out
    }

    /// Policy session of every response (spec `trace-formats.md` §2.2, with veer's rule that a
    /// user message made only of `tool_result` blocks continues a session).
    pub fn policy_sessions(&self) -> Vec<usize> {
        let metadata_count = self.count(&Kind::Metadata);
        let mut out = Vec::new();
        if metadata_count >= 2 {
            let mut session: Option<usize> = None;
            for r in &self.records {
                match r.kind {
                    Kind::Metadata => session = Some(session.map_or(0, |s| s + 1)),
                    Kind::ChatResponse => out.push(session.unwrap_or(0)),
                    _ => {}
                }
            }
            return out;
        }
        let mut session: i64 = -1;
        let mut prior_terminal = true;
        let mut pending: Option<usize> = None;
        for r in &self.records {
            match r.kind {
                Kind::ChatRequest => {
                    if is_session_start(&r.payload) || prior_terminal {
                        session += 1;
                    }
                    pending = Some(session.max(0) as usize);
                    prior_terminal = false;
                }
                Kind::ChatResponse => {
                    out.push(pending.take().unwrap_or(session.max(0) as usize));
                    prior_terminal = r.str_field("stop_reason").unwrap_or("") != "tool_use";
                }
                _ => {}
            }
        }
        out
    }
}

/// Whether a request opens a new session: its last non-system message is a user message that
/// is not a pure `tool_result` continuation; no messages at all also counts as a start.
pub(crate) fn is_session_start(request: &Json) -> bool {
    let Some(Json::Array(messages)) = request.get("messages") else {
        return true;
    };
    for m in messages.iter().rev() {
        let Some(o) = m.as_object() else { continue };
        let role = o.get("role").and_then(Json::as_str);
        if role == Some("system") {
            continue;
        }
        if role != Some("user") {
            return false;
        }
        let continuation = match o.get("content") {
            Some(Json::Array(parts)) => {
                !parts.is_empty()
                    && parts
                        .iter()
                        .all(|p| p.get("type").and_then(Json::as_str) == Some("tool_result"))
            }
            _ => false,
        };
        return !continuation;
    }
    true
}
