//! Runtime enforcement (spec `policy.md` §11.2): judging a trace while it is being recorded.
//!
//! [`PolicyEnforcer::evaluate`] runs after each recorded response and reports only violations
//! it has not reported before (a multiset over `(rule_id, session, locus)`); rules that judge a
//! unit as a whole wait until the unit ends (a later session starts, or
//! [`PolicyEnforcer::finish`]). [`PolicyEnforcer::probe`] judges a proposed tool call before
//! it is dispatched, using only the tool rules and never changing state. The enforcer never
//! edits the caller's trace: it returns an [`EnforcerVerdict`] with the replacement to record (replace
//! mode) or the error to raise (raise mode).

use crate::context::TraceView;
use crate::eval::{evaluate_phase, Judged, Phase};
use crate::model::Policy;
use serde_json::{json, Value};
use std::collections::HashMap;
use veer_contract::policy::Locus;
use veer_contract::policy::RuleKind;
use veer_contract::policy::Violation;
use veer_trace::{Json, Record, Trace};

/// What to do with a violating response or tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Record a replacement response (or return a blocked tool result) instead.
    Replace,
    /// Fail: the caller removes the offending records and raises the verdict's error.
    Raise,
    /// Keep the response and report the violations as warnings.
    Warn,
}

/// A tool call about to be dispatched.
#[derive(Debug, Clone, PartialEq)]
pub struct ProposedCall {
    /// Tool name.
    pub name: String,
    /// The call id (`tool_use.id` when the model asked for it).
    pub id: Option<String>,
    /// Arguments.
    pub arguments: Value,
}

/// The enforcer's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct EnforcerVerdict {
    /// Whether the response (or call) may go ahead.
    pub allow: bool,
    /// New violations caused by the latest response (or by the proposed call).
    pub violations: Vec<Violation>,
    /// New violations found for responses already released (e.g. a `tool_call` recorded
    /// afterwards): reported as warnings, never replacing a later response.
    pub late: Vec<Violation>,
    /// The details of `violations`, joined with `"; "`.
    pub reason: String,
    /// Replace mode: the response payload to record instead (after `evaluate`), or the tool
    /// result to return instead of calling the tool (after `probe`, a JSON string).
    pub replacement: Option<Value>,
}

/// Text of a blocked tool call's result.
pub(crate) const BLOCKED_TOOL_RESULT: &str = "[veer policy_runtime] tool call blocked by policy";

impl EnforcerVerdict {
    fn new(violations: Vec<Violation>, late: Vec<Violation>) -> EnforcerVerdict {
        let reason = violations
            .iter()
            .map(|v| v.detail.as_str())
            .collect::<Vec<_>>()
            .join("; ");
        EnforcerVerdict {
            allow: violations.is_empty(),
            violations,
            late,
            reason,
            replacement: None,
        }
    }

    /// The error a raise-mode caller raises: `policy violation(s) at runtime: …`.
    pub fn error_message(&self) -> Option<String> {
        if self.allow {
            return None;
        }
        let parts: Vec<String> = self
            .violations
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
        Some(format!(
            "policy violation(s) at runtime: {}",
            parts.join("; ")
        ))
    }
}

type Key = (String, Option<usize>, Locus);

fn key(v: &Violation) -> Key {
    let (id, s, l) = v.key();
    (id.to_string(), s, l)
}

/// Judges a trace as it grows.
#[derive(Debug, Clone)]
pub struct PolicyEnforcer {
    policy: Policy,
    tool_policy: Policy,
    mode: Mode,
    reported: HashMap<Key, usize>,
}

/// `a` minus `b` as multisets over the violation key, in `a`'s order.
fn minus(a: Vec<Judged>, b: &HashMap<Key, usize>) -> Vec<Judged> {
    let mut seen: HashMap<Key, usize> = HashMap::new();
    a.into_iter()
        .filter(|j| {
            let k = key(&j.violation);
            let n = seen.entry(k.clone()).or_insert(0);
            *n += 1;
            *n > b.get(&k).copied().unwrap_or(0)
        })
        .collect()
}

fn counts(js: &[Judged]) -> HashMap<Key, usize> {
    let mut m = HashMap::new();
    for j in js {
        *m.entry(key(&j.violation)).or_insert(0) += 1;
    }
    m
}

impl PolicyEnforcer {
    /// An enforcer of `policy` in `mode`.
    pub fn new(policy: Policy, mode: Mode) -> PolicyEnforcer {
        let mut tool_policy = policy.clone();
        tool_policy.rules.retain(|r| {
            matches!(
                r.check.kind(),
                RuleKind::NoCall | RuleKind::MustCallBefore | RuleKind::MustCallOnce
            )
        });
        PolicyEnforcer {
            policy,
            tool_policy,
            mode,
            reported: HashMap::new(),
        }
    }

    fn remember(&mut self, vs: &[Violation]) {
        for v in vs {
            *self.reported.entry(key(v)).or_insert(0) += 1;
        }
    }

    /// Judges `trace` after a response was recorded.
    pub fn evaluate(&mut self, trace: &Trace) -> EnforcerVerdict {
        let view = TraceView::new(trace);
        let latest = view.pairs.len().checked_sub(1);
        let (judged, _) = evaluate_phase(&self.policy, &view, Phase::Running);
        let (mut blocking, mut late) = (Vec::new(), Vec::new());
        for j in minus(judged, &self.reported) {
            let caused_by_latest = match j.violation.pair_index {
                Some(p) => Some(p) == latest,
                None => !j.end_of_unit,
            };
            if caused_by_latest {
                blocking.push(j.violation);
            } else {
                late.push(j.violation);
            }
        }
        self.remember(&late);
        if self.mode != Mode::Raise {
            // Raise mode rolls the blocking violations back: the caller removes the records,
            // and an identical retried violation is reported again.
            self.remember(&blocking);
        }
        let mut verdict = EnforcerVerdict::new(blocking, late);
        if self.mode == Mode::Replace && !verdict.allow {
            let response = latest
                .and_then(|_| {
                    trace
                        .records
                        .iter()
                        .rev()
                        .find(|r| r.kind == veer_trace::Kind::ChatResponse)
                })
                .map(|r| r.payload.to_value())
                .unwrap_or(Value::Null);
            verdict.replacement = Some(replacement(&response, &verdict.violations));
        }
        verdict
    }

    /// Judges a proposed tool call before dispatch, with the tool rules only; never changes
    /// state. The call belongs to the response whose `tool_use` block has its id, else to the
    /// latest response.
    pub fn probe(&self, trace: &Trace, call: &ProposedCall) -> EnforcerVerdict {
        let (with, without) = match call.id.as_deref().and_then(|id| without_block(trace, id)) {
            Some(stripped) => (trace.clone(), stripped),
            None => {
                let mut with = trace.clone();
                with.records.push(probe_record(call));
                (with, trace.clone())
            }
        };
        let (after, _) = evaluate_phase(&self.tool_policy, &TraceView::new(&with), Phase::Running);
        let (before, _) =
            evaluate_phase(&self.tool_policy, &TraceView::new(&without), Phase::Running);
        let new: Vec<Violation> = minus(after, &counts(&before))
            .into_iter()
            .map(|j| j.violation)
            .collect();
        let mut verdict = EnforcerVerdict::new(new, Vec::new());
        if self.mode == Mode::Replace && !verdict.allow {
            verdict.replacement = Some(Value::String(BLOCKED_TOOL_RESULT.into()));
        }
        verdict
    }

    /// Judges `trace` when the run ends: the end-of-unit checks of the trace unit and every
    /// open session, plus anything not reported yet.
    pub fn finish(&mut self, trace: &Trace) -> EnforcerVerdict {
        let view = TraceView::new(trace);
        let (judged, _) = evaluate_phase(&self.policy, &view, Phase::Complete);
        let new: Vec<Violation> = minus(judged, &self.reported)
            .into_iter()
            .map(|j| j.violation)
            .collect();
        self.remember(&new);
        EnforcerVerdict::new(new, Vec::new())
    }
}

/// The trace with the first `tool_use` block whose id is `id` removed, if there is one.
fn without_block(trace: &Trace, id: &str) -> Option<Trace> {
    for (ri, r) in trace.records.iter().enumerate() {
        if r.kind != veer_trace::Kind::ChatResponse {
            continue;
        }
        let Some(Json::Array(parts)) = r.field("content") else {
            continue;
        };
        let hit = parts.iter().position(|p| {
            p.get("type").and_then(Json::as_str) == Some("tool_use")
                && p.get("id").and_then(Json::as_str) == Some(id)
        });
        if let Some(bi) = hit {
            let mut t = trace.clone();
            // Payloads are immutable: rebuilt with the block left out.
            let mut payload = t.records[ri].payload.to_value();
            if let Some(Value::Array(parts)) =
                payload.as_object_mut().and_then(|o| o.get_mut("content"))
            {
                parts.remove(bi);
            }
            t.records[ri].payload = payload.into();
            return Some(t);
        }
    }
    None
}

fn probe_record(call: &ProposedCall) -> Record {
    Record {
        line: None,
        kind: veer_trace::Kind::ToolCall,
        version: "0.1".into(),
        id: "".into(),
        ts: "1970-01-01T00:00:00.000Z".into(),
        parent: None,
        meta: None,
        payload: json!({
            "tool_name": call.name,
            "tool_call_id": call.id.clone().unwrap_or_default(),
            "arguments": call.arguments,
        })
        .into(),
        extra_envelope: None,
        origin: None,
    }
}

/// The replacement of a blocked response: the same payload with the text replaced and
/// `stop_reason: "policy_blocked"`; `model`, `usage` and `latency_ms` kept (defaulted when
/// absent).
pub fn replacement(response: &Value, violations: &[Violation]) -> Value {
    let mut out = response.as_object().cloned().unwrap_or_default();
    let details: Vec<&str> = violations.iter().map(|v| v.detail.as_str()).collect();
    out.insert(
        "content".into(),
        json!([{"type": "text", "text": format!(
            "[veer policy_runtime] response blocked by policy ({} violation(s)): {}",
            violations.len(),
            details.join("; ")
        )}]),
    );
    out.insert("stop_reason".into(), json!("policy_blocked"));
    out.entry("model")
        .or_insert_with(|| json!("policy-enforced"));
    out.entry("usage")
        .or_insert_with(|| json!({"input_tokens": 0, "output_tokens": 0, "thinking_tokens": 0}));
    out.entry("latency_ms").or_insert_with(|| json!(0));
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::{meta, policy, req, req_with, resp, trace};

    #[test]
    fn max_turns_fires_once_when_exceeded() {
        let p = policy("rules:\n  - {id: m, kind: max_turns, params: {limit: 2}}\n");
        let mut e = PolicyEnforcer::new(p, Mode::Warn);
        let mut recs = vec![meta()];
        let mut fired_at = Vec::new();
        for i in 0..4 {
            recs.push(req("user"));
            recs.push(resp(&[], "hi", "end_turn"));
            let v = e.evaluate(&trace(&recs));
            if !v.allow {
                fired_at.push(i);
            }
        }
        assert_eq!(fired_at, vec![2]);
        assert!(
            e.evaluate(&trace(&recs)).allow,
            "nothing new on an unchanged trace"
        );
    }

    #[test]
    fn a_strict_trajectory_is_decided_as_soon_as_a_call_breaks_it() {
        let p = policy(
            "rules:\n  - {id: path, kind: trajectory_match, params: {mode: strict, calls: [{tool: lookup}, {tool: refund}]}}\n  - {id: any, kind: trajectory_match, params: {mode: superset, calls: [{tool: lookup}, {tool: refund}]}}\n",
        );
        // A prefix of the reference: nothing is final yet (a missing call waits for the end).
        let mut e = PolicyEnforcer::new(p.clone(), Mode::Replace);
        let ok = vec![meta(), req("user"), resp(&["lookup"], "", "tool_use")];
        assert!(e.evaluate(&trace(&ok)).allow);
        let done = e.finish(&trace(&ok));
        let ids: Vec<&str> = done.violations.iter().map(|v| v.rule_id.as_str()).collect();
        assert_eq!(ids, ["path", "any"], "both miss `refund` at the end");
        // The first call is not the reference's first: strict is broken now, superset waits.
        let mut e = PolicyEnforcer::new(p, Mode::Replace);
        let bad = vec![meta(), req("user"), resp(&["refund"], "", "tool_use")];
        let v = e.evaluate(&trace(&bad));
        assert!(!v.allow);
        let ids: Vec<&str> = v.violations.iter().map(|v| v.rule_id.as_str()).collect();
        assert_eq!(ids, ["path"]);
    }

    #[test]
    fn end_of_unit_rules_wait_for_the_end() {
        let p = policy(
            "rules:\n  - {id: once, kind: must_call_once, params: {tool: login}}\n  - {id: stop, kind: required_stop_reason, params: {allowed: [end_turn]}}\n",
        );
        let mut e = PolicyEnforcer::new(p, Mode::Replace);
        let recs = vec![meta(), req("user"), resp(&["lookup"], "", "tool_use")];
        assert!(
            e.evaluate(&trace(&recs)).allow,
            "W15: an intermediate tool_use turn is fine"
        );
        let done = e.finish(&trace(&recs));
        let ids: Vec<&str> = done.violations.iter().map(|v| v.rule_id.as_str()).collect();
        assert_eq!(ids, ["once", "stop"]);
        assert!(e.finish(&trace(&recs)).allow);
    }

    #[test]
    fn replace_warn_and_raise() {
        let yaml = "rules:\n  - {id: g, kind: must_be_grounded, params: {retrieval_path: request.metadata.chunks}}\n";
        let recs = vec![
            meta(),
            req_with(json!({"metadata": {"chunks": ["the refund window is thirty days"]}})),
            (
                "chat_response",
                json!({"model": "m1", "content": [{"type": "text", "text": "one million dollars wired today"}],
                       "stop_reason": "end_turn", "latency_ms": 123, "usage": {"input_tokens": 5, "output_tokens": 7}}),
            ),
        ];
        let t = trace(&recs);
        let mut e = PolicyEnforcer::new(policy(yaml), Mode::Replace);
        let v = e.evaluate(&t);
        assert!(!v.allow);
        let r = v.replacement.unwrap();
        assert_eq!(r["stop_reason"], "policy_blocked");
        assert!(r["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("policy_runtime"));
        assert_eq!(
            (r["model"].clone(), r["latency_ms"].clone()),
            (json!("m1"), json!(123))
        );
        assert_eq!(r["usage"]["output_tokens"], 7);

        let mut w = PolicyEnforcer::new(policy(yaml), Mode::Warn);
        let v = w.evaluate(&t);
        assert!(!v.allow && v.replacement.is_none());

        let mut x = PolicyEnforcer::new(policy(yaml), Mode::Raise);
        let v = x.evaluate(&t);
        assert!(v.error_message().unwrap().starts_with(
            "policy violation(s) at runtime: g [must_be_grounded/error]: response unigram precision"
        ));
        // Rolled back: the same violation on a retry is reported again.
        assert!(!x.evaluate(&t).allow);
    }

    #[test]
    fn probes_judge_tool_calls_without_changing_state() {
        let p = policy(
            "rules:\n  - {id: no-del, kind: no_call, params: {tool: delete_user}}\n  - {id: confirm, kind: must_call_before, params: {first: confirm, then: refund}}\n  - {id: once, kind: must_call_once, params: {tool: login}}\n",
        );
        let mut e = PolicyEnforcer::new(p, Mode::Replace);
        let call = |name: &str| ProposedCall {
            name: name.into(),
            id: None,
            arguments: json!({}),
        };
        let base = vec![
            meta(),
            req("user"),
            resp(&[], "ok", "tool_use"),
            (
                "tool_call",
                json!({"tool_name": "delete_user", "tool_call_id": "d1", "arguments": {}}),
            ),
        ];
        let t = trace(&base);
        let v = e.probe(&t, &call("delete_user"));
        assert!(!v.allow);
        assert_eq!(v.replacement, Some(json!(BLOCKED_TOOL_RESULT)));
        for _ in 0..5 {
            assert!(!e.probe(&t, &call("delete_user")).allow);
        }
        // A missing-but-not-yet-due must_call_once never blocks another tool.
        assert!(e.probe(&t, &call("search")).allow);
        let later = e.evaluate(&t);
        assert_eq!(
            later.violations.len() + later.late.len(),
            1,
            "probes left no trace"
        );

        // confirm → refund: recorded in order, both pass; without the confirm, refund blocks.
        let mut recs = vec![meta(), req("user"), resp(&[], "ok", "tool_use")];
        assert!(e.probe(&trace(&recs), &call("confirm")).allow);
        assert!(!e.probe(&trace(&recs), &call("refund")).allow);
        recs.push((
            "tool_call",
            json!({"tool_name": "confirm", "tool_call_id": "c1", "arguments": {}}),
        ));
        assert!(e.probe(&trace(&recs), &call("refund")).allow);
        // A call the model asked for (a tool_use block with its id) is judged as that block.
        let asked = trace(&[meta(), req("user"), resp(&["delete_user"], "", "tool_use")]);
        let id = asked.records[2].payload["content"][0]["id"]
            .as_str()
            .unwrap()
            .to_string();
        let v = e.probe(
            &asked,
            &ProposedCall {
                name: "delete_user".into(),
                id: Some(id),
                arguments: json!({}),
            },
        );
        assert!(!v.allow);
        // A second login is blocked; the first is not.
        let one = trace(&[meta(), req("user"), resp(&["login"], "", "tool_use")]);
        assert!(!e.probe(&one, &call("login")).allow);
    }

    #[test]
    fn earlier_sessions_close_when_a_new_one_starts() {
        let p = policy(
            "rules:\n  - {id: once, kind: must_call_once, params: {tool: login}, scope: session}\n",
        );
        let mut e = PolicyEnforcer::new(p, Mode::Replace);
        let mut recs = vec![meta(), req("user"), resp(&[], "a", "end_turn")];
        assert!(e.evaluate(&trace(&recs)).allow);
        recs.push(req("user"));
        recs.push(resp(&["login"], "", "end_turn"));
        let v = e.evaluate(&trace(&recs));
        // Session 0 ended without a login: reported, but it does not block the new response.
        assert!(v.allow);
        assert_eq!(v.late.len(), 1);
        assert_eq!(v.late[0].session, Some(0));
    }
}
