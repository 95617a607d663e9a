//! The cases of an eval: read from a text file (one name a line), a JSON or YAML list (names,
//! or objects with a `name`/`id` and an `input`), or a directory whose entries are the cases.
//! Every name becomes a directory under the output, so names are checked here — no path
//! separator, no `..`, not hidden, unique — and a bad one is an error naming the file and the
//! line (or the entry) with a hint.

use serde_json::Value;
use std::collections::HashMap;

/// What a case gives its agent as `{input}` / `VEER_CASE_INPUT`.
#[derive(Debug, Clone, PartialEq)]
pub enum CaseInput {
    /// Nothing: `{input}` is empty and `VEER_CASE_INPUT` is not set.
    Nothing,
    /// A JSON value, written to a file of the trial's own (`input.json`) whose path is given.
    Json(Value),
    /// A file or directory that is the case (a `--cases DIR` entry), given by its path.
    Path(String),
}

/// One case of an eval.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalCase {
    /// The name: `VEER_CASE`, `{case}`, the case's directory under the output.
    pub name: String,
    /// What the agent is given as its input.
    pub input: CaseInput,
}

/// A cases file or directory that cannot be used: the file, the line when known, what is
/// wrong and a hint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CasesFileError {
    /// The file (or directory) as given.
    pub file: String,
    /// The 1-based line, when the error has one.
    pub line: Option<u64>,
    /// What is wrong, starting with `file:line:` (or `file:`).
    pub message: String,
    /// What to do about it.
    pub hint: String,
}

impl std::fmt::Display for CasesFileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CasesFileError {}

/// How a cases file is read, from its name: `.json`, `.yaml`/`.yml`, else one name a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CasesFormat {
    /// One case name a line; blank lines and `#` comments skipped.
    Lines,
    /// A JSON list.
    Json,
    /// A YAML list.
    Yaml,
}

impl CasesFormat {
    /// The format of the file called `name`.
    pub fn of(name: &str) -> CasesFormat {
        let lower = name.to_ascii_lowercase();
        if lower.ends_with(".json") {
            CasesFormat::Json
        } else if lower.ends_with(".yaml") || lower.ends_with(".yml") {
            CasesFormat::Yaml
        } else {
            CasesFormat::Lines
        }
    }
}

const NAME_HINT: &str =
    "a case name is one path component: letters, digits, `-`, `_`, `.`, not starting with `.`";

fn bad(file: &str, line: Option<u64>, what: impl std::fmt::Display, hint: &str) -> CasesFileError {
    let at = match line {
        Some(l) => format!("{file}:{l}"),
        None => file.to_string(),
    };
    CasesFileError {
        file: file.to_string(),
        line,
        message: format!("{at}: {what}"),
        hint: hint.to_string(),
    }
}

/// Why `name` cannot be a case name (it becomes a directory under the output), or `None`.
pub fn name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        Some("the case name is empty")
    } else if name.contains('/') || name.contains('\\') {
        Some("the case name holds a path separator")
    } else if name.contains("..") {
        Some("the case name holds `..`")
    } else if name.starts_with('.') {
        Some("the case name starts with `.` (a hidden directory, which `veer diff` skips)")
    } else if name.chars().any(char::is_control) {
        Some("the case name holds a control character")
    } else if name.trim() != name {
        Some("the case name starts or ends with whitespace")
    } else {
        None
    }
}

/// Checks every name and that no name is given twice; `lines` is each case's line (or 0 when
/// unknown, then the entry's 1-based position is named instead).
fn check(file: &str, cases: &[EvalCase], lines: &[u64]) -> Result<(), CasesFileError> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, case) in cases.iter().enumerate() {
        let line = lines.get(i).copied().filter(|&l| l > 0);
        let entry = if line.is_some() {
            String::new()
        } else {
            format!("case {}: ", i + 1)
        };
        if let Some(problem) = name_problem(&case.name) {
            return Err(bad(
                file,
                line,
                format!("{entry}{problem}: `{}`", case.name.escape_debug()),
                NAME_HINT,
            ));
        }
        if let Some(&first) = seen.get(case.name.as_str()) {
            let where_first = match lines.get(first).copied().filter(|&l| l > 0) {
                Some(l) => format!("line {l}"),
                None => format!("case {}", first + 1),
            };
            return Err(bad(
                file,
                line,
                format!(
                    "{entry}case `{}` is given twice (first at {where_first})",
                    case.name
                ),
                "every case needs its own name: its trials go to OUT/<name>/",
            ));
        }
        seen.insert(&case.name, i);
    }
    if cases.is_empty() {
        return Err(bad(
            file,
            None,
            "no cases",
            "list at least one case (one name a line, or a JSON/YAML list)",
        ));
    }
    Ok(())
}

/// The cases of a cases file `file` (its name, for messages and its format) holding `text`.
pub fn parse_cases(file: &str, text: &str) -> Result<Vec<EvalCase>, CasesFileError> {
    match CasesFormat::of(file) {
        CasesFormat::Lines => parse_lines(file, text),
        CasesFormat::Json => {
            let value: Value = serde_json::from_str(text).map_err(|e| {
                bad(
                    file,
                    Some(e.line() as u64),
                    format!("not valid JSON: {e}"),
                    "a JSON cases file is a list: [\"refund\", {\"name\": \"lookup\", \"input\": {...}}]",
                )
            })?;
            from_list(file, value, "JSON")
        }
        CasesFormat::Yaml => {
            let value: Value = serde_saphyr::from_str(text).map_err(|e| {
                bad(
                    file,
                    None,
                    format!("not valid YAML: {e}"),
                    "a YAML cases file is a list: `- refund` or `- {name: lookup, input: ...}`",
                )
            })?;
            from_list(file, value, "YAML")
        }
    }
}

fn parse_lines(file: &str, text: &str) -> Result<Vec<EvalCase>, CasesFileError> {
    let mut cases = Vec::new();
    let mut lines = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let name = raw.trim();
        if name.is_empty() || name.starts_with('#') {
            continue;
        }
        cases.push(EvalCase {
            name: name.to_string(),
            input: CaseInput::Nothing,
        });
        lines.push(i as u64 + 1);
    }
    check(file, &cases, &lines)?;
    Ok(cases)
}

fn from_list(file: &str, value: Value, kind: &str) -> Result<Vec<EvalCase>, CasesFileError> {
    let hint = "each case is a name, or an object with `name` (or `id`) and an optional `input`";
    let items = match value {
        Value::Array(items) => items,
        Value::Object(mut o) if o.get("cases").is_some_and(Value::is_array) => {
            match o.remove("cases") {
                Some(Value::Array(items)) => items,
                _ => Vec::new(),
            }
        }
        _ => {
            return Err(bad(
                file,
                None,
                format!("the {kind} document is not a list of cases"),
                hint,
            ))
        }
    };
    let mut cases = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        let n = i + 1;
        let case = match item {
            Value::String(name) => EvalCase {
                name,
                input: CaseInput::Nothing,
            },
            Value::Object(mut o) => {
                let name = match o.remove("name").or_else(|| o.remove("id")) {
                    Some(Value::String(s)) => s,
                    Some(Value::Number(x)) => x.to_string(),
                    Some(_) => {
                        return Err(bad(
                            file,
                            None,
                            format!("case {n}: `name` is not a string"),
                            hint,
                        ))
                    }
                    None => {
                        return Err(bad(
                            file,
                            None,
                            format!("case {n}: no `name` (or `id`)"),
                            hint,
                        ))
                    }
                };
                EvalCase {
                    name,
                    input: o
                        .remove("input")
                        .map_or(CaseInput::Nothing, CaseInput::Json),
                }
            }
            other => {
                return Err(bad(
                    file,
                    None,
                    format!("case {n}: expected a name or an object, got {other}"),
                    hint,
                ))
            }
        };
        cases.push(case);
    }
    check(file, &cases, &[])?;
    Ok(cases)
}

/// The cases of a `--cases DIR` whose entries are `entries` (name, whether it is a
/// directory, its path), in any order: sorted by name, hidden entries skipped; a file's case
/// is its name without the extension, a directory's its name.
pub fn cases_of_dir(
    dir: &str,
    mut entries: Vec<(String, bool, String)>,
) -> Result<Vec<EvalCase>, CasesFileError> {
    entries.retain(|(name, _, _)| !name.starts_with('.'));
    entries.sort();
    let cases: Vec<EvalCase> = entries
        .into_iter()
        .map(|(name, is_dir, path)| {
            let case = match name.rfind('.') {
                Some(dot) if !is_dir && dot > 0 => name.get(..dot).unwrap_or(&name).to_string(),
                _ => name,
            };
            EvalCase {
                name: case,
                input: CaseInput::Path(path),
            }
        })
        .collect();
    check(dir, &cases, &[])?;
    Ok(cases)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn names(cases: &[EvalCase]) -> Vec<&str> {
        cases.iter().map(|c| c.name.as_str()).collect()
    }

    #[test]
    fn a_text_file_skips_blanks_and_comments() {
        let c = parse_cases("cases.txt", "# the suite\nrefund\n\n  lookup  \n# end\n").unwrap();
        assert_eq!(names(&c), ["refund", "lookup"]);
        assert_eq!(c[0].input, CaseInput::Nothing);
    }

    #[test]
    fn bad_names_and_duplicates_name_the_line() {
        let e = parse_cases("cases.txt", "a\n../etc\n").unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(e.message.starts_with("cases.txt:2: "), "{}", e.message);
        assert!(e.message.contains("path separator"), "{}", e.message);
        let e = parse_cases("cases.txt", "a\nb\n\na\n").unwrap_err();
        assert_eq!(
            e.message,
            "cases.txt:4: case `a` is given twice (first at line 1)"
        );
        for bad_name in ["..", "x..y", ".hidden", "a\\b"] {
            assert!(name_problem(bad_name).is_some(), "{bad_name}");
        }
        assert!(name_problem("refund-42.v2").is_none());
        let e = parse_cases("cases.txt", "# nothing\n").unwrap_err();
        assert!(e.message.contains("no cases"), "{}", e.message);
    }

    #[test]
    fn json_lists_take_names_ids_and_inputs() {
        let text =
            r#"["refund", {"id": 7, "input": {"q": 1}}, {"name": "lookup", "input": "text"}]"#;
        let c = parse_cases("suite.json", text).unwrap();
        assert_eq!(names(&c), ["refund", "7", "lookup"]);
        assert_eq!(c[1].input, CaseInput::Json(json!({"q": 1})));
        assert_eq!(c[2].input, CaseInput::Json(json!("text")));
        let c = parse_cases("suite.json", r#"{"cases": ["a", "b"]}"#).unwrap();
        assert_eq!(names(&c), ["a", "b"]);
    }

    #[test]
    fn json_errors_name_the_line_or_the_case() {
        let e = parse_cases("suite.json", "[\n\"a\",\n}").unwrap_err();
        assert_eq!(e.line, Some(3));
        let e = parse_cases("suite.json", r#"["a", {"input": 1}]"#).unwrap_err();
        assert_eq!(e.message, "suite.json: case 2: no `name` (or `id`)");
        let e = parse_cases("suite.json", r#"["a", "a/b"]"#).unwrap_err();
        assert!(
            e.message.starts_with("suite.json: case 2: "),
            "{}",
            e.message
        );
        let e = parse_cases("suite.json", r#"{"a": 1}"#).unwrap_err();
        assert!(e.message.contains("not a list"), "{}", e.message);
    }

    #[test]
    fn yaml_lists_read_like_json() {
        let text = "- refund\n- name: lookup\n  input:\n    order: 42\n";
        let c = parse_cases("suite.yaml", text).unwrap();
        assert_eq!(names(&c), ["refund", "lookup"]);
        assert_eq!(c[1].input, CaseInput::Json(json!({"order": 42})));
        assert!(parse_cases("suite.yml", "- [unclosed\n").is_err());
    }

    #[test]
    fn a_directory_is_sorted_and_loses_extensions() {
        let entries = vec![
            ("b.json".to_string(), false, "d/b.json".to_string()),
            (".git".to_string(), true, "d/.git".to_string()),
            ("a.v2".to_string(), true, "d/a.v2".to_string()),
        ];
        let c = cases_of_dir("d", entries).unwrap();
        assert_eq!(names(&c), ["a.v2", "b"]);
        assert_eq!(c[1].input, CaseInput::Path("d/b.json".into()));
        let twice = vec![
            ("x.json".to_string(), false, "d/x.json".to_string()),
            ("x.txt".to_string(), false, "d/x.txt".to_string()),
        ];
        let e = cases_of_dir("d", twice).unwrap_err();
        assert!(e.message.contains("given twice"), "{}", e.message);
    }
}
