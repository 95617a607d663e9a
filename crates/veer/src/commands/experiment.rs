//! `veer experiment pair` and `veer experiment analyze` (spec `experiment.md` §6–§11): read the
//! traces, hand them to `veer-experiment`, pick a printer. Inputs that make an analysis
//! impossible (no baseline, nothing to compare, an unreadable clean trace) are exit 2 before
//! anything is measured; a perturbed run that cannot be read only makes its own pair an
//! `error`, the other pairs are complete and the exit code is 0.

use crate::cli::{
    ExperimentAnalyzeArgs, ExperimentAnalyzeFormat, ExperimentCommand, ExperimentPairArgs,
    ExperimentPairFormat,
};
use crate::error::{CliError, EXIT_OK};
use crate::output::{colour_enabled, emit, print_warnings};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use veer_contract::experiment::ExperimentReport;
use veer_engine::experiment::{PairOptions, RunInput, TraceExperiment};
use veer_report::experiment::summary::floor_unmeasured_for_external;
use veer_report::style::Style;
use veer_trace::{Document, ReadOptions, Trace};

// File-name endings of traces in an experiment directory, longest first; the perturbation
// name is the file name without one of them (`experiment run` writes the same layout).
use super::experiment_run::TRACE_EXTENSIONS;

/// How an experiment directory is laid out (for hints).
const LAYOUT: &str = "an experiment directory holds baseline.<ext> (the clean run), \
     perturbed/<name>.<ext> (one trace per perturbation) and optionally reruns/<any>.<ext> \
     (clean re-runs for the noise floor); <ext> is .agentlog, .agentlog.gz, .jsonl or .json";

/// Runs `veer experiment …`.
pub fn run(cmd: &ExperimentCommand) -> Result<u8, CliError> {
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

fn pair(args: &ExperimentPairArgs) -> Result<u8, CliError> {
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
    let text = match args.format {
        ExperimentPairFormat::Terminal => veer_report::experiment::terminal::render_pair(
            &report,
            Style {
                colour: colour_enabled(args.out.output.is_some()),
            },
        ),
        ExperimentPairFormat::Json => veer_report::json::to_json(&report),
        ExperimentPairFormat::Html => veer_report::html::experiment::render_pair(&report),
    };
    emit(&text, args.out.output.as_deref())?;
    Ok(EXIT_OK)
}

fn analyze(args: &ExperimentAnalyzeArgs) -> Result<u8, CliError> {
    let read = args.read.options();
    let include_traces = args.format == ExperimentAnalyzeFormat::Json;
    // The HTML page draws each pair's event alignment.
    let include_alignment = args.format == ExperimentAnalyzeFormat::Html;
    let (report, from_directory) = if args.input.is_dir() {
        (
            directory(
                &args.input,
                &read,
                args.expected.clone(),
                include_traces,
                include_alignment,
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
    let text = match args.format {
        ExperimentAnalyzeFormat::Terminal => veer_report::experiment::terminal::render_experiment(
            &report,
            Style {
                colour: colour_enabled(to_file),
            },
        ),
        ExperimentAnalyzeFormat::Json => veer_report::experiment::json::render(&report),
        ExperimentAnalyzeFormat::Markdown => veer_report::experiment::markdown::render(&report),
        ExperimentAnalyzeFormat::Csv => veer_report::experiment::csv::render(&report),
        ExperimentAnalyzeFormat::Html => veer_report::html::experiment::render(&report),
    };
    emit(&text, args.out.output.as_deref())?;
    Ok(EXIT_OK)
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

/// The name of a trace file without its trace extension (`None` when it has none).
fn stem(name: &str) -> Option<&str> {
    TRACE_EXTENSIONS
        .iter()
        .find_map(|ext| name.strip_suffix(ext))
        .filter(|s| !s.is_empty())
}

/// The trace files directly in `dir` (sorted by name), as (name, path); hidden entries are
/// skipped, subdirectories reported on stderr and skipped.
fn trace_files_in(dir: &Path) -> Result<Vec<(String, PathBuf)>, CliError> {
    let cannot = |e: std::io::Error| {
        CliError::input(format!("{}: cannot read directory: {e}", dir.display()))
            .hint("check that the directory exists and is readable")
    };
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(cannot)? {
        let entry = entry.map_err(cannot)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        // Symlinks are followed; what is neither a directory nor a regular file (a FIFO, a
        // socket, a device, a dangling link) is never opened.
        let meta = std::fs::metadata(&path).ok();
        if meta.as_ref().is_some_and(std::fs::Metadata::is_dir) {
            if dir
                .file_name()
                .is_some_and(|n| n == "perturbed" || n == "reruns")
            {
                warn(&format!(
                    "{}: subdirectory ignored (runs are files directly in {})",
                    path.display(),
                    dir.display()
                ));
            }
            continue;
        }
        if stem(&name).is_none() {
            continue;
        }
        if meta.as_ref().is_some_and(std::fs::Metadata::is_file) {
            out.push((name, path));
        } else {
            warn(&format!(
                "{}: skipped: not a regular file (only regular files are read from a directory)",
                path.display()
            ));
        }
    }
    out.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    Ok(out)
}

/// Loads the runs of a `perturbed/` or `reruns/` directory; a run that cannot be read keeps
/// its error (the library turns it into an `error` pair or an `errors` line).
fn runs(dir: &Path, sub: &str, read: &ReadOptions) -> Result<Vec<RunInput>, CliError> {
    let mut out: Vec<RunInput> = Vec::new();
    for (name, path) in trace_files_in(&dir.join(sub))? {
        let stem = stem(&name).unwrap_or(&name).to_string();
        if let Some(other) = out.iter().find(|r| r.name == stem) {
            return Err(CliError::input(format!(
                "{}: two runs named \"{stem}\": {} and {sub}/{name}",
                dir.display(),
                other.file
            ))
            .hint(
                "keep one trace file per name (the name is the file name without its extension)",
            ));
        }
        let trace = veer_trace::load_trace(&path, read);
        if let Ok(t) = &trace {
            print_warnings(&t.warnings);
        }
        out.push(RunInput {
            name: stem,
            file: format!("{sub}/{name}"),
            trace,
        });
    }
    Ok(out)
}

/// An experiment directory: baseline.*, reruns/* (optional), perturbed/<name>.*.
fn directory(
    dir: &Path,
    read: &ReadOptions,
    expected: Option<String>,
    include_traces: bool,
    include_alignment: bool,
) -> Result<ExperimentReport, CliError> {
    let source = dir.display().to_string();
    // A directory without a single trace anywhere is named as such.
    veer_trace::load::trace_files(dir).map_err(|e| CliError::from(e).hint(LAYOUT))?;
    let baselines: Vec<(String, PathBuf)> = trace_files_in(dir)?
        .into_iter()
        .filter(|(name, _)| stem(name) == Some("baseline"))
        .collect();
    let (base_name, base_path) = match baselines.as_slice() {
        [] => {
            return Err(CliError::input(format!(
                "{source}: no baseline trace (expected {source}/baseline.agentlog, \
                 baseline.agentlog.gz, baseline.jsonl or baseline.json)"
            ))
            .hint(LAYOUT))
        }
        [one] => one.clone(),
        many => {
            let names: Vec<&str> = many.iter().map(|(n, _)| n.as_str()).collect();
            return Err(CliError::input(format!(
                "{source}: more than one baseline trace: {}",
                names.join(", ")
            ))
            .hint("keep exactly one baseline.<ext>"));
        }
    };
    let baseline = veer_trace::load_trace(&base_path, read)?;
    print_warnings(&baseline.warnings);

    let perturbed_dir = dir.join("perturbed");
    if !perturbed_dir.is_dir() {
        return Err(CliError::input(format!(
            "{source}: no perturbed/ directory: nothing to compare with the baseline"
        ))
        .hint(LAYOUT));
    }
    let perturbed = runs(dir, "perturbed", read)?;
    if perturbed.is_empty() {
        return Err(CliError::input(format!(
            "{}: no perturbed traces: nothing to compare with the baseline",
            perturbed_dir.display()
        ))
        .hint(LAYOUT));
    }
    let reruns = if dir.join("reruns").is_dir() {
        runs(dir, "reruns", read)?
    } else {
        Vec::new()
    };
    let item_id = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .or_else(|| {
            dir.canonicalize()
                .ok()
                .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        })
        .unwrap_or_else(|| source.clone());
    let exp = TraceExperiment {
        source,
        item_id,
        baseline: (base_name, baseline),
        reruns,
        perturbed,
        expected_answer: expected,
        include_traces,
        include_alignment,
    };
    veer_engine::experiment::analyze_traces(&exp)
}
