//! Terminal rendering: the `veer check` listing and the policy-diff section (spec `policy.md`
//! §9 text rendering, with `session <s> · ` in session scope).

use super::{violation_line, CheckReport};
use crate::style::Style;
use veer_contract::policy::PolicyDiff;
use veer_contract::policy::Severity;
use veer_contract::policy::Violation;

fn styled(v: &Violation, style: Style) -> String {
    let line = violation_line(v);
    match v.severity {
        Severity::Error | Severity::Critical => style.bad(&line),
        Severity::Warning => style.warn(&line),
        Severity::Info => style.dim(&line),
    }
}

/// The `veer check` report for a terminal.
pub fn check(r: &CheckReport, style: Style) -> String {
    let mut out = String::new();
    for t in &r.traces {
        out.push_str(&style.heading(&format!(
            "{}  (policy {}, {} rule{})",
            t.trace,
            r.policy,
            r.rules.len(),
            if r.rules.len() == 1 { "" } else { "s" }
        )));
        out.push('\n');
        if t.violations.is_empty() {
            out.push_str(&style.good("  no violations"));
            out.push('\n');
            continue;
        }
        for v in &t.violations {
            out.push_str("  ");
            out.push_str(&styled(v, style));
            out.push('\n');
        }
        out.push_str(&format!("  {} violation(s)\n", t.violations.len()));
    }
    if !r.errors.is_empty() {
        out.push_str(&style.heading(&super::unreadable(r.errors.len(), "trace")));
        out.push_str(" (not checked; each counts as a failure of the gate)\n");
        for e in &r.errors {
            out.push_str(&format!(
                "  {}\n",
                style.bad(&format!("\u{2717} {}", e.error))
            ));
            if let Some(h) = &e.hint {
                out.push_str(&format!("    hint: {h}\n"));
            }
        }
    }
    out
}

/// The policy-diff section of a diff report.
pub(crate) fn diff_section(d: &PolicyDiff, style: Style) -> String {
    let mut out = style.heading(&format!(
        "Policy diff \u{2014} {} baseline violation(s), {} candidate violation(s)",
        d.baseline_violations.len(),
        d.candidate_violations.len()
    ));
    out.push('\n');
    if d.regressions.is_empty() && d.fixes.is_empty() {
        out.push_str("  (no change in policy outcomes)\n");
        return out;
    }
    if !d.regressions.is_empty() {
        out.push_str(&format!("  regressions ({}):\n", d.regressions.len()));
        for v in &d.regressions {
            out.push_str(&format!(
                "    {}\n",
                style.bad(&format!("\u{2717} {}", violation_line(v)))
            ));
        }
    }
    if !d.fixes.is_empty() {
        out.push_str(&format!("  fixes ({}):\n", d.fixes.len()));
        for v in &d.fixes {
            out.push_str(&format!(
                "    {}\n",
                style.good(&format!("\u{2713} {}", violation_line(v)))
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use veer_contract::policy::RuleKind;
    use veer_contract::policy::Severity;
    use veer_contract::policy::Violation;
    use veer_policy::diff_violations;

    fn v(rule: &str, session: Option<usize>, pair: Option<usize>) -> Violation {
        Violation {
            rule_id: rule.into(),
            kind: RuleKind::MustCallBefore,
            severity: Severity::Error,
            session,
            pair_index: pair,
            detail: "d".into(),
            tags: Vec::new(),
            status: None,
        }
    }

    #[test]
    fn diff_section_follows_the_reference_template() {
        let style = crate::style::Style { colour: false };
        let d = diff_violations(vec![], vec![v("r", None, Some(0)), v("s", Some(2), None)]);
        assert_eq!(
            super::diff_section(&d, style),
            "Policy diff \u{2014} 0 baseline violation(s), 2 candidate violation(s)\n  regressions (2):\n    \u{2717} [error] r @ turn #0: d\n    \u{2717} [error] s @ session 2 \u{b7} trace: d\n"
        );
        let none = diff_violations(vec![v("r", None, Some(0))], vec![v("r", None, Some(0))]);
        assert!(super::diff_section(&none, style).ends_with("  (no change in policy outcomes)\n"));
    }
}
