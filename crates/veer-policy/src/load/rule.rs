//! One entry of the `rules:` list: its mapping shape, `id` (unique), `kind`, `severity`,
//! `scope`, `description` and `tags`, and the unknown-key check with a did-you-mean hint. The
//! kind's parameters are handed on to [`params`](super::params).

use super::{Loader, RuleRef};
use crate::hint::did_you_mean;
use crate::model::{Rule, Scope};
use crate::node::{NodeValue, PolicyNode};
use std::collections::HashSet;
use veer_contract::policy::RuleKind;
use veer_contract::policy::Severity;

const RULE_KEYS: [&str; 8] = [
    "id",
    "kind",
    "params",
    "severity",
    "scope",
    "when",
    "description",
    "tags",
];

impl Loader<'_> {
    pub(super) fn rule(
        &mut self,
        index: usize,
        node: &PolicyNode,
        ids: &mut HashSet<String>,
    ) -> Option<Rule> {
        let mut r = RuleRef {
            index,
            id: format!("rule-{index}"),
            kind: None,
        };
        if node.as_map().is_none() {
            self.problem(
                node,
                Some(&r),
                format!("rule must be a mapping; got {}", node.type_name()),
                Some("write each rule as a mapping with `id`, `kind` and `params`".into()),
            );
            return None;
        }
        let before = self.problems.len();
        // id
        match node.get("id") {
            None => {}
            Some(n) => match &n.value {
                NodeValue::Null => {}
                NodeValue::Str(s) if s.is_empty() => self.problem(
                    n,
                    Some(&r),
                    "id must not be empty".into(),
                    Some(format!("leave `id` out to use the default 'rule-{index}'")),
                ),
                NodeValue::Str(s) => r.id = s.clone(),
                NodeValue::Number(num) if num.is_i64() || num.is_u64() => r.id = num.to_string(),
                _ => self.problem(
                    n,
                    Some(&r),
                    format!("id must be a string or an integer; got {}", n.type_name()),
                    Some("e.g. id: confirm-before-refund".into()),
                ),
            },
        }
        if !ids.insert(r.id.clone()) {
            let at = node.get("id").unwrap_or(node);
            self.problem(
                at,
                Some(&r),
                format!("duplicate rule id '{}'", r.id),
                Some("rule ids must be unique: regressions are keyed on the id".into()),
            );
        }
        // kind
        match node.get("kind") {
            None => self.problem(
                node,
                Some(&r),
                "missing required key 'kind'".into(),
                Some(format!("expected one of: {}", RuleKind::names().join(", "))),
            ),
            Some(k) => match k.as_str() {
                Some(s) => match RuleKind::parse(s) {
                    Some(kind) => r.kind = Some(kind),
                    None => self.problem(
                        k,
                        Some(&r),
                        format!("unknown kind '{s}'"),
                        Some(did_you_mean(s, &RuleKind::names())),
                    ),
                },
                None => self.problem(
                    k,
                    Some(&r),
                    format!("kind must be str; got {}", k.type_name()),
                    Some(format!("expected one of: {}", RuleKind::names().join(", "))),
                ),
            },
        }
        // unknown rule keys
        for (k, _) in node.as_map().unwrap_or(&[]) {
            let name = k.key_text();
            if !RULE_KEYS.contains(&name.as_str()) {
                self.problem(
                    k,
                    Some(&r),
                    format!("unknown key '{name}'"),
                    Some(did_you_mean(&name, &RULE_KEYS)),
                );
            }
        }
        // scope
        let scope = match node.get("scope") {
            None => Scope::Trace,
            Some(n) => match n.as_str() {
                Some("trace") => Scope::Trace,
                Some("session") => Scope::Session,
                other => {
                    let shown = other.map_or_else(|| n.to_json().to_string(), str::to_string);
                    let hint =
                        match other.and_then(|s| crate::hint::closest(s, &["trace", "session"])) {
                            Some(k) => format!("did you mean '{k}'?"),
                            None => "scope is 'trace' (the default) or 'session'".into(),
                        };
                    self.problem(
                        n,
                        Some(&r),
                        format!("invalid scope '{shown}'; must be 'trace' or 'session'"),
                        Some(hint),
                    );
                    Scope::Trace
                }
            },
        };
        // severity
        let severity = match node.get("severity") {
            None => Severity::Error,
            Some(n) if n.is_null() => Severity::Error,
            Some(n) => match n.as_str().and_then(Severity::parse) {
                Some(s) => s,
                None => {
                    let shown = n
                        .as_str()
                        .map_or_else(|| n.to_json().to_string(), str::to_string);
                    let hint = match shown.to_ascii_lowercase().as_str() {
                        "none" | "minor" | "moderate" | "severe" => format!(
                            "policy severities are info, warning, error, critical; '{shown}' is an axis severity"
                        ),
                        _ => match crate::hint::closest(&shown, &Severity::NAMES) {
                            Some(k) => format!("did you mean '{k}'?"),
                            None => "must be one of info, warning, error, critical".into(),
                        },
                    };
                    self.problem(
                        n,
                        Some(&r),
                        format!("invalid severity '{shown}'; must be one of info, warning, error, critical"),
                        Some(hint),
                    );
                    Severity::Error
                }
            },
        };
        // tags
        let mut tags = Vec::new();
        if let Some(n) = node.get("tags") {
            match &n.value {
                NodeValue::Null => {}
                NodeValue::Seq(items) => {
                    for t in items {
                        match t.as_str() {
                            Some(s) if !s.is_empty() => tags.push(s.to_string()),
                            _ => self.problem(
                                t,
                                Some(&r),
                                format!("each tag must be a non-empty str; got {}", t.type_name()),
                                Some("e.g. tags: [pii, money]".into()),
                            ),
                        }
                    }
                }
                _ => self.problem(
                    n,
                    Some(&r),
                    format!("tags must be list; got {}", n.type_name()),
                    Some("write tags as a list of strings, e.g. [pii, money]".into()),
                ),
            }
        }
        // description
        let description = match node.get("description") {
            None => String::new(),
            Some(n) => match &n.value {
                NodeValue::Null => String::new(),
                NodeValue::Str(s) => s.clone(),
                _ => {
                    self.problem(
                        n,
                        Some(&r),
                        format!("description must be str; got {}", n.type_name()),
                        Some(
                            "quote the description or use `description: >` for a text block".into(),
                        ),
                    );
                    String::new()
                }
            },
        };
        // when
        let when = match node.get("when") {
            None => Vec::new(),
            Some(n) => self.conditions(n, "when", &r),
        };
        // params
        let check = match r.kind {
            Some(kind) => self.params(kind, node, &r),
            None => None,
        };
        if self.problems.len() > before {
            return None;
        }
        Some(Rule {
            id: r.id,
            check: check?,
            severity,
            scope,
            when,
            description,
            tags,
        })
    }
}
