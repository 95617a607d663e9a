//! `veer eval`: check every flag and read the cases (exit 2 before anything runs), plan one
//! slot per case and trial with `veer-run`'s eval plan, decide for each what a rerun into the
//! same directory does (reuse a finished trial, refuse a file veer did not write or a trial of
//! other settings), run the others on the run pool `veer experiment run` and `veer bisect` use
//! ([`super::experiment_run_agent`]), print the summary, and with `--compare` diff the
//! baseline against the output with `veer diff`'s own code, whose verdict is the exit code.
//!
//! Signals: while agents run, SIGINT / SIGTERM / SIGHUP only set a flag — no new run starts,
//! running agents are stopped, their trials stay unfinished (no marker) — and the command ends
//! with 130; the finished trials stay valid for the next invocation.

use super::experiment_run_agent::{
    cancel_on_signals, check_agent_flags, run_pool, Shared, Slot, SlotExtras, SlotInput, MARKER,
};
use crate::cli::{DiffArgs, EvalArgs, EvalFormat};
use crate::error::{CliError, Exit};
use crate::output::{colour_enabled, emit};
use clap::Parser;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use veer_record::ProxySettings;
use veer_report::printer::OutputFormat as _;
use veer_report::style::Style;
use veer_run::eval::cases::{cases_of_dir, parse_cases, CaseInput, CasesFileError, EvalCase};
use veer_run::eval::plan::{
    eval_report, resume, trial_slots, Found, Resume, SummaryInput, TrialSlot, EVAL_STATE_DIR,
};
use veer_run::RunMarker;

const TOOL: &str = "veer eval";

fn say(line: &str) {
    crate::output::diag::say(TOOL, line);
}

/// `veer diff`'s flags, parsed on their own for `--compare`.
#[derive(Debug, Parser)]
#[command(name = "veer eval --compare", no_binary_name = true)]
struct CompareFlags {
    #[command(flatten)]
    diff: DiffArgs,
}

fn cases_error(e: CasesFileError) -> CliError {
    let mut err = CliError::input(e.message).hint(e.hint);
    err.file = Some(e.file);
    err.line = e.line;
    err
}

/// The cases of `--cases`: a directory's entries, or a cases file's list.
fn read_cases(path: &Path) -> Result<Vec<EvalCase>, CliError> {
    let shown = path.display().to_string();
    if path.is_dir() {
        let read = std::fs::read_dir(path).map_err(|e| CliError::output(&shown, &e))?;
        let mut entries = Vec::new();
        for entry in read {
            let entry = entry.map_err(|e| CliError::output(&shown, &e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let full = entry.path();
            let abs = full.canonicalize().unwrap_or(full.clone());
            entries.push((name, full.is_dir(), abs.display().to_string()));
        }
        return cases_of_dir(&shown, entries).map_err(cases_error);
    }
    let bytes = veer_base::capped::read_capped(path, veer_base::capped::MAX_CONFIG_FILE_BYTES)
        .map_err(|e| {
            let why = match e {
                veer_base::capped::CappedError::Io(e) => e.to_string(),
                veer_base::capped::CappedError::TooLarge(cap)
                | veer_base::capped::CappedError::OutOfMemory(cap) => {
                    format!("larger than {cap} bytes")
                }
            };
            CliError::input(format!("{shown}: cannot read the cases: {why}"))
                .hint("give a cases file (one name a line, or a .json/.yaml list) or a directory")
        })?;
    let text = String::from_utf8(bytes).map_err(|_| {
        CliError::input(format!("{shown}: the cases file is not UTF-8 text"))
            .hint("save it as UTF-8")
    })?;
    parse_cases(&shown, &text).map_err(cases_error)
}

/// `--compare`'s diff flags: BASELINE_DIR, OUT, `--fail-on`, then each `--diff-arg`.
fn compare_flags(args: &EvalArgs) -> Result<Option<DiffArgs>, CliError> {
    let Some(baseline) = &args.compare else {
        return Ok(None);
    };
    if !baseline.is_dir() {
        return Err(CliError::input(format!(
            "--compare {}: not a directory",
            baseline.display()
        ))
        .hint("give the baseline's runs directory, e.g. --compare runs/main (an earlier veer eval --out)"));
    }
    let mut argv: Vec<std::ffi::OsString> = vec![baseline.clone().into(), args.out.clone().into()];
    if let Some(level) = &args.fail_on {
        argv.push(format!("--fail-on={level}").into());
    }
    argv.extend(args.diff_arg.iter().map(Into::into));
    CompareFlags::try_parse_from(argv)
        .map(|f| Some(f.diff))
        .map_err(|e| {
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("").trim_start_matches("error: ");
            CliError::input(format!("--compare: bad diff flags: {first}"))
                .hint("--fail-on LEVEL and --diff-arg=FLAG take `veer diff`'s flags, e.g. --diff-arg=--alpha=0.01")
        })
}

/// A hash of the settings a finished trial depends on.
fn settings_hash(args: &EvalArgs, upstreams: Option<&super::upstream::Upstreams>) -> String {
    let command: Vec<String> = args
        .command
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let v = serde_json::json!({
        "command": command,
        "trace_from": args.trace_from,
        "openai_upstream": upstreams.map(|u| &u.openai.url),
        "anthropic_upstream": upstreams.map(|u| &u.anthropic.url),
        "azure_upstream": upstreams.and_then(|u| u.azure.as_ref()).map(|a| &a.url),
        "timeout": args.timeout,
    });
    veer_run::sha256_hex(v.to_string().as_bytes())
}

/// The runner's slot of one trial.
fn slot(t: &TrialSlot, case: &EvalCase) -> Slot {
    let (input, content) = match &case.input {
        CaseInput::Nothing => (SlotInput::Nothing, String::new()),
        CaseInput::Json(v) => {
            let mut text = serde_json::to_string_pretty(v).unwrap_or_default();
            text.push('\n');
            (SlotInput::Copy, text)
        }
        CaseInput::Path(p) => (SlotInput::Given(PathBuf::from(p)), String::new()),
    };
    let trial = t.trial.to_string();
    Slot {
        label: t.label.clone(),
        run_dir: t.run_dir.clone(),
        trace_stem: t.trace_stem.clone(),
        input: content,
        input_sha256: t.input_sha256.clone(),
        extras: SlotExtras {
            input,
            placeholders: vec![
                ("{case}".into(), t.case.clone()),
                ("{trial}".into(), trial.clone()),
            ],
            env: vec![
                ("VEER_CASE".into(), t.case.clone().into()),
                ("VEER_TRIAL".into(), trial.into()),
            ],
            identity: Some(veer_record::Identity {
                case: Some(t.case.clone()),
                trial: Some(u64::from(t.trial)),
                tags: Vec::new(),
            }),
            eval: true,
        },
    }
}

/// What is in `out` of trial `t`: its marker, its bookkeeping directory, its trace files.
fn found(out: &Path, t: &TrialSlot) -> Found {
    let dir = out.join(&t.run_dir);
    let marker =
        veer_base::capped::read_capped(&dir.join(MARKER), veer_base::capped::MAX_CONFIG_FILE_BYTES)
            .ok()
            .and_then(|b| serde_json::from_slice::<RunMarker>(&b).ok());
    let traces = super::experiment_run::TRACE_EXTENSIONS
        .iter()
        .map(|ext| format!("{}{ext}", t.trace_stem))
        .filter(|rel| out.join(rel).exists())
        .collect();
    Found {
        marker,
        run_dir_exists: dir.exists(),
        traces,
    }
}

/// Refuses an `--out` that is a file or lies inside the `--cases` directory.
fn check_out(out: &Path, cases: &Path) -> Result<(), CliError> {
    if out.exists() && !out.is_dir() {
        return Err(CliError::input(format!(
            "{}: --out must be a directory, but this is a file",
            out.display()
        ))
        .hint("give a new or an earlier eval directory, e.g. --out runs/pr"));
    }
    if cases.is_dir() {
        let (Ok(c), o) = (cases.canonicalize(), out) else {
            return Ok(());
        };
        let o = std::path::absolute(o).unwrap_or(o.to_path_buf());
        if o.starts_with(&c) {
            return Err(CliError::input(format!(
                "--out {} is inside the cases directory {}",
                out.display(),
                cases.display()
            ))
            .hint("every entry of --cases DIR is a case; put the output beside it, e.g. --out runs/pr"));
        }
    }
    Ok(())
}

/// Runs `veer eval`.
pub fn run(args: &EvalArgs) -> Result<Exit, CliError> {
    let cancel = Arc::new(AtomicBool::new(false));
    let trace_from = check_agent_flags(
        &args.command,
        "veer eval --cases cases.txt --trials 3 --out runs/pr -- python agent.py {case}",
        (args.jobs, args.timeout),
        args.trace_from.as_ref(),
    )?;
    let cases = read_cases(&args.cases)?;
    check_out(&args.out, &args.cases)?;
    let diff = compare_flags(args)?;
    let upstreams = super::experiment_run_agent::agent_upstreams(
        args.trace_from.as_ref(),
        (
            args.openai_upstream.as_deref(),
            args.anthropic_upstream.as_deref(),
        ),
        TOOL,
    )?;
    std::fs::create_dir_all(&args.out)
        .map_err(|e| CliError::output(&args.out.display().to_string(), &e))?;
    let out = args
        .out
        .canonicalize()
        .map_err(|e| CliError::output(&args.out.display().to_string(), &e))?;
    let shared = Shared {
        out: out.clone(),
        file_name: "input.json".into(),
        tool: TOOL,
        input_names: ("{input}", "VEER_CASE_INPUT"),
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

    let trials = trial_slots(&cases, args.trials);
    let mut finished: Vec<Option<(RunMarker, bool)>> = Vec::with_capacity(trials.len());
    for t in &trials {
        match resume(t, &found(&out, t), &shared.settings_sha256, args.fresh) {
            Resume::Run => finished.push(None),
            Resume::Reuse(marker) => finished.push(Some((*marker, true))),
            Resume::Foreign(file) => {
                return Err(CliError::input(format!(
                    "{}: exists and was not written by veer eval (no {EVAL_STATE_DIR}/{}/ beside it)",
                    args.out.join(&file).display(),
                    t.label
                ))
                .hint("veer never overwrites files it did not write: use a new --out, or move that file away"));
            }
            Resume::OtherSettings => {
                return Err(CliError::input(format!(
                    "{}: trial {} of case `{}` was finished by an earlier veer eval with other settings (the command, the upstreams, --timeout, --trace-from or the case's input changed)",
                    args.out.display(),
                    t.trial,
                    t.case
                ))
                .hint("use a new --out to keep both, or --fresh to redo the trials veer finished there"));
            }
        }
    }
    let reused = finished.iter().filter(|f| f.is_some()).count();
    if reused > 0 {
        say(&format!(
            "reusing {reused} finished trial(s) of {} (--fresh redoes them)",
            trials.len()
        ));
    }
    let slots: Vec<Slot> = trials
        .iter()
        .filter_map(|t| cases.get(t.case_index).map(|c| slot(t, c)))
        .collect();
    let todo: Vec<usize> = (0..trials.len())
        .filter(|&i| finished.get(i).is_some_and(Option::is_none))
        .collect();
    cancel_on_signals(&cancel)?;
    let start = Instant::now();
    for (index, marker) in run_pool(&shared, &slots, &todo, args.jobs)? {
        if let Some(f) = finished.get_mut(index) {
            *f = Some((marker, false));
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let count = finished.iter().filter(|f| f.is_some()).count();
    if cancel.load(Ordering::Relaxed) || count < trials.len() {
        let mut e = CliError::input(format!(
            "interrupted: {count} of {} trials finished; unfinished trials have no {MARKER}",
            trials.len()
        ))
        .hint("run the same command again to resume (finished trials are reused)");
        e.kind = crate::error::ErrorKind::Interrupted;
        return Err(e);
    }
    // From here on an interrupt ends veer at once, removing any temporary output file.
    crate::output::interrupt::install();

    let shown_out = args.out.display().to_string();
    let shown_cases = args.cases.display().to_string();
    let report = eval_report(
        &SummaryInput {
            out: &shown_out,
            cases_from: &shown_cases,
            trials: args.trials,
            seconds,
        },
        &cases,
        &trials,
        &finished,
    );
    let to_file = args.out_file.output.is_some();
    let text = args.format.print(
        &report,
        Style {
            colour: colour_enabled(to_file),
        },
    );
    match (&diff, to_file) {
        // The diff report owns stdout: the summary is said on stderr.
        (Some(_), false) => {
            let text = EvalFormat::Terminal.print(&report, Style { colour: false });
            for line in text.lines() {
                crate::output::diag::say("", line);
            }
        }
        _ => emit(&text, args.out_file.output.as_deref())?,
    }
    match diff {
        Some(diff) => super::diff::run(&diff),
        None => Ok(Exit::done()),
    }
}
