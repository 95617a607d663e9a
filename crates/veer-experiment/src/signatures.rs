//! Structural signatures: one string per event, so traces compare as signature sequences
//! (spec `experiment.md` §1, §12.1).

use crate::events::MetricEvent;
use std::collections::HashMap;
use veer_base::pystr::{push_py_str, truthy, write_repr};
use veer_trace::Json;

/// Appends `{key}`: Python `str()` of `payload[key]`, `?` only when the key is absent.
fn push_field(out: &mut String, event: &MetricEvent<'_>, key: &str) {
    match event.field(key) {
        Some(v) => push_py_str(out, &*v),
        None => out.push('?'),
    }
}

/// The signature of one event. Unusual values that traxr itself would reject (a non-string
/// in `tool_call_names`) are rendered with Python's nested rule and reported in `warnings`.
pub(crate) fn signature(event: &MetricEvent<'_>, warnings: &mut Vec<String>) -> String {
    let mut s = String::with_capacity(32);
    push_signature(&mut s, event, warnings);
    s
}

/// Appends the [`signature`] of `event` to `s`.
pub(crate) fn push_signature(s: &mut String, event: &MetricEvent<'_>, warnings: &mut Vec<String>) {
    match event.event_type() {
        "routing_decision" => {
            s.push_str("route:");
            push_field(s, event, "chosen_agent");
        }
        "tool_invocation" => {
            s.push_str("tool:");
            push_field(s, event, "tool_name");
            s.push(':');
            push_field(s, event, "operation");
            let ok = !matches!(event.field("success"), Some(v) if !truthy(&*v));
            s.push_str(if ok { ":ok" } else { ":fail" });
        }
        "memory_write" => {
            s.push_str("mem_write:");
            push_field(s, event, "entry_type");
        }
        "memory_read" => s.push_str("mem_read"),
        "retrieval_shown" => s.push_str("retrieval"),
        "agent_output" => {
            s.push_str("output:");
            push_field(s, event, "action");
            s.push(':');
            match event.field("is_final_answer") {
                Some(v) => push_py_str(s, &*v),
                None => s.push_str("False"),
            }
        }
        "final_answer" => s.push_str("final_answer"),
        "tool_failure" => {
            s.push_str("tool_failure:");
            push_field(s, event, "tool_name");
        }
        "agent_halt" => {
            s.push_str("agent_halt:");
            push_field(s, event, "reason");
        }
        "llm_call" => {
            s.push_str("llm:");
            push_field(s, event, "model");
            s.push(':');
            push_field(s, event, "finish_reason");
            s.push(':');
            let start = s.len();
            push_tool_call_names(s, event, warnings);
            if s.len() == start {
                s.push('-');
            }
        }
        "tool_request" => {
            s.push_str("tool_req:");
            push_field(s, event, "tool_name");
        }
        "tool_result" => {
            s.push_str("tool_res:");
            push_field(s, event, "tool_name");
        }
        "agent_error" => {
            s.push_str("agent_error:");
            push_field(s, event, "exc_type");
        }
        other => {
            s.push_str("unknown:");
            s.push_str(other);
        }
    }
}

/// `",".join(tool_call_names)` (absent or null → nothing). Python iterates a string by
/// characters and a dict by keys; a scalar cannot be joined and is rendered whole.
fn push_tool_call_names(out: &mut String, event: &MetricEvent<'_>, warnings: &mut Vec<String>) {
    let mut sep = false;
    let mut push = |out: &mut String, text: &str| {
        if sep {
            out.push(',');
        }
        sep = true;
        out.push_str(text);
    };
    if let Some(names) = event.native_tool_call_names() {
        for name in names {
            match name {
                None => push(out, "?"),
                Some(Json::String(name)) => push(out, name),
                Some(other) => {
                    warnings.push(non_string_warning(event, other));
                    let mut r = String::new();
                    write_repr(&mut r, other);
                    push(out, &r);
                }
            }
        }
        return;
    }
    let names = event.field("tool_call_names");
    match names.as_deref() {
        None | Some(Json::Null) => {}
        Some(Json::Array(items)) => {
            for item in items {
                match item {
                    Json::String(name) => push(out, name),
                    other => {
                        warnings.push(non_string_warning(event, other));
                        let mut r = String::new();
                        write_repr(&mut r, other);
                        push(out, &r);
                    }
                }
            }
        }
        Some(Json::String(text)) => {
            for c in text.chars() {
                push(out, c.encode_utf8(&mut [0; 4]));
            }
        }
        Some(Json::Object(map)) => {
            for k in map.keys() {
                push(out, k);
            }
        }
        Some(other) => {
            warnings.push(format!(
                "event {}: tool_call_names is not a list; rendered whole",
                event.record_index
            ));
            push(out, &veer_base::pystr::py_str(other));
        }
    }
}

/// The warning for a non-string element of `tool_call_names`.
fn non_string_warning(event: &MetricEvent<'_>, element: &Json) -> String {
    format!(
        "event {}: tool_call_names holds a non-string element; rendered as {}",
        event.record_index,
        veer_base::pystr::py_str(element)
    )
}

/// The signatures of one trace, interned: each distinct signature once, and per event the
/// index of its signature (ids in first-seen order).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Signatures {
    /// Per event, the id of its signature: an index into `distinct`.
    pub ids: Vec<u32>,
    /// The distinct signatures, in first-seen order.
    pub distinct: Vec<Box<str>>,
}

impl Signatures {
    /// The signatures of `events`; rendering warnings are appended to `warnings`. Each
    /// signature is rendered into one reused buffer; only a new one is kept.
    pub fn of(events: &[MetricEvent<'_>], warnings: &mut Vec<String>) -> Signatures {
        let mut seen: HashMap<Box<str>, u32, foldhash::fast::RandomState> = HashMap::default();
        let mut buffer = String::with_capacity(64);
        let mut ids = Vec::with_capacity(events.len());
        for e in events {
            buffer.clear();
            push_signature(&mut buffer, e, warnings);
            let id = match seen.get(buffer.as_str()) {
                Some(&id) => id,
                None => {
                    let id = u32::try_from(seen.len()).unwrap_or(u32::MAX);
                    seen.insert(buffer.as_str().into(), id);
                    id
                }
            };
            ids.push(id);
        }
        let mut distinct = vec![Box::<str>::default(); seen.len()];
        for (text, id) in seen {
            if let Some(slot) = distinct.get_mut(id as usize) {
                *slot = text;
            }
        }
        Signatures { ids, distinct }
    }

    /// The signature of event `k`, if there is such an event.
    pub fn get(&self, k: usize) -> Option<&str> {
        let id = *self.ids.get(k)?;
        self.distinct.get(id as usize).map(|s| &**s)
    }
}

/// The ids of two traces' signatures in one shared numbering: equal signatures get equal ids,
/// new ids are handed out in first-seen order over `clean` then `perturbed` (so `clean`'s own
/// ids stand as they are).
pub(crate) fn shared_ids<'c>(
    clean: &'c Signatures,
    perturbed: &Signatures,
) -> (&'c [u32], Vec<u32>) {
    let known: HashMap<&str, u32> = clean
        .distinct
        .iter()
        .enumerate()
        .map(|(id, s)| (&**s, u32::try_from(id).unwrap_or(u32::MAX)))
        .collect();
    let mut next = clean.distinct.len();
    let map: Vec<u32> = perturbed
        .distinct
        .iter()
        .map(|s| match known.get(&**s) {
            Some(&id) => id,
            None => {
                let id = u32::try_from(next).unwrap_or(u32::MAX);
                next += 1;
                id
            }
        })
        .collect();
    let b = perturbed
        .ids
        .iter()
        .map(|&id| map.get(id as usize).copied().unwrap_or(u32::MAX))
        .collect();
    (&clean.ids, b)
}

/// Signatures of `events` in order, plus any rendering warnings.
pub fn signatures(events: &[MetricEvent<'_>]) -> (Vec<String>, Vec<String>) {
    let mut warnings = Vec::new();
    let sigs = events.iter().map(|e| signature(e, &mut warnings)).collect();
    (sigs, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::events;
    use crate::spec_cases::trace;
    use serde_json::{json, Value};

    fn sig(event_type: &str, payload: Value) -> String {
        let t = trace("t", &[(event_type, 0, payload)]);
        let ev = events(&t);
        signature(&ev[0], &mut Vec::new())
    }

    #[test]
    fn spec_probes() {
        assert_eq!(
            sig("routing_decision", json!({"chosen_agent": null})),
            "route:None"
        );
        assert_eq!(sig("routing_decision", json!({})), "route:?");
        assert_eq!(
            sig(
                "tool_invocation",
                json!({"tool_name": 3, "operation": null, "success": 0})
            ),
            "tool:3:None:fail"
        );
        assert_eq!(
            sig(
                "llm_call",
                json!({"model": 1.0, "finish_reason": null, "tool_call_names": ["a", "b"]})
            ),
            "llm:1.0:None:a,b"
        );
        assert_eq!(sig("llm_call", json!({})), "llm:?:?:-");
        assert_eq!(
            sig("llm_call", json!({"tool_call_names": [""]})),
            "llm:?:?:-"
        );
    }

    #[test]
    fn every_type() {
        assert_eq!(
            sig(
                "tool_invocation",
                json!({"tool_name": "t", "operation": "read", "success": "false"})
            ),
            "tool:t:read:ok"
        );
        assert_eq!(
            sig(
                "tool_invocation",
                json!({"tool_name": "t", "operation": "read"})
            ),
            "tool:t:read:ok"
        );
        for falsy in [json!(null), json!(0), json!(""), json!([])] {
            assert_eq!(
                sig(
                    "tool_invocation",
                    json!({"tool_name": "t", "operation": "r", "success": falsy})
                ),
                "tool:t:r:fail"
            );
        }
        assert_eq!(
            sig("memory_write", json!({"entry_type": "note"})),
            "mem_write:note"
        );
        assert_eq!(sig("memory_read", json!({"entry_ids": [1, 2]})), "mem_read");
        assert_eq!(
            sig("retrieval_shown", json!({"item_count": 3})),
            "retrieval"
        );
        assert_eq!(
            sig("agent_output", json!({"action": "x"})),
            "output:x:False"
        );
        assert_eq!(
            sig(
                "agent_output",
                json!({"action": "x", "is_final_answer": true})
            ),
            "output:x:True"
        );
        assert_eq!(sig("final_answer", json!({"answer": "42"})), "final_answer");
        assert_eq!(
            sig("tool_failure", json!({"tool_name": "csv"})),
            "tool_failure:csv"
        );
        assert_eq!(
            sig("agent_halt", json!({"reason": "max_steps_exhausted"})),
            "agent_halt:max_steps_exhausted"
        );
        assert_eq!(
            sig("tool_request", json!({"tool_name": "s", "arguments": {}})),
            "tool_req:s"
        );
        assert_eq!(
            sig("tool_result", json!({"tool_name": "s", "call_id": "c"})),
            "tool_res:s"
        );
        assert_eq!(
            sig("agent_error", json!({"exc_type": "TimeoutError"})),
            "agent_error:TimeoutError"
        );
        assert_eq!(sig("custom_thing", json!({"a": 1})), "unknown:custom_thing");
        assert_eq!(
            sig(
                "llm_call",
                json!({"model": "m", "finish_reason": "stop", "tool_call_names": [1, "b"]})
            ),
            "llm:m:stop:1,b"
        );
        assert_eq!(
            sig(
                "routing_decision",
                json!({"chosen_agent": {"k": ["it's", null]}})
            ),
            "route:{'k': [\"it's\", None]}"
        );
    }

    #[test]
    fn interning_is_first_seen_and_shared() {
        fn e(ty: &'static str, name: &str) -> (&'static str, i64, Value) {
            (ty, 0, json!({ "tool_name": name }))
        }
        let clean = trace(
            "c",
            &[
                e("tool_request", "a"),
                e("tool_result", "b"),
                e("tool_request", "a"),
            ],
        );
        let perturbed = trace(
            "p",
            &[
                e("tool_result", "c"),
                e("tool_result", "b"),
                e("tool_request", "d"),
            ],
        );
        let (c, p) = (events(&clean), events(&perturbed));
        let (sc, sp) = (
            Signatures::of(&c, &mut Vec::new()),
            Signatures::of(&p, &mut Vec::new()),
        );
        assert_eq!(sc.ids, [0, 1, 0]);
        assert_eq!(sp.ids, [0, 1, 2]);
        assert_eq!(sc.get(1), Some("tool_res:b"));
        assert_eq!(sc.get(3), None);
        let (a, b) = shared_ids(&sc, &sp);
        assert_eq!((a, b.as_slice()), (&[0, 1, 0][..], &[2, 1, 3][..]));
    }

    proptest::proptest! {
        /// Interned ids equal the ids of one table interning every signature string, clean
        /// first (the numbering the edit script was computed on before).
        #[test]
        fn shared_ids_equal_one_table_over_the_strings(
            a in proptest::collection::vec(0u8..6, 0..40),
            b in proptest::collection::vec(0u8..6, 0..40),
        ) {
            let names = ["x", "y", "z"];
            let ev = |k: &u8| {
                let ty = if k.is_multiple_of(2) { "tool_request" } else { "tool_result" };
                (ty, 0, json!({ "tool_name": names[usize::from(k / 2)] }))
            };
            let clean = trace("c", &a.iter().map(ev).collect::<Vec<_>>());
            let perturbed = trace("p", &b.iter().map(ev).collect::<Vec<_>>());
            let (c, p) = (events(&clean), events(&perturbed));
            let mut table: HashMap<String, u32> = HashMap::new();
            let mut plain = |e: &MetricEvent<'_>| {
                let s = signature(e, &mut Vec::new());
                let next = table.len() as u32;
                *table.entry(s).or_insert(next)
            };
            let want_a: Vec<u32> = c.iter().map(&mut plain).collect();
            let want_b: Vec<u32> = p.iter().map(&mut plain).collect();
            let (sc, sp) = (Signatures::of(&c, &mut Vec::new()), Signatures::of(&p, &mut Vec::new()));
            let (got_a, got_b) = shared_ids(&sc, &sp);
            proptest::prop_assert_eq!(got_a, &want_a[..]);
            proptest::prop_assert_eq!(got_b, want_b);
            for (k, e) in c.iter().enumerate() {
                let want = signature(e, &mut Vec::new());
                proptest::prop_assert_eq!(sc.get(k), Some(want.as_str()));
            }
        }
    }
}
