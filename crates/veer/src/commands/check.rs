//! `veer check TRACE --policy FILE`: the policy's violations on one trace (or on every trace
//! of a directory), the full report first, then one gate line on stderr; exit 1 when the gate
//! trips, 2 on bad input. In a directory a trace that cannot be read is an error row: the
//! others are still checked, and it fails the gate (exit 1), or with `--fail-on never` ends
//! the run with exit 2 once the report is written.

use crate::cli::{CheckArgs, CheckFormat};
use crate::error::{CliError, Exit};
use crate::output::{colour_enabled, emit, print_skipped, print_warnings};
use veer_contract::check::TraceFailure;
use veer_report::printer::OutputFormat as _;
use veer_report::style::Style;
use veer_trace::{Document, Trace};

/// One trace to check: (name shown in the report, file path, trace).
type Named = (String, String, Trace);

/// The traces named by `TRACE`, each with the name shown in the report, whether `TRACE` is a
/// directory, and the traces of a directory that could not be read (in path order). A single
/// file must load.
fn read_traces(args: &CheckArgs) -> Result<(Vec<Named>, bool, Vec<TraceFailure>), CliError> {
    let options = args.read.options();
    if args.trace.is_dir() {
        let mut out = Vec::new();
        let mut failures = Vec::new();
        let (entries, skipped) = veer_trace::load_directory(&args.trace, &options)?;
        print_skipped(&skipped);
        for entry in entries {
            let path = args.trace.join(&entry.relative).display().to_string();
            match entry.trace {
                Ok(t) => out.push((entry.relative, path, t)),
                Err(e) => failures.push(TraceFailure {
                    trace: entry.relative,
                    file: path,
                    line: e.line,
                    error: e.to_string(),
                    hint: e.hint,
                }),
            }
        }
        return Ok((out, true, failures));
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
    Ok((traces, several, Vec::new()))
}

/// Runs `veer check`.
pub fn run(args: &CheckArgs) -> Result<Exit, CliError> {
    let Some(policy_path) = &args.policy else {
        return Err(CliError::input("veer check needs a policy: none was given")
            .hint("pass --policy FILE, or set `policy = \"policy.yaml\"` in veer.toml"));
    };
    let policy = super::policy::load(policy_path)?;
    let (traces, directory, failures) = read_traces(args)?;
    for (_, _, t) in &traces {
        print_warnings(&t.warnings);
    }
    let named: Vec<veer_engine::check::NamedTrace<'_>> = traces
        .iter()
        .map(|(name, path, t)| (name.clone(), path.clone(), t))
        .collect();
    let (report, warnings) = veer_engine::check::check(
        policy_path.display().to_string(),
        &policy,
        &named,
        directory,
        args.fail_on,
    );
    let mut report = report.with_errors(failures);
    // `--allow-prevented`: calls the live policy blocked stay in the report but do not gate.
    let counted: Vec<Vec<veer_contract::policy::Violation>> = report
        .traces
        .iter()
        .map(|t| {
            t.violations
                .iter()
                .filter(|v| !args.allow_prevented || v.status.is_none())
                .cloned()
                .collect()
        })
        .collect();
    let verdict = veer_engine::verdict::check_verdict(
        args.fail_on,
        report
            .traces
            .iter()
            .zip(&counted)
            .map(|(t, v)| (Some(t.trace.as_str()), v.as_slice())),
        report
            .errors
            .iter()
            .map(|e| (e.trace.as_str(), e.error.as_str())),
    );
    report.gate = verdict.gate();
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
