//! Structural signatures: one string per event, so traces compare as signature sequences
//! (spec `experiment.md` §1, §12.1).

use crate::events::MetricEvent;
use crate::pystr::{push_py_str, truthy, write_repr};
use serde_json::Value;
use std::collections::HashMap;

/// Appends `{key}`: Python `str()` of `payload[key]`, `?` only when the key is absent.
fn push_field(out: &mut String, event: &MetricEvent<'_>, key: &str) {
    match event.field(key) {
        Some(v) => push_py_str(out, v),
        None => out.push('?'),
    }
}

/// The signature of one event. Unusual values that traxr itself would reject (a non-string
/// in `tool_call_names`) are rendered with Python's nested rule and reported in `warnings`.
pub fn signature(event: &MetricEvent<'_>, warnings: &mut Vec<String>) -> String {
    let mut s = String::with_capacity(32);
    match &*event.event_type {
        "routing_decision" => {
            s.push_str("route:");
            push_field(&mut s, event, "chosen_agent");
        }
        "tool_invocation" => {
            s.push_str("tool:");
            push_field(&mut s, event, "tool_name");
            s.push(':');
            push_field(&mut s, event, "operation");
            let ok = !matches!(event.field("success"), Some(v) if !truthy(v));
            s.push_str(if ok { ":ok" } else { ":fail" });
        }
        "memory_write" => {
            s.push_str("mem_write:");
            push_field(&mut s, event, "entry_type");
        }
        "memory_read" => s.push_str("mem_read"),
        "retrieval_shown" => s.push_str("retrieval"),
        "agent_output" => {
            s.push_str("output:");
            push_field(&mut s, event, "action");
            s.push(':');
            match event.field("is_final_answer") {
                Some(v) => push_py_str(&mut s, v),
                None => s.push_str("False"),
            }
        }
        "final_answer" => s.push_str("final_answer"),
        "tool_failure" => {
            s.push_str("tool_failure:");
            push_field(&mut s, event, "tool_name");
        }
        "agent_halt" => {
            s.push_str("agent_halt:");
            push_field(&mut s, event, "reason");
        }
        "llm_call" => {
            s.push_str("llm:");
            push_field(&mut s, event, "model");
            s.push(':');
            push_field(&mut s, event, "finish_reason");
            s.push(':');
            let start = s.len();
            push_tool_call_names(&mut s, event, warnings);
            if s.len() == start {
                s.push('-');
            }
        }
        "tool_request" => {
            s.push_str("tool_req:");
            push_field(&mut s, event, "tool_name");
        }
        "tool_result" => {
            s.push_str("tool_res:");
            push_field(&mut s, event, "tool_name");
        }
        "agent_error" => {
            s.push_str("agent_error:");
            push_field(&mut s, event, "exc_type");
        }
        other => {
            s.push_str("unknown:");
            s.push_str(other);
        }
    }
    s
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
    match event.field("tool_call_names") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for item in items {
                match item {
                    Value::String(name) => push(out, name),
                    other => {
                        warnings.push(format!(
                            "event {}: tool_call_names holds a non-string element; rendered as {}",
                            event.record_index,
                            crate::pystr::py_str(other)
                        ));
                        let mut r = String::new();
                        write_repr(&mut r, other);
                        push(out, &r);
                    }
                }
            }
        }
        Some(Value::String(text)) => {
            for c in text.chars() {
                push(out, c.encode_utf8(&mut [0; 4]));
            }
        }
        Some(Value::Object(map)) => {
            for k in map.keys() {
                push(out, k);
            }
        }
        Some(other) => {
            warnings.push(format!(
                "event {}: tool_call_names is not a list; rendered whole",
                event.record_index
            ));
            push(out, &crate::pystr::py_str(other));
        }
    }
}

/// Signatures interned as small integers, shared across the traces of one comparison so
/// equal strings get equal ids; borrows the strings.
#[derive(Debug, Default)]
pub struct Interner<'s> {
    ids: HashMap<&'s str, u32>,
}

impl<'s> Interner<'s> {
    /// An empty interner.
    pub fn new() -> Self {
        Interner::default()
    }

    /// The id of `signature` (new ids are handed out in first-seen order).
    pub fn intern(&mut self, signature: &'s str) -> u32 {
        let next = u32::try_from(self.ids.len()).unwrap_or(u32::MAX);
        *self.ids.entry(signature).or_insert(next)
    }
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
    use serde_json::{json, Map};
    use std::borrow::Cow;

    fn sig(event_type: &str, payload: Value) -> String {
        let Value::Object(m) = payload else {
            return String::new();
        };
        let e = MetricEvent {
            event_type: Cow::Borrowed(event_type),
            step: 0,
            payload: Cow::Owned(m),
            record_index: 0,
        };
        signature(&e, &mut Vec::new())
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
        let _ = Map::<String, Value>::new();
    }

    #[test]
    fn interning_is_first_seen() {
        let mut i = Interner::new();
        assert_eq!(i.intern("a"), 0);
        assert_eq!(i.intern("b"), 1);
        assert_eq!(i.intern("a"), 0);
    }
}
