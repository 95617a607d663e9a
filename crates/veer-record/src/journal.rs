//! The recording itself: completed calls become `.agentlog` records, appended to the output
//! one whole call at a time under one lock, so the file is valid JSON Lines at every moment and
//! concurrent calls never interleave. This is also where the live policy is judged, because
//! the enforcer must see the trace in the same order as the file.
//!
//! Order: a call is written when it completes (its response, or its failure, is known), so a
//! crash loses only the calls still in flight. Each call is written as its tool results (taken
//! from its request's messages, once per tool-call id), its `chat_request` (parent: the record
//! written before it), then its `chat_response` or `error` (parent: the request), then any
//! policy decision as a `harness_event` (parent: the record it judges).

use crate::payload::RequestRecord;
use serde_json::{json, Map, Value};
use std::collections::{HashMap, HashSet};
use std::io::{self, Write};
use std::sync::Mutex;
use std::time::{Instant, SystemTime, UNIX_EPOCH};
use veer_base::format::Format;
use veer_contract::policy::Violation;
use veer_policy::runtime::{EnforcerVerdict, Mode, PolicyEnforcer, ProposedCall};
use veer_trace::agentlog::writer::write_record;
use veer_trace::canonical::content_id;
use veer_trace::{Json, Kind, Record, Trace};

/// How a call ended, as far as the record is concerned.
#[derive(Debug, Clone, PartialEq)]
pub enum CallOutcome {
    /// The model answered: the `chat_response` payload, `latency_ms` included.
    Response(Value),
    /// The call failed: the `error` payload.
    Failed(Value),
}

/// What the proxy must do with a response after the policy judged it.
#[derive(Debug, Clone, PartialEq)]
pub enum ProxyDecision {
    /// Pass the upstream's answer unchanged.
    Pass,
    /// Pass it, and tell the user (warn mode).
    Warn(String),
    /// Answer with this text instead (replace mode).
    Replace(String),
    /// Answer with an error carrying this message (raise mode).
    Raise(String),
}

/// The `error` payload of a failed call (spec `trace-formats.md` §1.3).
pub fn error_payload(
    source: &str,
    code: &str,
    message: &str,
    retriable: bool,
    upstream_status: Option<u16>,
) -> Value {
    json!({"source": source, "code": code, "message": message, "retriable": retriable,
           "upstream_status": upstream_status})
}

struct State {
    out: Box<dyn Write + Send>,
    /// The records so far; kept only while a policy is enforced (the enforcer reads them).
    trace: Option<Trace>,
    enforcer: Option<PolicyEnforcer>,
    mode: Mode,
    last_id: String,
    last_ms: i64,
    /// Response id and release time of every tool-use block id not yet answered.
    open_calls: HashMap<String, (String, Instant)>,
    answered: HashSet<String>,
    line: Vec<u8>,
    calls: u64,
    failed: u64,
    refused: u64,
    replaced: u64,
    io_error: Option<String>,
    /// With `--redact`: secrets in every payload are replaced before the line is written (and
    /// before its content id is computed); the enforcer still judges what was really sent.
    redactor: Option<veer_secrets::Detector>,
    /// With `veer replay`: the recorded `latency_ms` of tool results, by tool-call id, used
    /// instead of the measured time for the calls the recording has.
    recorded_tool_latency: HashMap<String, u64>,
}

/// The recorder of one run.
pub struct Journal {
    state: Mutex<State>,
}

/// Counts for the end-of-run summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordingSummary {
    /// Calls recorded (answered or failed).
    pub calls: u64,
    /// Of which failed: the upstream's failures and the calls the live policy refused
    /// (`refused`).
    pub failed: u64,
    /// Calls the live policy refused (`--enforce raise`: the agent got an error).
    pub refused: u64,
    /// Responses the live policy replaced (`--enforce replace`).
    pub replaced: u64,
}

impl RecordingSummary {
    /// What the run recorded, for the end-of-run line: `N call(s) recorded to OUT (F failed)`,
    /// with the refused ones named among the failures and the replaced responses counted.
    pub fn line(&self, output: &str) -> String {
        let mut parts = vec![match self.refused {
            0 => format!("{} failed", self.failed),
            r => format!("{} failed, {r} of them refused by the policy", self.failed),
        }];
        if self.replaced > 0 {
            parts.push(format!("{} replaced by the policy", self.replaced));
        }
        format!(
            "{} call(s) recorded to {output} ({})",
            self.calls,
            parts.join("; ")
        )
    }
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

fn describe(vs: &[Violation]) -> Value {
    Value::Array(
        vs.iter()
            .map(|v| {
                json!({"rule_id": v.rule_id, "kind": v.kind.name(), "severity": v.severity.name(),
                       "session": v.session, "pair_index": v.pair_index, "detail": v.detail})
            })
            .collect(),
    )
}

fn mode_name(m: Mode) -> &'static str {
    match m {
        Mode::Warn => "warn",
        Mode::Replace => "replace",
        Mode::Raise => "raise",
    }
}

impl State {
    fn stamp(&mut self) -> String {
        self.last_ms = self.last_ms.max(now_ms());
        veer_trace::timefmt::format_epoch_ms(self.last_ms)
    }

    /// Builds a record whose parent is the last record written and queues its line.
    fn push(&mut self, kind: Kind, payload: Value, parent: Option<String>) -> Record {
        self.push_with_meta(kind, payload, parent, None)
    }

    /// [`State::push`] with the envelope's `meta` (the content id covers the payload only).
    fn push_with_meta(
        &mut self,
        kind: Kind,
        payload: Value,
        parent: Option<String>,
        meta: Option<Box<serde_json::Map<String, Value>>>,
    ) -> Record {
        let ts = self.stamp();
        let redacted = self.redactor.as_ref().and_then(|d| {
            let mut p = payload.clone();
            d.redact_json(&mut p);
            (p != payload).then_some(p)
        });
        let id = content_id(redacted.as_ref().unwrap_or(&payload));
        let parent = parent.or_else(|| Some(self.last_id.clone()));
        let r = Record {
            line: None,
            kind,
            version: "0.1".into(),
            id: id.as_str().into(),
            ts: ts.into(),
            parent: parent.filter(|p| !p.is_empty()).map(Into::into),
            meta,
            payload: payload.into(),
            extra_envelope: None,
            origin: None,
        };
        let mut line = std::mem::take(&mut self.line);
        // Writing into a Vec cannot fail.
        let _ = match redacted {
            Some(p) => write_record(
                &mut line,
                &mut Vec::new(),
                &Record {
                    payload: p.into(),
                    ..r.clone()
                },
            ),
            None => write_record(&mut line, &mut Vec::new(), &r),
        };
        self.line = line;
        self.last_id = id;
        if let Some(t) = self.trace.as_mut() {
            t.records.push(r.clone());
        }
        r
    }

    /// Appends the queued lines in one write, so only whole lines reach the file.
    fn flush(&mut self) {
        if self.line.is_empty() {
            return;
        }
        let res = self
            .out
            .write_all(&self.line)
            .and_then(|()| self.out.flush());
        self.line.clear();
        if let Err(e) = res {
            self.io_error.get_or_insert_with(|| e.to_string());
        }
    }

    fn tool_results(&mut self, request: &RequestRecord) {
        let now = Instant::now();
        for tr in &request.tool_results {
            if tr.tool_call_id.is_empty() || !self.answered.insert(tr.tool_call_id.clone()) {
                continue;
            }
            let (parent, mut latency) = match self.open_calls.remove(&tr.tool_call_id) {
                Some((id, released)) => (Some(id), now.duration_since(released).as_millis()),
                None => (None, 0),
            };
            if let Some(ms) = self.recorded_tool_latency.get(&tr.tool_call_id) {
                latency = u128::from(*ms);
            }
            let payload = json!({"tool_call_id": tr.tool_call_id, "output": tr.output,
                                 "is_error": tr.is_error, "latency_ms": latency as u64});
            self.push(Kind::ToolResult, payload, parent);
        }
    }

    fn judge(&mut self, response: &Record) -> Option<(EnforcerVerdict, Mode)> {
        let (enforcer, trace) = (self.enforcer.as_mut()?, self.trace.as_ref()?);
        let mut verdict = enforcer.evaluate(trace);
        let blocks = response
            .field("content")
            .and_then(Json::as_array)
            .into_iter()
            .flatten()
            .filter(|p| p.get("type").and_then(Json::as_str) == Some("tool_use"));
        for b in blocks {
            let call = ProposedCall {
                name: b.get("name").and_then(Json::as_str).unwrap_or("").into(),
                id: b.get("id").and_then(Json::as_str).map(str::to_string),
                arguments: b.get("input").map_or(Value::Null, Json::to_value),
            };
            for v in enforcer.probe(trace, &call).violations {
                let seen = verdict
                    .violations
                    .iter()
                    .any(|w| w.rule_id == v.rule_id && w.detail == v.detail);
                if !seen {
                    verdict.violations.push(v);
                }
            }
        }
        Some((verdict, self.mode))
    }
}

/// Who a recording is: the case and trial it is a run of, and free-form tags
/// (`veer record --case NAME --trial N --tag KEY=VALUE`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Identity {
    /// The eval case (the key `veer diff` pairs cases by).
    pub case: Option<String>,
    /// The trial number within the case (1-based by convention).
    pub trial: Option<u64>,
    /// Extra tags, in the order given (a later key replaces an earlier one).
    pub tags: Vec<(String, String)>,
}

/// A random 128-bit id as 32 hex digits: std's randomly seeded hasher over the clock and the
/// process id (no RNG crate needed; unique per recording, not a secret).
fn recording_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let half = |salt: u64| {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(now);
        h.write_u32(std::process::id());
        h.write_u64(salt);
        h.finish()
    };
    format!("{:016x}{:016x}", half(1), half(2))
}

impl Journal {
    /// A journal writing to `out`, starting with the root `metadata` record. `policy` turns
    /// live enforcement on.
    pub fn new(out: Box<dyn Write + Send>, policy: Option<(veer_policy::Policy, Mode)>) -> Journal {
        Journal::with_identity(out, policy, &Identity::default())
    }

    /// [`Journal::new`] with the recording's identity (`veer record --case/--trial/--tag`)
    /// written into the root `metadata` record: `case`, `trial` and the tags beside
    /// `recorder`. Every recording also gets its own `recording_id` there (a random 128-bit
    /// hex string), so two recordings never share a trace id.
    pub fn with_identity(
        out: Box<dyn Write + Send>,
        policy: Option<(veer_policy::Policy, Mode)>,
        identity: &Identity,
    ) -> Journal {
        Journal::with_root(out, policy, identity, None)
    }

    /// [`Journal::with_identity`] for `veer replay`: the root `metadata` record also carries
    /// `replay` (the replay's provenance: the recording replayed, its trace id, the branch
    /// point).
    pub fn replaying(out: Box<dyn Write + Send>, identity: &Identity, replay: Value) -> Journal {
        Journal::with_root(out, None, identity, Some(replay))
    }

    fn with_root(
        out: Box<dyn Write + Send>,
        policy: Option<(veer_policy::Policy, Mode)>,
        identity: &Identity,
        replay: Option<Value>,
    ) -> Journal {
        let enforcing = policy.is_some();
        let mode = policy.as_ref().map_or(Mode::Warn, |(_, m)| *m);
        let mut state = State {
            out,
            trace: enforcing.then(|| Trace::new("veer record", Format::Agentlog)),
            enforcer: policy.map(|(p, m)| PolicyEnforcer::new(p, m)),
            mode,
            last_id: "".into(),
            last_ms: 0,
            open_calls: HashMap::new(),
            answered: HashSet::new(),
            line: Vec::with_capacity(4096),
            calls: 0,
            failed: 0,
            refused: 0,
            replaced: 0,
            io_error: None,
            redactor: None,
            recorded_tool_latency: HashMap::new(),
        };
        let mut tags = serde_json::Map::new();
        tags.insert("recorder".into(), json!("veer record"));
        for (k, v) in &identity.tags {
            tags.insert(k.clone(), json!(v));
        }
        let mut root = json!({"sdk": {"name": "veer", "version": env!("CARGO_PKG_VERSION")},
                              "recording_id": recording_id(), "tags": tags});
        if let Some(case) = &identity.case {
            root["case"] = json!(case);
        }
        if let Some(trial) = identity.trial {
            root["trial"] = json!(trial);
        }
        if let Some(replay) = replay {
            root["replay"] = replay;
        }
        state.push(Kind::Metadata, root, None);
        state.flush();
        Journal {
            state: Mutex::new(state),
        }
    }

    /// The same journal writing every later record with its secrets replaced by
    /// `[REDACTED:<kind>]` (`veer record --redact`). Content ids are those of the written,
    /// redacted payloads, so the recording reads back strictly; a live policy still judges the
    /// payloads as they were sent.
    pub fn redacting(self, detector: veer_secrets::Detector) -> Journal {
        let mut state = self.state.into_inner().unwrap_or_else(|p| p.into_inner());
        state.redactor = Some(detector);
        Journal {
            state: Mutex::new(state),
        }
    }

    /// The same journal giving the tool results of the calls in `latencies` (tool-call id →
    /// `latency_ms`) the recorded latency instead of the measured one (`veer replay`: the
    /// tools a replayed agent runs against recorded answers keep the recording's timings, so
    /// an unchanged agent's replay diffs as identical).
    pub fn with_tool_latencies(self, latencies: HashMap<String, u64>) -> Journal {
        let mut state = self.state.into_inner().unwrap_or_else(|p| p.into_inner());
        state.recorded_tool_latency = latencies;
        Journal {
            state: Mutex::new(state),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave a half-written line (lines are written
        // in one call), so a poisoned lock is still usable.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records one completed call and judges it; returns what to tell the agent.
    pub fn complete(&self, request: &RequestRecord, outcome: CallOutcome) -> ProxyDecision {
        let mut s = self.lock();
        s.calls += 1;
        s.tool_results(request);
        let meta = request.endpoint.map(|e| {
            let mut m = serde_json::Map::new();
            m.insert("endpoint".into(), json!(e));
            Box::new(m)
        });
        let req = s.push_with_meta(Kind::ChatRequest, request.payload.clone(), None, meta);
        let decision = match outcome {
            CallOutcome::Failed(err) => {
                s.failed += 1;
                s.push(Kind::Error, err, Some(req.id.to_string()));
                ProxyDecision::Pass
            }
            CallOutcome::Response(payload) => self.respond(&mut s, &req, payload),
        };
        s.flush();
        decision
    }

    fn respond(&self, s: &mut State, req: &Record, payload: Value) -> ProxyDecision {
        let resp = s.push(Kind::ChatResponse, payload, Some(req.id.to_string()));
        let Some((verdict, mode)) = s.judge(&resp) else {
            s.note_tool_uses(&resp);
            return ProxyDecision::Pass;
        };
        if !verdict.late.is_empty() {
            let attrs = json!({"mode": mode_name(mode), "violations": describe(&verdict.late)});
            s.push(
                Kind::HarnessEvent,
                guardrail("policy.late", "warning", attrs),
                None,
            );
        }
        if verdict.allow {
            s.note_tool_uses(&resp);
            return match verdict.late.is_empty() {
                true => ProxyDecision::Pass,
                false => ProxyDecision::Warn(late_message(&verdict.late)),
            };
        }
        let message = verdict.error_message().unwrap_or_default();
        let mut attrs = json!({"mode": mode_name(mode), "reason": verdict.reason,
                               "violations": describe(&verdict.violations)});
        match (mode, verdict.replacement) {
            (Mode::Replace, Some(replacement)) => {
                let text = crate::payload::first_text(&replacement);
                attrs["original_response"] = resp.payload.to_value();
                // The replacement stands where the response stood, for the file and the
                // enforcer alike.
                s.unpush(&resp);
                s.push(Kind::ChatResponse, replacement, Some(req.id.to_string()));
                s.push(
                    Kind::HarnessEvent,
                    guardrail("policy.replace", "error", attrs),
                    None,
                );
                s.replaced += 1;
                ProxyDecision::Replace(text)
            }
            (Mode::Raise, _) => {
                attrs["original_response"] = resp.payload.to_value();
                s.unpush(&resp);
                // The enforcer forgets the raised pair (spec `policy.md` §11.2); the file keeps
                // the request and the error the agent was given.
                if let Some(t) = s.trace.as_mut() {
                    t.records.retain(|r| r.id != req.id);
                }
                let err = error_payload("user", "policy_violation", &message, false, None);
                let saved = s.trace.take();
                s.push(Kind::Error, err, Some(req.id.to_string()));
                s.push(
                    Kind::HarnessEvent,
                    guardrail("policy.raise", "error", attrs),
                    None,
                );
                s.trace = saved;
                s.failed += 1;
                s.refused += 1;
                ProxyDecision::Raise(message)
            }
            _ => {
                s.push(
                    Kind::HarnessEvent,
                    guardrail("policy.warn", "warning", attrs),
                    None,
                );
                s.note_tool_uses(&resp);
                ProxyDecision::Warn(message)
            }
        }
    }

    /// Records a failure that belongs to no call (a request refused before forwarding).
    pub(crate) fn note_error(&self, payload: Value) {
        let mut s = self.lock();
        s.push(Kind::Error, payload, None);
        s.flush();
    }

    /// Judges the end of the run (end-of-unit rules), records the result and returns the
    /// message to show, if any.
    pub fn finish(&self) -> Option<String> {
        let mut guard = self.lock();
        let s = &mut *guard;
        let mode = s.mode;
        let (enforcer, trace) = (s.enforcer.as_mut()?, s.trace.as_ref()?);
        let verdict = enforcer.finish(trace);
        if verdict.violations.is_empty() {
            return None;
        }
        let attrs = json!({"mode": mode_name(mode), "violations": describe(&verdict.violations)});
        s.push(
            Kind::HarnessEvent,
            guardrail("policy.finish", "warning", attrs),
            None,
        );
        s.flush();
        Some(late_message(&verdict.violations))
    }

    /// Counts so far.
    pub fn summary(&self) -> RecordingSummary {
        let s = self.lock();
        RecordingSummary {
            calls: s.calls,
            failed: s.failed,
            refused: s.refused,
            replaced: s.replaced,
        }
    }

    /// The first write error, if writing the output ever failed.
    pub fn io_error(&self) -> Option<String> {
        self.lock().io_error.clone()
    }

    /// Flushes the output (a no-op for the whole-line writes, kept for the end of a run).
    pub fn close(&self) -> io::Result<()> {
        self.lock().out.flush()
    }
}

impl State {
    /// Forgets the record most recently pushed (it is still only queued, not written).
    fn unpush(&mut self, r: &Record) {
        let mut line = Vec::new();
        let _ = write_record(&mut line, &mut Vec::new(), r);
        if self.line.ends_with(&line) {
            let keep = self.line.len() - line.len();
            self.line.truncate(keep);
        }
        if let Some(t) = self.trace.as_mut() {
            if t.records.last().map(|l| &l.id) == Some(&r.id) {
                t.records.pop();
            }
        }
        self.last_id = r
            .parent
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default();
    }

    fn note_tool_uses(&mut self, resp: &Record) {
        let now = Instant::now();
        for p in resp
            .field("content")
            .and_then(Json::as_array)
            .into_iter()
            .flatten()
        {
            if p.get("type").and_then(Json::as_str) == Some("tool_use") {
                if let Some(id) = p.get("id").and_then(Json::as_str) {
                    self.open_calls
                        .insert(id.to_string(), (resp.id.to_string(), now));
                }
            }
        }
    }
}

fn guardrail(name: &str, severity: &str, attributes: Value) -> Value {
    let mut o = Map::new();
    o.insert("category".into(), json!("guardrail"));
    o.insert("name".into(), json!(name));
    o.insert("severity".into(), json!(severity));
    o.insert("attributes".into(), attributes);
    Value::Object(o)
}

fn late_message(vs: &[Violation]) -> String {
    let parts: Vec<String> = vs
        .iter()
        .map(|v| {
            format!(
                "{} [{}/{}]: {}",
                v.rule_id,
                v.kind.name(),
                v.severity.name(),
                v.detail
            )
        })
        .collect();
    format!("policy violation(s) in the run: {}", parts.join("; "))
}
