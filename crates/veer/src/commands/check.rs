//! `veer check TRACE --policy FILE`: the policy's violations on one trace (or on every trace
//! of a directory), the full report first, then one gate line on stderr; exit 1 when the gate
//! trips, 2 on bad input.

use crate::cli::{CheckArgs, CheckFormat};
use crate::error::{CliError, EXIT_GATE, EXIT_OK};
use crate::output::{colour_enabled, emit, print_warnings};
use veer_report::policy::CheckReport;
use veer_report::style::Style;
use veer_trace::{Document, Trace};

/// The traces named by `TRACE`, each with the name shown in the report. Every file must load;
/// otherwise the first failure is the error and the others follow it.
/// One trace to check: (name shown in the report, file path, trace).
type Named = (String, String, Trace);

fn read_traces(args: &CheckArgs) -> Result<(Vec<Named>, bool), CliError> {
    let options = args.read.options();
    if args.trace.is_dir() {
        let mut out = Vec::new();
        let mut failures = Vec::new();
        for entry in veer_trace::load_directory(&args.trace, &options)? {
            match entry.trace {
                Ok(t) => {
                    let path = args.trace.join(&entry.relative).display().to_string();
                    out.push((entry.relative, path, t));
                }
                Err(e) => failures.push(e),
            }
        }
        if !failures.is_empty() {
            let count = failures.len();
            let mut error = CliError::from(failures.remove(0));
            error.more.extend(failures.iter().map(ToString::to_string));
            error.message = format!(
                "{count} trace(s) could not be read; first: {}",
                error.message
            );
            return Err(error);
        }
        return Ok((out, true));
    }
    let name = args.trace.display().to_string();
    let traces = match veer_trace::load_file(&args.trace, &options)? {
        Document::Trace(t) => vec![(name.clone(), name, t)],
        Document::Results(r) => r
            .traces
            .into_iter()
            .map(|(label, t)| (format!("{name} [{label}]"), name.clone(), t))
            .collect(),
        Document::AnalyzerCase(c) => vec![
            (format!("{name} [clean]"), name.clone(), c.clean),
            (format!("{name} [perturbed]"), name, c.perturbed),
        ],
    };
    let several = traces.len() > 1;
    Ok((traces, several))
}

/// Runs `veer check`.
pub fn run(args: &CheckArgs) -> Result<u8, CliError> {
    let policy = super::policy::load(&args.policy)?;
    let (traces, directory) = read_traces(args)?;
    for (_, _, t) in &traces {
        print_warnings(&t.warnings);
    }
    let named: Vec<veer_report::policy::NamedTrace<'_>> = traces
        .iter()
        .map(|(name, path, t)| (name.clone(), path.clone(), t))
        .collect();
    let (report, warnings) = CheckReport::build(
        args.policy.display().to_string(),
        &policy,
        &named,
        directory,
        args.fail_on,
    );
    for w in &warnings {
        crate::output::diag::warn(w);
    }
    let colour = colour_enabled(args.out.output.is_some());
    emit(
        &render(&report, args.format, colour),
        args.out.output.as_deref(),
    )?;
    if args.format == CheckFormat::Github {
        if let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()) {
            let markdown = veer_report::policy::markdown::check(&report);
            crate::output::append_step_summary(std::path::Path::new(&path), &markdown)?;
        }
    }
    crate::output::diag::say("", veer_report::policy::gate_line(&report.gate));
    Ok(if report.gate.tripped {
        EXIT_GATE
    } else {
        EXIT_OK
    })
}

/// Renders the check report in one format.
pub fn render(r: &CheckReport, format: CheckFormat, colour: bool) -> String {
    match format {
        CheckFormat::Terminal => veer_report::policy::terminal::check(r, Style { colour }),
        CheckFormat::Json => veer_report::policy::json::check(r),
        CheckFormat::Markdown => veer_report::policy::markdown::check(r),
        CheckFormat::Junit => veer_report::policy::junit::check(r),
        CheckFormat::Html => veer_report::html::check::render(r),
        CheckFormat::Sarif => veer_report::sarif::render(&veer_report::findings::check_findings(r)),
        CheckFormat::Github => {
            veer_report::github::render(&veer_report::findings::check_findings(r), &r.gate)
        }
    }
}
