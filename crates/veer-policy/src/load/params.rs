//! The `params:` mapping of a rule: which parameters each kind takes ([`param_specs`]),
//! required and unknown keys, and building the rule's [`Check`] from the validated values.

use super::{Loader, RuleRef};
use crate::hint::did_you_mean;
use crate::ltl;
use crate::model::{Check, Must};
use crate::needle::Needle;
use crate::node::PolicyNode;
use crate::path::Path;
use crate::when::Condition;
use serde_json::Value;
use veer_contract::policy::RuleKind;

/// A validated parameter value.
pub(super) enum Val {
    Str(String),
    Bool(bool),
    Count(u64),
    Number(f64),
    List(Vec<String>),
    Json(Value),
    Conditions(Vec<Condition>),
    Path(Path),
    Must(Must, String),
    Formula(ltl::Formula),
    Raw,
}

/// How one parameter is validated.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum PType {
    /// A non-empty string.
    Name,
    /// A non-empty string used as a text needle.
    Needle,
    Bool,
    /// A non-negative integer (an integral float is accepted).
    Count,
    /// A non-negative number.
    Number,
    /// A number in [0, 1].
    Fraction,
    /// A non-empty string or a non-empty list of non-empty strings.
    StrOrList,
    /// A mapping (a JSON Schema).
    Object,
    Path,
    Conditions,
    Must,
    Formula,
    /// Any value, validated by the kind's own loader.
    Raw,
}

/// The parameters of a kind: name, required, type.
fn param_specs(kind: RuleKind) -> &'static [(&'static str, bool, PType)] {
    use PType::*;
    match kind {
        RuleKind::MustCallBefore => &[("first", true, Name), ("then", true, Name)],
        RuleKind::MustCallOnce | RuleKind::NoCall => &[("tool", true, Name)],
        RuleKind::MaxTurns => &[("limit", true, Count)],
        RuleKind::MaxTotalTokens => &[("limit", true, Number)],
        RuleKind::MustIncludeText | RuleKind::MustIncludeTextEach | RuleKind::ForbiddenText => &[
            ("text", true, Needle),
            ("ignore_case", false, Bool),
            ("collapse_whitespace", false, Bool),
        ],
        RuleKind::RequiredStopReason => &[("allowed", true, StrOrList)],
        RuleKind::MustMatchJsonSchema => &[("schema", false, Object), ("schema_path", false, Name)],
        RuleKind::MustRemainConsistent => &[("path", true, Path)],
        RuleKind::MustFollowup => &[("trigger", false, Conditions), ("must", true, Must)],
        RuleKind::MustBeGrounded => &[
            ("retrieval_path", true, Path),
            ("min_unigram_precision", false, Fraction),
        ],
        RuleKind::LtlFormula => &[("formula", true, Formula)],
        RuleKind::TrajectoryMatch => &[
            ("mode", false, Name),
            ("calls", true, Raw),
            ("tool_args", false, Raw),
        ],
    }
}

impl Loader<'_> {
    pub(super) fn params(
        &mut self,
        kind: RuleKind,
        rule: &PolicyNode,
        r: &RuleRef,
    ) -> Option<Check> {
        let specs = param_specs(kind);
        let params_node = rule.get("params");
        let empty: Vec<(PolicyNode, PolicyNode)> = Vec::new();
        let entries: &[(PolicyNode, PolicyNode)] = match params_node {
            None => &empty,
            Some(n) if n.is_null() => &empty,
            Some(n) => match n.as_map() {
                Some(m) => m,
                None => {
                    self.problem(
                        n,
                        Some(r),
                        format!("params must be a mapping; got {}", n.type_name()),
                        Some("write params as a mapping, e.g. params: {tool: delete_user}".into()),
                    );
                    return None;
                }
            },
        };
        let anchor = params_node.unwrap_or(rule);
        let find = |name: &str| -> Option<&PolicyNode> {
            entries
                .iter()
                .find(|(k, _)| k.as_str() == Some(name))
                .map(|(_, v)| v)
        };
        let before = self.problems.len();
        // `second` is Shadow's documented alias of `then`.
        let then_alias = kind == RuleKind::MustCallBefore && find("second").is_some();
        if then_alias && find("then").is_some() {
            let at = find("second").unwrap_or(anchor);
            self.problem(
                at,
                Some(r),
                "'then' and its alias 'second' are both set".into(),
                Some("keep only 'then'".into()),
            );
        }
        let lookup = |name: &str| -> Option<&PolicyNode> {
            match find(name) {
                Some(n) => Some(n),
                None if name == "then" && kind == RuleKind::MustCallBefore => find("second"),
                None => None,
            }
        };
        let required: Vec<&str> = specs.iter().filter(|s| s.1).map(|s| s.0).collect();
        for (name, req, _) in specs {
            if *req && lookup(name).is_none() {
                self.problem(
                    anchor,
                    Some(r),
                    format!("missing required param '{name}'"),
                    Some(format!(
                        "required params for {} are {}",
                        kind.name(),
                        required.join(", ")
                    )),
                );
            }
        }
        let mut vals: Vec<(&str, Val, &PolicyNode)> = Vec::new();
        for (name, _, ty) in specs {
            if let Some(n) = lookup(name) {
                if let Some(v) = self.param_value(name, *ty, n, r) {
                    vals.push((name, v, n));
                }
            }
        }
        let known: Vec<&str> = specs
            .iter()
            .map(|s| s.0)
            .chain((kind == RuleKind::MustCallBefore).then_some("second"))
            .collect();
        for (k, _) in entries {
            let name = k.key_text();
            if !known.contains(&name.as_str()) {
                let spec_names: Vec<&str> = specs.iter().map(|s| s.0).collect();
                self.problem(
                    k,
                    Some(r),
                    format!("unknown param '{name}'"),
                    Some(did_you_mean(&name, &spec_names)),
                );
            }
        }
        let take = |vals: &mut Vec<(&str, Val, &PolicyNode)>, name: &str| -> Option<Val> {
            let i = vals.iter().position(|v| v.0 == name)?;
            Some(vals.remove(i).1)
        };
        let mut vals = vals;
        let str_of = |v: Option<Val>| match v {
            Some(Val::Str(s)) => Some(s),
            _ => None,
        };
        let bool_of = |v: Option<Val>| matches!(v, Some(Val::Bool(true)));
        let check = match kind {
            RuleKind::MustCallBefore => {
                let first = str_of(take(&mut vals, "first"));
                let then = str_of(take(&mut vals, "then"));
                match (first, then) {
                    (Some(f), Some(t)) if f == t => {
                        self.problem(
                            anchor,
                            Some(r),
                            "first and then name the same tool".into(),
                            Some("use must_call_once or no_call for a single tool".into()),
                        );
                        None
                    }
                    (Some(first), Some(then)) => Some(Check::MustCallBefore { first, then }),
                    _ => None,
                }
            }
            RuleKind::MustCallOnce => {
                str_of(take(&mut vals, "tool")).map(|tool| Check::MustCallOnce { tool })
            }
            RuleKind::NoCall => str_of(take(&mut vals, "tool")).map(|tool| Check::NoCall { tool }),
            RuleKind::MaxTurns => match take(&mut vals, "limit") {
                Some(Val::Count(limit)) => Some(Check::MaxTurns { limit }),
                _ => None,
            },
            RuleKind::MaxTotalTokens => match take(&mut vals, "limit") {
                Some(Val::Number(limit)) => Some(Check::MaxTotalTokens { limit }),
                _ => None,
            },
            RuleKind::MustIncludeText | RuleKind::MustIncludeTextEach | RuleKind::ForbiddenText => {
                let text = str_of(take(&mut vals, "text"));
                let ic = bool_of(take(&mut vals, "ignore_case"));
                let cw = bool_of(take(&mut vals, "collapse_whitespace"));
                text.map(|t| {
                    let n = Needle::new(&t, ic, cw);
                    match kind {
                        RuleKind::MustIncludeText => Check::MustIncludeText(n),
                        RuleKind::MustIncludeTextEach => Check::MustIncludeTextEach(n),
                        _ => Check::ForbiddenText(n),
                    }
                })
            }
            RuleKind::RequiredStopReason => match take(&mut vals, "allowed") {
                Some(Val::List(allowed)) => Some(Check::RequiredStopReason { allowed }),
                _ => None,
            },
            RuleKind::MustMatchJsonSchema => {
                let inline = find("schema");
                let file = find("schema_path");
                match (inline, file) {
                    (Some(_), Some(_)) => {
                        self.problem(
                            anchor,
                            Some(r),
                            "requires exactly one of schema or schema_path; got both".into(),
                            Some("keep the inline schema or the file, not both".into()),
                        );
                        None
                    }
                    (None, None) => {
                        self.problem(
                            anchor,
                            Some(r),
                            "requires exactly one of schema or schema_path; got neither".into(),
                            Some("add `schema: {...}` or `schema_path: file.json`".into()),
                        );
                        None
                    }
                    _ if self.problems.len() > before => None,
                    (Some(n), None) => match take(&mut vals, "schema") {
                        Some(Val::Json(v)) => self.compile_schema(&v, "inline schema", n, r),
                        _ => None,
                    },
                    (None, Some(n)) => match take(&mut vals, "schema_path") {
                        Some(Val::Str(p)) => self.schema_file(&p, n, r),
                        _ => None,
                    },
                }
            }
            RuleKind::MustRemainConsistent => match take(&mut vals, "path") {
                Some(Val::Path(path)) => Some(Check::MustRemainConsistent { path }),
                _ => None,
            },
            RuleKind::MustFollowup => {
                let trigger = match take(&mut vals, "trigger") {
                    Some(Val::Conditions(c)) => c,
                    _ => Vec::new(),
                };
                match take(&mut vals, "must") {
                    Some(Val::Must(must, must_json)) => Some(Check::MustFollowup {
                        trigger,
                        must,
                        must_json,
                    }),
                    _ => None,
                }
            }
            RuleKind::MustBeGrounded => {
                let path = take(&mut vals, "retrieval_path");
                let min = match take(&mut vals, "min_unigram_precision") {
                    Some(Val::Number(x)) => x,
                    _ => 0.5,
                };
                match path {
                    Some(Val::Path(retrieval_path)) => Some(Check::MustBeGrounded {
                        retrieval_path,
                        min_unigram_precision: min,
                    }),
                    _ => None,
                }
            }
            RuleKind::LtlFormula => {
                let formula = find("formula").and_then(|n| n.as_str()).unwrap_or("");
                match take(&mut vals, "formula") {
                    Some(Val::Formula(ast)) => {
                        if ast.has_extra_atoms() {
                            self.warn(format!(
                                "{}: `extra:` LTL atoms see no extra fields in veer (extra:k=v holds only when v is empty)",
                                r.label()
                            ));
                        }
                        Some(Check::LtlFormula {
                            formula: formula.to_string(),
                            ast,
                        })
                    }
                    _ => None,
                }
            }
            RuleKind::TrajectoryMatch => {
                if self.problems.len() > before {
                    None
                } else {
                    self.trajectory(find("mode"), find("calls"), find("tool_args"), r)
                }
            }
        };
        if self.problems.len() > before {
            return None;
        }
        check
    }
}
