//! SARIF 2.1.0 (OASIS): one run of the `veer` tool with a rule per distinct finding kind and a
//! result per [`Finding`], located at the trace file and the line of its record. Validated in
//! tests against the official schema vendored in `schemas/`, and in CI by Microsoft's SARIF
//! Multitool with GitHub's rules (every rule has a short and a full description and help;
//! every result a region with a start line).

use crate::findings::Finding;
use serde_json::{json, Map, Value};

/// The `$schema` of the document: the OASIS errata01 schema (the file vendored in
/// `crates/veer-report/schemas/`).
pub(crate) const SARIF_SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// A file path as a SARIF URI reference: `/` separators, an absolute path as a `file://` URI,
/// and every byte outside the unreserved set (and `/`) percent-encoded.
pub(crate) fn uri(path: &str) -> String {
    let path = path.replace('\\', "/");
    let mut out = String::new();
    let (prefix, rest) = if path.starts_with('/') {
        ("file://", path.as_str())
    } else if path.as_bytes().get(1) == Some(&b':') && path.as_bytes().get(2) == Some(&b'/') {
        ("file:///", path.as_str())
    } else {
        ("", path.as_str())
    };
    out.push_str(prefix);
    for (i, b) in rest.bytes().enumerate() {
        let keep = b.is_ascii_alphanumeric()
            || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/')
            || (i == 1 && b == b':' && !prefix.is_empty());
        if keep {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn rules(findings: &[Finding]) -> (Vec<Value>, Vec<usize>) {
    let mut ids: Vec<&str> = Vec::new();
    let mut rules = Vec::new();
    let mut index = Vec::with_capacity(findings.len());
    for f in findings {
        match ids.iter().position(|id| *id == f.rule_id) {
            Some(i) => index.push(i),
            None => {
                index.push(ids.len());
                ids.push(&f.rule_id);
                rules.push(json!({
                    "id": f.rule_id,
                    "shortDescription": {"text": f.rule_summary},
                    "fullDescription": {"text": f.rule_help},
                    "help": {"text": f.rule_help},
                    "defaultConfiguration": {"level": f.level.sarif()},
                }));
            }
        }
    }
    (rules, index)
}

fn result(f: &Finding, rule_index: usize) -> Value {
    let mut physical = Map::new();
    physical.insert("artifactLocation".into(), json!({"uri": uri(&f.file)}));
    // GitHub code scanning needs a line for every result: a finding with none (an axis
    // without a divergence, a record read from no line) points at the file's first line.
    let line = f.line.filter(|l| *l >= 1).unwrap_or(1);
    physical.insert("region".into(), json!({"startLine": line}));
    json!({
        "ruleId": f.rule_id,
        "ruleIndex": rule_index,
        "level": f.level.sarif(),
        "message": {"text": f.message},
        "locations": [{"physicalLocation": physical}],
    })
}

/// The SARIF log of `findings`, pretty-printed with a trailing newline.
pub fn render(findings: &[Finding]) -> String {
    let (rules, index) = rules(findings);
    let results: Vec<Value> = findings
        .iter()
        .zip(index)
        .map(|(f, i)| result(f, i))
        .collect();
    let log = json!({
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "veer",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "results": results,
        }],
    });
    crate::json::to_json(&log)
}

/// The SARIF printer of a streamed directory diff: the log's rule table indexes every result,
/// so it keeps each pair's findings (only its severe axes and policy regressions) until the end.
pub fn directory_log() -> crate::findings::DirectoryFindings {
    crate::findings::DirectoryFindings::new(render)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::FindingLevel;

    fn finding(rule: &str, line: Option<u64>) -> Finding {
        Finding {
            rule_id: rule.into(),
            rule_summary: "summary".into(),
            rule_help: "help".into(),
            level: FindingLevel::Error,
            title: "t".into(),
            message: "m".into(),
            file: "runs/cand one.agentlog".into(),
            line,
        }
    }

    fn validator() -> jsonschema::Validator {
        let schema: Value =
            serde_json::from_str(include_str!("../schemas/sarif-schema-2.1.0.json"))
                .expect("vendored schema parses");
        jsonschema::options()
            .should_validate_formats(true)
            .build(&schema)
            .expect("schema compiles")
    }

    #[test]
    fn uris_are_references_with_escapes() {
        assert_eq!(uri("runs/cand one.agentlog"), "runs/cand%20one.agentlog");
        assert_eq!(uri("/tmp/a b/c.json"), "file:///tmp/a%20b/c.json");
        assert_eq!(uri("C:\\x\\y.agentlog"), "file:///C:/x/y.agentlog");
        assert_eq!(uri("ü.json"), "%C3%BC.json");
    }

    #[test]
    fn rules_are_shared_and_indexed() {
        let text = render(&[
            finding("policy/a", Some(3)),
            finding("axis/cost", None),
            finding("policy/a", Some(9)),
        ]);
        let v: Value = serde_json::from_str(&text).expect("json");
        let run = &v["runs"][0];
        assert_eq!(
            run["tool"]["driver"]["rules"].as_array().map(Vec::len),
            Some(2)
        );
        assert_eq!(run["results"][2]["ruleIndex"], 0);
        assert_eq!(run["results"][1]["ruleIndex"], 1);
        assert_eq!(
            run["results"][2]["locations"][0]["physicalLocation"]["region"]["startLine"],
            9
        );
        // No line known: the file's first line (GitHub needs a region on every result).
        assert_eq!(
            run["results"][1]["locations"][0]["physicalLocation"]["region"]["startLine"],
            1
        );
        for rule in run["tool"]["driver"]["rules"].as_array().unwrap() {
            for key in ["shortDescription", "fullDescription", "help"] {
                assert!(
                    rule[key]["text"].as_str().is_some_and(|t| !t.is_empty()),
                    "{key}"
                );
            }
        }
        assert!(validator().is_valid(&v));
    }

    #[test]
    fn the_vendored_schema_rejects_a_broken_log() {
        let text = render(&[finding("policy/a", Some(3))]);
        let mut v: Value = serde_json::from_str(&text).expect("json");
        assert!(validator().is_valid(&v));
        v["runs"][0]["results"][0]["level"] = json!("fatal");
        assert!(!validator().is_valid(&v));
        let mut v2: Value = serde_json::from_str(&text).expect("json");
        v2["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] =
            json!(0);
        assert!(!validator().is_valid(&v2));
    }

    #[test]
    fn an_empty_log_is_valid() {
        let v: Value = serde_json::from_str(&render(&[])).expect("json");
        assert!(validator().is_valid(&v));
    }
}
