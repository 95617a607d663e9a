//! Markdown rendering of `veer check` and of the policy-diff section, for pull-request
//! comments.

use super::{locus, CheckReport};
use veer_contract::policy::PolicyDiff;
use veer_contract::policy::Violation;

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn table(vs: &[Violation], out: &mut String) {
    out.push_str("| severity | rule | kind | where | detail |\n|---|---|---|---|---|\n");
    for v in vs {
        out.push_str(&format!(
            "| {} | `{}` | {} | {} | {} |\n",
            v.severity.name(),
            cell(&v.rule_id),
            v.kind.name(),
            locus(v),
            cell(&v.detail)
        ));
    }
}

/// The live-policy decisions of both sides of a diff: a count per side and one table row per
/// decision (`level` is the heading prefix, e.g. `###`).
pub(crate) fn live_section(e: &veer_contract::policy::Enforcement, level: &str) -> String {
    use veer_contract::policy::Enforcement;
    let mut out = format!(
        "{level} Live policy (enforced while recording)\n\nBaseline: {}. Candidate: {}.\n\n",
        Enforcement::count(&e.baseline),
        Enforcement::count(&e.candidate)
    );
    if e.baseline.is_empty() && e.candidate.is_empty() {
        return out;
    }
    out.push_str(
        "| side | action | severity | rule | where | detail |\n|---|---|---|---|---|---|\n",
    );
    for (side, ds) in [("baseline", &e.baseline), ("candidate", &e.candidate)] {
        for d in ds {
            let place = d
                .pair_index
                .map_or("trace".to_string(), |i| format!("turn #{i}"));
            out.push_str(&format!(
                "| {side} | {}{} | {} | `{}` | {place} | {} |\n",
                if d.blocked { "\u{26d4} " } else { "" },
                d.action.name(),
                cell(&d.severity),
                cell(&d.rule_id),
                cell(&d.detail)
            ));
        }
    }
    out.push('\n');
    out
}

/// The `veer check` report as Markdown.
pub fn check(r: &CheckReport) -> String {
    let mut out = format!("## Policy check \u{2014} `{}`\n\n", cell(&r.policy));
    for t in &r.traces {
        out.push_str(&format!("### `{}`\n\n", cell(&t.trace)));
        if t.violations.is_empty() {
            out.push_str("No violations.\n\n");
        } else {
            table(&t.violations, &mut out);
            out.push('\n');
        }
    }
    if !r.errors.is_empty() {
        out.push_str(&format!(
            "### \u{274c} {}\n\nNot checked; each counts as a failure of the gate.\n\n| trace | error | hint |\n|---|---|---|\n",
            super::unreadable(r.errors.len(), "trace")
        ));
        for e in &r.errors {
            out.push_str(&format!(
                "| `{}` | {} | {} |\n",
                cell(&e.trace),
                cell(&e.error),
                cell(e.hint.as_deref().unwrap_or(""))
            ));
        }
        out.push('\n');
    }
    out.push_str(&format!(
        "**Gate:** {} (worst {}, fail on {})\n",
        if r.gate.tripped {
            "\u{274c} tripped"
        } else if r.gate.errors_without_gate() {
            "\u{274c} incomplete"
        } else {
            "\u{2705} passed"
        },
        r.gate.worst.name(),
        r.gate.fail_on.threshold_name()
    ));
    out
}

/// The policy-diff section as Markdown (`level` is the heading prefix, e.g. `###`).
pub(crate) fn diff_section(d: &PolicyDiff, level: &str) -> String {
    let mut out = format!(
        "{level} Policy\n\n{} baseline violation(s), {} candidate violation(s)\n\n",
        d.baseline_violations.len(),
        d.candidate_violations.len()
    );
    if d.regressions.is_empty() && d.fixes.is_empty() {
        out.push_str("No change in policy outcomes.\n\n");
        return out;
    }
    if !d.regressions.is_empty() {
        out.push_str(&format!("**Regressions ({})**\n\n", d.regressions.len()));
        table(&d.regressions, &mut out);
        out.push('\n');
    }
    if !d.fixes.is_empty() {
        out.push_str(&format!("**Fixes ({})**\n\n", d.fixes.len()));
        table(&d.fixes, &mut out);
        out.push('\n');
    }
    out
}
