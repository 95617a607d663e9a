//! Claude Code sub-agent logs in files of their own: newer Claude Code writes each sub-agent
//! (Task tool) conversation to `agent-<id>.jsonl`, beside the session's `<session>.jsonl` or
//! under `<session>/subagents/`, instead of as sidechain lines of the session file. This module
//! finds the files that belong to a session file (their entries carry its `sessionId`), reads
//! them with it, and tells a directory listing which files are such companions, so that they
//! are not also read as traces of their own (docs/formats.md §Claude Code).

use super::claude_code::{read_with_agents, AgentLog};
use super::{items_of_bytes, Item};
use crate::error::TraceError;
use crate::model::{Kind, Trace};
use crate::options::ReadOptions;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// At most this many bytes of a sub-agent file are looked at to find its `sessionId`.
const HEAD_BYTES: u64 = 1 << 20;

/// At most this many sub-agent files are joined to one session.
pub(crate) const MAX_AGENT_FILES: usize = 10_000;

/// Whether `name` is a sub-agent log's file name (`agent-<id>.jsonl`).
pub(crate) fn is_agent_file_name(name: &str) -> bool {
    name.starts_with("agent-") && name.ends_with(".jsonl") && name.len() > "agent-.jsonl".len()
}

/// The `sessionId` of the first entry of `path` that has one (looking at its first MiB),
/// `None` when the file cannot be read or names none.
fn session_id_of(path: &Path) -> Option<String> {
    let file = std::fs::File::open(path).ok()?;
    let reader = BufReader::new(file.take(HEAD_BYTES));
    for line in reader.split(b'\n').take(64) {
        let line = line.ok()?;
        let Ok(v) = serde_json::from_slice::<Value>(&line) else {
            continue;
        };
        if let Some(id) = v.get("sessionId").and_then(Value::as_str) {
            return Some(id.to_string());
        }
    }
    None
}

/// The sessions of a Claude Code trace read from its session file (not its sub-agents).
fn main_session_ids(trace: &Trace) -> Vec<String> {
    trace
        .records
        .iter()
        .filter(|r| r.kind == Kind::Metadata)
        .filter_map(|r| {
            let tags = r.payload.get("tags")?;
            if tags.get("sidechain").and_then(|v| v.as_str()) == Some("true") {
                return None;
            }
            tags.get("session_id")
                .and_then(|v| v.as_str())
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        })
        .collect()
}

/// The `agent-*.jsonl` files of `dir`, sorted by name (none when `dir` cannot be listed).
fn agent_files_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| is_agent_file_name(&e.file_name().to_string_lossy()))
        .filter(|e| std::fs::metadata(e.path()).is_ok_and(|m| m.is_file()))
        .map(|e| e.path())
        .collect();
    files.sort();
    files
}

/// The sub-agent files that belong to the session file `path`, whose trace (read alone) is
/// `trace`: `agent-*.jsonl` beside it or under `<session>/subagents/` (for the file's stem
/// and for each of its session ids) whose entries carry one of its session ids. None for a
/// sub-agent file itself.
pub(crate) fn companions(path: &Path, trace: &Trace) -> Vec<PathBuf> {
    let Some(name) = path.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return Vec::new();
    };
    if is_agent_file_name(&name) || !name.ends_with(".jsonl") {
        return Vec::new();
    }
    let ids = main_session_ids(trace);
    if ids.is_empty() {
        return Vec::new();
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let stem = name.trim_end_matches(".jsonl").to_string();
    let mut dirs = vec![dir.clone(), dir.join(&stem).join("subagents")];
    for id in &ids {
        let d = dir.join(id).join("subagents");
        if !dirs.contains(&d) {
            dirs.push(d);
        }
    }
    let mut found: Vec<PathBuf> = Vec::new();
    for d in dirs {
        for f in agent_files_in(&d) {
            if found.contains(&f) {
                continue;
            }
            if session_id_of(&f).is_some_and(|s| ids.contains(&s)) {
                found.push(f);
            }
        }
    }
    found
}

/// Whether the file `path` of a directory is a sub-agent log whose session file is in the
/// same directory: `<dir>/<session>/subagents/agent-*.jsonl` beside `<dir>/<session>.jsonl`,
/// or `<dir>/agent-*.jsonl` whose `sessionId` names `<dir>/<sessionId>.jsonl`. Such a file is
/// read with its session, never as a trace of its own.
pub(crate) fn is_companion(path: &Path) -> bool {
    let Some(name) = path.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return false;
    };
    if !is_agent_file_name(&name) {
        return false;
    }
    let Some(dir) = path.parent() else {
        return false;
    };
    if dir.file_name().is_some_and(|n| n == "subagents") {
        if let (Some(session_dir), Some(project)) =
            (dir.parent(), dir.parent().and_then(Path::parent))
        {
            if let Some(session) = session_dir.file_name() {
                let mut file = session.to_os_string();
                file.push(".jsonl");
                if project.join(file).is_file() {
                    return true;
                }
            }
        }
    }
    session_id_of(path)
        .is_some_and(|id| !id.contains(['/', '\\']) && dir.join(format!("{id}.jsonl")).is_file())
}

/// The records of a file read whole, checked against the byte limit.
fn items_of_file(path: &Path, options: &ReadOptions) -> Result<Vec<Item>, TraceError> {
    let source = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|e| crate::load::open_error(&source, &e))?;
    let size = file.metadata().ok().map(|m| m.len());
    let reader = crate::limits::Counting::new(BufReader::new(file), options.max_trace_bytes);
    let bytes = super::read_all(&source, reader, size)?;
    items_of_bytes(&source, &bytes, options.max_line_bytes)
}

/// The session file `path` read again together with its sub-agent files `agents` (as found by
/// [`companions`]), in the order they started. A sub-agent file with no assistant entry (a
/// warm-up) is left out; one that cannot be read is left out with a warning, and is an error
/// under `--strict`.
pub(crate) fn read_session(
    path: &Path,
    agents: Vec<PathBuf>,
    options: &ReadOptions,
) -> Result<Trace, TraceError> {
    let source = path.display().to_string();
    let items = items_of_file(path, options)?;
    let mut logs: Vec<(String, AgentLog)> = Vec::new();
    let mut skipped: Vec<(String, String)> = Vec::new();
    for agent in agents.into_iter().take(MAX_AGENT_FILES) {
        let agent_source = agent.display().to_string();
        let items = match items_of_file(&agent, options) {
            Ok(items) => items,
            Err(e) if options.strict => {
                return Err(e.with_hint(format!(
                    "read as a sub-agent log of {source}; fix or move it to read the session alone"
                )))
            }
            Err(e) => {
                skipped.push((agent_source, format!("left out: {e}")));
                continue;
            }
        };
        let is_type = |i: &Item, t: &str| i.value.get("type").and_then(Value::as_str) == Some(t);
        if !items.iter().any(|i| is_type(i, "assistant")) {
            continue;
        }
        let started = items
            .iter()
            .find_map(|i| i.value.get("timestamp").and_then(Value::as_str))
            .unwrap_or("")
            .to_string();
        logs.push((
            started,
            AgentLog {
                source: agent_source,
                items,
            },
        ));
    }
    logs.sort_by(|a, b| (&a.0, &a.1.source).cmp(&(&b.0, &b.1.source)));
    let logs = logs.into_iter().map(|(_, l)| l).collect();
    let mut trace = read_with_agents(&source, items, logs, options)?;
    for (file, message) in skipped {
        trace.warnings.push(crate::error::Warning {
            file: source.clone(),
            line: None,
            field: format!("(sub-agent file {file})"),
            message,
        });
    }
    Ok(trace)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::{list_trace_files, load_trace};
    use serde_json::json;

    const SESSION: &str = "ae4a77f8-aedd-4bc1-888f-c94edc91af04";

    fn fixture_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/formats/claude-code-real")
    }

    fn agent_path(name: &str) -> PathBuf {
        fixture_dir()
            .join(SESSION)
            .join("subagents")
            .join(format!("{name}.jsonl"))
    }

    /// Each session's (tags, model calls, input tokens, output tokens, tool calls, tool results).
    fn sessions(t: &Trace) -> Vec<(Value, usize, u64, u64, usize, usize)> {
        let mut out: Vec<(Value, usize, u64, u64, usize, usize)> = Vec::new();
        for r in &t.records {
            let tokens = |k: &str| {
                r.payload
                    .get("usage")
                    .and_then(|u| u.get(k))
                    .and_then(|v| v.as_u64())
                    .unwrap_or(0)
            };
            match r.kind {
                Kind::Metadata => {
                    let tags = serde_json::to_value(r.payload.get("tags").unwrap()).unwrap();
                    out.push((tags, 0, 0, 0, 0, 0));
                }
                Kind::ChatResponse => {
                    let s = out.last_mut().unwrap();
                    s.1 += 1;
                    s.2 += tokens("input_tokens");
                    s.3 += tokens("output_tokens");
                }
                Kind::ToolCall => out.last_mut().unwrap().4 += 1,
                Kind::ToolResult => out.last_mut().unwrap().5 += 1,
                _ => {}
            }
        }
        out
    }

    /// The session file joined by its two sub-agent files: the counts of `count.py`, each
    /// sub-agent a session after the main one, the Task call that started it named.
    #[test]
    fn real_session_reads_its_sub_agent_files() {
        let main = fixture_dir().join(format!("{SESSION}.jsonl"));
        let t = load_trace(&main, &ReadOptions::default()).unwrap();
        let s = sessions(&t);
        let counts: Vec<_> = s.iter().map(|x| (x.1, x.2, x.3, x.4, x.5)).collect();
        assert_eq!(
            counts,
            [(8, 24, 918, 16, 16), (3, 2408, 7, 12, 12), (1, 3, 8, 0, 0)]
        );
        assert_eq!(s[0].0["session_id"], json!(SESSION));
        assert!(s[0].0.get("sidechain").is_none());
        assert_eq!(s[1].0["sidechain"], json!("true"));
        assert_eq!(s[1].0["agent_id"], json!("aac57f5"));
        assert_eq!(s[1].0["session_id"], json!(SESSION));
        assert_eq!(
            s[1].0["parent_tool_use_id"],
            json!("toolu_01Hf8v1Za7y4af8VUwSR4CXU")
        );
        assert_eq!(s[2].0["agent_id"], json!("acompact-946d2b"));
        assert!(s[2].0.get("parent_tool_use_id").is_none());
        // The sub-agents' records carry no line of the session file.
        let first_agent = t
            .records
            .iter()
            .position(|r| {
                r.payload
                    .get("tags")
                    .and_then(|g| g.get("agent_id"))
                    .is_some()
            })
            .unwrap();
        assert!(t.records[first_agent..].iter().all(|r| r.line.is_none()));
        assert!(t.records[..first_agent].iter().all(|r| r.line.is_some()));
        // One parent chain and time never going backwards across the joined files.
        for w in t.records.windows(2) {
            assert_eq!(w[1].parent.as_ref(), Some(&w[0].id));
            assert!(w[1].ts.as_str() >= w[0].ts.as_str());
        }
        assert!(t.warnings.is_empty(), "{:?}", t.warnings);
        let names: std::collections::BTreeSet<String> =
            t.tool_calls().into_iter().map(|c| c.name).collect();
        let want = ["Bash", "Read", "Skill", "Task", "WebFetch", "WebSearch"];
        assert_eq!(names.into_iter().collect::<Vec<_>>(), want);
    }

    #[test]
    fn a_lone_sub_agent_file_is_a_trace_of_its_own() {
        let t = load_trace(&agent_path("agent-aac57f5"), &ReadOptions::default()).unwrap();
        let s = sessions(&t);
        assert_eq!(s.len(), 1);
        assert_eq!((s[0].1, s[0].4, s[0].5), (3, 12, 12));
        assert_eq!(s[0].0["agent_id"], json!("aac57f5"));
        assert!(t.records.iter().all(|r| r.line.is_some()));
    }

    #[test]
    fn a_directory_lists_the_session_and_not_its_sub_agent_files() {
        let files = list_trace_files(&fixture_dir()).unwrap().files;
        assert_eq!(files, [fixture_dir().join(format!("{SESSION}.jsonl"))]);
        assert!(is_companion(&agent_path("agent-aac57f5")));
        assert!(!is_companion(
            &fixture_dir().join(format!("{SESSION}.jsonl"))
        ));
    }

    /// Older Claude Code writes `agent-<id>.jsonl` beside the session file: joined when its
    /// `sessionId` is the session's, listed as a trace of its own when it is not.
    #[test]
    fn agent_files_beside_the_session_file_are_joined_by_session_id() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join(format!("{SESSION}.jsonl"));
        std::fs::copy(fixture_dir().join(format!("{SESSION}.jsonl")), &main).unwrap();
        std::fs::copy(
            agent_path("agent-aac57f5"),
            dir.path().join("agent-aac57f5.jsonl"),
        )
        .unwrap();
        let other = r#"{"type":"user","isSidechain":true,"agentId":"b1","sessionId":"another","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"go"}}
{"type":"assistant","isSidechain":true,"agentId":"b1","sessionId":"another","uuid":"u2","parentUuid":"u1","message":{"id":"m1","content":[{"type":"text","text":"done"}]}}
"#;
        std::fs::write(dir.path().join("agent-b1.jsonl"), other).unwrap();
        let t = load_trace(&main, &ReadOptions::default()).unwrap();
        let s = sessions(&t);
        assert_eq!(s.len(), 2);
        assert_eq!(s[1].0["agent_id"], json!("aac57f5"));
        let files = list_trace_files(dir.path()).unwrap().files;
        assert_eq!(files, [main.clone(), dir.path().join("agent-b1.jsonl")]);
        // Without its session file beside it, a sub-agent file is listed.
        std::fs::remove_file(&main).unwrap();
        assert_eq!(list_trace_files(dir.path()).unwrap().files.len(), 2);
    }

    #[test]
    fn a_broken_sub_agent_file_is_left_out_with_a_warning_or_refused_under_strict() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join(format!("{SESSION}.jsonl"));
        std::fs::copy(fixture_dir().join(format!("{SESSION}.jsonl")), &main).unwrap();
        let bad = dir.path().join("agent-bad.jsonl");
        std::fs::write(
            &bad,
            format!("{{\"type\":\"user\",\"isSidechain\":true,\"sessionId\":\"{SESSION}\",\"message\":{{\"content\":\"go\"}}}}\n{{\"type\":\"assistant\",\"sessionId\":\"{SESSION}\",\"message\":7}}\n"),
        )
        .unwrap();
        let t = load_trace(&main, &ReadOptions::default()).unwrap();
        assert_eq!(sessions(&t).len(), 1);
        let w = &t.warnings[0];
        assert!(w.field.contains("agent-bad.jsonl"), "{w}");
        assert!(w.message.contains("message"), "{w}");
        let strict = ReadOptions {
            strict: true,
            ..ReadOptions::default()
        };
        let e = load_trace(&main, &strict).unwrap_err();
        assert!(e.file.ends_with("agent-bad.jsonl"), "{e}");
        assert_eq!((e.field.as_str(), e.line), ("message", Some(2)));
        assert!(
            e.hint.as_deref().unwrap_or("").contains("sub-agent log of"),
            "{e:?}"
        );
    }

    /// A sub-agent both inline (sidechain lines of the session file) and in a file of its own
    /// is read once.
    #[test]
    fn a_sub_agent_already_inline_is_read_once() {
        let dir = tempfile::tempdir().unwrap();
        let line = |v: Value| format!("{v}\n");
        let user = |side: bool, uuid: &str, parent: Value| json!({"type": "user", "isSidechain": side, "agentId": if side { json!("a1") } else { Value::Null }, "sessionId": "s", "uuid": uuid, "parentUuid": parent, "message": {"content": "go"}});
        let asst = |side: bool, uuid: &str, parent: &str, id: &str| json!({"type": "assistant", "isSidechain": side, "agentId": if side { json!("a1") } else { Value::Null }, "sessionId": "s", "uuid": uuid, "parentUuid": parent, "message": {"id": id, "content": [{"type": "text", "text": "ok"}]}});
        let sub = [
            line(user(true, "x1", Value::Null)),
            line(asst(true, "x2", "x1", "m2")),
        ]
        .concat();
        let session = [
            line(user(false, "u1", Value::Null)),
            line(asst(false, "u2", "u1", "m1")),
            sub.clone(),
        ]
        .concat();
        std::fs::write(dir.path().join("s.jsonl"), session).unwrap();
        std::fs::write(dir.path().join("agent-a1.jsonl"), sub).unwrap();
        let t = load_trace(&dir.path().join("s.jsonl"), &ReadOptions::default()).unwrap();
        assert_eq!(t.turns().len(), 2);
        assert_eq!(sessions(&t).len(), 2);
    }
}
