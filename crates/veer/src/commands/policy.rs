//! `veer policy validate FILE`: load a policy strictly and report every problem (exit 2) or
//! confirm it is valid (exit 0). `veer policy suggest --from REPORT`: rules written from a
//! regression (the work is `veer_engine::suggest`, the text `veer_report::policy::suggest`).

use crate::cli::{PolicySuggestArgs, PolicyValidateArgs};
use crate::error::{CliError, Exit};
use crate::output::emit;
use veer_engine::policy::{Policy, PolicyError};

/// A policy load error as a CLI error: the first problem as the message, the others as
/// further lines (each carries its own hint), exit 2.
pub fn policy_error(e: &PolicyError) -> CliError {
    veer_engine::policy::load_error(e)
}

/// Loads a policy, printing its load warnings to stderr.
pub fn load(path: &std::path::Path) -> Result<Policy, CliError> {
    let policy = veer_engine::policy::load(path).map_err(|e| policy_error(&e))?;
    for w in &policy.warnings {
        crate::output::diag::warn(w);
    }
    Ok(policy)
}

/// Runs `veer policy validate`: the file loads; with `--against`, every rule can fire on the
/// traces named (exit 1 naming each one that cannot).
pub fn validate(args: &PolicyValidateArgs) -> Result<Exit, CliError> {
    let (validation, warnings) =
        veer_engine::policy::validate(&args.file, &args.against, &args.read.options())?;
    for w in &warnings {
        crate::output::diag::warn(w);
    }
    for u in validation.against.iter().flat_map(|a| &a.unreadable) {
        crate::output::diag::warn(format!(
            "{}: skipped, not readable as a trace: {}",
            u.file, u.error
        ));
    }
    emit(&veer_report::policy::validation::render(&validation), None)?;
    Ok(if validation.all_can_fire() {
        Exit::done()
    } else {
        Exit::Found
    })
}

/// Runs `veer policy suggest --from REPORT`: the proposed rules as a policy file (or JSON, or
/// a table). Exit 0 whether or not a rule was kept (the summary says which).
pub fn suggest(args: &PolicySuggestArgs) -> Result<Exit, CliError> {
    use veer_report::printer::OutputFormat as _;
    if let Some(out) = &args.out.output {
        if out.exists() && !args.force && out.is_file() {
            return Err(CliError::input(format!(
                "{}: already exists; veer does not replace a policy file you own",
                out.display()
            ))
            .hint("write to a new file and merge the rules you want, or pass --force"));
        }
    }
    let request = veer_engine::suggest::SuggestRequest {
        report: args.from.clone(),
        max_report_bytes: args.max_report_bytes,
        baseline: args.baseline.clone(),
        candidate: args.candidate.clone(),
        cases: args.cases.clone(),
        read: args.read.options(),
    };
    let report = veer_engine::suggest::suggest_from(&request)?;
    if args.format != crate::cli::SuggestFormat::Terminal {
        for w in &report.warnings {
            crate::output::diag::warn(w);
        }
    }
    let colour = crate::output::colour_enabled(args.out.output.is_some());
    let style = veer_report::style::Style { colour };
    emit(
        &args.format.print(&report, style),
        args.out.output.as_deref(),
    )?;
    if args.format == crate::cli::SuggestFormat::Yaml {
        let kept = report.kept().count();
        crate::output::diag::say(
            "",
            format!(
                "{kept} rule{} kept of {} proposed",
                if kept == 1 { "" } else { "s" },
                report.rules.len()
            ),
        );
    }
    Ok(Exit::done())
}
