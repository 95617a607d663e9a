//! The `veer gate` report: what the gate saw in a saved diff report and what it decided.

use crate::style::Style;
use veer_base::Level;
use veer_contract::gate::GateReport;

/// A short summary for a terminal.
pub fn terminal(r: &GateReport, style: Style) -> String {
    let mut out = style.heading(&r.report);
    out.push('\n');
    out.push_str(&format!("  worst axis severity: {}\n", r.worst_axis.name()));
    for t in &r.tripped {
        out.push_str(&format!("  {}\n", style.bad(&format!("tripped: {t}"))));
    }
    if r.gate.errors > 0 {
        out.push_str(&format!(
            "  {} (error rows of the report; each counts as a failure)\n",
            style.bad(&super::unreadable(r.gate.errors, "trace pair"))
        ));
    }
    if r.fingerprint != Level::None {
        out.push_str(&format!(
            "  behaviour fingerprint: {} (a powered rejection of the joint test)\n",
            r.fingerprint.name()
        ));
    }
    match r.policy_source.as_ref() {
        "none" => out.push_str("  policy: not part of this report\n"),
        source => {
            out.push_str(&format!(
                "  policy regressions ({source}): {}\n",
                r.regressions.len()
            ));
            for v in &r.regressions {
                out.push_str(&format!(
                    "    {}\n",
                    style.bad(&format!(
                        "\u{2717} {}: {}",
                        v.trace,
                        super::violation_line(&v.violation)
                    ))
                ));
            }
        }
    }
    out
}

/// The report as JSON.
pub fn json(r: &GateReport) -> String {
    crate::json::to_json(r)
}
