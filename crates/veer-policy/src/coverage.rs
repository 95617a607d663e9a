//! Rules that can never fire on the traces at hand. A policy that names a tool the agent never
//! calls or declares (`lookup_ordr`), or a `when:` path that never resolves
//! (`request.params.amout`), loads as valid and then passes every trace in silence. Watching
//! the traces a policy is run on — one at a time, keeping only the tool names and the paths'
//! outcomes — finds those rules and says what was probably meant.
//!
//! A tool is *known* when some trace calls it or declares it in a request's `tools` list; a
//! path is *live* when it resolves (to any value, `null` included) in some pair. The work per
//! trace is (pairs × paths of the policy) plus the trace's size.

use crate::context::TraceView;
use crate::ltl::{Atom, Formula};
use crate::model::{Check, Policy};
use crate::path::Path;
use crate::when::Condition;
use std::collections::{BTreeMap, BTreeSet};
use veer_trace::{Json, Trace};

/// The most keys kept per path for its did-you-mean (payloads with generated keys stay bounded).
const MAX_KEYS_KEPT: usize = 256;

/// One rule that does nothing on the traces seen: what it names that never occurs, and a hint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeadRule {
    /// The rule's id.
    pub rule_id: String,
    /// What is wrong, in the policy's terms (e.g. ``no trace calls or declares `lookup_ordr` ``).
    pub message: String,
    /// What was probably meant (a did-you-mean), or what to check.
    pub hint: String,
}

/// Where one path of a rule stands after the traces seen so far.
#[derive(Debug, Clone, Default)]
struct PathSeen {
    /// It resolved in some pair.
    live: bool,
    /// The longest prefix (in segments) that resolved somewhere, and the object keys (or
    /// array lengths) found there; kept only while the path is not live.
    deepest: usize,
    /// Keys found at `deepest` (object keys, sorted).
    keys_there: BTreeSet<String>,
}

/// Watches traces one at a time and then names the policy's dead rules. It keeps tool names
/// and, per path of the policy, whether it resolved; the policy is passed to each call (the
/// one it was made for).
#[derive(Debug, Clone, Default)]
pub struct Coverage {
    called: BTreeSet<String>,
    declared: BTreeSet<String>,
    /// Per (rule index, path text): where the path stands.
    paths: BTreeMap<(usize, String), PathSeen>,
    traces: usize,
    pairs: usize,
}

/// The paths a rule reads: its `when:` conditions and the paths among its parameters.
fn rule_paths(check: &Check, when: &[Condition]) -> Vec<(&'static str, Path)> {
    let mut out: Vec<(&'static str, Path)> = when
        .iter()
        .map(|c| ("`when` path", c.path.clone()))
        .collect();
    match check {
        Check::MustRemainConsistent { path } => out.push(("`path` parameter", path.clone())),
        Check::MustBeGrounded { retrieval_path, .. } => {
            out.push(("`retrieval_path` parameter", retrieval_path.clone()))
        }
        Check::MustFollowup { trigger, .. } => {
            out.extend(trigger.iter().map(|c| ("`trigger` path", c.path.clone())))
        }
        _ => {}
    }
    out
}

/// The tool names whose absence makes a rule silent, each with the parameter that names it.
/// A rule that *requires* a tool (`must_call_once`, `must_call_before`'s `first`, a positive
/// LTL atom such as `F tool_call:x`, a reference call) fires when the tool is missing, so a
/// misspelling there is loud already; a rule that is *about* a tool's calls (`no_call`,
/// `must_call_before`'s `then`, a negated atom such as `G !tool_call:x`) passes in silence.
fn rule_tools(check: &Check) -> Vec<(&'static str, String)> {
    /// Atoms where a missing tool makes the formula hold: under an odd number of negations
    /// (`!`, the left side of `->`).
    fn atoms(f: &Formula, negated: bool, out: &mut Vec<(&'static str, String)>) {
        match f {
            Formula::Atom(Atom::ToolCall(t)) if negated => {
                out.push(("a negated `tool_call:` atom", t.clone()))
            }
            Formula::True | Formula::False | Formula::Atom(_) => {}
            Formula::Not(a) => atoms(a, !negated, out),
            Formula::Next(a) | Formula::Globally(a) | Formula::Finally(a) => atoms(a, negated, out),
            Formula::Implies(a, b) => {
                atoms(a, !negated, out);
                atoms(b, negated, out);
            }
            Formula::And(a, b)
            | Formula::Or(a, b)
            | Formula::Until(a, b)
            | Formula::WeakUntil(a, b) => {
                atoms(a, negated, out);
                atoms(b, negated, out);
            }
        }
    }
    let mut out = Vec::new();
    match check {
        Check::MustCallBefore { then, .. } => out.push(("`then`", then.clone())),
        Check::NoCall { tool } => out.push(("`tool`", tool.clone())),
        Check::LtlFormula { ast, .. } => atoms(ast, false, &mut out),
        _ => {}
    }
    out
}

/// The names of the tools a request payload declares (`tools: [{name}]` or
/// `tools: [{function: {name}}]`).
fn declared_tools(request: &Json, into: &mut BTreeSet<String>) {
    let Some(tools) = request.get("tools").and_then(Json::as_array) else {
        return;
    };
    for t in tools {
        let name = t
            .get("name")
            .or_else(|| t.get("function").and_then(|f| f.get("name")))
            .and_then(Json::as_str);
        if let Some(n) = name.filter(|n| !n.is_empty() && !into.contains(*n)) {
            into.insert(n.to_string());
        }
    }
}

/// How far `path` resolves in `root` (segments matched, the root counting as one) and the keys
/// of the object where it stopped.
fn resolve_depth(path: &Path, root: &Json) -> (usize, Option<Vec<String>>) {
    let mut cur = root;
    for (i, seg) in path.segments[1..].iter().enumerate() {
        let next = match cur {
            Json::Object(m) => m.get(seg),
            Json::Array(a) => seg.parse::<usize>().ok().and_then(|k| a.get(k)),
            _ => None,
        };
        match next {
            Some(n) => cur = n,
            None => {
                let keys = cur
                    .as_object()
                    .map(|m| m.keys().map(str::to_string).collect());
                return (i + 1, keys);
            }
        }
    }
    (path.segments.len(), None)
}

impl Coverage {
    /// Starts watching for `policy`.
    pub fn new(policy: &Policy) -> Coverage {
        let mut paths = BTreeMap::new();
        for (i, r) in policy.rules.iter().enumerate() {
            for (_, p) in rule_paths(&r.check, &r.when) {
                paths
                    .entry((i, p.text.clone()))
                    .or_insert_with(PathSeen::default);
            }
        }
        Coverage {
            called: BTreeSet::new(),
            declared: BTreeSet::new(),
            paths,
            traces: 0,
            pairs: 0,
        }
    }

    /// Takes in one trace: its called and declared tools and whether each path of `policy`
    /// resolves. The order traces come in does not change the result.
    pub fn observe(&mut self, policy: &Policy, trace: &Trace) {
        let view = TraceView::new(trace);
        self.traces += 1;
        self.pairs += view.pairs.len();
        for c in &view.calls {
            if !c.name.is_empty() && !self.called.contains(&c.name) {
                self.called.insert(c.name.clone());
            }
        }
        for p in &view.pairs {
            declared_tools(p.context.request, &mut self.declared);
        }
        for ((rule, text), seen) in self.paths.iter_mut() {
            if seen.live {
                continue;
            }
            let Some(r) = policy.rules.get(*rule) else {
                continue;
            };
            let Some((_, path)) = rule_paths(&r.check, &r.when)
                .into_iter()
                .find(|(_, p)| p.text == *text)
            else {
                continue;
            };
            for p in &view.pairs {
                if path.resolve(&p.context).is_some() {
                    seen.live = true;
                    seen.keys_there.clear();
                    break;
                }
                let Some(root) = p.context.root(&path.segments[0]) else {
                    continue;
                };
                let (depth, keys) = resolve_depth(&path, root);
                if depth > seen.deepest {
                    seen.deepest = depth;
                    seen.keys_there.clear();
                }
                if depth == seen.deepest {
                    for k in keys.into_iter().flatten() {
                        if seen.keys_there.len() >= MAX_KEYS_KEPT {
                            break;
                        }
                        seen.keys_there.insert(k);
                    }
                }
            }
        }
    }

    /// Adds what `other` saw (made for the same policy): traces can be watched on several
    /// threads and merged in any order with the same result.
    pub fn merge(&mut self, other: Coverage) {
        self.called.extend(other.called);
        self.declared.extend(other.declared);
        self.traces += other.traces;
        self.pairs += other.pairs;
        for (key, theirs) in other.paths {
            let ours = self.paths.entry(key).or_default();
            if ours.live || theirs.live {
                ours.live = true;
                ours.keys_there.clear();
                continue;
            }
            if theirs.deepest > ours.deepest {
                ours.deepest = theirs.deepest;
                ours.keys_there.clear();
            }
            if theirs.deepest == ours.deepest {
                for k in theirs.keys_there {
                    if ours.keys_there.len() >= MAX_KEYS_KEPT {
                        break;
                    }
                    ours.keys_there.insert(k);
                }
            }
        }
    }

    /// The rules that could not fire on any trace seen, in rule order. Nothing is reported
    /// before a trace has been seen.
    pub fn dead_rules(&self, policy: &Policy) -> Vec<DeadRule> {
        let mut out = Vec::new();
        if self.traces == 0 {
            return out;
        }
        let known: Vec<&str> = self
            .called
            .iter()
            .chain(self.declared.iter())
            .map(String::as_str)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let seen_in = format!(
            "{} trace{}",
            self.traces,
            if self.traces == 1 { "" } else { "s" }
        );
        for (i, r) in policy.rules.iter().enumerate() {
            let mut named = BTreeSet::new();
            for (param, tool) in rule_tools(&r.check) {
                if known.contains(&tool.as_str()) || !named.insert(tool.clone()) {
                    continue;
                }
                let hint = match crate::hint::closest(&tool, &known) {
                    Some(k) => format!("did you mean `{k}`?"),
                    None if known.is_empty() => "the traces call and declare no tools".into(),
                    None => format!("the tools seen are: {}", list(&known)),
                };
                out.push(DeadRule {
                    rule_id: r.id.clone(),
                    message: format!(
                        "names the tool `{tool}` (in {param}), which no trace calls or declares ({seen_in} read)"
                    ),
                    hint,
                });
            }
            for (what, path) in rule_paths(&r.check, &r.when) {
                let Some(seen) = self.paths.get(&(i, path.text.clone())) else {
                    continue;
                };
                if seen.live {
                    continue;
                }
                out.push(DeadRule {
                    rule_id: r.id.clone(),
                    message: format!(
                        "reads `{}` (a {what}), which resolves in no turn ({seen_in}, {} turn{} read)",
                        path.text,
                        self.pairs,
                        if self.pairs == 1 { "" } else { "s" }
                    ),
                    hint: path_hint(&path, seen),
                });
            }
        }
        out
    }
}

/// A comma-separated list of at most 8 names, then how many more.
fn list(names: &[&str]) -> String {
    let mut s = names
        .iter()
        .take(8)
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > 8 {
        s.push_str(&format!(" and {} more", names.len() - 8));
    }
    s
}

/// The did-you-mean of a path that never resolved: the closest key where it stopped.
fn path_hint(path: &Path, seen: &PathSeen) -> String {
    let prefix = path.segments[..seen.deepest.max(1)].join(".");
    let Some(missing) = path.segments.get(seen.deepest.max(1)) else {
        return "check the path against a trace (`veer inspect TRACE`)".into();
    };
    let keys: Vec<&str> = seen.keys_there.iter().map(String::as_str).collect();
    if keys.is_empty() {
        return format!("`{prefix}` holds no object with keys in these traces");
    }
    match crate::hint::closest(missing, &keys) {
        Some(k) => {
            let mut fixed = path.segments.clone();
            fixed[seen.deepest.max(1)] = k.to_string();
            format!("did you mean `{}`?", fixed.join("."))
        }
        None => format!("`{prefix}` has the keys {}", list(&keys)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace(lines: &[&str]) -> Trace {
        veer_trace::agentlog::reader::read_agentlog_bytes(
            "t.agentlog",
            lines.join("\n").as_bytes(),
            &veer_trace::ReadOptions::default(),
        )
        .unwrap()
    }

    fn refund_trace() -> Trace {
        trace(&[
            r#"{"version":"0.1","id":"a","kind":"chat_request","ts":"2026-01-01T00:00:00Z","parent":null,"payload":{"model":"m","messages":[{"role":"user","content":"refund A1"}],"tools":[{"name":"lookup_order"},{"name":"issue_refund"},{"name":"escalate"}],"params":{"temperature":0.2}}}"#,
            r#"{"version":"0.1","id":"b","kind":"chat_response","ts":"2026-01-01T00:00:01Z","parent":"a","payload":{"model":"m","content":[{"type":"tool_use","id":"t1","name":"lookup_order","input":{"order_id":"A1"}}],"stop_reason":"tool_use"}}"#,
            r#"{"version":"0.1","id":"c","kind":"chat_request","ts":"2026-01-01T00:00:02Z","parent":"b","payload":{"model":"m","messages":[{"role":"user","content":"refund A1"}],"params":{"temperature":0.2}}}"#,
            r#"{"version":"0.1","id":"d","kind":"chat_response","ts":"2026-01-01T00:00:03Z","parent":"c","payload":{"model":"m","content":[{"type":"tool_use","id":"t2","name":"issue_refund","input":{"order_id":"A1","amount":42}}],"stop_reason":"tool_use"}}"#,
        ])
    }

    fn dead(policy: &str) -> Vec<DeadRule> {
        let p = Policy::load_str(policy, "p.yaml", false, std::path::Path::new(".")).unwrap();
        let mut c = Coverage::new(&p);
        c.observe(&p, &refund_trace());
        c.dead_rules(&p)
    }

    #[test]
    fn a_misspelt_tool_is_named_with_the_closest_seen_tool() {
        let d = dead(
            "rules:\n- {id: r, kind: must_call_before, params: {first: lookup_order, then: isue_refund}}\n",
        );
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].rule_id, "r");
        assert_eq!(
            d[0].message,
            "names the tool `isue_refund` (in `then`), which no trace calls or declares (1 trace read)"
        );
        assert_eq!(d[0].hint, "did you mean `issue_refund`?");
        // A required tool that never occurs makes the rule fire: loud, not dead.
        for rule in [
            "{id: r, kind: must_call_before, params: {first: lookup_ordr, then: issue_refund}}",
            "{id: r, kind: must_call_once, params: {tool: lookup_ordr}}",
            "{id: r, kind: ltl_formula, params: {formula: 'F tool_call:lookup_ordr'}}",
        ] {
            assert!(dead(&format!("rules:\n- {rule}\n")).is_empty(), "{rule}");
        }
    }

    #[test]
    fn a_declared_tool_that_is_never_called_is_not_dead() {
        // `escalate` is offered to the model, so forbidding it is meaningful.
        assert!(dead("rules:\n- {id: r, kind: no_call, params: {tool: escalate}}\n").is_empty());
        let d = dead("rules:\n- {id: r, kind: no_call, params: {tool: delete_everything}}\n");
        assert_eq!(d.len(), 1);
        assert!(
            d[0].hint.starts_with("the tools seen are: `escalate`"),
            "{d:?}"
        );
    }

    #[test]
    fn a_misspelt_when_path_is_named_with_the_key_where_it_stopped() {
        let d = dead(
            "rules:\n- {id: big, kind: max_turns, params: {limit: 9}, when: [{path: request.params.temprature, op: '>', value: 0}]}\n",
        );
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(
            d[0].message,
            "reads `request.params.temprature` (a `when` path), which resolves in no turn (1 trace, 2 turns read)"
        );
        assert_eq!(d[0].hint, "did you mean `request.params.temperature`?");
    }

    #[test]
    fn live_paths_tool_atoms_and_trajectories_pass_and_dead_atoms_are_named() {
        assert!(dead(
            "rules:\n- {id: a, kind: ltl_formula, params: {formula: 'F tool_call:issue_refund'}, when: [{path: response.content.0.input.order_id, op: '==', value: A1}]}\n"
        )
        .is_empty());
        let d = dead(
            "rules:\n- {id: a, kind: ltl_formula, params: {formula: 'G !tool_call:isue_refund'}}\n",
        );
        assert_eq!(d[0].hint, "did you mean `issue_refund`?");
    }

    #[test]
    fn merging_two_watches_equals_watching_both_traces() {
        let p = Policy::load_str(
            "rules:\n- {id: r, kind: no_call, params: {tool: lookup_ordr}, when: [{path: request.params.temprature, op: '>', value: 0}]}\n",
            "p.yaml",
            false,
            std::path::Path::new("."),
        )
        .unwrap();
        let t = refund_trace();
        let mut both = Coverage::new(&p);
        both.observe(&p, &t);
        both.observe(&p, &t);
        let mut a = Coverage::new(&p);
        a.observe(&p, &t);
        let mut b = Coverage::new(&p);
        b.observe(&p, &t);
        a.merge(b);
        assert_eq!(a.dead_rules(&p), both.dead_rules(&p));
        assert_eq!(a.dead_rules(&p).len(), 2);
    }

    #[test]
    fn nothing_is_reported_before_a_trace_is_seen() {
        let p = Policy::load_str(
            "rules:\n- {id: r, kind: no_call, params: {tool: x}}\n",
            "p.yaml",
            false,
            std::path::Path::new("."),
        )
        .unwrap();
        assert!(Coverage::new(&p).dead_rules(&p).is_empty());
    }
}
