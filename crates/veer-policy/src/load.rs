//! Loading a policy file with strict validation (spec `policy.md` §1): YAML or JSON, Shadow's
//! three top-level shapes, every problem of the file reported at once with its line, column,
//! rule and a did-you-mean hint. Nothing in a policy is ever executed or fetched.

use crate::error::{PolicyError, Problem};
use crate::hint::did_you_mean;
use crate::ltl;
use crate::model::{Check, Must, Policy, Rule, RuleKind, Scope, Severity};
use crate::needle::Needle;
use crate::node::{parse_json, parse_yaml, Node, NodeValue};
use crate::path::Path;
use crate::schema::Schema;
use crate::when::{Condition, Op, OPS};
use serde_json::Value;
use std::collections::HashSet;
use std::path::{Path as FsPath, PathBuf};

/// The only supported `apiVersion`.
pub const API_VERSION: &str = "shadow.dev/v1alpha1";

const TOP_KEYS: [&str; 2] = ["apiVersion", "rules"];
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
const CONDITION_KEYS: [&str; 3] = ["path", "op", "value"];

impl Policy {
    /// Loads and validates the policy file at `path` (`.json` → JSON, anything else → YAML).
    pub fn load(path: &FsPath) -> Result<Policy, PolicyError> {
        let file = path.display().to_string();
        let cap = veer_trace::limits::MAX_CONFIG_FILE_BYTES;
        let text = veer_trace::limits::read_capped(path, cap).map_err(|e| {
            let e = match e {
                veer_trace::limits::CappedError::Io(e) => e,
                other => {
                    let (msg, hint) = other
                        .too_large_message("policy file", None)
                        .unwrap_or_default();
                    return PolicyError::file_problem(&file, msg, Some(hint));
                }
            };
            let (msg, hint) = match e.kind() {
                std::io::ErrorKind::NotFound => {
                    ("no such file or directory".to_string(), "check the path")
                }
                std::io::ErrorKind::PermissionDenied => (
                    "permission denied".to_string(),
                    "check the file's permissions",
                ),
                _ => (
                    format!("cannot read: {e}"),
                    "check that the file is readable",
                ),
            };
            PolicyError::file_problem(&file, msg, Some(hint.to_string()))
        })?;
        let text = String::from_utf8(text).map_err(|e| {
            PolicyError::file_problem(
                &file,
                format!("not valid UTF-8 (byte {})", e.utf8_error().valid_up_to()),
                Some("save the policy as UTF-8".into()),
            )
        })?;
        // A UTF-8 byte-order mark is not part of the document.
        let text = match text.strip_prefix('\u{feff}') {
            Some(rest) => rest.to_string(),
            None => text,
        };
        let json = path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
        let dir = path.parent().map(FsPath::to_path_buf).unwrap_or_default();
        Policy::load_str(&text, &file, json, &dir)
    }

    /// Loads a policy from text. `file` names it in messages, `json` selects strict JSON, and
    /// `base_dir` is where a `schema_path` is resolved first.
    pub fn load_str(
        text: &str,
        file: &str,
        json: bool,
        base_dir: &FsPath,
    ) -> Result<Policy, PolicyError> {
        let parsed = if json {
            parse_json(text)
        } else {
            parse_yaml(text)
        };
        let root = parsed.map_err(|e| PolicyError {
            file: file.to_string(),
            problems: vec![Problem {
                line: e.line,
                column: e.column,
                rule: None,
                message: format!(
                    "not valid {}: {}",
                    if json { "JSON" } else { "YAML" },
                    e.message
                ),
                hint: Some(if let Some(h) = e.hint {
                    h
                } else if json {
                    "a .json policy must be strict JSON; use a .yaml suffix for YAML".into()
                } else {
                    "check the indentation and quoting around this position".into()
                }),
            }],
        })?;
        let mut loader = Loader {
            file,
            base_dir: base_dir.to_path_buf(),
            problems: Vec::new(),
            warnings: Vec::new(),
        };
        let rules = loader.document(&root);
        if loader.problems.is_empty() {
            Ok(Policy {
                source: file.to_string(),
                rules,
                warnings: loader.warnings,
            })
        } else {
            Err(PolicyError {
                file: file.to_string(),
                problems: loader.problems,
            })
        }
    }
}

struct Loader<'a> {
    file: &'a str,
    base_dir: PathBuf,
    problems: Vec<Problem>,
    warnings: Vec<String>,
}

/// What is known about the rule being loaded, for messages.
#[derive(Debug, Clone)]
struct RuleRef {
    index: usize,
    id: String,
    kind: Option<RuleKind>,
}

impl RuleRef {
    fn label(&self) -> String {
        match self.kind {
            Some(k) => format!("rules[{}] (id {}, kind {})", self.index, self.id, k.name()),
            None => format!("rules[{}] (id {})", self.index, self.id),
        }
    }
}

/// A validated parameter value.
enum Val {
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
}

/// How one parameter is validated.
#[derive(Clone, Copy, PartialEq, Eq)]
enum PType {
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
    }
}

impl Loader<'_> {
    fn problem(
        &mut self,
        at: &Node,
        rule: Option<&RuleRef>,
        message: String,
        hint: Option<String>,
    ) {
        self.problems.push(Problem {
            line: at.line,
            column: at.column,
            rule: rule.map(RuleRef::label),
            message,
            hint,
        });
    }

    fn warn(&mut self, message: String) {
        self.warnings.push(format!("{}: {message}", self.file));
    }

    fn document(&mut self, root: &Node) -> Vec<Rule> {
        let rules_node = match &root.value {
            NodeValue::Seq(_) => {
                self.warn(format!(
                    "policy file is a bare list; consider wrapping in {{apiVersion: {API_VERSION}, rules: [...]}} for future compatibility."
                ));
                root
            }
            NodeValue::Map(entries) => {
                for (k, _) in entries {
                    let name = k.key_text();
                    if !TOP_KEYS.contains(&name.as_str()) {
                        self.problem(
                            k,
                            None,
                            format!("unknown top-level key '{name}'"),
                            Some(did_you_mean(&name, &TOP_KEYS)),
                        );
                    }
                }
                match root.get("apiVersion") {
                    None => self.warn(format!(
                        "policy file has no `apiVersion` field; assuming '{API_VERSION}'. Add `apiVersion: {API_VERSION}` to silence this warning."
                    )),
                    Some(v) if v.as_str() == Some(API_VERSION) => {}
                    Some(v) => {
                        let shown = match v.as_str() {
                            Some(s) => s.to_string(),
                            None => v.to_json().to_string(),
                        };
                        self.problem(
                            v,
                            None,
                            format!("policy file has unsupported apiVersion '{shown}'"),
                            Some(format!(
                                "supported versions are ['{API_VERSION}']; remove the apiVersion field to use the latest schema"
                            )),
                        );
                    }
                }
                match root.get("rules") {
                    Some(
                        r @ Node {
                            value: NodeValue::Seq(_),
                            ..
                        },
                    ) => r,
                    Some(r) => {
                        self.problem(
                            r,
                            None,
                            format!("`rules` must be a list; got {}", r.type_name()),
                            Some("write `rules:` followed by a list of rule mappings".into()),
                        );
                        return Vec::new();
                    }
                    None => {
                        self.problem(
                            root,
                            None,
                            "policy must have a top-level `rules:` list (or be a list itself)"
                                .into(),
                            Some(format!(
                                "start the file with `apiVersion: {API_VERSION}` and `rules:`"
                            )),
                        );
                        return Vec::new();
                    }
                }
            }
            _ => {
                self.problem(
                    root,
                    None,
                    format!(
                        "policy input must be a mapping or list; got {}",
                        root.type_name()
                    ),
                    Some(format!(
                        "write `apiVersion: {API_VERSION}` and a `rules:` list"
                    )),
                );
                return Vec::new();
            }
        };
        let NodeValue::Seq(items) = &rules_node.value else {
            return Vec::new();
        };
        let mut rules = Vec::new();
        let mut ids: HashSet<String> = HashSet::new();
        for (i, item) in items.iter().enumerate() {
            if let Some(rule) = self.rule(i, item, &mut ids) {
                rules.push(rule);
            }
        }
        rules
    }

    fn rule(&mut self, index: usize, node: &Node, ids: &mut HashSet<String>) -> Option<Rule> {
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

    /// Parses a `when:` / `trigger:` clause: null, one condition mapping, or a list of them.
    fn conditions(&mut self, node: &Node, label: &str, r: &RuleRef) -> Vec<Condition> {
        let items: Vec<&Node> = match &node.value {
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

    fn params(&mut self, kind: RuleKind, rule: &Node, r: &RuleRef) -> Option<Check> {
        let specs = param_specs(kind);
        let params_node = rule.get("params");
        let empty: Vec<(Node, Node)> = Vec::new();
        let entries: &[(Node, Node)] = match params_node {
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
        let find = |name: &str| -> Option<&Node> {
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
        let lookup = |name: &str| -> Option<&Node> {
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
        let mut vals: Vec<(&str, Val, &Node)> = Vec::new();
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
        let take = |vals: &mut Vec<(&str, Val, &Node)>, name: &str| -> Option<Val> {
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
        };
        if self.problems.len() > before {
            return None;
        }
        check
    }

    fn type_error(&mut self, name: &str, expected: &str, n: &Node, r: &RuleRef) {
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

    fn param_value(&mut self, name: &str, ty: PType, n: &Node, r: &RuleRef) -> Option<Val> {
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

    fn must(&mut self, name: &str, n: &Node, r: &RuleRef) -> Option<Val> {
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

    fn compile_schema(&mut self, v: &Value, origin: &str, at: &Node, r: &RuleRef) -> Option<Check> {
        match Schema::compile(v, origin) {
            Ok(s) => Some(Check::MustMatchJsonSchema(s)),
            Err(e) => {
                let hint = if e.contains("refusing to fetch") {
                    "veer never fetches schemas; put the referenced schema under $defs and use \"$ref\": \"#/$defs/<name>\"".to_string()
                } else {
                    "check the schema against the JSON Schema specification (draft 2020-12 unless $schema says otherwise)".to_string()
                };
                self.problem(
                    at,
                    Some(r),
                    format!("{origin}: schema is invalid: {e}"),
                    Some(hint),
                );
                None
            }
        }
    }

    fn schema_file(&mut self, p: &str, at: &Node, r: &RuleRef) -> Option<Check> {
        let beside = self.base_dir.join(p);
        let path = if beside.is_file() {
            beside
        } else if FsPath::new(p).is_file() {
            self.warn(format!(
                "{}: schema_path '{p}' not found next to the policy; using '{p}' relative to the current directory",
                r.label()
            ));
            PathBuf::from(p)
        } else {
            self.problem(
                at,
                Some(r),
                format!("schema_path not found: {}", beside.display()),
                Some("schema_path is resolved relative to the policy file's directory".into()),
            );
            return None;
        };
        let shown = path.display().to_string();
        let cap = veer_trace::limits::MAX_CONFIG_FILE_BYTES;
        let read = veer_trace::limits::read_capped(&path, cap).map_err(|e| match e {
            veer_trace::limits::CappedError::Io(e) => e.to_string(),
            other => other
                .too_large_message("schema file", None)
                .map(|(m, _)| m)
                .unwrap_or_default(),
        });
        let read = read.and_then(|bytes| {
            String::from_utf8(bytes).map_err(|_| "stream did not contain valid UTF-8".to_string())
        });
        let text = match read {
            Ok(t) => t,
            Err(e) => {
                self.problem(
                    at,
                    Some(r),
                    format!("could not read schema_path {shown}: {e}"),
                    Some("check that the schema file is readable UTF-8".into()),
                );
                return None;
            }
        };
        let v = match crate::schema::parse_strict(&text) {
            Ok(v) => v,
            Err(e) => {
                self.problem(
                    at,
                    Some(r),
                    format!("schema_path {shown} is not valid JSON: {e}"),
                    Some("a schema file must be one strict JSON object (no duplicate keys)".into()),
                );
                return None;
            }
        };
        self.compile_schema(&v, &shown, at, r)
    }
}

fn op_name(op: Op) -> &'static str {
    OPS.iter()
        .copied()
        .find(|s| Op::parse(s) == Some(op))
        .unwrap_or("?")
}
