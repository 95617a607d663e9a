//! `veer bisect`: read both configurations and check every flag (exit 2 before anything
//! runs), let the engine find the factors and the design, write each point's configuration,
//! then either print the plan, read existing runs (`--from-runs`), or run the agent on every
//! point `--trials` times with `veer experiment run`'s machinery (per-run proxies, markers,
//! resume, Ctrl-C); the engine measures and attributes; `DIR/bisect.json` is written and the
//! report printed.

use super::experiment_run::{load, refuse_out_holding_input, TRACE_EXTENSIONS};
use super::experiment_run_agent::{
    cancel_on_signals, check_agent_flags, finished_marker, run_pool, Shared, Slot, MARKER,
};
use crate::cli::{BisectArgs, BisectFormat};
use crate::error::{CliError, ErrorKind};
use crate::output::{colour_enabled, emit, write_file};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use veer_contract::bisect::BisectReport;
use veer_engine::bisect::deltas::Group;
use veer_engine::bisect::{self, point_id, BisectRunInput, ComposeOptions, Setup};
use veer_engine::experiment::AgentKind;
use veer_record::ProxySettings;
use veer_report::printer::OutputFormat as _;
use veer_report::style::Style;
use veer_run::{Exit, RunMarker};
use veer_trace::Trace;

const TOOL: &str = "veer bisect";

fn say(line: &str) {
    crate::output::diag::say(TOOL, line);
}

/// A configuration file's text (capped, UTF-8).
fn read_config(path: &Path) -> Result<String, CliError> {
    let shown = path.display().to_string();
    if path.is_dir() {
        return Err(CliError::input(format!(
            "{shown}: is a directory, expected a configuration file"
        ))
        .hint("give the agent's configuration file, e.g. agent.yaml"));
    }
    let bytes = veer_base::capped::read_capped(path, veer_base::capped::MAX_CONFIG_FILE_BYTES)
        .map_err(|e| match e {
            veer_base::capped::CappedError::Io(e) => {
                CliError::input(format!("{shown}: cannot read: {e}"))
                    .hint("check the path and its permissions")
            }
            _ => CliError::input(format!(
                "{shown}: larger than {} bytes",
                veer_base::capped::MAX_CONFIG_FILE_BYTES
            ))
            .hint("a configuration is a small settings file"),
        })?;
    String::from_utf8(bytes).map_err(|e| {
        CliError::input(format!(
            "{shown}: not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
        .hint("save the configuration as UTF-8")
    })
}

/// A hash of the settings a finished run depends on.
fn settings_hash(args: &BisectArgs, upstreams: Option<&super::upstream::Upstreams>) -> String {
    let command: Vec<String> = args
        .command
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let v = serde_json::json!({
        "tool": "bisect",
        "command": command,
        "trace_from": args.trace_from,
        "openai_upstream": upstreams.map(|u| &u.openai.url),
        "anthropic_upstream": upstreams.map(|u| &u.anthropic.url),
        "timeout": args.timeout,
    });
    veer_run::sha256_hex(v.to_string().as_bytes())
}

/// The run slots: every point's trials, point by point.
fn slots(setup: &Setup) -> Result<Vec<(usize, u32, Slot)>, CliError> {
    let mut out = Vec::with_capacity(setup.run_count());
    for p in 0..setup.design.points.len() {
        let text = setup.config_text(p)?;
        let sha = veer_run::sha256_hex(text.as_bytes());
        for t in 1..=setup.trials {
            let name = format!("{}/trial-{t:03}", point_id(p));
            out.push((
                p,
                t as u32,
                Slot {
                    label: name.clone(),
                    run_dir: format!("runs/{name}"),
                    trace_stem: format!("traces/{name}"),
                    input: text.clone(),
                    input_sha256: sha.clone(),
                    extras: Default::default(),
                },
            ));
        }
    }
    Ok(out)
}

/// Writes every point's configuration into `out/points/`.
fn write_points(out: &Path, setup: &Setup) -> Result<(), CliError> {
    let dir = out.join("points");
    std::fs::create_dir_all(&dir).map_err(|e| CliError::output(&dir.display().to_string(), &e))?;
    for p in 0..setup.design.points.len() {
        write_file(
            &out.join(setup.config_path(p)),
            setup.config_text(p)?.as_bytes(),
        )?;
    }
    Ok(())
}

/// Runs every slot not finished before; the finished runs, or an interrupted error.
fn run_agents(
    args: &BisectArgs,
    setup: &Setup,
    out: &Path,
) -> Result<Vec<BisectRunInput>, CliError> {
    let trace_from = check_agent_flags(
        &args.command,
        "veer bisect --baseline-config a.yaml --candidate-config b.yaml --out b/ -- python agent.py --config {config}",
        (args.jobs, args.timeout),
        args.trace_from.as_ref(),
    )?;
    let upstreams = super::experiment_run_agent::agent_upstreams(
        args.trace_from.as_ref(),
        (
            args.openai_upstream.as_deref(),
            args.anthropic_upstream.as_deref(),
        ),
        "veer bisect",
    )?;
    let cancel = Arc::new(AtomicBool::new(false));
    let shared = Shared {
        out: out.to_path_buf(),
        file_name: format!("config{}", setup.format.extension()),
        tool: TOOL,
        input_names: ("{config}", "VEER_CONFIG"),
        command: args.command.clone(),
        proxy: upstreams.as_ref().map(|u| ProxySettings {
            openai_upstream: u.openai.url.clone(),
            anthropic_upstream: u.anthropic.url.clone(),
            azure_upstream: u.azure.as_ref().map(|a| a.url.clone()),
            timeout: Duration::from_secs_f64(args.timeout),
            ..ProxySettings::default()
        }),
        trace_from,
        answer_from: None,
        timeout: Duration::from_secs_f64(args.timeout),
        settings_sha256: settings_hash(args, upstreams.as_ref()),
        cancel: cancel.clone(),
    };
    cancel_on_signals(&cancel)?;
    let planned = slots(setup)?;
    let slot_list: Vec<Slot> = planned.iter().map(|(_, _, s)| s.clone()).collect();
    let mut markers: Vec<Option<RunMarker>> = slot_list
        .iter()
        .map(|s| {
            if args.fresh {
                None
            } else {
                finished_marker(out, s, &shared.settings_sha256)
            }
        })
        .collect();
    let reused = markers.iter().filter(|m| m.is_some()).count();
    if reused > 0 {
        say(&format!(
            "reusing {reused} finished run(s) of {} (--fresh redoes them)",
            slot_list.len()
        ));
    }
    let todo: Vec<usize> = (0..slot_list.len())
        .filter(|&i| markers.get(i).is_some_and(Option::is_none))
        .collect();
    for (index, marker) in run_pool(&shared, &slot_list, &todo, args.jobs)? {
        if let Some(slot) = markers.get_mut(index) {
            *slot = Some(marker);
        }
    }
    let finished = markers.iter().filter(|m| m.is_some()).count();
    if cancel.load(Ordering::Relaxed) || finished < slot_list.len() {
        let mut e = CliError::input(format!(
            "interrupted: {finished} of {} runs finished; unfinished runs have no {MARKER}",
            slot_list.len()
        ))
        .hint("run the same command again to resume (finished runs are reused)");
        e.kind = ErrorKind::Interrupted;
        return Err(e);
    }
    crate::output::interrupt::install();
    Ok(planned
        .iter()
        .zip(markers.iter().flatten())
        .map(|((point, trial, _), marker)| {
            let (trace, readable) = load(out, marker);
            BisectRunInput {
                point: *point,
                trial: *trial,
                status: veer_run::status(marker.exit, readable, AgentKind::External, &trace),
                trace_path: marker.trace.clone(),
                warnings: marker.warnings.clone(),
                trace: Some(trace),
            }
        })
        .collect())
}

/// The traces under `runs/<point>/`, one per trial in file-name order; a trace that cannot be
/// read is an error (exit 2) naming it.
fn read_runs(
    runs: &Path,
    setup: &Setup,
    read: &veer_trace::ReadOptions,
) -> Result<Vec<BisectRunInput>, CliError> {
    if !runs.is_dir() {
        return Err(CliError::input(format!(
            "--from-runs {}: not a directory",
            runs.display()
        ))
        .hint("give a directory holding one subdirectory per design point (p001/, p002/, …; see --plan)"));
    }
    let mut out = Vec::new();
    for p in 0..setup.design.points.len() {
        let dir = runs.join(point_id(p));
        let mut files: Vec<PathBuf> = match std::fs::read_dir(&dir) {
            Ok(entries) => entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|f| {
                    let name = f
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    f.is_file() && TRACE_EXTENSIONS.iter().any(|e| name.ends_with(e))
                })
                .collect(),
            Err(_) => Vec::new(),
        };
        files.sort();
        for (t, f) in files.iter().enumerate() {
            let trace: Trace = veer_trace::load_trace(f, read).map_err(|e| {
                let hint = e.hint.clone();
                let err = CliError::new(ErrorKind::Trace, e.to_string());
                match hint {
                    Some(h) => err.hint(h),
                    None => err.hint("every file under a point's directory is read as one trial"),
                }
            })?;
            let rel = f
                .strip_prefix(runs)
                .unwrap_or(f)
                .to_string_lossy()
                .replace('\\', "/");
            out.push(BisectRunInput {
                point: p,
                trial: t as u32 + 1,
                status: veer_run::status(Exit::Exited(0), true, AgentKind::External, &trace),
                trace_path: rel,
                warnings: Vec::new(),
                trace: Some(trace),
            });
        }
    }
    Ok(out)
}

/// The report in the chosen format (colour on a terminal only).
fn render(report: &BisectReport, format: BisectFormat, to_file: bool) -> String {
    format.print(
        report,
        Style {
            colour: colour_enabled(to_file),
        },
    )
}

/// Runs `veer bisect`.
pub fn run(args: &BisectArgs) -> Result<crate::error::Exit, CliError> {
    let a_name = args.baseline_config.display().to_string();
    let b_name = args.candidate_config.display().to_string();
    let a_text = read_config(&args.baseline_config)?;
    let b_text = read_config(&args.candidate_config)?;
    let groups: Vec<Group> = args
        .groups
        .iter()
        .map(|g| Group::parse(g))
        .collect::<Result<_, _>>()?;
    let setup = bisect::prepare(
        (&a_name, &a_text),
        (&b_name, &b_text),
        &groups,
        args.trials,
        args.max_runs,
    )?;
    let policy = match &args.policy {
        Some(path) => Some(super::policy::load(path)?),
        None => None,
    };
    refuse_out_holding_input(&args.out, &args.baseline_config)?;
    refuse_out_holding_input(&args.out, &args.candidate_config)?;
    let names: Vec<String> = setup
        .factors
        .iter()
        .map(|f| format!("`{}`", f.name))
        .collect();
    say(&format!("factors: {}", names.join(", ")));
    let planned = bisect::planned(&setup, (&a_name, &b_name), args.seed);
    say(&format!(
        "{} (at most --max-runs {})",
        veer_report::bisect::design_line(&planned),
        args.max_runs
    ));
    if setup.trials < 2 {
        crate::output::diag::warn(
            "--trials 1: no interval can be computed, so every factor is inconclusive; use --trials 3 or more",
        );
    }
    std::fs::create_dir_all(&args.out)
        .map_err(|e| CliError::output(&args.out.display().to_string(), &e))?;
    let out = args
        .out
        .canonicalize()
        .map_err(|e| CliError::output(&args.out.display().to_string(), &e))?;
    let to_file = args.out_file.output.is_some();
    if args.plan {
        crate::output::interrupt::install();
        write_points(&out, &setup)?;
        emit(
            &render(&planned, args.format, to_file),
            args.out_file.output.as_deref(),
        )?;
        return Ok(crate::error::Exit::done());
    }
    let runs = match &args.from_runs {
        Some(dir) => {
            crate::output::interrupt::install();
            write_points(&out, &setup)?;
            read_runs(dir, &setup, &Default::default())?
        }
        None => {
            write_points(&out, &setup)?;
            run_agents(args, &setup, &out)?
        }
    };
    let report = bisect::compose(
        &setup,
        &runs,
        ComposeOptions {
            configs: (&a_name, &b_name),
            policy: policy.as_ref(),
            seed: args.seed,
            max_align_cells: args.max_align_cells,
        },
    )?;
    let json = veer_report::bisect::json(&report);
    emit(&json, Some(&out.join("bisect.json")))?;
    say(&format!(
        "{} run(s); results in {}",
        report.runs.len(),
        args.out.join("bisect.json").display()
    ));
    emit(
        &render(&report, args.format, to_file),
        args.out_file.output.as_deref(),
    )?;
    Ok(crate::error::Exit::done())
}
