//! GitLab Code Quality report: a JSON array with one issue per [`Finding`] —
//! `{description, check_name, fingerprint, severity, location: {path, lines: {begin}}}`, the
//! fields GitLab documents for the `artifacts:reports:codequality` artifact (docs/ci.md).
//!
//! The severity is read from the finding's level, which the engine's verdict decided (a
//! finding is an `error` exactly when it tripped the gate): `error` → `critical`, `warning` →
//! `minor`, `note` → `info`. The fingerprint is the SHA-256 of the finding's rule, file and
//! line and its occurrence number among findings with the same three, so it is stable across
//! runs (and across rewordings of the message) and unique within a report, as GitLab needs to
//! tell new issues from fixed ones. The message is left out of it: it may hold text of the
//! trace, which the CLI redacts on output, and a hash must not depend on a secret.

use crate::findings::{Finding, FindingLevel};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use veer_contract::trials::TrialsReport;

/// The Code Quality `severity` of a finding level (one of GitLab's info, minor, major,
/// critical, blocker).
pub fn severity(level: FindingLevel) -> &'static str {
    match level {
        FindingLevel::Note => "info",
        FindingLevel::Warning => "minor",
        FindingLevel::Error => "critical",
    }
}

/// The fingerprint of one issue: lowercase hex SHA-256 of its rule, file and line, with the
/// occurrence number (0 for the first) so findings at the same place stay distinct.
fn fingerprint(check: &str, path: &str, line: u64, occurrence: usize) -> String {
    let mut h = Sha256::new();
    for part in [check, path, &line.to_string()] {
        h.update(part.as_bytes());
        h.update([0u8]);
    }
    h.update(occurrence.to_string().as_bytes());
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The issues of `(check_name, severity, path, line, description)` rows, fingerprinted.
fn issues<'a>(rows: impl Iterator<Item = (String, &'a str, String, u64, String)>) -> Vec<Value> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    rows.map(|(check, severity, path, line, description)| {
        let key = format!("{check}\0{path}\0{line}");
        let n = seen.entry(key).or_insert(0);
        let fp = fingerprint(&check, &path, line, *n);
        *n += 1;
        json!({
            "description": description,
            "check_name": check,
            "fingerprint": fp,
            "severity": severity,
            "location": {"path": path, "lines": {"begin": line}},
        })
    })
    .collect()
}

/// The Code Quality report of `findings` (pretty-printed JSON array, trailing newline). A
/// finding without a known line points at line 1 (GitLab needs `lines.begin`).
pub fn render(findings: &[Finding]) -> String {
    let rows = findings.iter().map(|f| {
        (
            f.rule_id.clone(),
            severity(f.level),
            f.file.clone(),
            f.line.filter(|l| *l >= 1).unwrap_or(1),
            f.message.clone(),
        )
    });
    crate::json::to_json(&Value::Array(issues(rows)))
}

/// The Code Quality report of a repeated-trials comparison: one issue per case the engine
/// judged `regressed` or `failed` (`critical`: these trip the gate; `info` for a quarantined
/// regressed case, which does not) or `inconclusive` or `flaky` (`minor`), at the case under the
/// candidate directory, line 1.
pub fn trials(r: &TrialsReport) -> String {
    let rows = r.trials.cases.iter().filter_map(|c| {
        use veer_contract::trials::CaseVerdict;
        let severity = match c.verdict {
            CaseVerdict::Failed => "critical",
            CaseVerdict::Regressed if c.quarantined => "info",
            CaseVerdict::Regressed => "critical",
            CaseVerdict::Inconclusive | CaseVerdict::Flaky | CaseVerdict::Changed => "minor",
            _ => return None,
        };
        Some((
            format!("trials/{}", c.verdict),
            severity,
            format!("{}/{}", r.candidate.trim_end_matches('/'), c.case),
            1,
            crate::diff::trials::case_line(&c),
        ))
    });
    crate::json::to_json(&Value::Array(issues(rows)))
}

/// The Code Quality printer of a streamed directory diff: the array is written whole at the
/// end (it keeps the findings, like [`crate::sarif::directory_log`]).
pub fn directory_report() -> crate::findings::DirectoryFindings {
    crate::findings::DirectoryFindings::new(render)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(rule: &str, level: FindingLevel, line: Option<u64>) -> Finding {
        Finding {
            rule_id: rule.into(),
            rule_summary: "summary".into(),
            rule_help: "help".into(),
            level,
            title: "t".into(),
            message: format!("message of {rule}"),
            file: "runs/cand.agentlog".into(),
            line,
        }
    }

    #[test]
    fn severities_follow_the_level() {
        let text = render(&[
            finding("policy/a", FindingLevel::Error, Some(3)),
            finding("axis/cost", FindingLevel::Warning, None),
            finding("live-policy/b", FindingLevel::Note, Some(0)),
        ]);
        let v: Value = serde_json::from_str(&text).unwrap();
        let got: Vec<&str> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["severity"].as_str().unwrap())
            .collect();
        assert_eq!(got, ["critical", "minor", "info"]);
        assert_eq!(v[0]["location"]["lines"]["begin"], 3);
        // No line, or line 0: the first line.
        assert_eq!(v[1]["location"]["lines"]["begin"], 1);
        assert_eq!(v[2]["location"]["lines"]["begin"], 1);
        assert_eq!(v[0]["check_name"], "policy/a");
        assert_eq!(v[0]["location"]["path"], "runs/cand.agentlog");
    }

    #[test]
    fn fingerprints_are_stable_and_unique() {
        let same = finding("policy/a", FindingLevel::Error, Some(3));
        let fs = [
            same.clone(),
            same.clone(),
            finding("policy/a", FindingLevel::Error, Some(4)),
        ];
        let a: Value = serde_json::from_str(&render(&fs)).unwrap();
        let b: Value = serde_json::from_str(&render(&fs)).unwrap();
        assert_eq!(a, b);
        let fps: Vec<&str> = a
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["fingerprint"].as_str().unwrap())
            .collect();
        assert_eq!(fps.len(), 3);
        assert!(fps[0] != fps[1] && fps[1] != fps[2] && fps[0] != fps[2]);
        assert!(fps.iter().all(|f| f.len() == 64));
        // The first occurrence's fingerprint does not depend on what follows it.
        let alone: Value = serde_json::from_str(&render(&fs[..1])).unwrap();
        assert_eq!(alone[0]["fingerprint"], a[0]["fingerprint"]);
    }

    #[test]
    fn no_findings_is_an_empty_array() {
        assert_eq!(render(&[]).trim(), "[]");
    }
}
