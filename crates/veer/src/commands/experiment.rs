//! `veer experiment pair` and `veer experiment analyze` (spec `experiment.md` §6–§11): read the
//! traces (an experiment directory through the engine's layout reader), hand them to the
//! engine, pick a printer. Inputs that make an analysis
//! impossible (no baseline, nothing to compare, an unreadable clean trace) are exit 2 before
//! anything is measured; a perturbed run that cannot be read only makes its own pair an
//! `error`, the other pairs are complete and the exit code is 0.

use crate::cli::{
    ExperimentAnalyzeArgs, ExperimentAnalyzeFormat, ExperimentCommand, ExperimentPairArgs,
    ExperimentPairFormat,
};
use crate::error::{CliError, Exit};
use crate::output::{colour_enabled, emit, print_warnings};
use serde_json::{Map, Value};
use std::path::Path;
use veer_contract::experiment::ExperimentReport;
use veer_engine::experiment::layout::LAYOUT;
use veer_engine::experiment::PairOptions;
use veer_report::experiment::summary::floor_unmeasured_for_external;
use veer_report::printer::OutputFormat as _;
use veer_report::style::Style;
use veer_trace::{Document, ReadOptions, Trace};

/// Runs `veer experiment …`.
pub fn run(cmd: &ExperimentCommand) -> Result<Exit, CliError> {
    match cmd {
        ExperimentCommand::Pair(a) => pair(a),
        ExperimentCommand::Analyze(a) => analyze(a),
        ExperimentCommand::Perturb(a) => super::perturb::run(a),
        ExperimentCommand::Run(a) => super::experiment_run::run(a),
    }
}

fn warn(line: &str) {
    crate::output::diag::warn(line);
}

/// Loads a file that must hold one trace, naming the right command when it holds more.
fn load_one(path: &Path, read: &ReadOptions) -> Result<Trace, CliError> {
    match veer_trace::load_file(path, read)? {
        Document::Trace(t) => Ok(t),
        Document::AnalyzerCase(_) => Err(CliError::input(format!(
            "{}: a traxr analyzer case holds both traces of a pair, not one trace",
            path.display()
        ))
        .hint(format!(
            "give it alone: veer experiment pair {}",
            path.display()
        ))),
        Document::Results(_) => Err(CliError::input(format!(
            "{}: a traxr experiment results file holds a whole experiment, not one trace",
            path.display()
        ))
        .hint(format!("use: veer experiment analyze {}", path.display()))),
    }
}

fn pair(args: &ExperimentPairArgs) -> Result<Exit, CliError> {
    let read = args.read.options();
    let (clean, perturbed, case_task) = match &args.perturbed {
        Some(p) => (load_one(&args.clean, &read)?, load_one(p, &read)?, None),
        None => match veer_trace::load_file(&args.clean, &read)? {
            Document::AnalyzerCase(c) => {
                let c = *c;
                (c.clean, c.perturbed, c.task_id)
            }
            Document::Trace(_) => {
                return Err(CliError::input(format!(
                    "missing PERTURBED: {} is the clean trace; give the perturbed trace too",
                    args.clean.display()
                ))
                .hint("veer experiment pair CLEAN PERTURBED"))
            }
            Document::Results(_) => {
                return Err(CliError::input(format!(
                    "{}: a traxr experiment results file holds a whole experiment, not a pair",
                    args.clean.display()
                ))
                .hint(format!(
                    "use: veer experiment analyze {}",
                    args.clean.display()
                )))
            }
        },
    };
    let reruns = args
        .reruns
        .iter()
        .map(|p| load_one(p, &read))
        .collect::<Result<Vec<Trace>, CliError>>()?;
    for t in [&clean, &perturbed].into_iter().chain(&reruns) {
        print_warnings(&t.warnings);
    }
    let options = PairOptions {
        task_id: args.task_id.clone().or(case_task),
        expected_answer: args.expected.clone(),
        // The HTML page draws the event alignment, which --detail carries.
        detail: args.detail || args.format == ExperimentPairFormat::Html,
    };
    let report = veer_engine::experiment::pair_report(&clean, &perturbed, &reruns, &options);
    if report.noise_floor.is_none() && report.agent_kind == "external" {
        warn(
            "noise floor unmeasured: without clean re-runs (--rerun FILE) divergence below the \
             sampling-noise floor may be reported as contamination",
        );
    }
    let style = Style {
        colour: colour_enabled(args.out.output.is_some()),
    };
    let text = args.format.print(&report, style);
    emit(&text, args.out.output.as_deref())?;
    Ok(Exit::done())
}

fn analyze(args: &ExperimentAnalyzeArgs) -> Result<Exit, CliError> {
    let read = args.read.options();
    let include_traces = args.format == ExperimentAnalyzeFormat::Json;
    // The HTML page draws each pair's event alignment.
    let include_alignment = args.format == ExperimentAnalyzeFormat::Html;
    let (report, from_directory) = if args.input.is_dir() {
        (
            veer_engine::experiment::analyze_traces(
                &veer_engine::experiment::layout::read_directory(
                    &args.input,
                    &read,
                    args.expected.clone(),
                    include_traces,
                    include_alignment,
                    &|w| warn(&w.to_string()),
                )?,
            )?,
            true,
        )
    } else {
        (
            results_file(
                &args.input,
                &read,
                args.expected.as_deref(),
                include_traces,
                include_alignment,
            )?,
            false,
        )
    };
    if floor_unmeasured_for_external(&report) {
        warn(&format!(
            "noise floor unmeasured: no clean re-runs ({}), so divergence below the \
             sampling-noise floor may be reported as contamination",
            if from_directory {
                "add them under reruns/"
            } else {
                "noise_floor_runs is 0"
            }
        ));
    }
    let to_file = args.out.output.is_some();
    if args.format != ExperimentAnalyzeFormat::Terminal || to_file {
        for e in &report.errors {
            warn(e);
        }
    }
    let style = Style {
        colour: colour_enabled(to_file),
    };
    let text = args.format.print(&report, style);
    emit(&text, args.out.output.as_deref())?;
    Ok(Exit::done())
}

/// A traxr results file, every pair re-derived.
fn results_file(
    path: &Path,
    read: &ReadOptions,
    expected: Option<&str>,
    include_traces: bool,
    include_alignment: bool,
) -> Result<ExperimentReport, CliError> {
    let source = path.display().to_string();
    let mut results = match veer_trace::load_file(path, read)? {
        Document::Results(r) => r,
        Document::Trace(_) => {
            return Err(
                CliError::input(format!("{source}: a single trace, not an experiment")).hint(
                    format!(
                "give a traxr results JSON or an experiment directory ({LAYOUT}); to compare two \
                 traces use: veer experiment pair CLEAN PERTURBED"
            ),
                ),
            )
        }
        Document::AnalyzerCase(_) => {
            return Err(CliError::input(format!(
                "{source}: a traxr analyzer case (one pair), not an experiment"
            ))
            .hint(format!("use: veer experiment pair {source}")))
        }
    };
    for (_, t) in &results.traces {
        print_warnings(&t.warnings);
    }
    if let Some(answer) = expected {
        let fingerprint = results
            .raw
            .entry("fingerprint")
            .or_insert_with(|| Value::Object(Map::new()));
        if !fingerprint.is_object() {
            *fingerprint = Value::Object(Map::new());
        }
        if let Value::Object(m) = fingerprint {
            m.insert("expected_answer".into(), Value::String(answer.to_string()));
        }
    }
    veer_engine::experiment::analyze_traxr_results(
        &source,
        &results,
        include_traces,
        include_alignment,
    )
}
