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
        "rates" => out.push_str(
            "  policy rules: compared as violation rates per case (a tripped rule is listed above)\n",
        ),
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

/// Formats `veer gate` offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum GateFormat {
    /// A short summary.
    Terminal,
    /// JSON: {schema_version, report, worst_axis, fingerprint (when it counts), policy_source,
    /// regressions, gate} (`veer schema gate`).
    Json,
}

impl crate::printer::OutputFormat<GateReport> for GateFormat {
    fn printer(self, style: Style) -> Box<dyn crate::printer::Printer<GateReport>> {
        match self {
            GateFormat::Terminal => Box::new(move |r: &GateReport| terminal(r, style)),
            GateFormat::Json => Box::new(json),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use veer_contract::gate::GATE_SCHEMA_VERSION;
    use veer_contract::policy::Gate;

    fn report(source: &'static str, tripped: Vec<String>) -> GateReport {
        GateReport {
            schema_version: GATE_SCHEMA_VERSION.into(),
            report: "r.json".into(),
            worst_axis: Level::None,
            fingerprint: Level::None,
            policy_source: source.into(),
            regressions: Vec::new(),
            tripped,
            gate: Gate::decide(Level::Minor, Level::Severe),
        }
    }

    #[test]
    fn a_trials_report_says_its_rules_are_rates_not_zero_regressions() {
        let style = Style { colour: false };
        let text = terminal(
            &report("rates", vec!["rule r1: 3 of 4 cases".into()]),
            style,
        );
        assert!(text.contains("tripped: rule r1: 3 of 4 cases"), "{text}");
        assert!(
            text.contains("compared as violation rates per case"),
            "{text}"
        );
        assert!(!text.contains("policy regressions"), "{text}");
        let pair = terminal(&report("report", Vec::new()), style);
        assert!(pair.contains("policy regressions (report): 0"), "{pair}");
    }

    #[test]
    fn the_format_picks_the_printer() {
        use crate::printer::OutputFormat;
        let r = report("none", Vec::new());
        let style = Style { colour: false };
        assert_eq!(GateFormat::Json.print(&r, style), json(&r));
        assert_eq!(GateFormat::Terminal.print(&r, style), terminal(&r, style));
    }
}
