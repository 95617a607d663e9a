//! Validating one parameter value against its [`PType`](super::params::PType): names, needles,
//! booleans, counts, numbers and fractions, string lists, JSON Schemas, paths, conditions,
//! `must:` clauses and LTL formulas, each with a type error that says what was expected.

use super::params::{PType, Val};
use super::{Loader, RuleRef};
use crate::hint::did_you_mean;
use crate::ltl;
use crate::model::Must;
use crate::needle::Needle;
use crate::node::{NodeValue, PolicyNode};
use crate::path::Path;

impl Loader<'_> {
    fn type_error(&mut self, name: &str, expected: &str, n: &PolicyNode, r: &RuleRef) {
        let short = name.rsplit('.').next().unwrap_or(name);
        let hint = match expected {
            "str" => format!(
                "write text, e.g. {short}: some_name (quote values such as \"42\" or \"true\")"
            ),
            "int" => format!("write a whole number, e.g. {short}: 10"),
            "number" => format!("write a number, e.g. {short}: 0.5"),
            "bool" => format!("write {short}: true or {short}: false"),
            "mapping" => format!("write a mapping, e.g. {short}: {{key: value}}"),
            _ => format!("write a string or a list of strings, e.g. {short}: [end_turn]"),
        };
        self.problem(
            n,
            Some(r),
            format!("param '{name}' must be {expected}; got {}", n.type_name()),
            Some(hint),
        );
    }

    pub(super) fn param_value(
        &mut self,
        name: &str,
        ty: PType,
        n: &PolicyNode,
        r: &RuleRef,
    ) -> Option<Val> {
        match ty {
            PType::Name | PType::Needle => {
                match n.as_str() {
                    None => {
                        self.type_error(name, "str", n, r);
                        None
                    }
                    Some("") => {
                        let (message, hint) = if ty == PType::Needle {
                            (
                            format!("param '{name}' is empty: empty needle would match every response"),
                            "give the text to look for in each response",
                        )
                        } else {
                            (
                                format!("param '{name}' must not be empty"),
                                "give the name exactly as the trace records it",
                            )
                        };
                        self.problem(n, Some(r), message, Some(hint.into()));
                        None
                    }
                    Some(s) => Some(Val::Str(s.to_string())),
                }
            }
            PType::Bool => match n.value {
                NodeValue::Bool(b) => Some(Val::Bool(b)),
                _ => {
                    self.type_error(name, "bool", n, r);
                    None
                }
            },
            PType::Count => match &n.value {
                NodeValue::Number(num) => {
                    let x = num.as_f64().unwrap_or(-1.0);
                    if let Some(u) = num.as_u64() {
                        Some(Val::Count(u))
                    } else if x >= 0.0 && x.fract() == 0.0 && x < 9.0e15 {
                        Some(Val::Count(x as u64))
                    } else {
                        self.problem(
                            n,
                            Some(r),
                            format!("param '{name}' must be a non-negative integer; got {num}"),
                            Some(format!("e.g. {name}: 10")),
                        );
                        None
                    }
                }
                _ => {
                    self.type_error(name, "int", n, r);
                    None
                }
            },
            PType::Number | PType::Fraction => match &n.value {
                NodeValue::Number(num) => {
                    let x = num.as_f64().unwrap_or(f64::NAN);
                    let ok = if ty == PType::Fraction {
                        (0.0..=1.0).contains(&x)
                    } else {
                        x >= 0.0
                    };
                    if ok {
                        Some(Val::Number(x))
                    } else {
                        let want = if ty == PType::Fraction {
                            "in [0, 1]"
                        } else {
                            "a non-negative number"
                        };
                        self.problem(
                            n,
                            Some(r),
                            format!("param '{name}' must be {want}; got {num}"),
                            Some(if ty == PType::Fraction {
                                format!("e.g. {name}: 0.5")
                            } else {
                                format!("e.g. {name}: 20000")
                            }),
                        );
                        None
                    }
                }
                _ => {
                    self.type_error(name, "number", n, r);
                    None
                }
            },
            PType::StrOrList => match &n.value {
                NodeValue::Str(s) if !s.is_empty() => Some(Val::List(vec![s.clone()])),
                NodeValue::Seq(items) if !items.is_empty() => {
                    let mut out = Vec::new();
                    let mut ok = true;
                    for (k, it) in items.iter().enumerate() {
                        match it.as_str() {
                            Some(s) if !s.is_empty() => out.push(s.to_string()),
                            _ => {
                                ok = false;
                                self.problem(
                                    it,
                                    Some(r),
                                    format!(
                                        "param '{name}[{k}]' must be a non-empty str; got {}",
                                        it.type_name()
                                    ),
                                    Some("list stop reasons as strings, e.g. [end_turn]".into()),
                                );
                            }
                        }
                    }
                    ok.then_some(Val::List(out))
                }
                NodeValue::Str(_) | NodeValue::Seq(_) => {
                    self.problem(
                        n,
                        Some(r),
                        format!("param '{name}' must not be empty"),
                        Some(format!("e.g. {name}: [end_turn]")),
                    );
                    None
                }
                _ => {
                    self.type_error(name, "str or list", n, r);
                    None
                }
            },
            PType::Object => match &n.value {
                NodeValue::Map(_) => Some(Val::Json(n.to_json())),
                _ => {
                    self.type_error(name, "mapping", n, r);
                    None
                }
            },
            PType::Path => match n.as_str() {
                None => {
                    self.type_error(name, "str", n, r);
                    None
                }
                Some(s) => match Path::parse(s) {
                    Ok(p) => Some(Val::Path(p)),
                    Err(e) => {
                        self.problem(
                            n,
                            Some(r),
                            format!("param '{name}': {}", e.message),
                            Some(e.hint),
                        );
                        None
                    }
                },
            },
            PType::Conditions => {
                let before = self.problems.len();
                let c = self.conditions(n, &format!("params.{name}"), r);
                (self.problems.len() == before).then_some(Val::Conditions(c))
            }
            PType::Must => self.must(name, n, r),
            PType::Raw => Some(Val::Raw),
            PType::Formula => match n.as_str() {
                None => {
                    self.type_error(name, "str", n, r);
                    None
                }
                Some(s) if s.trim().is_empty() => {
                    self.problem(
                        n,
                        Some(r),
                        "param 'formula' must be a non-empty LTL formula".into(),
                        Some("e.g. formula: \"G !tool_call:delete_user\"".into()),
                    );
                    None
                }
                Some(s) => match ltl::parse(s) {
                    Ok(f) => Some(Val::Formula(f)),
                    Err(e) => {
                        let caret = format!("{}^", " ".repeat(e.column.saturating_sub(1)));
                        self.problem(
                            n,
                            Some(r),
                            format!("{e}\n    {s}\n    {caret}"),
                            e.hint.clone().or_else(|| {
                                Some("operators: ! & | -> X F G U W; quote atoms with spaces: \"text_contains:thank you\"".into())
                            }),
                        );
                        None
                    }
                },
            },
        }
    }

    pub(super) fn must(&mut self, name: &str, n: &PolicyNode, r: &RuleRef) -> Option<Val> {
        let Some(entries) = n.as_map() else {
            self.type_error(name, "mapping", n, r);
            return None;
        };
        let before = self.problems.len();
        let kind = match n.get("kind") {
            None => {
                self.problem(
                    n,
                    Some(r),
                    "param 'must' requires a `kind`".into(),
                    Some("expected tool_call or text_includes".into()),
                );
                return None;
            }
            Some(k) => match k.as_str() {
                Some(s @ ("tool_call" | "text_includes")) => s,
                _ => {
                    let shown = k
                        .as_str()
                        .map_or_else(|| k.to_json().to_string(), str::to_string);
                    let hint = match crate::hint::closest(&shown, &["tool_call", "text_includes"]) {
                        Some(c) => format!("did you mean '{c}'?"),
                        None => "expected tool_call or text_includes".into(),
                    };
                    self.problem(
                        k,
                        Some(r),
                        format!("unknown must.kind '{shown}'; expected tool_call or text_includes"),
                        Some(hint),
                    );
                    return None;
                }
            },
        };
        let allowed: &[&str] = if kind == "tool_call" {
            &["kind", "tool_name"]
        } else {
            &["kind", "text", "ignore_case", "collapse_whitespace"]
        };
        for (k, _) in entries {
            let key = k.key_text();
            if !allowed.contains(&key.as_str()) {
                self.problem(
                    k,
                    Some(r),
                    format!("unknown key 'must.{key}' for must.kind {kind}"),
                    Some(did_you_mean(&key, allowed)),
                );
            }
        }
        let must = if kind == "tool_call" {
            match n.get("tool_name") {
                None => {
                    self.problem(
                        n,
                        Some(r),
                        "must.kind tool_call requires `tool_name`".into(),
                        Some("e.g. must: {kind: tool_call, tool_name: send_followup_email}".into()),
                    );
                    None
                }
                Some(t) => match self.param_value("must.tool_name", PType::Name, t, r) {
                    Some(Val::Str(tool_name)) => Some(Must::ToolCall { tool_name }),
                    _ => None,
                },
            }
        } else {
            let ic = n
                .get("ignore_case")
                .and_then(|b| self.param_value("must.ignore_case", PType::Bool, b, r));
            let cw = n
                .get("collapse_whitespace")
                .and_then(|b| self.param_value("must.collapse_whitespace", PType::Bool, b, r));
            match n.get("text") {
                None => {
                    self.problem(
                        n,
                        Some(r),
                        "must.kind text_includes requires `text`".into(),
                        Some("e.g. must: {kind: text_includes, text: thanks}".into()),
                    );
                    None
                }
                Some(t) => match self.param_value("must.text", PType::Needle, t, r) {
                    Some(Val::Str(text)) => Some(Must::TextIncludes(Needle::new(
                        &text,
                        matches!(ic, Some(Val::Bool(true))),
                        matches!(cw, Some(Val::Bool(true))),
                    ))),
                    _ => None,
                },
            }
        };
        if self.problems.len() > before {
            return None;
        }
        must.map(|m| Val::Must(m, n.to_json().to_string()))
    }
}
