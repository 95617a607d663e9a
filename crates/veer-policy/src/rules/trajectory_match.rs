//! `trajectory_match`: the unit's tool calls, in order, compared with a reference list of calls
//! in one of agentevals' four modes (strict, unordered, subset, superset), each call's
//! arguments compared by a matcher (exact, subset, superset, regex, with ignored keys and a
//! numeric tolerance). Repeated tools are matched as a multiset: each reference call matches at
//! most one actual call, found by a maximum bipartite matching so the verdict never depends on
//! the order in which candidates are tried.

use crate::session::Scene;
use crate::violation::RuleFinding;
use regex::Regex;
use serde_json::{Map, Value};

/// How the actual calls must relate to the reference calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrajectoryMode {
    /// The same calls in the same order.
    Strict,
    /// The same calls in any order (equal multisets).
    Unordered,
    /// Every actual call is a reference call; reference calls may be missing.
    Subset,
    /// Every reference call is among the actual calls; extra calls are allowed.
    Superset,
}

impl TrajectoryMode {
    /// The four spellings.
    pub(crate) const NAMES: [&'static str; 4] = ["strict", "unordered", "subset", "superset"];

    /// Parses a mode name.
    pub fn parse(s: &str) -> Option<TrajectoryMode> {
        Some(match s {
            "strict" => TrajectoryMode::Strict,
            "unordered" => TrajectoryMode::Unordered,
            "subset" => TrajectoryMode::Subset,
            "superset" => TrajectoryMode::Superset,
            _ => return None,
        })
    }

    /// The name.
    pub fn name(self) -> &'static str {
        TrajectoryMode::NAMES[self as usize]
    }
}

/// How a reference call's arguments are compared with an actual call's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgMode {
    /// All keys equal (after `ignore`).
    Exact,
    /// Reference arguments ⊆ actual arguments.
    Subset,
    /// Actual arguments ⊆ reference arguments.
    Superset,
    /// As `exact` on the keys, but reference strings are regular expressions matched fully
    /// against the actual value (a non-string actual value is matched as its JSON text).
    Regex,
}

impl ArgMode {
    /// The four spellings.
    pub(crate) const NAMES: [&'static str; 4] = ["exact", "subset", "superset", "regex"];

    /// Parses a matcher name.
    pub fn parse(s: &str) -> Option<ArgMode> {
        Some(match s {
            "exact" => ArgMode::Exact,
            "subset" => ArgMode::Subset,
            "superset" => ArgMode::Superset,
            "regex" => ArgMode::Regex,
            _ => return None,
        })
    }
}

/// A matcher for the arguments of one call.
#[derive(Debug, Clone)]
pub struct ArgMatcher {
    /// The comparison.
    pub mode: ArgMode,
    /// Keys dropped from both sides before comparing.
    pub ignore: Vec<String>,
    /// Largest absolute difference at which two numbers count as equal (≥ 0; 0 = equal).
    pub tolerance: f64,
    /// Compiled regexes of the reference's string values, keyed by argument name (regex mode).
    pub regexes: Vec<(String, Regex)>,
}

impl Default for ArgMatcher {
    fn default() -> Self {
        ArgMatcher {
            mode: ArgMode::Exact,
            ignore: Vec::new(),
            tolerance: 0.0,
            regexes: Vec::new(),
        }
    }
}

/// One reference call.
#[derive(Debug, Clone)]
pub struct RefCall {
    /// The tool name.
    pub tool: String,
    /// The expected arguments; `None` matches on the tool name only.
    pub args: Option<Map<String, Value>>,
    /// How the arguments are compared.
    pub matcher: ArgMatcher,
}

/// A validated `trajectory_match` rule.
#[derive(Debug, Clone)]
pub struct Trajectory {
    /// The mode.
    pub mode: TrajectoryMode,
    /// The reference calls, in order.
    pub calls: Vec<RefCall>,
}

/// An actual call as the matcher sees it: name and arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct Actual<'a> {
    /// Tool name.
    pub name: &'a str,
    /// Arguments.
    pub args: &'a Map<String, Value>,
}

fn num_eq(a: &Value, b: &Value, tol: f64) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) if a.is_number() && b.is_number() => (x - y).abs() <= tol,
        _ => a == b,
    }
}

fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Why one reference call does not match one actual call (`None`: it matches).
pub fn arg_mismatch(r: &RefCall, a: &Actual<'_>) -> Option<String> {
    if r.tool != a.name {
        return Some(format!("is `{}`, expected `{}`", a.name, r.tool));
    }
    let Some(want) = &r.args else { return None };
    let m = &r.matcher;
    let keep = |k: &String| !m.ignore.contains(k);
    let want: Vec<(&String, &Value)> = want.iter().filter(|(k, _)| keep(k)).collect();
    let have: Vec<(&String, &Value)> = a.args.iter().filter(|(k, _)| keep(k)).collect();
    let eq = |k: &str, w: &Value, h: &Value| -> bool {
        if m.mode == ArgMode::Regex {
            if let Some((_, re)) = m.regexes.iter().find(|(rk, _)| rk == k) {
                return re.is_match(&value_text(h));
            }
        }
        num_eq(w, h, m.tolerance)
    };
    let check_ref = !matches!(m.mode, ArgMode::Superset);
    let check_actual = !matches!(m.mode, ArgMode::Subset);
    if check_ref {
        for (k, w) in &want {
            match a.args.get(*k) {
                None => return Some(format!("argument `{k}` is missing, expected {w}")),
                Some(h) if !eq(k, w, h) => {
                    return Some(format!("argument `{k}` is {h}, expected {w}"))
                }
                _ => {}
            }
        }
    }
    if check_actual {
        for (k, h) in &have {
            match want.iter().find(|(wk, _)| wk == k) {
                None => return Some(format!("argument `{k}` is not expected (is {h})")),
                Some((_, w)) if !eq(k, w, h) => {
                    return Some(format!("argument `{k}` is {h}, expected {w}"))
                }
                _ => {}
            }
        }
    }
    None
}

/// A maximum bipartite matching between reference calls (left) and actual calls (right) by
/// augmenting paths; `edge(i, j)` says whether reference `i` may match actual `j`. Returns, per
/// reference call, the actual call it matched.
pub fn max_matching(
    left: usize,
    right: usize,
    edge: impl Fn(usize, usize) -> bool,
) -> Vec<Option<usize>> {
    let adj: Vec<Vec<usize>> = (0..left)
        .map(|i| (0..right).filter(|&j| edge(i, j)).collect())
        .collect();
    let mut owner: Vec<Option<usize>> = vec![None; right];
    fn augment(
        i: usize,
        adj: &[Vec<usize>],
        seen: &mut [bool],
        owner: &mut [Option<usize>],
    ) -> bool {
        for &j in &adj[i] {
            if seen[j] {
                continue;
            }
            seen[j] = true;
            if owner[j].is_none_or(|o| augment(o, adj, seen, owner)) {
                owner[j] = Some(i);
                return true;
            }
        }
        false
    }
    for i in 0..left {
        let mut seen = vec![false; right];
        augment(i, &adj, &mut seen, &mut owner);
    }
    let mut out = vec![None; left];
    for (j, o) in owner.iter().enumerate() {
        if let Some(i) = o {
            out[*i] = Some(j);
        }
    }
    out
}

/// The first problem of `actual` against the rule, as `(actual call index, detail)`; the index
/// is `None` for a missing reference call. `None` when the calls match.
pub fn first_problem(t: &Trajectory, actual: &[Actual<'_>]) -> Option<(Option<usize>, String)> {
    let refs = &t.calls;
    if t.mode == TrajectoryMode::Strict {
        for (k, a) in actual.iter().enumerate() {
            let Some(r) = refs.get(k) else {
                return Some((
                    Some(k),
                    format!("extra call `{}` at call {}", a.name, k + 1),
                ));
            };
            if let Some(why) = arg_mismatch(r, a) {
                return Some((Some(k), format!("call {} `{}`: {why}", k + 1, r.tool)));
            }
        }
        return refs.get(actual.len()).map(|r| {
            (
                None,
                format!(
                    "missing call `{}` (reference call {})",
                    r.tool,
                    actual.len() + 1
                ),
            )
        });
    }
    let m = max_matching(refs.len(), actual.len(), |i, j| {
        arg_mismatch(&refs[i], &actual[j]).is_none()
    });
    let used: Vec<bool> = (0..actual.len()).map(|j| m.contains(&Some(j))).collect();
    let need_all_refs = matches!(t.mode, TrajectoryMode::Unordered | TrajectoryMode::Superset);
    let need_all_actual = matches!(t.mode, TrajectoryMode::Unordered | TrajectoryMode::Subset);
    if need_all_actual {
        if let Some(j) = used.iter().position(|u| !u) {
            let a = &actual[j];
            // Name the closest unmatched reference call of the same tool, if any.
            let near = (0..refs.len()).find(|&i| m[i].is_none() && refs[i].tool == a.name);
            let detail = match near.and_then(|i| arg_mismatch(&refs[i], a)) {
                Some(why) => format!("call {} `{}`: {why}", j + 1, a.name),
                None => format!("extra call `{}` at call {}", a.name, j + 1),
            };
            return Some((Some(j), detail));
        }
    }
    if need_all_refs {
        if let Some(i) = m.iter().position(Option::is_none) {
            return Some((
                None,
                format!("missing call `{}` (reference call {})", refs[i].tool, i + 1),
            ));
        }
    }
    None
}

/// Checks one unit: its calls in order (only gated calls when the rule has `when:`). With
/// `when:`, a unit in which it selects no pair is not judged: the reference describes the
/// pairs `when:` picks out (one case of a suite, say), and a unit without them is another case.
pub fn check(t: &Trajectory, s: &Scene<'_, '_>) -> Vec<RuleFinding> {
    if s.gate.active && s.gated_pairs().next().is_none() {
        return Vec::new();
    }
    let calls: Vec<_> = s.calls().filter(|(_, c)| s.gate.call(c)).collect();
    let actual: Vec<Actual<'_>> = calls
        .iter()
        .map(|(_, c)| Actual {
            name: &c.name,
            args: &c.arguments,
        })
        .collect();
    let Some((at, detail)) = first_problem(t, &actual) else {
        return Vec::new();
    };
    let detail = format!("trajectory_match ({}): {detail}", t.mode.name());
    let pair = at.and_then(|k| calls[k].1.pair_index);
    vec![RuleFinding::new(pair, detail)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn r(tool: &str, args: Value) -> RefCall {
        RefCall {
            tool: tool.into(),
            args: args.as_object().cloned(),
            matcher: ArgMatcher::default(),
        }
    }

    fn run(mode: TrajectoryMode, refs: Vec<RefCall>, actual: &[(&str, Value)]) -> Option<String> {
        let maps: Vec<Map<String, Value>> = actual
            .iter()
            .map(|(_, v)| v.as_object().cloned().unwrap_or_default())
            .collect();
        let acts: Vec<Actual<'_>> = actual
            .iter()
            .zip(&maps)
            .map(|((n, _), a)| Actual { name: n, args: a })
            .collect();
        first_problem(&Trajectory { mode, calls: refs }, &acts).map(|p| p.1)
    }

    #[test]
    fn strict_messages_name_the_call_and_argument() {
        let refs = || {
            vec![
                r("lookup_order", json!({"order_id": "A7"})),
                r("issue_refund", json!({"order_id": "A7", "amount": 40})),
            ]
        };
        let bad = run(
            TrajectoryMode::Strict,
            refs(),
            &[
                ("lookup_order", json!({"order_id": "A7"})),
                ("issue_refund", json!({"order_id": "A7", "amount": 84})),
            ],
        );
        assert_eq!(
            bad.as_deref(),
            Some("call 2 `issue_refund`: argument `amount` is 84, expected 40")
        );
        let missing = run(TrajectoryMode::Strict, refs(), &[]);
        assert_eq!(
            missing.as_deref(),
            Some("missing call `lookup_order` (reference call 1)")
        );
    }

    #[test]
    fn ignore_and_tolerance_and_regex() {
        let mut c = r("pay", json!({"amount": 40, "to": "acct-[0-9]+"}));
        c.matcher.ignore = vec!["request_id".into()];
        c.matcher.tolerance = 0.5;
        c.matcher.mode = ArgMode::Regex;
        c.matcher.regexes = vec![("to".into(), Regex::new("^(?:acct-[0-9]+)$").unwrap())];
        let ok = [(
            "pay",
            json!({"amount": 40.4, "to": "acct-12", "request_id": "x"}),
        )];
        assert_eq!(run(TrajectoryMode::Strict, vec![c.clone()], &ok), None);
        let bad = [("pay", json!({"amount": 40, "to": "acct-x"}))];
        assert!(run(TrajectoryMode::Strict, vec![c], &bad).is_some());
    }

    #[test]
    fn repeated_tools_use_a_maximum_matching() {
        // A greedy matcher would give the first actual call to the loose reference and miss.
        let loose = RefCall {
            tool: "t".into(),
            args: None,
            matcher: ArgMatcher::default(),
        };
        let tight = r("t", json!({"k": 1}));
        let actual = [("t", json!({"k": 1})), ("t", json!({"k": 2}))];
        assert_eq!(
            run(TrajectoryMode::Unordered, vec![loose, tight], &actual),
            None
        );
    }

    #[test]
    fn extra_and_subset() {
        let refs = || vec![r("a", json!({})), r("b", json!({}))];
        assert_eq!(
            run(TrajectoryMode::Subset, refs(), &[("b", json!({}))]),
            None
        );
        assert_eq!(
            run(
                TrajectoryMode::Subset,
                refs(),
                &[("b", json!({})), ("delete", json!({}))]
            )
            .as_deref(),
            Some("extra call `delete` at call 2")
        );
        assert_eq!(
            run(
                TrajectoryMode::Superset,
                refs(),
                &[("b", json!({})), ("a", json!({})), ("z", json!({}))]
            ),
            None
        );
    }
}
