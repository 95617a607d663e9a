//! Loading a policy file with strict validation (spec `policy.md` §1): YAML or JSON, Shadow's
//! three top-level shapes, every problem of the file reported at once with its line, column,
//! rule and a did-you-mean hint. Nothing in a policy is ever executed or fetched.

mod conditions;
mod params;
mod rule;
mod schema_param;
mod trajectory;
mod values;

use crate::error::{PolicyError, Problem};
use crate::hint::did_you_mean;
use crate::model::{Policy, Rule};
use crate::node::{parse_json, parse_yaml, NodeValue, PolicyNode};
use std::collections::HashSet;
use std::path::{Path as FsPath, PathBuf};
use veer_contract::policy::RuleKind;

/// The only supported `apiVersion`.
pub(crate) const API_VERSION: &str = "shadow.dev/v1alpha1";

const TOP_KEYS: [&str; 2] = ["apiVersion", "rules"];

impl Policy {
    /// Loads and validates the policy file at `path` (`.json` → JSON, anything else → YAML).
    pub fn load(path: &FsPath) -> Result<Policy, PolicyError> {
        let file = path.display().to_string();
        let cap = veer_base::capped::MAX_CONFIG_FILE_BYTES;
        let text = veer_base::capped::read_capped(path, cap).map_err(|e| {
            let e = match e {
                veer_base::capped::CappedError::Io(e) => e,
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

impl Loader<'_> {
    fn problem(
        &mut self,
        at: &PolicyNode,
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

    fn document(&mut self, root: &PolicyNode) -> Vec<Rule> {
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
                        r @ PolicyNode {
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
}
