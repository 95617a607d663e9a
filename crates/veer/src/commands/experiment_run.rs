//! `veer experiment run`: check every flag and the input (exit 2 before anything runs), plan
//! the runs with `veer-run`, reuse the runs an earlier invocation finished, run the others on
//! a pool of `--jobs` threads (each agent through [`super::experiment_run_agent`]), then build
//! the results from the finished runs, write `DIR/results.json` and print the analysis.
//!
//! Signals: while agents run, SIGINT / SIGTERM / SIGHUP only set a flag: no new run starts,
//! running agents' process groups are stopped, their runs stay unfinished (no marker), and the
//! command ends with 130. The usual interrupt watcher of `output` takes over for the final
//! writes.

use super::experiment_run_agent::{
    cancel_on_signals, check_agent_flags, finished_marker, run_pool, Shared, Slot, MARKER,
};
use crate::cli::{ExperimentAnalyzeFormat, ExperimentRunArgs};
use crate::error::{CliError, Exit};
use crate::output::{colour_enabled, emit};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use veer_base::format::Format;
use veer_engine::perturb::{FileKind, Operator};
use veer_record::ProxySettings;
use veer_report::printer::OutputFormat as _;
use veer_report::style::Style;
use veer_run::{FinishedRun, ResultsOptions, RunMarker, RunPlan, RunRole};
use veer_trace::Trace;

/// Trace file endings an experiment directory may hold (longest first): the engine's, which
/// reads the layout this command writes.
pub use veer_engine::experiment::layout::TRACE_EXTENSIONS;

fn say(line: &str) {
    crate::output::diag::say("veer experiment run", line);
}

fn warn(line: &str) {
    crate::output::diag::warn(line);
}

/// The operators asked for, in matrix order, each once.
fn operators(spec: &str, kind: FileKind, file: &str) -> Result<Vec<Operator>, CliError> {
    let spec = spec.trim();
    if spec == "all" {
        return Ok(kind.operators().to_vec());
    }
    let mut asked = Vec::new();
    for name in spec.split(',').map(str::trim) {
        let op = Operator::from_name(name).ok_or_else(|| {
            CliError::input(format!("--operators: unknown operator `{name}`")).hint(format!(
                "use `all` or a comma-separated list of: {}",
                Operator::all_names().join(", ")
            ))
        })?;
        if !kind.operators().contains(&op) {
            return Err(CliError::input(format!(
                "--operators: `{name}` does not apply to {file} (a {} file)",
                if kind == FileKind::Text {
                    "text"
                } else {
                    "tabular"
                }
            ))
            .hint(format!(
                "operators for this file: {}",
                kind.operators()
                    .iter()
                    .map(|o| o.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        asked.push(op);
    }
    Ok(kind
        .operators()
        .iter()
        .copied()
        .filter(|o| asked.contains(o))
        .collect())
}

/// The extension of a `--trace-from` pattern, which must name a per-run file.
pub fn trace_pattern(pattern: &str) -> Result<&'static str, CliError> {
    if !pattern.contains("{run_dir}") {
        return Err(CliError::input(format!(
            "--trace-from: `{pattern}` does not contain {{run_dir}}"
        ))
        .hint("each run writes its own trace, e.g. --trace-from '{run_dir}/trace.jsonl' (VEER_RUN_DIR and VEER_TRACE tell the agent where)"));
    }
    TRACE_EXTENSIONS
        .iter()
        .copied()
        .find(|e| pattern.ends_with(e))
        .ok_or_else(|| {
            CliError::input(format!(
                "--trace-from: `{pattern}` does not end in a trace extension"
            ))
            .hint("end it in .agentlog, .agentlog.gz, .jsonl, .jsonl.gz or .json (any format veer reads, detected by content)")
        })
}

/// Refuses an `--out` that is, or is inside of, a file the experiment reads.
pub fn refuse_out_holding_input(out: &Path, input: &Path) -> Result<(), CliError> {
    if out.exists() && !out.is_dir() {
        return Err(CliError::input(format!(
            "{}: --out must be a directory, but this is a file",
            out.display()
        ))
        .hint("give a new or an earlier experiment directory, e.g. --out exp/"));
    }
    if let (Ok(o), Ok(i)) = (out.canonicalize(), input.canonicalize()) {
        if i.starts_with(&o) {
            return Err(CliError::input(format!(
                "--out {} holds the input {}",
                out.display(),
                input.display()
            ))
            .hint("the experiment directory is veer's to write; put it beside the input, e.g. --out exp/"));
        }
    }
    Ok(())
}

/// A hash of the settings a finished run depends on.
fn settings_hash(
    args: &ExperimentRunArgs,
    upstreams: Option<&super::upstream::Upstreams>,
) -> String {
    let command: Vec<String> = args
        .command
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let v = serde_json::json!({
        "command": command,
        "trace_from": args.trace_from,
        "answer_from": args.answer_from,
        "openai_upstream": upstreams.map(|u| &u.openai.url),
        "anthropic_upstream": upstreams.map(|u| &u.anthropic.url),
        "timeout": args.timeout,
    });
    veer_run::sha256_hex(v.to_string().as_bytes())
}

/// Everything checked before any run starts.
struct Checked {
    plan: RunPlan,
    shared: Shared,
}

fn check(args: &ExperimentRunArgs, cancel: Arc<AtomicBool>) -> Result<Checked, CliError> {
    let trace_from = check_agent_flags(
        &args.command,
        "veer experiment run --input in.csv --out exp/ -- python agent.py {input}",
        (args.jobs, args.timeout),
        args.trace_from.as_ref(),
    )?;
    let upstreams = super::experiment_run_agent::agent_upstreams(
        args.trace_from.as_ref(),
        (
            args.openai_upstream.as_deref(),
            args.anthropic_upstream.as_deref(),
        ),
        "veer experiment run",
    )?;
    if let Some(p) = &args.answer_from {
        if !p.contains("{run_dir}") {
            return Err(CliError::input(format!(
                "--answer-from: `{p}` does not contain {{run_dir}}"
            ))
            .hint("each run writes its own answer, e.g. --answer-from '{run_dir}/answer.txt'"));
        }
    }
    let file = args.input.display().to_string();
    let name = args
        .input
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let kind = FileKind::from_file_name(&name).ok_or_else(|| {
        CliError::input(format!(
            "{file}: veer has no perturbation operators for this file type"
        ))
        .hint("run experiments on .csv, .tsv, .json (an array of objects), .txt or .md inputs")
    })?;
    let content = super::perturb::read_text(&args.input)?;
    let ops = operators(&args.operators, kind, &file)?;
    refuse_out_holding_input(&args.out, &args.input)?;
    let plan = veer_run::plan(&name, &content, kind, &ops, args.reruns, args.seed)
        .map_err(|e| super::perturb::perturb_error(&file, kind, e))?;
    std::fs::create_dir_all(&args.out)
        .map_err(|e| CliError::output(&args.out.display().to_string(), &e))?;
    let out = args
        .out
        .canonicalize()
        .map_err(|e| CliError::output(&args.out.display().to_string(), &e))?;
    let proxy = upstreams.as_ref().map(|u| ProxySettings {
        openai_upstream: u.openai.url.clone(),
        anthropic_upstream: u.anthropic.url.clone(),
        azure_upstream: u.azure.as_ref().map(|a| a.url.clone()),
        timeout: Duration::from_secs_f64(args.timeout),
        ..ProxySettings::default()
    });
    Ok(Checked {
        shared: Shared {
            out,
            file_name: name,
            tool: "veer experiment run",
            input_names: ("{input}", "VEER_INPUT"),
            command: args.command.clone(),
            proxy,
            trace_from,
            answer_from: args.answer_from.clone(),
            timeout: Duration::from_secs_f64(args.timeout),
            settings_sha256: settings_hash(args, upstreams.as_ref()),
            cancel,
        },
        plan,
    })
}

/// A finished run's trace: empty when it wrote none; an unreadable one is empty and flagged.
pub fn load(out: &Path, marker: &RunMarker) -> (Trace, bool) {
    if marker.trace.is_empty() {
        return (Trace::new(&marker.label, Format::Agentlog), true);
    }
    match veer_trace::load_trace(&out.join(&marker.trace), &Default::default()) {
        Ok(t) => (t, true),
        Err(_) => (Trace::new(&marker.label, Format::Agentlog), false),
    }
}

/// Runs `veer experiment run`.
pub fn run(args: &ExperimentRunArgs) -> Result<Exit, CliError> {
    let cancel = Arc::new(AtomicBool::new(false));
    let Checked { plan, shared } = check(args, cancel.clone())?;
    cancel_on_signals(&cancel)?;
    for s in &plan.skipped {
        say(&format!("{} skipped: {}", s.operator.name(), s.reason));
    }
    for r in &plan.runs {
        if let (RunRole::Perturbed(op), Some(note)) = (r.role, r.note) {
            say(&format!("{} applied: {note}", op.name()));
        }
    }
    let slots: Vec<Slot> = plan.runs.iter().map(Slot::of).collect();
    let mut markers: Vec<Option<RunMarker>> = slots
        .iter()
        .map(|r| {
            if args.fresh {
                None
            } else {
                finished_marker(&shared.out, r, &shared.settings_sha256)
            }
        })
        .collect();
    let reused = markers.iter().filter(|m| m.is_some()).count();
    if reused > 0 {
        say(&format!(
            "reusing {reused} finished run(s) of {} (--fresh redoes them)",
            plan.runs.len()
        ));
    }
    let todo: Vec<usize> = (0..plan.runs.len())
        .filter(|&i| markers.get(i).is_some_and(Option::is_none))
        .collect();
    for (index, marker) in run_pool(&shared, &slots, &todo, args.jobs)? {
        if let Some(slot) = markers.get_mut(index) {
            *slot = Some(marker);
        }
    }
    let finished = markers.iter().filter(|m| m.is_some()).count();
    if cancel.load(Ordering::Relaxed) || finished < plan.runs.len() {
        let mut e = CliError::input(format!(
            "interrupted: {finished} of {} runs finished; unfinished runs have no {MARKER}",
            plan.runs.len()
        ))
        .hint("run the same command again to resume (finished runs are reused)");
        e.kind = crate::error::ErrorKind::Interrupted;
        return Err(e);
    }
    // From here on an interrupt ends veer at once, removing any temporary output file.
    crate::output::interrupt::install();

    let loaded: Vec<(Trace, bool)> = markers
        .iter()
        .flatten()
        .map(|m| load(&shared.out, m))
        .collect();
    let runs: Vec<FinishedRun<'_>> = plan
        .runs
        .iter()
        .zip(markers.iter().flatten())
        .zip(loaded)
        .map(|((run, marker), (trace, trace_readable))| FinishedRun {
            run,
            marker,
            trace,
            trace_readable,
        })
        .collect();
    let report = veer_run::results(
        &plan,
        runs,
        &ResultsOptions {
            expected_answer: args.expected.clone(),
            include_traces: true,
        },
    )?;
    let results_path = shared.out.join("results.json");
    let json = veer_report::experiment::json::render(&report);
    // A report like any other: secrets (e.g. in an answer) are redacted unless --no-redact.
    emit(&json, Some(&results_path))?;
    if args.reruns == 0 {
        warn(
            "noise floor UNMEASURED: --reruns 0 ran no clean re-run, so divergence below the \
             sampling-noise floor may be reported as contamination; use --reruns 1 or more",
        );
    }
    for m in markers.iter().flatten() {
        for w in &m.warnings {
            warn(&format!("{}: {w}", m.label));
        }
    }
    say(&format!(
        "{} run(s) in {}; results in {}",
        plan.runs.len(),
        args.out.display(),
        args.out.join("results.json").display()
    ));
    let to_file = args.out_file.output.is_some();
    let text = match args.format {
        // The results file's bytes, already printed once.
        ExperimentAnalyzeFormat::Json => json,
        other => other.print(
            &report,
            Style {
                colour: colour_enabled(to_file),
            },
        ),
    };
    emit(&text, args.out_file.output.as_deref())?;
    Ok(Exit::done())
}
