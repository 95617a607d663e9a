//! Claude Code session logs (`~/.claude/projects/<project>/<session>.jsonl`): one entry a line,
//! `type` user / assistant / system / summary. Consecutive assistant lines with one
//! `message.id` (Claude Code writes a line per content block) form one response; the user text
//! since the previous response forms its request; `tool_result` blocks of user lines become
//! tool results. Each `sessionId` is a session, and each sub-agent conversation (sidechain) a
//! session of its own after the main one — also when it was written to a file of its own
//! (`claude_subagents` finds those files, this module reads them with the session); the web
//! export `{"loglines": [...]}` is read as its entries (docs/formats.md §Claude Code).

use super::assemble::{
    count, ms_of, request_payload, text_of, tool_call_payload, tool_result_payload, Answer,
    Assembler,
};
use super::{check_parents, span_ms, type_name, Item};
use crate::error::TraceError;
use crate::model::{Kind, Trace};
use crate::options::ReadOptions;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use veer_base::format::Format;

/// Whether `v` is a Claude Code session-log entry.
/// (Newer logs may open with a `file-history-snapshot` entry.)
pub fn sniff(v: &Value) -> bool {
    // The web session export: `{"loglines": [entry…]}`.
    if let Some(Value::Array(lines)) = v.get("loglines") {
        return lines.first().is_some_and(sniff);
    }
    if v.get("type").and_then(Value::as_str) == Some("file-history-snapshot") {
        return v.get("messageId").is_some() && v.get("snapshot").is_some();
    }
    matches!(
        v.get("type").and_then(Value::as_str),
        Some("user" | "assistant" | "system" | "summary")
    ) && (v.get("sessionId").is_some()
        || v.get("leafUuid").is_some()
        || v.get("parentUuid").is_some())
}

/// `o[k]` when it is a string.
fn str_of<'a>(o: &'a Map<String, Value>, k: &str) -> Option<&'a str> {
    o.get(k).and_then(Value::as_str)
}

/// An assistant message being gathered from its lines.
#[derive(Default)]
struct Open {
    id: String,
    answer: Answer,
    /// Time of the entry before the message's first line.
    since_ms: Option<i64>,
    last_ms: Option<i64>,
    line: Option<u64>,
    /// Results of its tool calls read before its last line.
    results: Vec<ToolResult>,
}

/// Reads a session log.
pub fn read(source: &str, items: Vec<Item>, options: &ReadOptions) -> Result<Trace, TraceError> {
    read_with_agents(source, items, Vec::new(), options)
}

/// A sub-agent's own log (`agent-<id>.jsonl`) read together with its session: the file's name
/// (for errors) and its records.
pub(crate) struct AgentLog {
    /// The file, as the user would name it.
    pub source: String,
    /// Its records.
    pub items: Vec<Item>,
}

/// Reads a session log and the logs of its sub-agents written to files of their own: each
/// sub-agent's conversation becomes a session after the main one, as a sidechain inside the
/// file does. A sub-agent already in the session file as sidechain entries is read once.
pub(crate) fn read_with_agents(
    source: &str,
    items: Vec<Item>,
    agents: Vec<AgentLog>,
    options: &ReadOptions,
) -> Result<Trace, TraceError> {
    let mut a = Assembler::new(source, Format::ClaudeCode, "claude-code");
    let items = expand_loglines(items);
    let mut entries = entries_of(source, &items, options, &mut a, false)?;
    let inline: Vec<String> = entries
        .iter()
        .filter_map(|(_, o, _)| str_of(o, "agentId").map(str::to_string))
        .collect();
    let agent_items: Vec<(String, Vec<Item>)> = agents
        .into_iter()
        .map(|log| (log.source, expand_loglines(log.items)))
        .collect();
    // Checked first with their own line numbers; their records then carry none (a line
    // number of the session file would point at the wrong file).
    // A sub-agent file that does not read is left out with a warning (an error under
    // `--strict`): the session it belongs to is still read.
    let mut kept = Vec::with_capacity(agent_items.len());
    for (agent_source, mut items) in agent_items {
        if let Err(e) = entries_of(&agent_source, &items, options, &mut a, true) {
            if options.strict {
                return Err(e.with_hint(format!(
                    "read as a sub-agent log of {source}; fix or move it to read the session alone"
                )));
            }
            a.warn(
                None,
                &format!("(sub-agent file {agent_source})"),
                format!("left out: {e}"),
            );
            continue;
        }
        for item in items.iter_mut() {
            item.line = None;
        }
        kept.push((agent_source, items));
    }
    let agent_items = kept;
    for (agent_source, items) in &agent_items {
        let list = entries_of(agent_source, items, options, &mut a, true)?;
        let agent = list.iter().find_map(|(_, o, _)| str_of(o, "agentId"));
        if agent.is_some_and(|id| inline.iter().any(|k| k == id)) {
            continue;
        }
        entries.extend(list);
    }
    // The Task call that started each sub-agent: the main log's result of that call names
    // the agent (`toolUseResult.agentId`).
    let mut started_by: HashMap<&str, &str> = HashMap::new();
    for (_, o, _) in &entries {
        let agent = o
            .get("toolUseResult")
            .and_then(|r| r.get("agentId"))
            .and_then(Value::as_str);
        let call = o
            .get("message")
            .and_then(|m| m.get("content"))
            .and_then(Value::as_array)
            .and_then(|b| b.iter().find_map(|b| b.get("tool_use_id")))
            .and_then(Value::as_str);
        if let (Some(agent), Some(call)) = (agent, call) {
            started_by.entry(agent).or_insert(call);
        }
    }
    let side = |o: &Map<String, Value>| {
        o.get("isSidechain")
            .and_then(Value::as_bool)
            .unwrap_or(false)
    };
    // The main conversation first, then each sub-agent conversation (sidechain) as a
    // session of its own: grouped by `agentId`, else by the sidechain entry it starts from.
    let (main, sides): (Vec<Entry>, Vec<Entry>) =
        entries.into_iter().partition(|(_, o, _)| !side(o));
    let mut groups: Vec<(String, Vec<Entry>)> = Vec::new();
    let mut root_of: HashMap<&str, String> = HashMap::new();
    for e in sides {
        let o = e.1;
        let key = match str_of(o, "agentId") {
            Some(id) => id.to_string(),
            None => {
                let parent = str_of(o, "parentUuid").and_then(|p| root_of.get(p).cloned());
                parent.unwrap_or_else(|| str_of(o, "uuid").unwrap_or("").to_string())
            }
        };
        if let Some(u) = str_of(o, "uuid") {
            root_of.insert(u, key.clone());
        }
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, list)) => list.push(e),
            None => groups.push((key, vec![e])),
        }
    }
    if !main.is_empty() {
        conversation(&mut a, main, None);
    }
    for (key, list) in groups {
        let call = started_by.get(key.as_str()).copied();
        conversation(&mut a, list, Some((&key, call)));
    }
    a.finish("Claude Code session log")
}

/// The `user` and `assistant` entries of one file, checked: an entry must be an object with a
/// string `type`; ids and times must be strings; `message` an object whose `content` is a
/// string or a list of blocks; `parentUuid` must not form a cycle. A parent not in the file is
/// a warning (an error under `--strict`), except on the first entry (a resumed session names
/// the previous file's last entry).
fn entries_of<'a>(
    source: &str,
    items: &'a [Item],
    options: &ReadOptions,
    a: &mut Assembler,
    agent_file: bool,
) -> Result<Vec<Entry<'a>>, TraceError> {
    let mut entries: Vec<Entry<'a>> = Vec::new();
    // Every entry, for the parent check: a message's parent may be a `progress` or `system`
    // entry.
    let mut all: Vec<(&'a Item, &'a Map<String, Value>)> = Vec::new();
    for item in items {
        let Value::Object(o) = &item.value else {
            return Err(item.err(
                source,
                "(line)",
                format!(
                    "an entry must be an object, found {}",
                    type_name(&item.value)
                ),
            ));
        };
        let kind = match o.get("type") {
            Some(Value::String(s)) => s.as_str(),
            other => {
                return Err(item.err(
                    source,
                    "type",
                    format!(
                        "must be a string, found {}",
                        other.map_or("nothing", type_name)
                    ),
                ))
            }
        };
        for key in ["uuid", "parentUuid", "sessionId", "timestamp", "agentId"] {
            if let Some(v) = o.get(key).filter(|v| !v.is_null() && !v.is_string()) {
                return Err(item.err(
                    source,
                    key,
                    format!("must be a string, found {}", type_name(v)),
                ));
            }
        }
        all.push((item, o));
        if matches!(kind, "user" | "assistant") {
            match o.get("message") {
                Some(Value::Object(m)) => {
                    if let Some(c) = m.get("content").filter(|c| !c.is_string() && !c.is_array()) {
                        return Err(item.err(
                            source,
                            "message.content",
                            format!(
                                "must be a string or an array of blocks, found {}",
                                type_name(c)
                            ),
                        ));
                    }
                }
                other => {
                    return Err(item.err(
                        source,
                        "message",
                        format!(
                            "must be an object, found {}",
                            other.map_or("nothing", type_name)
                        ),
                    ))
                }
            }
            entries.push((item, o, kind));
        }
    }
    let ids: Vec<&str> = all
        .iter()
        .map(|(_, o)| str_of(o, "uuid").unwrap_or(""))
        .collect();
    let parents: Vec<Option<&str>> = all.iter().map(|(_, o)| str_of(o, "parentUuid")).collect();
    match check_parents(&ids, &parents) {
        Err(i) => {
            return Err(all[i].0.err(
                source,
                "parentUuid",
                "this entry is its own ancestor (a parent cycle)",
            ))
        }
        Ok(missing) => {
            let missing: Vec<usize> = missing.into_iter().filter(|&i| i > 0).collect();
            if let Some(&i) = missing.first() {
                if options.strict {
                    return Err(all[i].0.err(
                        source,
                        "parentUuid",
                        "names an entry that is not in the file",
                    ));
                }
                let whose = if agent_file {
                    format!("{source}: ")
                } else {
                    String::new()
                };
                a.warn(all[i].0.line, "parentUuid", format!("{whose}{} entries name a parent that is not in the file; entries are read in file order", missing.len()));
            }
        }
    }
    Ok(entries)
}

/// The entries of a web session export (`{"loglines": [...]}`) as items of their own
/// (`loglines[3]`); other items as they are.
fn expand_loglines(items: Vec<Item>) -> Vec<Item> {
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        match item.value {
            Value::Object(mut o) if matches!(o.get("loglines"), Some(Value::Array(_))) => {
                let Some(Value::Array(lines)) = o.remove("loglines") else {
                    continue;
                };
                let prefix = if item.path.is_empty() {
                    "loglines".to_string()
                } else {
                    format!("{}.loglines", item.path)
                };
                out.extend(lines.into_iter().enumerate().map(|(i, value)| Item {
                    line: None,
                    path: format!("{prefix}[{i}]"),
                    value,
                }));
            }
            value => out.push(Item { value, ..item }),
        }
    }
    out
}

/// One entry of the log: where it was read, the entry, its type.
type Entry<'a> = (&'a Item, &'a Map<String, Value>, &'a str);

/// Writes one conversation: the main one (a session per `sessionId`), or the sub-agent
/// conversation `agent` (one session, tagged with the agent and, when the main log names it,
/// the id of the Task call that started it).
fn conversation(a: &mut Assembler, entries: Vec<Entry<'_>>, agent: Option<(&str, Option<&str>)>) {
    let call = agent.and_then(|(_, c)| c);
    let agent = agent.map(|(id, _)| id);
    let mut session: Option<&str> = None;
    let mut started = false;
    let mut open: Option<Open> = None;
    let mut pending_user: Vec<Value> = Vec::new();
    let mut asked_at: HashMap<String, Option<i64>> = HashMap::new();
    let mut prev_ms: Option<i64> = None;
    for (item, o, kind) in entries {
        let ms = ms_of(o.get("timestamp"));
        let sid = str_of(o, "sessionId");
        let new_session = match agent {
            Some(_) => !started,
            None => sid.is_some() && sid != session,
        };
        if new_session {
            flush(a, &mut open, &mut pending_user, &mut asked_at);
            session = sid;
            started = true;
            let tag = |k: &str| str_of(o, k).unwrap_or("").to_string();
            let mut tags = vec![
                ("session_id", tag("sessionId")),
                ("cwd", tag("cwd")),
                ("claude_code_version", tag("version")),
                ("git_branch", tag("gitBranch")),
            ];
            if let Some(agent) = agent {
                tags.push(("sidechain", "true".to_string()));
                tags.push(("agent_id", agent.to_string()));
                if let Some(call) = call {
                    tags.push(("parent_tool_use_id", call.to_string()));
                }
            }
            a.session(tags, agent.or(sid), ms, item.line);
        }
        let Some(Value::Object(m)) = o.get("message") else {
            continue;
        };
        if kind == "assistant" {
            let id = str_of(m, "id").unwrap_or("").to_string();
            if open.as_ref().is_some_and(|x| x.id != id || id.is_empty()) {
                flush(a, &mut open, &mut pending_user, &mut asked_at);
            }
            let cur = open.get_or_insert_with(|| Open {
                id,
                since_ms: prev_ms,
                line: item.line,
                ..Open::default()
            });
            gather(cur, m, ms);
        } else {
            // Results of tools the still-open message asked for (Claude Code writes them
            // between the message's lines) wait for the message to end.
            let results = tool_results_of(m, ms, item.line);
            let only_results =
                matches!(m.get("content"), Some(Value::Array(b)) if b.len() == results.len());
            let for_open = open.as_ref().is_some_and(|cur| {
                !results.is_empty()
                    && results.iter().all(|r| {
                        cur.answer
                            .tool_uses
                            .iter()
                            .any(|(id, _, _)| id.as_deref() == Some(r.0.as_str()))
                    })
            });
            if only_results && for_open {
                if let Some(cur) = open.as_mut() {
                    cur.results.extend(results);
                }
                prev_ms = ms.or(prev_ms);
                continue;
            }
            flush(a, &mut open, &mut pending_user, &mut asked_at);
            if let Some(Value::String(t)) = m.get("content") {
                pending_user.push(json!({"role": "user", "content": t}));
            }
            if let Some(Value::Array(blocks)) = m.get("content") {
                for b in blocks {
                    if b.get("type").and_then(Value::as_str) == Some("text") {
                        pending_user.push(json!({"role": "user", "content": b.get("text").cloned().unwrap_or(Value::Null)}));
                    }
                }
            }
            for (id, output, is_error, ms, line) in results {
                let latency = span_ms(asked_at.get(&id).copied().flatten(), ms);
                a.push(
                    Kind::ToolResult,
                    tool_result_payload(&id, output, is_error, latency),
                    ms,
                    line,
                );
            }
        }
        prev_ms = ms.or(prev_ms);
    }
    flush(a, &mut open, &mut pending_user, &mut asked_at);
}

/// A tool result read from a user line: tool-use id, output, is_error, time, line.
type ToolResult = (String, Value, bool, Option<i64>, Option<u64>);

/// The `tool_result` blocks of a user message.
fn tool_results_of(m: &Map<String, Value>, ms: Option<i64>, line: Option<u64>) -> Vec<ToolResult> {
    let Some(Value::Array(blocks)) = m.get("content") else {
        return Vec::new();
    };
    blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
        .map(|b| {
            let id = b.get("tool_use_id").and_then(Value::as_str).unwrap_or("");
            let output = match b.get("content") {
                Some(Value::String(s)) => json!(s),
                c => text_of(c).map_or(json!(""), Value::String),
            };
            let is_error = b.get("is_error").and_then(Value::as_bool).unwrap_or(false);
            (id.to_string(), output, is_error, ms, line)
        })
        .collect()
}

/// Adds one assistant line's content, stop reason and usage to the open message.
fn gather(cur: &mut Open, m: &Map<String, Value>, ms: Option<i64>) {
    let ans = &mut cur.answer;
    if let Some(model) = str_of(m, "model") {
        ans.model = model.to_string();
    }
    match m.get("content") {
        Some(Value::String(t)) => ans.text.push(t.clone()),
        Some(Value::Array(blocks)) => {
            for b in blocks {
                match b.get("type").and_then(Value::as_str) {
                    Some("text") => ans
                        .text
                        .extend(b.get("text").and_then(Value::as_str).map(str::to_string)),
                    Some("thinking") => ans.thinking.extend(
                        b.get("thinking")
                            .and_then(Value::as_str)
                            .map(str::to_string),
                    ),
                    Some("tool_use") => {
                        let id = b.get("id").and_then(Value::as_str).map(str::to_string);
                        let name = b
                            .get("name")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_string();
                        ans.tool_uses.push((
                            id,
                            name,
                            b.get("input").cloned().unwrap_or_else(|| json!({})),
                        ));
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
    if let Some(s) = str_of(m, "stop_reason") {
        ans.stop_reason = Some(s.to_string());
    }
    if let Some(Value::Object(u)) = m.get("usage") {
        let c = |k: &str| count(u.get(k));
        ans.usage = Some([
            c("input_tokens"),
            c("output_tokens"),
            c("cache_read_input_tokens"),
            c("cache_creation_input_tokens"),
        ]);
    }
    cur.last_ms = ms;
    ans.latency_ms = span_ms(cur.since_ms, ms);
}

/// Writes the gathered assistant message (request, response, its tool calls).
fn flush(
    a: &mut Assembler,
    open: &mut Option<Open>,
    pending_user: &mut Vec<Value>,
    asked_at: &mut HashMap<String, Option<i64>>,
) {
    let Some(o) = open.take() else { return };
    let ans = o.answer;
    a.push(
        Kind::ChatRequest,
        request_payload(&ans.model, std::mem::take(pending_user), Vec::new()),
        o.since_ms,
        o.line,
    );
    a.push(Kind::ChatResponse, ans.payload(), o.last_ms, o.line);
    for (id, name, input) in &ans.tool_uses {
        let id = id.clone().unwrap_or_default();
        asked_at.insert(id.clone(), o.last_ms);
        a.push(
            Kind::ToolCall,
            tool_call_payload(name, &id, input.clone()),
            o.last_ms,
            o.line,
        );
    }
    for (id, output, is_error, ms, line) in o.results {
        let latency = span_ms(asked_at.get(&id).copied().flatten(), ms);
        a.push(
            Kind::ToolResult,
            tool_result_payload(&id, output, is_error, latency),
            ms,
            line,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::items_of_bytes;

    fn read_str(s: &str) -> Result<Trace, TraceError> {
        read(
            "c.jsonl",
            items_of_bytes("c.jsonl", s.as_bytes(), u64::MAX)?,
            &ReadOptions::default(),
        )
    }

    #[test]
    fn split_assistant_lines_form_one_response() {
        let fx = std::fs::read_to_string(format!(
            "{}/../../tests/fixtures/formats/claude-code/baseline.jsonl",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        let t = read_str(&fx).unwrap();
        let turns = t.turns();
        // Four turns of the main agent, then the sub-agent's (sidechain) one in its session.
        assert_eq!(turns.len(), 5);
        let meta: Vec<&crate::model::Record> = t
            .records
            .iter()
            .filter(|r| r.kind == Kind::Metadata)
            .collect();
        assert_eq!(meta.len(), 2);
        assert_eq!(meta[1].payload["tags"]["sidechain"], json!("true"));
        let side = t
            .records
            .iter()
            .position(|r| std::ptr::eq(r, meta[1]))
            .unwrap();
        assert!(turns[4].response > side && turns[3].response < side);
        let r0 = &t.records[turns[0].response];
        assert_eq!(
            r0.payload["content"][0],
            json!({"type": "thinking", "text": "Look at the test first."})
        );
        assert_eq!(r0.payload["content"][2]["id"], json!("toolu_01"));
        assert_eq!(r0.payload["stop_reason"], json!("tool_use"));
        assert_eq!(r0.payload["usage"]["cache_read_input_tokens"], json!(9000));
        assert_eq!(r0.payload["latency_ms"], json!(2550));
        let names: Vec<String> = t.tool_calls().into_iter().map(|c| c.name).collect();
        assert_eq!(names, ["Read", "Bash", "Edit"]);
        assert_eq!(turns[1].tool_results.len(), 1);
        assert_eq!(
            t.records[turns[1].tool_results[0]].payload["is_error"],
            json!(true)
        );
        assert_eq!(t.trace_id(), "4b1f7a52-0d8e-4c1e-9a51-0c2d3f6e7a10");
        assert!(t.warnings.is_empty(), "{:?}", t.warnings);
    }

    #[test]
    fn results_between_the_lines_of_one_message_wait_for_its_end() {
        let line = |v: Value| format!("{v}\n");
        let asst = |block: Value, ts: &str| json!({"type": "assistant", "sessionId": "s", "timestamp": ts, "message": {"id": "m1", "model": "claude", "content": [block]}});
        let result = |id: &str, ts: &str| json!({"type": "user", "sessionId": "s", "timestamp": ts, "message": {"content": [{"type": "tool_result", "tool_use_id": id, "content": "ok"}]}});
        let log = [
            line(json!({"type": "user", "sessionId": "s", "timestamp": "2026-01-01T00:00:00Z", "message": {"content": "go"}})),
            line(asst(json!({"type": "tool_use", "id": "a", "name": "Read", "input": {}}), "2026-01-01T00:00:01Z")),
            line(result("a", "2026-01-01T00:00:02Z")),
            line(asst(json!({"type": "tool_use", "id": "b", "name": "Grep", "input": {}}), "2026-01-01T00:00:03Z")),
            line(result("b", "2026-01-01T00:00:04Z")),
        ]
        .concat();
        let t = read_str(&log).unwrap();
        let turns = t.turns();
        assert_eq!(turns.len(), 1);
        assert_eq!(turns[0].tool_results.len(), 2);
        let names: Vec<String> = t.tool_calls().into_iter().map(|c| c.name).collect();
        assert_eq!(names, ["Read", "Grep"]);
    }

    #[test]
    fn bad_entries_are_named() {
        let e = read_str("{\"type\":\"user\",\"sessionId\":\"s\",\"message\":\"hi\"}").unwrap_err();
        assert_eq!((e.field.as_str(), e.line), ("message", Some(1)));
        let e = read_str("{\"type\":\"user\",\"sessionId\":\"s\",\"uuid\":7,\"message\":{}}")
            .unwrap_err();
        assert_eq!(e.field, "uuid");
        let cyc = "{\"type\":\"user\",\"sessionId\":\"s\",\"uuid\":\"a\",\"parentUuid\":\"b\",\"message\":{\"content\":\"x\"}}\n{\"type\":\"user\",\"sessionId\":\"s\",\"uuid\":\"b\",\"parentUuid\":\"a\",\"message\":{\"content\":\"y\"}}\n";
        let e = read_str(cyc).unwrap_err();
        assert!(e.message.contains("cycle"), "{e}");
        let e =
            read_str("{\"type\":\"summary\",\"summary\":\"s\",\"leafUuid\":\"x\"}").unwrap_err();
        assert!(e.message.contains("no model calls"), "{e}");
    }

    #[test]
    fn web_exports_read_their_loglines() {
        let export = json!({"loglines": [
            {"type": "user", "sessionId": "w", "uuid": "1", "parentUuid": null, "message": {"content": "hi"}},
            {"type": "assistant", "sessionId": "w", "uuid": "2", "parentUuid": "1", "message": {"id": "m", "content": [{"type": "text", "text": "hello"}]}}
        ]});
        assert!(sniff(&export));
        let t = read_str(&export.to_string()).unwrap();
        assert_eq!(t.turns().len(), 1);
        let e = read_str(
            &json!({"loglines": [{"type": "user", "sessionId": "w", "message": 3}]}).to_string(),
        )
        .unwrap_err();
        assert_eq!(e.field, "loglines[0].message");
    }

    #[test]
    fn logs_opening_with_a_snapshot_are_recognised() {
        assert!(sniff(
            &json!({"type": "file-history-snapshot", "messageId": "m", "snapshot": {}})
        ));
        assert!(!sniff(&json!({"type": "file-history-snapshot"})));
        assert!(!sniff(&json!({"type": "user", "message": {}})));
    }
}
