//! The formats told apart by their first record — OpenAI Agents SDK trace exports, Claude Code
//! session logs, Langfuse trace exports, LangSmith run exports, MCP JSON-RPC session logs and OpenAI Evals run logs —
//! and what their readers share: the sniff, the records of a file as [`Item`]s, the parent
//! check. Each reader produces the same [`Trace`] model through `assemble` (mapping in
//! docs/formats.md).

use super::{agents_sdk, claude_code, codex, langfuse, langsmith, mcp, openai_evals};
use crate::error::TraceError;
use crate::model::Trace;
use crate::options::ReadOptions;
use rayon::prelude::*;
use serde_json::Value;

/// A format read by one of the modules here, told apart by content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Foreign {
    /// OpenAI Agents SDK trace / span exports.
    AgentsSdk,
    /// Claude Code session log (JSON Lines).
    ClaudeCode,
    /// Langfuse trace export.
    Langfuse,
    /// LangSmith run export.
    Langsmith,
    /// MCP JSON-RPC session log (JSON Lines).
    Mcp,
    /// Codex CLI session rollout (JSON Lines).
    Codex,
    /// OpenAI Evals run log (JSON Lines).
    OpenaiEvals,
}

/// The ordered sniffs: the first that accepts a record names its format.
/// Whether a record is of one format.
type Sniff = fn(&Value) -> bool;

const SNIFFS: [(Foreign, Sniff); 7] = [
    (Foreign::AgentsSdk, agents_sdk::sniff),
    (Foreign::ClaudeCode, claude_code::sniff),
    (Foreign::Langfuse, langfuse::sniff),
    (Foreign::Langsmith, langsmith::sniff),
    (Foreign::Mcp, mcp::sniff),
    (Foreign::Codex, codex::sniff),
    (Foreign::OpenaiEvals, openai_evals::sniff),
];

/// The format of a file whose first record (a JSON Lines line) or whole document is `v`: an
/// array or a `{"data": [...]}` wrapper is judged by its first element.
pub fn sniff(v: &Value) -> Option<Foreign> {
    let first = match v {
        Value::Array(a) => a.first()?,
        Value::Object(o) => match o.get("data") {
            Some(Value::Array(a)) if o.len() <= 3 => a.first()?,
            _ => v,
        },
        _ => return None,
    };
    SNIFFS.iter().find(|(_, s)| s(first)).map(|(f, _)| *f)
}

/// The format of a JSON Lines file judged by its first non-empty line.
/// A file of one line is not looked at again: it was judged as a whole document.
pub(crate) fn sniff_first_line(bytes: &[u8]) -> Option<Foreign> {
    let line = bytes
        .split(|&b| b == b'\n')
        .find(|l| l.iter().any(|b| !b.is_ascii_whitespace()))?;
    if is_only_line(bytes, line) {
        return None;
    }
    sniff(&serde_json::from_slice::<Value>(line).ok()?)
}

/// Whether `line` (a slice of `bytes`) is all of `bytes` but whitespace.
fn is_only_line(bytes: &[u8], line: &[u8]) -> bool {
    let start = line.as_ptr() as usize - bytes.as_ptr() as usize;
    let end = start + line.len();
    bytes[..start]
        .iter()
        .chain(&bytes[end..])
        .all(u8::is_ascii_whitespace)
}

/// A JSON document that does not parse but whose first line is not a complete JSON value
/// either (so not `.agentlog`) and that names keys of a format read here: the parse error,
/// named for that format (a truncated export says so).
pub(crate) fn broken_document(source: &str, bytes: &[u8]) -> Option<TraceError> {
    let first = bytes.split(|&b| b == b'\n').next()?;
    // (a one-line file is the document itself, already known not to parse)
    if !is_only_line(bytes, first) && serde_json::from_slice::<Value>(first).is_ok() {
        return None;
    }
    let head = &bytes[..bytes.len().min(1 << 16)];
    let has = |needle: &[u8]| head.windows(needle.len()).any(|w| w == needle);
    let name = if has(b"\"observations\"") {
        "Langfuse trace export"
    } else if has(b"\"run_type\"") {
        "LangSmith run export"
    } else if has(b"\"trace.span\"") {
        "OpenAI Agents SDK trace export"
    } else {
        return None;
    };
    let e = serde_json::from_slice::<Value>(bytes).err()?;
    let err = TraceError::new(
        source,
        Some(e.line() as u64),
        "(file)",
        format!("not valid JSON (read as a {name}): {e}"),
    );
    Some(if e.is_eof() {
        err.with_hint("the file looks truncated: export it again")
    } else {
        err.with_hint("the file must be one JSON document")
    })
}

/// One record of the input: a JSON Lines line, or an element of a JSON document.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// 1-based line (JSON Lines), `None` inside a JSON document.
    pub line: Option<u64>,
    /// JSON path of the element in a document (`[3]`, `data[0]`), `""` for a line.
    pub path: String,
    /// The value.
    pub value: Value,
}

impl Item {
    /// The error location of `field` of this item.
    pub fn err(&self, source: &str, field: &str, message: impl Into<String>) -> TraceError {
        let field = match (self.path.is_empty(), field.is_empty()) {
            (true, _) => field.to_string(),
            (false, true) => self.path.clone(),
            (false, false) => format!("{}.{field}", self.path),
        };
        TraceError::new(source, self.line, field, message)
    }
}

/// Reads `bytes` (already known to be `format`); `parsed` is the whole document when the caller
/// has parsed it.
pub fn read(
    format: Foreign,
    source: &str,
    bytes: &[u8],
    parsed: Option<Value>,
    options: &ReadOptions,
) -> Result<Trace, TraceError> {
    let items = match parsed {
        // A one-line JSON Lines file parses whole; its record keeps its line number.
        Some(v) if v.is_object() && is_line_record(&v) => vec![Item {
            line: Some(1),
            path: String::new(),
            value: v,
        }],
        Some(v) => items_of_document(v),
        None => items_of_bytes(source, bytes, options.max_line_bytes)?,
    };
    match format {
        Foreign::AgentsSdk => agents_sdk::read(source, items, options),
        Foreign::ClaudeCode => claude_code::read(source, items, options),
        Foreign::Langfuse => langfuse::read(source, items, options),
        Foreign::Langsmith => langsmith::read(source, items, options),
        Foreign::Mcp => mcp::read(source, items, options),
        Foreign::Codex => codex::read(source, items, options),
        Foreign::OpenaiEvals => openai_evals::read(source, items, options),
    }
}

/// The records of one JSON document: an array's elements, a `{"data": [...]}` wrapper's
/// elements, or the object itself.
pub(crate) fn items_of_document(v: Value) -> Vec<Item> {
    let (prefix, list) = match v {
        Value::Array(a) => ("", a),
        Value::Object(mut o) if matches!(o.get("data"), Some(Value::Array(_))) && o.len() <= 3 => {
            match o.remove("data") {
                Some(Value::Array(a)) => ("data", a),
                _ => ("", Vec::new()),
            }
        }
        other => {
            return vec![Item {
                line: None,
                path: String::new(),
                value: other,
            }]
        }
    };
    list.into_iter()
        .enumerate()
        .map(|(i, value)| Item {
            line: None,
            path: format!("{prefix}[{i}]"),
            value,
        })
        .collect()
}

/// The records of a file: one JSON document, else JSON Lines (blank lines skipped; every line
/// must be a JSON value — a broken last line is named as a truncated file — of at most
/// `max_line_bytes` bytes, newline included).
pub(crate) fn items_of_bytes(
    source: &str,
    bytes: &[u8],
    max_line_bytes: u64,
) -> Result<Vec<Item>, TraceError> {
    if let Ok(v) = serde_json::from_slice::<Value>(bytes) {
        if !(v.is_object() && is_line_record(&v)) {
            return Ok(items_of_document(v));
        }
    }
    let lines: Vec<(u64, &[u8])> = bytes
        .split(|&b| b == b'\n')
        .enumerate()
        .map(|(i, l)| (i as u64 + 1, l))
        .filter(|(_, l)| l.iter().any(|b| !b.is_ascii_whitespace()))
        .collect();
    if let Some((n, l)) = lines.iter().find(|(_, l)| l.len() as u64 >= max_line_bytes) {
        return Err(TraceError::new(
            source,
            Some(*n),
            "(line)",
            format!(
                "line is longer than the limit of {max_line_bytes} bytes ({} bytes)",
                l.len() + 1
            ),
        )
        .with_hint("raise the limit with --max-line-bytes if the line is genuine"));
    }
    let last = lines.last().map(|(n, _)| *n);
    let parsed: Vec<Result<Item, TraceError>> = lines
        .into_par_iter()
        .map(|(n, l)| {
            serde_json::from_slice::<Value>(l)
                .map(|value| Item {
                    line: Some(n),
                    path: String::new(),
                    value,
                })
                .map_err(|e| {
                    let err =
                        TraceError::new(source, Some(n), "(line)", format!("not valid JSON: {e}"));
                    if Some(n) == last && e.is_eof() {
                        err.with_hint("the file looks truncated: the last line ends mid-record")
                    } else {
                        err.with_hint("every line of a JSON Lines file must be one JSON value")
                    }
                })
        })
        .collect();
    parsed.into_iter().collect()
}

/// Whether a single-object file is one record of a line-oriented format (a one-line JSON Lines
/// file) rather than a whole document.
fn is_line_record(v: &Value) -> bool {
    matches!(
        sniff(v),
        Some(Foreign::Mcp | Foreign::AgentsSdk | Foreign::ClaudeCode | Foreign::Codex)
    )
}

/// Milliseconds between two instants, 0 when either is unknown or they run backwards.
pub(crate) fn span_ms(start: Option<i64>, end: Option<i64>) -> u64 {
    match (start, end) {
        (Some(s), Some(e)) if e >= s => (e - s) as u64,
        _ => 0,
    }
}

/// The JSON type name of `v`, for messages.
pub fn type_name(v: &Value) -> &'static str {
    crate::agentlog::reader::json_type(v)
}

/// Checks the parent links of a tree of spans / runs / entries: `parents[i]` names the id of
/// item `i`'s parent (`None` for a root). Returns the items whose parent is not among `ids`
/// (a missing parent: kept, the caller warns), or `Err(i)` with an item on a parent cycle.
pub(crate) fn check_parents(ids: &[&str], parents: &[Option<&str>]) -> Result<Vec<usize>, usize> {
    let index: std::collections::HashMap<&str, usize> = ids
        .iter()
        .enumerate()
        .rev()
        .map(|(i, id)| (*id, i))
        .collect();
    // 0 = not seen, 1 = on the current walk, 2 = known to reach a root.
    let mut state = vec![0u8; ids.len()];
    let mut missing = Vec::new();
    let mut walk = Vec::new();
    for start in 0..ids.len() {
        let mut at = start;
        loop {
            match state[at] {
                2 => break,
                1 => return Err(at),
                _ => {}
            }
            state[at] = 1;
            walk.push(at);
            match parents[at] {
                None => break,
                Some(p) => match index.get(p) {
                    Some(&next) => at = next,
                    None => {
                        missing.push(at);
                        break;
                    }
                },
            }
        }
        for i in walk.drain(..) {
            state[i] = 2;
        }
    }
    missing.sort_unstable();
    Ok(missing)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parents_missing_and_cycles() {
        let ids = ["a", "b", "c", "d"];
        assert_eq!(
            check_parents(&ids, &[None, Some("a"), Some("zz"), Some("c")]),
            Ok(vec![2])
        );
        assert_eq!(
            check_parents(&ids, &[Some("d"), Some("a"), Some("b"), Some("c")]),
            Err(0)
        );
        assert_eq!(check_parents(&ids[..1], &[Some("a")]), Err(0));
        assert_eq!(
            check_parents(&ids, &[None, Some("a"), Some("b"), Some("c")]),
            Ok(vec![])
        );
    }

    #[test]
    fn documents_and_lines_split_into_items() {
        let items = items_of_bytes(
            "f",
            b"{\"jsonrpc\":\"2.0\",\"id\":1}\n\n{\"jsonrpc\":\"2.0\"}\n",
            u64::MAX,
        )
        .unwrap();
        assert_eq!(items.len(), 2);
        assert_eq!(items[1].line, Some(3));
        let e =
            items_of_bytes("f", b"{\"jsonrpc\":\"2.0\"}\n{\"jsonrpc\":\"2.", u64::MAX).unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(e.hint.unwrap_or_default().contains("truncated"));
        assert_eq!(
            sniff(&serde_json::json!({"version": "0.1", "kind": "metadata"})),
            None
        );
    }
}
