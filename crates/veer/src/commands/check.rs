//! `veer check TRACE --policy FILE`: the policy's violations on one trace (or on every trace
//! of a directory), the full report first, then one gate line on stderr; exit 1 when the gate
//! trips, 2 on bad input. In a directory a trace that cannot be read is an error row: the
//! others are still checked, and it fails the gate (exit 1), or with `--fail-on never` ends
//! the run with exit 2 once the report is written.

use crate::cli::{CheckArgs, CheckFormat};
use crate::error::{CliError, Exit};
use crate::output::{colour_enabled, emit, print_skipped, print_warnings};
use veer_report::printer::OutputFormat as _;
use veer_report::style::Style;

/// Runs `veer check`.
pub fn run(args: &CheckArgs) -> Result<Exit, CliError> {
    let Some(policy_path) = &args.policy else {
        return Err(CliError::input("veer check needs a policy: none was given")
            .hint("pass --policy FILE, or set `policy = \"policy.yaml\"` in veer.toml"));
    };
    let policy = super::policy::load(policy_path)?;
    let inputs = veer_engine::check::read_traces(&args.trace, &args.read.options())?;
    print_skipped(&inputs.skipped);
    for (_, _, t) in &inputs.traces {
        print_warnings(&t.warnings);
    }
    let (report, warnings) = veer_engine::check::check(
        policy_path.display().to_string(),
        &policy,
        &inputs.named(),
        inputs.directory,
        args.fail_on,
    );
    // `--allow-prevented`: calls the live policy blocked stay in the report but do not gate.
    let (report, verdict) =
        veer_engine::check::judge(report, inputs.failures, args.allow_prevented, args.fail_on);
    for w in &warnings {
        crate::output::diag::warn(w);
    }
    let colour = colour_enabled(args.out.output.is_some());
    let page = veer_report::policy::CheckPage { report, verdict };
    emit(
        &args.format.print(&page, Style { colour }),
        args.out.output.as_deref(),
    )?;
    let veer_report::policy::CheckPage { report, verdict } = page;
    if args.format == CheckFormat::Github {
        if let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()) {
            let markdown = veer_report::policy::markdown::check(&report);
            crate::output::append_step_summary(std::path::Path::new(&path), &markdown)?;
        }
    }
    for e in &report.errors {
        crate::output::diag::say("error", &e.error);
        if let Some(h) = &e.hint {
            crate::output::diag::say("hint", h);
        }
    }
    crate::output::diag::say("", veer_report::policy::gate_line(&report.gate));
    Ok(Exit::Verdict(verdict))
}
