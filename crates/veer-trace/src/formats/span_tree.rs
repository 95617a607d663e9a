//! The shared second half of the span-tree readers (Langfuse observations, LangSmith runs):
//! once a reader has said what each node is — a model call, a tool run, or something else — this
//! module checks the parent links, orders the nodes (start time, then id), makes each trace a
//! session, and writes model calls as turns whose tool calls come from the captured output, else
//! from the tool nodes that follow the call under the same parent (docs/formats.md).

use super::assemble::{
    arguments_of, request_payload, tool_call_payload, tool_result_payload, Answer, Assembler,
};
use super::{check_parents, span_ms, Item};
use crate::error::TraceError;
use crate::model::Kind;
use crate::options::ReadOptions;
use serde_json::{json, Value};
use std::collections::HashMap;

/// What a node did.
#[derive(Debug, Clone, PartialEq)]
pub enum Role {
    /// A model call: the request messages and, when captured, the answer.
    Model {
        /// Request messages.
        messages: Vec<Value>,
        /// The answer's text, tool calls, stop reason and usage (model, latency filled later);
        /// `None` when the output was not captured.
        answer: Option<Answer>,
        /// Token usage when the source gives it apart from the output.
        usage: Option<[u64; 4]>,
        /// The call's cost in US dollars, when the source gives it.
        cost_usd: Option<f64>,
    },
    /// A tool run: its input and output.
    Tool {
        /// Arguments.
        input: Value,
        /// Output (string or object).
        output: Value,
    },
    /// Anything else (agent, chain, span, event): a tool run only when a model call under the
    /// same parent asked for a tool of its name.
    Other {
        /// Input, used as arguments if the node turns out to be a tool run.
        input: Value,
        /// Output.
        output: Value,
    },
}

/// One node of a span tree.
#[derive(Debug, Clone)]
pub struct Node<'a> {
    /// Where the node was read (for messages).
    pub item: &'a Item,
    /// The JSON path of the node inside the item (`observations[3]`, `child_runs[0]`).
    pub path: String,
    /// Node id.
    pub id: String,
    /// Parent node id.
    pub parent: Option<String>,
    /// The trace the node belongs to.
    pub trace: String,
    /// Start time: milliseconds and the text as given (for a finer tie-break).
    pub start_ms: Option<i64>,
    /// Start time text.
    pub start: String,
    /// End time in milliseconds.
    pub end_ms: Option<i64>,
    /// Node name (the tool's name for tool runs).
    pub name: String,
    /// Model name, when a model call.
    pub model: String,
    /// The error message when the node failed.
    pub error: Option<String>,
    /// What the node did.
    pub role: Role,
    /// Whether the source marks the node as an agent (its sub-tree may be a session).
    pub agent: bool,
}

impl Node<'_> {
    /// Whether the source marks the node as an agent.
    pub fn kind_is_agent(&self) -> bool {
        self.agent
    }
}

/// Writes `nodes` into `a`: one session per trace (in order of their first node), nodes by start
/// time then id. `tags` gives each trace's session tags.
pub fn emit(
    a: &mut Assembler,
    source: &str,
    mut nodes: Vec<Node<'_>>,
    tags: &HashMap<String, Vec<(&'static str, String)>>,
    options: &ReadOptions,
) -> Result<(), TraceError> {
    let ids: Vec<&str> = nodes.iter().map(|n| n.id.as_str()).collect();
    let parents: Vec<Option<&str>> = nodes.iter().map(|n| n.parent.as_deref()).collect();
    match check_parents(&ids, &parents) {
        Err(i) => {
            let n = &nodes[i];
            return Err(n.item.err(
                source,
                &n.path,
                format!("node {} is its own ancestor (a parent cycle)", n.id),
            ));
        }
        Ok(missing) => {
            if let Some(&i) = missing.first() {
                let n = &nodes[i];
                if options.strict {
                    return Err(n.item.err(
                        source,
                        &n.path,
                        format!("node {} names a parent that is not in the file", n.id),
                    ));
                }
                a.warn(n.item.line, "parent", format!("{} node(s) name a parent that is not in the file; they are ordered by start time", missing.len()));
            }
        }
    }
    nodes.sort_by(|x, y| (x.start_ms, &x.start, &x.id).cmp(&(y.start_ms, &y.start, &y.id)));
    let mut order: Vec<String> = Vec::new();
    for n in &nodes {
        if !order.contains(&n.trace) {
            order.push(n.trace.clone());
        }
    }
    for trace in order {
        let mine: Vec<&Node> = nodes.iter().filter(|n| n.trace == trace).collect();
        let t = tags.get(&trace).cloned().unwrap_or_default();
        a.session(
            t,
            Some(&trace),
            mine.first().and_then(|n| n.start_ms),
            mine.first().and_then(|n| n.item.line),
        );
        emit_trace(a, &mine);
    }
    Ok(())
}

fn emit_trace(a: &mut Assembler, nodes: &[&Node]) {
    // For each model call, the nodes under the same parent up to the next model call there,
    // then the other nodes of the trace up to its next model call (a framework may run the
    // tools under another span than the call's).
    let mut caused: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    let mut after: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    let mut last_model: HashMap<Option<&str>, usize> = HashMap::new();
    let mut last_any: Option<usize> = None;
    for (i, n) in nodes.iter().enumerate() {
        match n.role {
            Role::Model { .. } => {
                last_model.insert(n.parent.as_deref(), i);
                last_any = Some(i);
            }
            _ => {
                let same = last_model.get(&n.parent.as_deref()).copied();
                if let Some(m) = same {
                    caused[m].push(i);
                }
                if let Some(m) = last_any.filter(|m| Some(*m) != same) {
                    after[m].push(i);
                }
            }
        }
    }
    // The call each tool node answers (id, the name and input the model gave); `Other`
    // nodes that a model call named become tool runs.
    let mut call_of: HashMap<usize, (String, Option<(String, Value)>)> = HashMap::new();
    let mut answers: HashMap<usize, Answer> = HashMap::new();
    for (i, n) in nodes.iter().enumerate() {
        let Role::Model {
            answer,
            usage,
            cost_usd,
            ..
        } = &n.role
        else {
            continue;
        };
        let captured = answer.is_some();
        let mut ans = answer.clone().unwrap_or_default();
        ans.model = n.model.clone();
        ans.latency_ms = span_ms(n.start_ms, n.end_ms);
        if usage.is_some() {
            ans.usage = *usage;
        }
        ans.cost_usd = *cost_usd;
        let mut taken = vec![false; ans.tool_uses.len()];
        let same_parent = caused[i].len();
        for (j, &f) in caused[i].iter().chain(&after[i]).enumerate() {
            if call_of.contains_key(&f) {
                continue;
            }
            let node = nodes[f];
            let is_tool = matches!(node.role, Role::Tool { .. }) && j < same_parent;
            let found = ans
                .tool_uses
                .iter()
                .enumerate()
                .position(|(k, (_, name, _))| !taken[k] && names_tool(&node.name, name));
            match (found, is_tool, captured) {
                (Some(k), _, _) => {
                    taken[k] = true;
                    // A call the model gave no id takes its run's, on both sides.
                    let (id, name, input) = &mut ans.tool_uses[k];
                    let id = id
                        .get_or_insert_with(|| format!("call-{}", node.id))
                        .clone();
                    call_of.insert(f, (id, Some((name.clone(), input.clone()))));
                }
                (None, true, false) => {
                    let id = format!("call-{}", node.id);
                    let input = match &node.role {
                        Role::Tool { input, .. } => arguments_of(Some(input)),
                        _ => json!({}),
                    };
                    ans.tool_uses
                        .push((Some(id.clone()), node.name.clone(), input));
                    taken.push(true);
                    call_of.insert(f, (id, None));
                }
                (None, true, true) => {
                    call_of.insert(f, (format!("call-{}", node.id), None));
                }
                _ => {}
            }
        }
        if !captured {
            a.warn(n.item.line, "output", "some model calls carry no captured output: text, verbosity and refusals cannot be judged for them; their tool calls come from the tool runs that follow");
        }
        answers.insert(i, ans);
    }
    for (i, n) in nodes.iter().enumerate() {
        let line = n.item.line;
        match &n.role {
            Role::Model { messages, .. } => {
                let Some(ans) = answers.remove(&i) else {
                    continue;
                };
                a.push(
                    Kind::ChatRequest,
                    request_payload(&n.model, messages.clone(), Vec::new()),
                    n.start_ms,
                    line,
                );
                a.push(
                    Kind::ChatResponse,
                    ans.payload(),
                    n.end_ms.or(n.start_ms),
                    line,
                );
                if let Some(e) = &n.error {
                    a.push(Kind::Error, json!({"source": "llm", "code": "model_error", "message": e, "retriable": false}), n.end_ms, line);
                }
            }
            Role::Tool { input, output } | Role::Other { input, output } => {
                let is_tool = matches!(n.role, Role::Tool { .. });
                let (id, asked) = match call_of.get(&i) {
                    Some((id, asked)) => (id.clone(), asked.as_ref()),
                    None if is_tool => (format!("call-{}", n.id), None),
                    None => continue,
                };
                // The name the model called the tool by; the run's input, else the model's.
                let (name, args) = match asked {
                    Some((name, asked_input)) => {
                        let given = arguments_of(Some(input));
                        let empty = given.as_object().is_some_and(|o| o.is_empty());
                        (
                            name.as_str(),
                            if empty { asked_input.clone() } else { given },
                        )
                    }
                    None => (n.name.as_str(), arguments_of(Some(input))),
                };
                a.push(
                    Kind::ToolCall,
                    tool_call_payload(name, &id, args),
                    n.start_ms,
                    line,
                );
                let (out, is_error) = match &n.error {
                    Some(e) => (Value::String(e.clone()), true),
                    None => (output.clone(), false),
                };
                a.push(
                    Kind::ToolResult,
                    tool_result_payload(&id, out, is_error, span_ms(n.start_ms, n.end_ms)),
                    n.end_ms.or(n.start_ms),
                    line,
                );
            }
        }
    }
}

pub(crate) use super::answers::answer_of;

/// Whether a node named `node` runs the tool `tool`: the same name, or the name after an
/// instrumentation's prefix (`execute_tool get_weather`, `running tool: search`,
/// `tool.HelloTool`).
pub(crate) fn names_tool(node: &str, tool: &str) -> bool {
    if tool.is_empty() {
        return node.is_empty();
    }
    node == tool
        || node.strip_suffix(tool).is_some_and(|prefix| {
            prefix
                .chars()
                .last()
                .is_some_and(|c| matches!(c, ' ' | ':' | '.' | '/'))
        })
}

/// Request messages of a model call's input: a list of messages (a list of lists: the first),
/// `{"messages": …}`, or text as one user message.
pub(crate) fn messages_of(v: Option<&Value>) -> Vec<Value> {
    match v {
        Some(Value::Array(list)) => match list.first() {
            Some(Value::Array(inner)) => inner.clone(),
            _ => list.clone(),
        },
        Some(Value::Object(o)) => match o.get("messages").or_else(|| o.get("prompts")) {
            Some(m) => messages_of(Some(m)),
            None => vec![Value::Object(o.clone())],
        },
        Some(Value::String(s)) => vec![json!({"role": "user", "content": s})],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_from_every_output_shape() {
        let openai = json!({"choices": [{"finish_reason": "tool_calls", "message": {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "function": {"name": "f", "arguments": "{\"a\":1}"}}]}}]});
        let a = answer_of(&openai).unwrap();
        assert_eq!(
            a.tool_uses,
            vec![(Some("c1".into()), "f".into(), json!({"a": 1}))]
        );
        assert_eq!(a.stop_reason.as_deref(), Some("tool_use"));
        let lc = json!({"generations": [[{"text": "", "message": {"lc": 1, "kwargs": {"content": "hi", "tool_calls": [{"name": "g", "args": {"b": 2}, "id": "c2"}]}}}]]});
        let a = answer_of(&lc).unwrap();
        assert_eq!(
            (a.text.clone(), a.tool_uses.len()),
            (vec!["hi".to_string()], 1)
        );
        assert_eq!(
            answer_of(&json!({"output": "done"})).unwrap().text,
            ["done"]
        );
        assert_eq!(answer_of(&Value::Null), None);
        assert_eq!(
            messages_of(Some(&json!({"messages": [[{"role": "user"}]]}))),
            vec![json!({"role": "user"})]
        );
    }
}
