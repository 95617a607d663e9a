//! Codex CLI rollouts written before the `{timestamp, type, payload}` wrapper (codex-rs of
//! mid 2025): a first line holding the session's own fields (`id`, `timestamp`,
//! `instructions`, `git`…), then `{"record_type": "state"}` markers and bare response items
//! (`{"type": "message" | "reasoning" | "function_call" | "function_call_output" | …}`). This
//! module rewrites such a file's records into the wrapped shape the Codex reader reads
//! (docs/formats.md §Codex), so one reader maps both.

use super::{type_name, Item};
use crate::error::TraceError;
use serde_json::{json, Map, Value};

/// Whether `v` is the first line of a rollout without the wrapper: an `id` and a `timestamp`
/// (strings) and an `instructions` key, and none of `type`, `payload`, `kind`.
pub(crate) fn is_header(v: &Value) -> bool {
    let Some(o) = v.as_object() else {
        return false;
    };
    o.get("id").is_some_and(Value::is_string)
        && o.get("timestamp").is_some_and(Value::is_string)
        && o.contains_key("instructions")
        && !["type", "payload", "kind", "record_type"]
            .iter()
            .any(|k| o.contains_key(*k))
}

/// The records of a rollout without the wrapper (its first item a header, see [`is_header`])
/// in the wrapped shape: the header as `session_meta`, each response item as a
/// `response_item` (its own `timestamp` kept when it has one); `record_type` markers dropped.
/// Errors name the line: an item that is not an object, or has no string `type`.
pub(crate) fn wrap(source: &str, items: Vec<Item>) -> Result<Vec<Item>, TraceError> {
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        let Item { line, path, value } = item;
        let here = |v: Value| Item {
            line,
            path: path.clone(),
            value: v,
        };
        let Value::Object(o) = value else {
            return Err(here(Value::Null).err(
                source,
                "(line)",
                format!(
                    "a rollout line must be an object, found {}",
                    type_name(&value)
                ),
            ));
        };
        if i == 0 {
            let ts = o.get("timestamp").cloned().unwrap_or(Value::Null);
            out.push(here(
                json!({"timestamp": ts, "type": "session_meta", "payload": o}),
            ));
            continue;
        }
        if o.contains_key("record_type") {
            continue;
        }
        match o.get("type") {
            Some(Value::String(_)) => {
                let ts = o.get("timestamp").cloned().unwrap_or(Value::Null);
                out.push(here(wrapped(ts, o)));
            }
            other => {
                return Err(here(Value::Null)
                    .err(
                        source,
                        "type",
                        format!(
                            "must be a string naming the response item, found {}",
                            other.map_or("nothing", type_name)
                        ),
                    )
                    .with_hint(
                        "this rollout opens with a session header (id, timestamp, instructions): every later line must be a response item or a {\"record_type\": ...} marker",
                    ));
            }
        }
    }
    Ok(out)
}

/// A bare response item as the wrapped reader's `response_item` line.
fn wrapped(ts: Value, item: Map<String, Value>) -> Value {
    json!({"timestamp": ts, "type": "response_item", "payload": item})
}

#[cfg(test)]
mod tests {
    use crate::error::TraceError;
    use crate::load::{load_bytes, Document};
    use crate::model::{Kind, Trace};
    use crate::options::ReadOptions;
    use serde_json::json;
    use veer_base::format::Format;

    /// A rollout in the shape codex-rs wrote before the wrapper (constructed here; the shape
    /// is the one of the public rollouts docs/formats.md names).
    pub(crate) const ROLLOUT: &str = concat!(
        r#"{"id":"5973b6c0-94b8-487b-a530-2aeb6098ae0e","timestamp":"2025-08-20T13:20:47.060Z","instructions":null,"git":{"commit_hash":"4b1f7a5","branch":"main"}}"#,
        "\n",
        r#"{"record_type":"state"}"#,
        "\n",
        r#"{"type":"message","id":null,"role":"user","content":[{"type":"input_text","text":"list the files"}]}"#,
        "\n",
        r#"{"record_type":"state"}"#,
        "\n",
        r#"{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"**Listing**"}],"encrypted_content":"gAAA"}"#,
        "\n",
        r#"{"type":"function_call","id":"fc_1","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"call_1"}"#,
        "\n",
        r#"{"record_type":"state"}"#,
        "\n",
        r#"{"type":"function_call_output","call_id":"call_1","output":"{\"output\":\"README.md\\n\",\"metadata\":{\"exit_code\":0}}"}"#,
        "\n",
        r#"{"record_type":"state"}"#,
        "\n",
        r#"{"type":"message","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"One file: README.md."}]}"#,
        "\n",
    );

    fn read(s: &str) -> Result<Trace, TraceError> {
        match load_bytes("rollout.jsonl", s.as_bytes(), &ReadOptions::default())? {
            Document::Trace(t) => Ok(t),
            other => panic!("not a trace: {other:?}"),
        }
    }

    #[test]
    fn a_rollout_without_the_wrapper_reads_as_codex() {
        let t = read(ROLLOUT).unwrap();
        assert_eq!(t.format, Format::Codex);
        assert_eq!(t.trace_id(), "5973b6c0-94b8-487b-a530-2aeb6098ae0e");
        let kinds: Vec<Kind> = t.records.iter().map(|r| r.kind.clone()).collect();
        use Kind::*;
        assert_eq!(
            kinds,
            [
                Metadata,
                ChatRequest,
                ChatResponse,
                ToolCall,
                ToolResult,
                ChatRequest,
                ChatResponse
            ]
        );
        let calls = t.tool_calls();
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].name, "shell");
        assert_eq!(
            t.records[3].payload["arguments"],
            json!({"command": ["ls"]})
        );
        assert_eq!(t.records[4].payload["tool_call_id"], json!("call_1"));
        assert_eq!(
            t.records[1].payload["messages"][0]["content"],
            json!("list the files")
        );
        assert_eq!(
            t.records[6].payload["content"][0]["text"],
            json!("One file: README.md.")
        );
        // The items carry no time of their own: every record is at the header's time.
        assert!(t
            .records
            .iter()
            .all(|r| r.ts.as_str() == t.records[0].ts.as_str()));
        assert!(t.warnings.is_empty(), "{:?}", t.warnings);
    }

    #[test]
    fn bad_lines_of_such_a_rollout_are_named() {
        let header = ROLLOUT.lines().next().unwrap();
        let e = read(&format!("{header}\n[1]\n")).unwrap_err();
        assert_eq!((e.field.as_str(), e.line), ("(line)", Some(2)));
        assert!(e.message.contains("must be an object"), "{e}");
        let e = read(&format!("{header}\n{{\"role\":\"user\"}}\n")).unwrap_err();
        assert_eq!((e.field.as_str(), e.line), ("type", Some(2)));
        assert!(
            e.hint.as_deref().unwrap_or("").contains("record_type"),
            "{e:?}"
        );
        let e = read(&format!("{header}\n{{\"record_type\":\"state\"}}\n")).unwrap_err();
        assert!(e.message.contains("no model calls"), "{e}");
        // A header alone is one JSON document, not a rollout: never read as Codex.
        assert!(read(header).is_err());
    }

    #[test]
    fn the_header_is_told_apart_from_other_records() {
        use super::is_header;
        assert!(is_header(
            &json!({"id": "s", "timestamp": "t", "instructions": null})
        ));
        assert!(!is_header(&json!({"id": "s", "timestamp": "t"})));
        assert!(!is_header(
            &json!({"id": "s", "timestamp": "t", "instructions": null, "kind": "metadata"})
        ));
        assert!(!is_header(
            &json!({"id": "s", "timestamp": "t", "instructions": null, "type": "session_meta", "payload": {}})
        ));
        assert!(!is_header(
            &json!({"id": 1, "timestamp": "t", "instructions": null})
        ));
    }
}
