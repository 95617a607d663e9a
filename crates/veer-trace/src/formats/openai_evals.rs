//! OpenAI Evals run logs (the JSON Lines file `oaieval` writes with `--record_path`): a
//! `{"spec": …}` line naming the run, a `{"final_report": …}` line with its metrics, and one
//! event line per step (`run_id`, `event_id`, `sample_id`, `type`, `data`). Each sample becomes
//! a session of one trace, its `sampling` events model calls (`data.prompt` the request,
//! `data.sampled` the answer); its `match` / `metrics` events are the session's facts
//! (docs/formats.md §OpenAI Evals).

use super::assemble::{ms_of, request_payload, Answer, Assembler};
use super::{type_name, Item};
use crate::error::TraceError;
use crate::model::{Kind, Trace};
use crate::options::ReadOptions;
use serde_json::{json, Map, Value};
use veer_base::format::Format;

/// Whether `v` is a line of an OpenAI Evals log: the run's `spec` (with a `run_id` or an
/// `eval_name`) or an event (`run_id`, `event_id`, `sample_id` and `type`).
pub fn sniff(v: &Value) -> bool {
    let Some(o) = v.as_object() else {
        return false;
    };
    if let Some(Value::Object(spec)) = o.get("spec") {
        return o.len() == 1 && (spec.contains_key("run_id") || spec.contains_key("eval_name"));
    }
    ["run_id", "event_id", "sample_id", "type"]
        .iter()
        .all(|k| o.contains_key(*k))
        && !o.contains_key("kind")
}

/// One sample's events, in file order.
struct Sample<'a> {
    id: String,
    events: Vec<&'a Item>,
}

/// Reads the lines of an OpenAI Evals log.
pub fn read(source: &str, items: Vec<Item>, _options: &ReadOptions) -> Result<Trace, TraceError> {
    let mut a = Assembler::new(source, Format::OpenaiEvals, "openai-evals");
    let mut spec: Option<(&Item, &Map<String, Value>)> = None;
    let mut report: Option<&Value> = None;
    let mut samples: Vec<Sample> = Vec::new();
    for item in &items {
        let Value::Object(o) = &item.value else {
            return Err(item.err(
                source,
                "(line)",
                format!(
                    "an OpenAI Evals log line must be an object, found {}",
                    type_name(&item.value)
                ),
            ));
        };
        if let Some(s) = o.get("spec") {
            let Value::Object(s) = s else {
                return Err(item.err(
                    source,
                    "spec",
                    format!("must be an object, found {}", type_name(s)),
                ));
            };
            spec.get_or_insert((item, s));
            continue;
        }
        if let Some(r) = o.get("final_report") {
            report = Some(r);
            continue;
        }
        let id = match o.get("sample_id") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            Some(other) => {
                return Err(item.err(
                    source,
                    "sample_id",
                    format!("must be a string, found {}", type_name(other)),
                ))
            }
            None => {
                return Err(item
                    .err(source, "sample_id", "missing")
                    .with_hint("each event line of an OpenAI Evals log names its sample"))
            }
        };
        match samples.iter_mut().find(|s| s.id == id) {
            Some(s) => s.events.push(item),
            None => samples.push(Sample {
                id,
                events: vec![item],
            }),
        }
    }

    // The run: the root metadata record.
    let mut tags = Vec::new();
    let mut extra = Map::new();
    let (mut run_id, mut ms, mut line) = (None, None, None);
    // The model when an event does not name one: the completion function under evaluation.
    let mut completion_fn = "";
    if let Some((item, s)) = spec {
        for key in ["eval_name", "base_eval", "split"] {
            if let Some(Value::String(v)) = s.get(key) {
                tags.push((key, v.clone()));
            }
        }
        if let Some(Value::Array(fns)) = s.get("completion_fns") {
            let names: Vec<&str> = fns.iter().filter_map(Value::as_str).collect();
            completion_fn = names.first().copied().unwrap_or_default();
            tags.push(("completion_fns", names.join(",")));
        }
        run_id = s.get("run_id").and_then(Value::as_str);
        ms = ms_of(s.get("created_at"));
        line = item.line;
    }
    if let Some(r) = report {
        extra.insert("final_report".into(), r.clone());
    }
    a.session_with(tags, extra, run_id, ms, line);

    for sample in &samples {
        let first = sample.events[0];
        let mut facts = Map::new();
        for e in &sample.events {
            let kind = e.value.get("type").and_then(Value::as_str).unwrap_or("");
            if kind != "sampling" {
                if let Some(data) = e.value.get("data") {
                    facts.insert(kind.to_string(), data.clone());
                }
            }
        }
        let mut extra = Map::new();
        if !facts.is_empty() {
            extra.insert("events".into(), Value::Object(facts));
        }
        a.session_with(
            vec![("sample_id", sample.id.clone())],
            extra,
            run_id,
            ms_of(first.value.get("created_at")),
            first.line,
        );
        for e in &sample.events {
            if e.value.get("type").and_then(Value::as_str) != Some("sampling") {
                continue;
            }
            let Some(Value::Object(data)) = e.value.get("data") else {
                return Err(e.err(
                    source,
                    "data",
                    "a sampling event needs a `data` object with `prompt` and `sampled`",
                ));
            };
            let at = ms_of(e.value.get("created_at"));
            let model = data
                .get("model")
                .and_then(Value::as_str)
                .unwrap_or(completion_fn);
            let messages = messages_of(data.get("prompt"));
            a.push(
                Kind::ChatRequest,
                request_payload(model, messages, Vec::new()),
                at,
                e.line,
            );
            let answer = Answer {
                model: model.to_string(),
                text: texts_of(data.get("sampled")),
                ..Answer::default()
            };
            a.push(Kind::ChatResponse, answer.payload(), at, e.line);
        }
    }
    a.finish("OpenAI Evals log")
}

/// The request messages of a `prompt`: a string is one user message; a list of chat messages
/// (`role`, `content`) is kept as it is.
fn messages_of(prompt: Option<&Value>) -> Vec<Value> {
    match prompt {
        Some(Value::String(s)) => vec![json!({"role": "user", "content": s})],
        Some(Value::Array(list)) => list
            .iter()
            .map(|m| match m {
                Value::String(s) => json!({"role": "user", "content": s}),
                other => other.clone(),
            })
            .collect(),
        Some(Value::Null) | None => Vec::new(),
        Some(other) => vec![json!({"role": "user", "content": other.to_string()})],
    }
}

/// The answer's text parts: `sampled` is a string or a list of strings.
fn texts_of(sampled: Option<&Value>) -> Vec<String> {
    match sampled {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(list)) => list
            .iter()
            .map(|v| match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect(),
        Some(Value::Null) | None => Vec::new(),
        Some(other) => vec![other.to_string()],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::read_document;
    use crate::load::Document;

    const FIXTURE: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/formats/openai-evals/autogpt_test_match.jsonl"
    );

    fn trace_of(bytes: &[u8]) -> Result<Trace, TraceError> {
        match read_document("log.jsonl", bytes, &ReadOptions::default(), None)? {
            Document::Trace(t) => Ok(t),
            _ => panic!("not a trace"),
        }
    }

    #[test]
    fn a_real_oaieval_log_is_one_session_per_sample() {
        let t = trace_of(&std::fs::read(FIXTURE).unwrap()).unwrap();
        // Expected counts from tests/fixtures/formats/openai-evals/count.py.
        assert_eq!(t.format, Format::OpenaiEvals);
        assert_eq!(t.records.len(), 10);
        let count = |k: Kind| t.records.iter().filter(|r| r.kind == k).count();
        assert_eq!(count(Kind::Metadata), 4);
        assert_eq!(count(Kind::ChatRequest), 3);
        assert_eq!(count(Kind::ChatResponse), 3);
        let payloads: Vec<Value> = t.records.iter().map(|r| r.payload.to_value()).collect();
        let samples: Vec<&str> = payloads
            .iter()
            .filter_map(|p| p.pointer("/tags/sample_id")?.as_str())
            .collect();
        assert_eq!(
            samples,
            ["test-match.s1.2", "test-match.s1.1", "test-match.s1.0"]
        );
        let correct: Vec<&str> = payloads
            .iter()
            .filter(|p| p.pointer("/events/match/correct") == Some(&json!(true)))
            .filter_map(|p| p.pointer("/tags/sample_id")?.as_str())
            .collect();
        assert_eq!(correct, ["test-match.s1.1"]);
        let root = &payloads[0];
        assert_eq!(
            root.pointer("/tags/eval_name"),
            Some(&json!("test-match.s1.simple-v0"))
        );
        assert!(root.pointer("/final_report/accuracy").is_some());
        let answer = &payloads[3];
        assert_eq!(
            answer.pointer("/content/0/text"),
            Some(&json!("OpenAI was founded in 2015.2015"))
        );
        assert_eq!(t.records[2].ts.as_str(), "2023-04-17T22:10:13.127Z");
        assert_eq!(
            answer.pointer("/model"),
            Some(&json!("auto_gpt_completion_fn"))
        );
    }

    #[test]
    fn chat_prompts_and_sample_lists_are_kept() {
        let log = concat!(
            r#"{"spec": {"eval_name": "e", "run_id": "r"}}"#,
            "\n",
            r#"{"run_id": "r", "event_id": 0, "sample_id": "e.0", "type": "sampling", "data": {"prompt": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}], "sampled": ["a", "b"], "model": "gpt-4"}, "created_at": "2023-04-17 22:10:13+00:00"}"#,
            "\n"
        );
        let t = trace_of(log.as_bytes()).unwrap();
        let req = t.records[2].payload.to_value();
        assert_eq!(req.pointer("/messages/1/content"), Some(&json!("u")));
        assert_eq!(req.pointer("/model"), Some(&json!("gpt-4")));
        assert_eq!(
            t.records[3].payload.to_value().pointer("/content/1/text"),
            Some(&json!("b"))
        );
    }

    #[test]
    fn bad_lines_are_named() {
        let log = concat!(
            r#"{"spec": {"eval_name": "e", "run_id": "r"}}"#,
            "\n",
            r#"{"run_id": "r", "event_id": 0, "sample_id": "e.0", "type": "sampling", "data": 3}"#,
            "\n"
        );
        let e = trace_of(log.as_bytes()).unwrap_err().to_string();
        assert!(e.contains("data") && e.contains(":2"), "{e}");
        let log = concat!(r#"{"spec": {"eval_name": "e", "run_id": "r"}}"#, "\n", "\n");
        let e = trace_of(log.as_bytes()).unwrap_err().to_string();
        assert!(e.contains("no model calls"), "{e}");
    }

    #[test]
    fn other_records_are_not_taken() {
        assert!(!sniff(&json!({"kind": "chat_request", "payload": {}})));
        assert!(!sniff(&json!({"spec": {"x": 1}})));
        assert!(sniff(
            &json!({"run_id": "r", "event_id": 1, "sample_id": "s", "type": "match"})
        ));
    }
}
