//! `veer gate REPORT.json`: re-applies the merge gate to a saved diff report. The engine reads
//! the report into its type and decides its gate again (`veer_engine::regate`), so the exit is
//! the one `veer diff --fail-on` gives on the same inputs; this module checks the flags and
//! prints the gate report.

use crate::cli::GateArgs;
use crate::error::{CliError, Exit};
use crate::output::{colour_enabled, emit};
use veer_contract::report::{Gated, Report};
use veer_engine::run::RegateSettings;
use veer_report::printer::OutputFormat;
use veer_report::style::Style;

/// Runs `veer gate`.
pub fn run(args: &GateArgs) -> Result<Exit, CliError> {
    let file = args.report.display().to_string();
    let policy = match (&args.policy, &args.baseline, &args.candidate) {
        (Some(p), Some(b), Some(c)) => Some((p.clone(), b.clone(), c.clone())),
        (Some(_), _, _) => {
            return Err(
                CliError::input("--policy requires --baseline and --candidate.")
                    .hint("veer gate report.json --policy P --baseline B --candidate C"),
            )
        }
        _ => None,
    };
    let saved = veer_engine::run::read_saved(&args.report, args.max_report_bytes)?;
    let settings = RegateSettings {
        fail_on: args.fail_on,
        policy,
        read: args.read.options(),
    };
    let outcome = veer_engine::regate(&file, saved, &settings, &|m| crate::output::diag::warn(m))?;
    let Report::Gate(report, gated) = &outcome.report else {
        return Err(CliError::new(
            crate::error::ErrorKind::Internal,
            "re-gating answered with another report",
        ));
    };
    let style = Style {
        colour: colour_enabled(args.out.output.is_some()),
    };
    emit(
        &args.format.print(&**report, style),
        args.out.output.as_deref(),
    )?;
    // A saved report's tool-schema threshold is re-applied with it (docs/tool-schema.md).
    let lines = if *gated == Gated::Trials {
        vec![veer_report::policy::trials_gate_line(
            &outcome.verdict,
            false,
        )]
    } else {
        veer_report::diff::tool_schema::gate_lines(&outcome.verdict, &report.gate)
    };
    for line in lines {
        crate::output::diag::say("", line);
    }
    Ok(Exit::Verdict(outcome.verdict))
}
