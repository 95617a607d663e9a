//! Rules written from a regression: given each case's baseline runs and its changed candidate
//! runs, propose policy rules that would have caught the change — a tool the baseline never
//! calls (`no_call`), an order the baseline always keeps (`must_call_before`), the baseline's
//! usual trajectory with its stable arguments (`trajectory_match`), a value only the changed runs
//! say (`forbidden_text`) — and keep a rule only when it fires on a changed run and stays silent
//! on every baseline run. Each rule is written as YAML and checked by loading that very text with
//! the policy loader, so a kept rule is exactly what the user's policy file will hold.
//!
//! Work is bounded by the input: proposals are per case and per pair of tools the case's
//! baseline calls; each is evaluated once per run.

use crate::{evaluate, Policy};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use veer_contract::policy::RuleKind;
use veer_contract::suggestion::SuggestedRule;
use veer_trace::{Kind, Trace};

/// One recorded run and the name it is reported under.
#[derive(Debug, Clone, Copy)]
pub struct RecordedRun<'a> {
    /// The run's name (a path relative to its side's root, or a file path).
    pub name: &'a str,
    /// The run.
    pub trace: &'a Trace,
}

/// The runs of one case.
#[derive(Debug, Clone)]
pub struct CaseRuns<'a> {
    /// The case's name (the pair's relative path, the trials case key, …).
    pub case: String,
    /// Its baseline runs.
    pub baseline: Vec<RecordedRun<'a>>,
    /// Its changed candidate runs (empty for a case the report does not mark as changed: its
    /// baseline runs still count for staying silent).
    pub candidate: Vec<RecordedRun<'a>>,
}

/// Argument keys that differ on every run by design; never pinned in a reference call.
const VOLATILE_KEYS: [&str; 8] = [
    "request_id",
    "idempotency_key",
    "trace_id",
    "span_id",
    "nonce",
    "timestamp",
    "uuid",
    "correlation_id",
];

/// What a run did, as the proposals read it.
struct Facts {
    /// Tool calls in order: name and arguments.
    calls: Vec<(String, Map<String, Value>)>,
    /// Each response's text.
    texts: Vec<String>,
    /// Each request's payload (for the case selector).
    requests: Vec<Value>,
}

impl Facts {
    fn of(t: &Trace) -> Facts {
        Facts {
            calls: t
                .tool_calls()
                .into_iter()
                .map(|c| (c.name, c.arguments))
                .collect(),
            texts: t.responses().iter().map(|r| r.text("\n")).collect(),
            requests: t
                .records
                .iter()
                .filter(|r| r.kind == Kind::ChatRequest)
                .map(|r| r.payload.to_value())
                .collect(),
        }
    }

    fn first(&self, tool: &str) -> Option<usize> {
        self.calls.iter().position(|(n, _)| n == tool)
    }

    fn names(&self) -> Vec<&str> {
        self.calls.iter().map(|(n, _)| n.as_str()).collect()
    }
}

/// A rule before it is checked.
struct Proposal {
    id: String,
    kind: RuleKind,
    case: Option<String>,
    /// The rule mapping (`id`, `kind`, `severity`, `when`, `params`, `description`).
    rule: Value,
    rationale: String,
}

/// Proposes rules from `cases` and checks each on every run: see the module docs. Kept rules
/// come first; within each group, proposal order (no_call, must_call_before, trajectory_match,
/// forbidden_text; cases in the given order).
pub fn rules_from_regression(cases: &[CaseRuns<'_>]) -> Vec<SuggestedRule> {
    let facts: Vec<(Vec<Facts>, Vec<Facts>)> = cases
        .iter()
        .map(|c| {
            (
                c.baseline.iter().map(|r| Facts::of(r.trace)).collect(),
                c.candidate.iter().map(|r| Facts::of(r.trace)).collect(),
            )
        })
        .collect();
    let mut proposals = Vec::new();
    no_calls(cases, &facts, &mut proposals);
    orders(cases, &facts, &mut proposals);
    let mut out: Vec<SuggestedRule> = proposals.iter().map(|p| vet(p, cases)).collect();
    // Cases with the same usual calls and no `when:` telling them apart give one rule.
    let mut trajectories: Vec<(Value, usize)> = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        if let Some((r, key)) = trajectory(cases, &facts, i) {
            match trajectories.iter().find(|(k, _)| *k == key) {
                Some(&(_, at)) => {
                    let first = &mut out[at];
                    first
                        .rationale
                        .push_str(&format!(" (the same for `{}`)", c.case));
                }
                None => {
                    trajectories.push((key, out.len()));
                    out.push(r);
                }
            }
        }
        if let Some(p) = forbidden(c, &facts, i) {
            out.push(vet(&p, cases));
        }
    }
    unique_ids(&mut out);
    let (kept, dropped): (Vec<_>, Vec<_>) = out.into_iter().partition(|r| r.kept);
    kept.into_iter().chain(dropped).collect()
}

fn changed(facts: &[(Vec<Facts>, Vec<Facts>)]) -> impl Iterator<Item = (usize, &Facts)> {
    facts
        .iter()
        .enumerate()
        .flat_map(|(i, (_, c))| c.iter().map(move |f| (i, f)))
}

fn rule(id: &str, kind: &str, when: Option<Value>, params: Value, description: &str) -> Value {
    let mut m = Map::new();
    m.insert("id".into(), json!(id));
    m.insert("kind".into(), json!(kind));
    m.insert("severity".into(), json!("error"));
    m.insert("description".into(), json!(description));
    if let Some(w) = when {
        m.insert("when".into(), w);
    }
    m.insert("params".into(), params);
    Value::Object(m)
}

/// A tool a changed run calls and no baseline run of any case does.
fn no_calls(cases: &[CaseRuns<'_>], facts: &[(Vec<Facts>, Vec<Facts>)], out: &mut Vec<Proposal>) {
    let baseline: BTreeSet<&str> = facts
        .iter()
        .flat_map(|(b, _)| b.iter().flat_map(|f| f.names()))
        .collect();
    let mut new: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (i, f) in changed(facts) {
        for n in f.names().into_iter().collect::<BTreeSet<_>>() {
            if !baseline.contains(n) && !n.is_empty() {
                new.entry(n).or_insert((i, 0)).1 += 1;
            }
        }
    }
    for (tool, (case, runs)) in new {
        out.push(Proposal {
            id: format!("no-{}", slug(tool)),
            kind: RuleKind::NoCall,
            case: Some(cases[case].case.clone()),
            rule: rule(
                &format!("no-{}", slug(tool)),
                "no_call",
                None,
                json!({ "tool": tool }),
                &format!("`{tool}` is never called by the baseline"),
            ),
            rationale: format!(
                "`{tool}` is called in {runs} changed run(s) and in no baseline run"
            ),
        });
    }
}

/// An order every baseline run of a case keeps (`first` is called before `then` is first
/// called) that a changed run of that case breaks.
fn orders(cases: &[CaseRuns<'_>], facts: &[(Vec<Facts>, Vec<Facts>)], out: &mut Vec<Proposal>) {
    let mut seen = BTreeSet::new();
    for (i, (base, cand)) in facts.iter().enumerate() {
        if cand.is_empty() || base.is_empty() {
            continue;
        }
        let tools: BTreeSet<&str> = base.iter().flat_map(|f| f.names()).collect();
        for &then in &tools {
            let holding: Vec<&Facts> = base.iter().filter(|f| f.first(then).is_some()).collect();
            for &first in &tools {
                if first == then || seen.contains(&(first, then)) {
                    continue;
                }
                let kept = holding.iter().all(|f| {
                    f.first(first)
                        .is_some_and(|a| a < f.first(then).unwrap_or(0))
                });
                let broken = cand.iter().filter(|f| match f.first(then) {
                    Some(b) => f.first(first).is_none_or(|a| a > b),
                    None => false,
                });
                let broken = broken.count();
                if !kept || broken == 0 {
                    continue;
                }
                seen.insert((first, then));
                let id = format!("{}-before-{}", slug(first), slug(then));
                out.push(Proposal {
                    id: id.clone(),
                    kind: RuleKind::MustCallBefore,
                    case: Some(cases[i].case.clone()),
                    rule: rule(
                        &id,
                        "must_call_before",
                        None,
                        json!({ "first": first, "then": then }),
                        &format!("`{first}` comes before `{then}`"),
                    ),
                    rationale: format!(
                        "in all {} baseline run(s){} that call `{then}`, `{first}` is called first; {broken} changed run(s) call `{then}` without it",
                        holding.len(),
                        of_case(cases, i)
                    ),
                });
            }
        }
    }
}

/// The case's usual baseline trajectory, with the arguments that are the same on every baseline
/// run that follows it; the strictest form that catches the change and that no baseline run
/// breaks is kept (strict, unordered, superset; with arguments, then names only).
fn trajectory(
    cases: &[CaseRuns<'_>],
    facts: &[(Vec<Facts>, Vec<Facts>)],
    i: usize,
) -> Option<(SuggestedRule, Value)> {
    let (base, cand) = &facts[i];
    if cand.is_empty() || base.is_empty() {
        return None;
    }
    // The modal sequence of tool names (ties: the first in run order).
    let mut counts: Vec<(Vec<&str>, usize)> = Vec::new();
    for f in base {
        let names = f.names();
        match counts.iter_mut().find(|(n, _)| *n == names) {
            Some((_, k)) => *k += 1,
            None => counts.push((names, 1)),
        }
    }
    let best = counts.iter().map(|(_, k)| *k).max()?;
    let (modal, support) = counts.iter().find(|(_, k)| *k == best)?.clone();
    if modal.is_empty() {
        return None;
    }
    let members: Vec<&Facts> = base.iter().filter(|f| f.names() == modal).collect();
    let mut volatile_seen = BTreeSet::new();
    let with_args: Vec<Value> = (0..modal.len())
        .map(|k| reference_call(&members, k, &mut volatile_seen))
        .collect();
    let names_only: Vec<Value> = modal.iter().map(|t| json!({ "tool": t })).collect();
    // Several cases: a `when:` naming this one, when some message tells it apart; without
    // one the rule is checked on every case's baseline as it is (and usually dropped).
    let when = if cases.iter().filter(|c| !c.baseline.is_empty()).count() > 1 {
        case_selector(facts, i)
    } else {
        None
    };
    let case = &cases[i].case;
    let id = if when.is_some() {
        format!("{}-trajectory", slug(case))
    } else {
        "trajectory".to_string()
    };
    let variants = [
        ("strict", &with_args, "with its stable arguments"),
        (
            "unordered",
            &with_args,
            "in any order, with its stable arguments",
        ),
        (
            "superset",
            &with_args,
            "at least, with its stable arguments",
        ),
        ("strict", &names_only, "by tool name"),
        ("superset", &names_only, "at least, by tool name"),
    ];
    let mut first = None;
    for (mode, calls, how) in variants {
        let p = Proposal {
            id: id.clone(),
            kind: RuleKind::TrajectoryMatch,
            case: Some(case.clone()),
            rule: rule(
                &id,
                "trajectory_match",
                when.clone(),
                json!({ "mode": mode, "calls": calls }),
                &if when.is_some() {
                    format!("the calls of `{case}` as the baseline makes them")
                } else {
                    "the calls the baseline makes".to_string()
                },
            ),
            rationale: format!(
                "{support} of {} baseline run(s){} call {} ({mode}, {how}){}",
                base.len(),
                of_case(cases, i),
                modal.join(" → "),
                if volatile_seen.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; arguments that differ on every run are ignored: {}",
                        volatile_seen.iter().cloned().collect::<Vec<_>>().join(", ")
                    )
                }
            ),
        };
        let key = json!([p.rule.get("when"), p.rule.get("params")]);
        let r = vet(&p, cases);
        if r.kept {
            return Some((r, key));
        }
        first.get_or_insert((r, key));
    }
    first
}

/// Reference call `k` of the members (runs with the modal sequence): the keys every member
/// passes, values pinned where they agree; other keys (and volatile names) are ignored.
fn reference_call(members: &[&Facts], k: usize, volatile: &mut BTreeSet<String>) -> Value {
    let tool = &members[0].calls[k].0;
    let maps: Vec<&Map<String, Value>> = members.iter().map(|f| &f.calls[k].1).collect();
    let keys: BTreeSet<&String> = maps.iter().flat_map(|m| m.keys()).collect();
    let same_keys = maps.iter().all(|m| m.len() == keys.len());
    let mut args = Map::new();
    let mut ignore = Vec::new();
    for key in keys {
        let first = maps[0].get(key);
        let agree = first.is_some() && maps.iter().all(|m| m.get(key) == first);
        if agree && !VOLATILE_KEYS.contains(&key.as_str()) {
            args.insert(key.clone(), first.cloned().unwrap_or(Value::Null));
        } else {
            if VOLATILE_KEYS.contains(&key.as_str()) || maps.len() > 1 {
                volatile.insert(key.clone());
            }
            ignore.push(key.clone());
        }
    }
    let mut call = Map::new();
    call.insert("tool".into(), json!(tool));
    call.insert("args".into(), Value::Object(args));
    if !same_keys {
        call.insert("match".into(), json!("subset"));
    }
    if !ignore.is_empty() {
        call.insert("ignore".into(), json!(ignore));
    }
    Value::Object(call)
}

/// A `when:` condition true on every pair of case `i`'s runs and on no pair of another case's
/// baseline runs: the first message (of the first four) whose text does that.
fn case_selector(facts: &[(Vec<Facts>, Vec<Facts>)], i: usize) -> Option<Value> {
    let (base, cand) = &facts[i];
    for m in 0..4 {
        for tail in ["content", "content/0/text"] {
            let pointer = format!("/messages/{m}/{tail}");
            let text_of = |r: &Value| {
                r.pointer(&pointer)
                    .and_then(Value::as_str)
                    .map(str::to_string)
            };
            let Some(v) = base
                .first()
                .and_then(|f| f.requests.first())
                .and_then(text_of)
            else {
                continue;
            };
            let everywhere = base
                .iter()
                .chain(cand)
                .flat_map(|f| &f.requests)
                .all(|r| text_of(r).as_deref() == Some(v.as_str()));
            let elsewhere = facts
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .flat_map(|(_, (b, _))| b.iter().flat_map(|f| &f.requests))
                .any(|r| text_of(r).as_deref() == Some(v.as_str()));
            if everywhere && !elsewhere {
                let path = format!("request.messages.{m}.{}", tail.replace('/', "."));
                return Some(json!([{ "path": path, "op": "==", "value": v }]));
            }
        }
    }
    None
}

/// A value (a word holding a digit) every changed run of the case says and no baseline run of
/// any case says.
fn forbidden(c: &CaseRuns<'_>, facts: &[(Vec<Facts>, Vec<Facts>)], i: usize) -> Option<Proposal> {
    let (_, cand) = &facts[i];
    if cand.is_empty() {
        return None;
    }
    let words = |f: &Facts| -> BTreeSet<String> {
        f.texts
            .iter()
            .flat_map(|t| t.split_whitespace())
            .map(|w| w.trim_matches(|ch: char| !ch.is_alphanumeric()))
            .filter(|w| w.chars().count() >= 2 && w.chars().any(|ch| ch.is_ascii_digit()))
            .map(str::to_string)
            .collect()
    };
    let mut common: Option<BTreeSet<String>> = None;
    for f in cand {
        let w = words(f);
        common = Some(match common {
            None => w,
            Some(c) => c.intersection(&w).cloned().collect(),
        });
    }
    let said_by_baseline = |w: &str| {
        facts
            .iter()
            .flat_map(|(b, _)| b)
            .any(|f| f.texts.iter().any(|t| t.contains(w)))
    };
    let word = common?
        .into_iter()
        .filter(|w| !said_by_baseline(w))
        .max_by(|a, b| a.len().cmp(&b.len()).then(b.cmp(a)))?;
    let id = if facts.len() > 1 {
        format!("{}-never-says-{}", slug(&c.case), slug(&word))
    } else {
        format!("never-says-{}", slug(&word))
    };
    Some(Proposal {
        id: id.clone(),
        kind: RuleKind::ForbiddenText,
        case: Some(c.case.clone()),
        rule: rule(
            &id,
            "forbidden_text",
            None,
            json!({ "text": word }),
            &format!("no response says `{word}`"),
        ),
        rationale: format!(
            "all {} changed run(s){} say `{word}`; no baseline run does",
            cand.len(),
            if facts.len() > 1 {
                format!(" of `{}`", c.case)
            } else {
                String::new()
            }
        ),
    })
}

/// Loads the proposal's YAML with the policy loader and evaluates it on every run.
fn vet(p: &Proposal, cases: &[CaseRuns<'_>]) -> SuggestedRule {
    let yaml = rule_yaml(&p.rule);
    let text = format!(
        "apiVersion: shadow.dev/v1alpha1\nrules:\n{}",
        indent(&yaml, 2)
    );
    let mut out = SuggestedRule {
        id: p.id.clone(),
        kind: p.kind,
        case: p.case.clone(),
        yaml,
        rationale: p.rationale.clone(),
        kept: false,
        fires_on: Vec::new(),
        first_violation: None,
        fires_on_baseline: Vec::new(),
    };
    let policy = match Policy::load_str(&text, "suggested rule", false, std::path::Path::new(".")) {
        Ok(p) => p,
        Err(e) => {
            out.rationale = format!("{} (not kept: the rule does not load: {e})", out.rationale);
            return out;
        }
    };
    for c in cases {
        for r in &c.candidate {
            if let Some(v) = evaluate(&policy, r.trace).into_iter().next() {
                out.fires_on.push(r.name.to_string());
                out.first_violation.get_or_insert(v.detail);
            }
        }
        for r in &c.baseline {
            if !evaluate(&policy, r.trace).is_empty() {
                out.fires_on_baseline.push(r.name.to_string());
            }
        }
    }
    out.kept = !out.fires_on.is_empty() && out.fires_on_baseline.is_empty();
    out
}

/// Makes ids unique by numbering repeats (`x`, `x-2`, …), fixing the YAML to match.
fn unique_ids(rules: &mut [SuggestedRule]) {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for r in rules {
        let n = seen.entry(r.id.clone()).or_insert(0);
        *n += 1;
        if *n > 1 {
            let new = format!("{}-{n}", r.id);
            r.yaml = r.yaml.replacen(&yaml_scalar(&r.id), &yaml_scalar(&new), 1);
            r.id = new;
        }
    }
}

/// ` of `CASE`` when there are several cases to tell apart, else nothing.
fn of_case(cases: &[CaseRuns<'_>], i: usize) -> String {
    if cases.len() > 1 {
        format!(" of `{}`", cases[i].case)
    } else {
        String::new()
    }
}

/// Lowercase letters, digits and `-`: a rule id made from a name.
fn slug(s: &str) -> String {
    let mut out = String::new();
    for ch in s.chars() {
        if ch.is_ascii_alphanumeric() {
            out.push(ch.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
        if out.len() >= 48 {
            break;
        }
    }
    let out = out.trim_end_matches('-').to_string();
    if out.is_empty() {
        "x".into()
    } else {
        out
    }
}

/// The rule as one `rules:` list item: block keys, values in flow style (JSON, which YAML
/// reads as is), `params` one level deeper with list items one per line.
fn rule_yaml(rule: &Value) -> String {
    let mut out = String::new();
    let Value::Object(m) = rule else {
        return out;
    };
    for (i, (k, v)) in m.iter().enumerate() {
        out.push_str(if i == 0 { "- " } else { "  " });
        match (k.as_str(), v) {
            ("params", Value::Object(p)) => {
                out.push_str("params:\n");
                for (pk, pv) in p {
                    match pv {
                        Value::Array(items) if !items.is_empty() => {
                            out.push_str(&format!("    {pk}:\n"));
                            for item in items {
                                out.push_str(&format!("      - {}\n", flow(item)));
                            }
                        }
                        _ => out.push_str(&format!("    {pk}: {}\n", flow(pv))),
                    }
                }
            }
            _ => out.push_str(&format!("{k}: {}\n", flow(v))),
        }
    }
    out
}

fn flow(v: &Value) -> String {
    match v {
        Value::String(s) => yaml_scalar(s),
        Value::Array(a) => format!("[{}]", a.iter().map(flow).collect::<Vec<_>>().join(", ")),
        Value::Object(m) => format!(
            "{{{}}}",
            m.iter()
                .map(|(k, v)| format!("{}: {}", yaml_scalar(k), flow(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => other.to_string(),
    }
}

/// A string as YAML: plain when it is a simple word YAML cannot read as anything else, else
/// double-quoted with JSON escapes (valid YAML).
fn yaml_scalar(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        && s.starts_with(|c: char| c.is_ascii_alphabetic())
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "y" | "n" | "nan" | "inf"
        );
    if plain {
        s.to_string()
    } else {
        Value::String(s.to_string()).to_string()
    }
}

fn indent(text: &str, n: usize) -> String {
    let pad = " ".repeat(n);
    text.lines()
        .map(|l| format!("{pad}{l}\n"))
        .collect::<String>()
}
