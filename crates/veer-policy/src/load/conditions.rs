//! A `when:` / `trigger:` clause: null, one condition mapping or a list of them, each with a
//! `path`, an `op` from the supported set and (for comparing ops) a `value`.

use super::{Loader, RuleRef};
use crate::hint::did_you_mean;
use crate::node::{NodeValue, PolicyNode};
use crate::path::Path;
use crate::when::{Condition, Op, OPS};

const CONDITION_KEYS: [&str; 3] = ["path", "op", "value"];

impl Loader<'_> {
    /// Parses a `when:` / `trigger:` clause: null, one condition mapping, or a list of them.
    pub(super) fn conditions(
        &mut self,
        node: &PolicyNode,
        label: &str,
        r: &RuleRef,
    ) -> Vec<Condition> {
        let items: Vec<&PolicyNode> = match &node.value {
            NodeValue::Null => return Vec::new(),
            NodeValue::Seq(items) => items.iter().collect(),
            _ => vec![node],
        };
        let mut out = Vec::new();
        for (j, c) in items.into_iter().enumerate() {
            let at = format!("{label}[{j}]");
            let Some(entries) = c.as_map() else {
                self.problem(
                    c,
                    Some(r),
                    format!("`{at}` must be a mapping; got {}", c.type_name()),
                    Some("write a condition as {path: ..., op: ..., value: ...}".into()),
                );
                continue;
            };
            for (k, _) in entries {
                let name = k.key_text();
                if !CONDITION_KEYS.contains(&name.as_str()) {
                    self.problem(
                        k,
                        Some(r),
                        format!("`{at}` has unknown key '{name}'"),
                        Some(did_you_mean(&name, &CONDITION_KEYS)),
                    );
                }
            }
            let path = match c.get("path").and_then(|p| p.as_str().map(|s| (p, s))) {
                Some((p, s)) if !s.is_empty() => match Path::parse(s) {
                    Ok(path) => Some(path),
                    Err(e) => {
                        self.problem(p, Some(r), format!("`{at}`: {}", e.message), Some(e.hint));
                        None
                    }
                },
                _ => {
                    self.problem(
                        c.get("path").unwrap_or(c),
                        Some(r),
                        format!("`{at}` requires a non-empty `path` string"),
                        Some("e.g. path: request.params.amount".into()),
                    );
                    None
                }
            };
            let op = match c.get("op") {
                Some(o) => match o.as_str().and_then(Op::parse) {
                    Some(op) => Some(op),
                    None => {
                        let shown = o
                            .as_str()
                            .map_or_else(|| o.to_json().to_string(), str::to_string);
                        let hint = match crate::hint::closest(&shown, &OPS) {
                            Some(k) => format!("did you mean '{k}'?"),
                            None => format!("supported: {}", OPS.join(", ")),
                        };
                        self.problem(
                            o,
                            Some(r),
                            format!("`{at}` has invalid op '{shown}'"),
                            Some(hint),
                        );
                        None
                    }
                },
                None => {
                    self.problem(
                        c,
                        Some(r),
                        format!("`{at}` requires an `op`"),
                        Some(format!("supported: {}", OPS.join(", "))),
                    );
                    None
                }
            };
            let value = match c.get("value") {
                Some(v) => Some(v),
                None => {
                    self.problem(
                        c,
                        Some(r),
                        format!("`{at}` requires a `value` field"),
                        Some("write `value: null` to compare with null".into()),
                    );
                    None
                }
            };
            if let (Some(op), Some(v)) = (op, value) {
                let list_op = matches!(op, Op::In | Op::NotIn);
                if list_op && !matches!(v.value, NodeValue::Seq(_)) {
                    self.problem(
                        v,
                        Some(r),
                        format!(
                            "`{at}`: op '{}' requires a list value; got {}",
                            op_name(op),
                            v.type_name()
                        ),
                        Some("e.g. value: [content_filter, refusal]".into()),
                    );
                    continue;
                }
                if op.is_ordering() && !matches!(v.value, NodeValue::Number(_)) {
                    self.problem(
                        v,
                        Some(r),
                        format!(
                            "`{at}`: op '{}' requires a number value; got {}",
                            op_name(op),
                            v.type_name()
                        ),
                        Some("ordering operators compare numbers only".into()),
                    );
                    continue;
                }
                if let Some(path) = path {
                    out.push(Condition {
                        path,
                        op,
                        value: v.to_json(),
                    });
                }
            }
        }
        out
    }
}

fn op_name(op: Op) -> &'static str {
    OPS.iter()
        .copied()
        .find(|s| Op::parse(s) == Some(op))
        .unwrap_or("?")
}
