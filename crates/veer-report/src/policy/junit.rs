//! JUnit XML for `veer check`: one test suite per trace, one test case per rule; a rule with
//! violations is a failure listing them.

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

/// The `veer check` report as JUnit XML.
pub fn check(r: &CheckReport) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let tests = r.rules.len() * r.traces.len();
    let failures: usize = r
        .traces
        .iter()
        .map(|t| {
            r.rules
                .iter()
                .filter(|rule| t.violations.iter().any(|v| v.rule_id == rule.id))
                .count()
        })
        .sum();
    out.push_str(&format!(
        "<testsuites name=\"veer check\" tests=\"{tests}\" failures=\"{failures}\">\n"
    ));
    for t in &r.traces {
        let failed: Vec<&str> = r
            .rules
            .iter()
            .filter(|rule| t.violations.iter().any(|v| v.rule_id == rule.id))
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
            if !lines.is_empty() {
                out.push_str(&format!(
                    "      <failure type=\"{}\" message=\"{} violation(s) of {} ({})\">{}</failure>\n",
                    escape(&rule.severity),
                    lines.len(),
                    escape(&rule.id),
                    escape(&rule.kind),
                    escape(&lines.join("\n"))
                ));
            }
            out.push_str("    </testcase>\n");
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}
