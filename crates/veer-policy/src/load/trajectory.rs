//! The parameters of `trajectory_match`: `mode`, the reference `calls` (each a tool, optional
//! `args` and an argument matcher) and per-tool matchers in `tool_args`. Every problem points
//! at the offending node: an unknown mode or matcher, a call without `tool`, a bad regex, a
//! negative tolerance.

use super::{Loader, RuleRef};
use crate::hint::did_you_mean;
use crate::model::{ArgMatcher, ArgMode, Check, RefCall, Trajectory, TrajectoryMode};
use crate::node::{NodeValue, PolicyNode};
use regex::Regex;
use serde_json::Value;

const CALL_KEYS: [&str; 5] = ["tool", "args", "match", "ignore", "tolerance"];
const MATCHER_KEYS: [&str; 3] = ["match", "ignore", "tolerance"];

impl Loader<'_> {
    pub(super) fn trajectory(
        &mut self,
        mode: Option<&PolicyNode>,
        calls: Option<&PolicyNode>,
        tool_args: Option<&PolicyNode>,
        r: &RuleRef,
    ) -> Option<Check> {
        let before = self.problems.len();
        let mode = match mode {
            None => TrajectoryMode::Strict,
            Some(n) => match n.as_str().and_then(TrajectoryMode::parse) {
                Some(m) => m,
                None => {
                    let shown = n
                        .as_str()
                        .map_or_else(|| n.to_json().to_string(), str::to_string);
                    self.problem(
                        n,
                        Some(r),
                        format!("unknown trajectory mode '{shown}'; expected strict, unordered, subset or superset"),
                        Some(did_you_mean(&shown, &TrajectoryMode::NAMES)),
                    );
                    TrajectoryMode::Strict
                }
            },
        };
        let mut per_tool: Vec<(String, ArgMatcher, &PolicyNode)> = Vec::new();
        if let Some(n) = tool_args {
            match n.as_map() {
                Some(entries) => {
                    for (k, v) in entries {
                        let tool = k.key_text();
                        let m = self.matcher(v, &format!("tool_args.{tool}"), r);
                        per_tool.push((tool, m.unwrap_or_default(), v));
                    }
                }
                None => self.problem(
                    n,
                    Some(r),
                    format!("param 'tool_args' must be a mapping; got {}", n.type_name()),
                    Some(
                        "e.g. tool_args: {issue_refund: {match: subset, ignore: [request_id]}}"
                            .into(),
                    ),
                ),
            }
        }
        let mut out = Vec::new();
        match calls.map(|n| (n, &n.value)) {
            Some((_, NodeValue::Seq(items))) => {
                for (k, item) in items.iter().enumerate() {
                    if let Some(c) = self.ref_call(item, k, &per_tool, r) {
                        out.push(c);
                    }
                }
            }
            Some((n, _)) => self.problem(
                n,
                Some(r),
                format!("param 'calls' must be a list; got {}", n.type_name()),
                Some("e.g. calls: [{tool: lookup_order, args: {order_id: A7}}]".into()),
            ),
            None => {}
        }
        if self.problems.len() > before {
            return None;
        }
        Some(Check::TrajectoryMatch(Trajectory { mode, calls: out }))
    }

    fn ref_call(
        &mut self,
        n: &PolicyNode,
        k: usize,
        per_tool: &[(String, ArgMatcher, &PolicyNode)],
        r: &RuleRef,
    ) -> Option<RefCall> {
        let Some(entries) = n.as_map() else {
            self.problem(
                n,
                Some(r),
                format!("calls[{k}] must be a mapping; got {}", n.type_name()),
                Some("e.g. - {tool: lookup_order, args: {order_id: A7}}".into()),
            );
            return None;
        };
        for (key, _) in entries {
            let name = key.key_text();
            if !CALL_KEYS.contains(&name.as_str()) {
                self.problem(
                    key,
                    Some(r),
                    format!("unknown key 'calls[{k}].{name}'"),
                    Some(did_you_mean(&name, &CALL_KEYS)),
                );
            }
        }
        let tool = match n.get("tool").map(|t| (t, t.as_str())) {
            Some((_, Some(s))) if !s.is_empty() => s.to_string(),
            Some((t, _)) => {
                self.problem(
                    t,
                    Some(r),
                    format!(
                        "calls[{k}].tool must be a non-empty str; got {}",
                        t.type_name()
                    ),
                    Some("give the tool name exactly as the trace records it".into()),
                );
                return None;
            }
            None => {
                self.problem(
                    n,
                    Some(r),
                    format!("calls[{k}] has no `tool`"),
                    Some("every reference call names its tool, e.g. {tool: lookup_order}".into()),
                );
                return None;
            }
        };
        let args = match n.get("args") {
            None => None,
            Some(a) if a.is_null() => None,
            Some(a) => match a.to_json() {
                Value::Object(m) => Some(m),
                _ => {
                    self.problem(
                        a,
                        Some(r),
                        format!("calls[{k}].args must be a mapping; got {}", a.type_name()),
                        Some("e.g. args: {order_id: A7}".into()),
                    );
                    return None;
                }
            },
        };
        let base = per_tool
            .iter()
            .find(|(t, _, _)| *t == tool)
            .map(|(_, m, _)| m.clone())
            .unwrap_or_default();
        let mut matcher = self.matcher_over(n, base, &format!("calls[{k}]"), r)?;
        if matcher.mode == ArgMode::Regex {
            for (key, v) in args.iter().flatten() {
                if let Value::String(s) = v {
                    match Regex::new(&format!("^(?:{s})$")) {
                        Ok(re) => matcher.regexes.push((key.clone(), re)),
                        Err(e) => {
                            let at = n.get("args").and_then(|a| a.get(key)).unwrap_or(n);
                            self.problem(
                                at,
                                Some(r),
                                format!("calls[{k}].args.{key}: bad regular expression: {e}"),
                                Some("regex values are matched fully; escape literal characters such as . or (".into()),
                            );
                            return None;
                        }
                    }
                }
            }
        }
        Some(RefCall {
            tool,
            args,
            matcher,
        })
    }

    /// A matcher read from a mapping holding only matcher keys.
    fn matcher(&mut self, n: &PolicyNode, label: &str, r: &RuleRef) -> Option<ArgMatcher> {
        let Some(entries) = n.as_map() else {
            self.problem(
                n,
                Some(r),
                format!("{label} must be a mapping; got {}", n.type_name()),
                Some("e.g. {match: subset, ignore: [request_id], tolerance: 0.01}".into()),
            );
            return None;
        };
        for (key, _) in entries {
            let name = key.key_text();
            if !MATCHER_KEYS.contains(&name.as_str()) {
                self.problem(
                    key,
                    Some(r),
                    format!("unknown key '{label}.{name}'"),
                    Some(did_you_mean(&name, &MATCHER_KEYS)),
                );
            }
        }
        self.matcher_over(n, ArgMatcher::default(), label, r)
    }

    /// `base` with the matcher keys of `n` applied on top.
    fn matcher_over(
        &mut self,
        n: &PolicyNode,
        mut m: ArgMatcher,
        label: &str,
        r: &RuleRef,
    ) -> Option<ArgMatcher> {
        let before = self.problems.len();
        if let Some(v) = n.get("match") {
            match v.as_str().and_then(ArgMode::parse) {
                Some(mode) => m.mode = mode,
                None => {
                    let shown = v
                        .as_str()
                        .map_or_else(|| v.to_json().to_string(), str::to_string);
                    self.problem(
                        v,
                        Some(r),
                        format!("{label}.match: unknown argument matcher '{shown}'; expected exact, subset, superset or regex"),
                        Some(did_you_mean(&shown, &ArgMode::NAMES)),
                    );
                }
            }
        }
        if let Some(v) = n.get("ignore") {
            match &v.value {
                NodeValue::Seq(items) if items.iter().all(|i| i.as_str().is_some()) => {
                    m.ignore = items
                        .iter()
                        .filter_map(|i| i.as_str().map(str::to_string))
                        .collect();
                }
                _ => self.problem(
                    v,
                    Some(r),
                    format!("{label}.ignore must be a list of argument names"),
                    Some("e.g. ignore: [request_id]".into()),
                ),
            }
        }
        if let Some(v) = n.get("tolerance") {
            match &v.value {
                NodeValue::Number(x) if x.as_f64().is_some_and(|x| x >= 0.0) => {
                    m.tolerance = x.as_f64().unwrap_or(0.0);
                }
                NodeValue::Number(x) => self.problem(
                    v,
                    Some(r),
                    format!("{label}.tolerance must be a non-negative number; got {x}"),
                    Some("tolerance is an absolute difference, e.g. tolerance: 0.01".into()),
                ),
                _ => self.problem(
                    v,
                    Some(r),
                    format!("{label}.tolerance must be a number; got {}", v.type_name()),
                    Some("e.g. tolerance: 0.01".into()),
                ),
            }
        }
        (self.problems.len() == before).then_some(m)
    }
}
