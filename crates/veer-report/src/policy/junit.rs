//! JUnit XML for `veer check`: one test suite per trace, one test case per rule; a rule whose
//! violations tripped the gate (the [`veer_contract::verdict::Verdict`] lists them) is a failure listing
//! them, a rule with violations under the threshold passes with them in `system-out`.

use super::{violation_line, CheckReport};

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => {}
            c => out.push(c),
        }
    }
    out
}

/// Whether a violation of `rule` in trace `t` tripped the gate.
fn rule_trips(
    verdict: &veer_contract::verdict::Verdict,
    t: &super::CheckedTrace,
    rule: &str,
) -> bool {
    t.violations
        .iter()
        .filter(|v| v.rule_id == rule)
        .any(|v| verdict.tripped_by(Some(&t.trace), &cause(v)))
}

/// The `veer check` report as JUnit XML, its failures those of `verdict`.
pub fn check(r: &CheckReport, verdict: &veer_contract::verdict::Verdict) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let failed_reads = if verdict.tripped { r.errors.len() } else { 0 };
    let tests = r.rules.len() * r.traces.len();
    let failures: usize = r
        .traces
        .iter()
        .map(|t| {
            r.rules
                .iter()
                .filter(|rule| rule_trips(verdict, t, &rule.id))
                .count()
        })
        .sum::<usize>()
        + failed_reads;
    let errors = r.errors.len() - failed_reads;
    if r.errors.is_empty() {
        out.push_str(&format!(
            "<testsuites name=\"veer check\" tests=\"{tests}\" failures=\"{failures}\">\n"
        ));
    } else {
        out.push_str(&format!(
            "<testsuites name=\"veer check\" tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\">\n",
            tests + r.errors.len()
        ));
    }
    for t in &r.traces {
        let failed: Vec<&str> = r
            .rules
            .iter()
            .filter(|rule| rule_trips(verdict, t, &rule.id))
            .map(|rule| rule.id.as_str())
            .collect();
        out.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"0\" errors=\"0\">\n",
            escape(&t.trace),
            r.rules.len(),
            failed.len()
        ));
        for rule in &r.rules {
            out.push_str(&format!(
                "    <testcase classname=\"veer.policy.{}\" name=\"{}\">\n",
                escape(&t.trace),
                escape(&rule.id)
            ));
            let lines: Vec<String> = t
                .violations
                .iter()
                .filter(|v| v.rule_id == rule.id)
                .map(violation_line)
                .collect();
            if !lines.is_empty() && failed.contains(&rule.id.as_str()) {
                out.push_str(&format!(
                    "      <failure type=\"{}\" message=\"{} violation(s) of {} ({})\">{}</failure>\n",
                    escape(&rule.severity),
                    lines.len(),
                    escape(&rule.id),
                    escape(&rule.kind),
                    escape(&lines.join("\n"))
                ));
            } else if !lines.is_empty() {
                out.push_str(&format!(
                    "      <system-out>{}</system-out>\n",
                    escape(&lines.join("\n"))
                ));
            }
            out.push_str("    </testcase>\n");
        }
        out.push_str("  </testsuite>\n");
    }
    for e in &r.errors {
        out.push_str(&crate::diff::junit::error_suite(
            &e.trace,
            "veer.policy",
            &e.error,
            e.hint.as_deref(),
            verdict.tripped,
        ));
    }
    out.push_str("</testsuites>\n");
    out
}

/// The verdict's cause for a policy violation.
fn cause(v: &veer_contract::policy::Violation) -> veer_contract::verdict::Cause {
    veer_contract::verdict::Cause::Policy {
        rule_id: v.rule_id.clone(),
        pair_index: v.pair_index,
        session: v.session,
    }
}

/// The policy diff as one JUnit test suite (to embed in a diff report's `<testsuites>`): one
/// test case per regression (a failure when `verdict` lists it as tripping the gate, else
/// passing with the regression in `system-out`) and per fix (passing, noted in `system-out`);
/// a single passing case when nothing changed. Also returns its tests and failures.
pub(crate) fn diff_suite(
    name: &str,
    d: &veer_contract::policy::PolicyDiff,
    verdict: &veer_contract::verdict::Verdict,
) -> (String, usize, usize) {
    let tests = (d.regressions.len() + d.fixes.len()).max(1);
    let failures = d
        .regressions
        .iter()
        .filter(|v| crate::diff::junit::trips(verdict, &cause(v)))
        .count();
    let mut out = format!(
        "  <testsuite name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" skipped=\"0\" errors=\"0\">\n",
        escape(name),
    );
    let class = format!("veer.policy.{}", escape(name));
    for v in &d.regressions {
        if crate::diff::junit::trips(verdict, &cause(v)) {
            out.push_str(&format!(
                "    <testcase classname=\"{class}\" name=\"regression: {}\">\n      <failure type=\"{}\" message=\"{}\">{}</failure>\n    </testcase>\n",
                escape(&v.rule_id),
                v.severity.name(),
                escape(&format!("{} @ {}", v.rule_id, super::locus(v))),
                escape(&violation_line(v))
            ));
        } else {
            out.push_str(&format!(
                "    <testcase classname=\"{class}\" name=\"regression: {}\">\n      <system-out>{}</system-out>\n    </testcase>\n",
                escape(&v.rule_id),
                escape(&violation_line(v))
            ));
        }
    }
    for v in &d.fixes {
        out.push_str(&format!(
            "    <testcase classname=\"{class}\" name=\"fix: {}\">\n      <system-out>{}</system-out>\n    </testcase>\n",
            escape(&v.rule_id),
            escape(&violation_line(v))
        ));
    }
    if d.regressions.is_empty() && d.fixes.is_empty() {
        out.push_str(&format!(
            "    <testcase classname=\"{class}\" name=\"no change in policy outcomes\"/>\n"
        ));
    }
    out.push_str("  </testsuite>\n");
    (out, tests, failures)
}

#[cfg(test)]
mod tests {
    use veer_contract::policy::RuleKind;
    use veer_contract::policy::Severity;
    use veer_contract::policy::Violation;
    use veer_policy::diff_violations;

    fn v(rule: &str, pair: Option<usize>) -> Violation {
        Violation {
            rule_id: rule.into(),
            kind: RuleKind::NoCall,
            severity: Severity::Error,
            session: None,
            pair_index: pair,
            detail: "forbidden tool `rm` called <now>".into(),
            tags: Vec::new(),
            status: None,
        }
    }

    #[test]
    fn diff_suite_lists_regressions_and_fixes() {
        let d = diff_violations(vec![v("a", Some(0))], vec![v("b", Some(1))]);
        let gate = veer_contract::verdict::Verdict::decide(
            veer_base::Level::Minor,
            vec![veer_engine::verdict::policy_signal(&d.regressions[0], true)],
        );
        let (s, tests, failures) = super::diff_suite("base vs cand", &d, &gate);
        assert_eq!((tests, failures), (2, 1));
        assert!(s.contains("tests=\"2\" failures=\"1\""), "{s}");
        let off = veer_contract::verdict::Verdict::decide(veer_base::Level::None, Vec::new());
        let (s, _, failures) = super::diff_suite("base vs cand", &d, &off);
        assert_eq!(failures, 0, "{s}");
        assert!(s.contains("name=\"regression: b\""), "{s}");
        assert!(s.contains("name=\"fix: a\""), "{s}");
        assert!(s.contains("&lt;now&gt;"), "{s}");
        let same = diff_violations(vec![], vec![]);
        assert!(super::diff_suite("x", &same, &off)
            .0
            .contains("no change in policy outcomes"));
    }
}
