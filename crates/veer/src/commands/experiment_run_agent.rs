//! One agent run of `veer experiment run`, `veer bisect` or `veer eval`: prepare its directory (a fresh copy
//! of its input: the perturbed file, or the design point's configuration), run the agent
//! through `veer-record` (recorded by its own proxy, or with `--trace-from` the trace it writes
//! itself), collect its answer and trace, and write its marker last — atomically — so an
//! interrupted run is never taken for a finished one. Also the pool that runs many of them on
//! `--jobs` threads, the reuse of finished runs, and the signal flag.

use crate::error::CliError;
use crate::progress::Progress;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::sync::Mutex;
use std::time::Duration;
use veer_record::{AgentExit, AgentRun, Journal, ProxySettings, Recording};
use veer_run::{answer_from_file, answer_from_stdout, Exit, PlannedRun, RunMarker};

/// The marker file of a finished run, in its run directory.
pub const MARKER: &str = "run.json";

/// What every run of one experiment shares.
pub struct Shared {
    /// The experiment directory (absolute).
    pub out: PathBuf,
    /// The input's file name (each copy keeps it).
    pub file_name: String,
    /// The command's name in messages (`veer experiment run`, `veer bisect`).
    pub tool: &'static str,
    /// What the run's input is called in the command (`{input}`, `{config}`) and the
    /// environment variable holding its path (`VEER_INPUT`, `VEER_CONFIG`).
    pub input_names: (&'static str, &'static str),
    /// The agent command as given; the placeholder is replaced per run.
    pub command: Vec<OsString>,
    /// Proxy settings; `None` with `--trace-from`.
    pub proxy: Option<ProxySettings>,
    /// `--trace-from` pattern and the extension of the trace it names.
    pub trace_from: Option<(String, &'static str)>,
    /// `--answer-from` pattern.
    pub answer_from: Option<String>,
    /// Time limit of one run.
    pub timeout: Duration,
    /// ProxySettings hash stored in each marker.
    pub settings_sha256: String,
    /// Set on Ctrl-C / SIGTERM / SIGHUP.
    pub cancel: Arc<AtomicBool>,
}

/// What a run's `{input}` is.
#[derive(Debug, Clone, Default)]
pub enum SlotInput {
    /// A fresh copy of [`Slot::input`] in the run directory, named [`Shared::file_name`].
    #[default]
    Copy,
    /// This existing file or directory, given as it is (never copied nor changed).
    Given(PathBuf),
    /// Nothing: the placeholder becomes empty and the input variable is not set.
    Nothing,
}

/// What a run has beyond an experiment's: its input's kind, more placeholders and variables,
/// the trace's identity, and what becomes of a failed run's trace.
#[derive(Debug, Clone, Default)]
pub struct SlotExtras {
    /// What `{input}` is.
    pub input: SlotInput,
    /// More placeholders of the command's arguments and their values (`{case}`, `{trial}`).
    pub placeholders: Vec<(String, String)>,
    /// More environment variables of the agent (`VEER_CASE`, `VEER_TRIAL`).
    pub env: Vec<(OsString, OsString)>,
    /// The identity written into the recording's metadata record (`case`, `trial`).
    pub identity: Option<veer_record::Identity>,
    /// A run that failed (non-zero exit, time-out, no or unreadable trace) keeps the trace it
    /// made as `recorded.<ext>` in its run directory, and its trace in the layout becomes one
    /// holding only the metadata record (with `identity`): no model response, which the
    /// trials reader counts as a failed trial instead of a valid one. No answer is read.
    pub eval: bool,
}

/// One run to do: where it goes and what its input is.
#[derive(Debug, Clone)]
pub struct Slot {
    /// Its label (`VEER_RUN_LABEL`, the marker's).
    pub label: String,
    /// Its directory, relative to the output directory.
    pub run_dir: String,
    /// Where its trace goes, relative to the output directory and without extension.
    pub trace_stem: String,
    /// The content of its input copy.
    pub input: String,
    /// Lower-case hex SHA-256 of `input`.
    pub input_sha256: String,
    /// What the run has beyond an experiment's run.
    pub extras: SlotExtras,
}

impl Slot {
    /// The slot of a planned experiment run.
    pub fn of(run: &PlannedRun) -> Slot {
        Slot {
            label: run.label.clone(),
            run_dir: run.run_dir.clone(),
            trace_stem: run.trace_stem.clone(),
            input: run.input.clone(),
            input_sha256: run.input_sha256.clone(),
            extras: SlotExtras::default(),
        }
    }
}

/// How one run ended.
pub enum RunEnd {
    /// It finished; its marker is written.
    Finished(Box<RunMarker>),
    /// It was interrupted; no marker.
    Interrupted,
}

/// Most bytes of an agent's answer file or stdout that are read (256 MiB).
const ANSWER_CAP: u64 = veer_base::capped::MAX_PERTURB_INPUT_BYTES;

fn io(path: &Path) -> impl Fn(std::io::Error) -> CliError + '_ {
    move |e| CliError::output(&path.display().to_string(), &e)
}

/// `pattern` with `{run_dir}` replaced by `run_dir`.
pub fn expand(pattern: &str, run_dir: &Path) -> PathBuf {
    PathBuf::from(pattern.replace("{run_dir}", &run_dir.display().to_string()))
}

/// Removes what an unfinished or redone run left: its marker first (so the run counts as
/// unfinished from here on), its directory and its trace files.
fn clear(shared: &Shared, run: &Slot) -> Result<(), CliError> {
    let dir = shared.out.join(&run.run_dir);
    let marker = dir.join(MARKER);
    match std::fs::remove_file(&marker) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io(&marker)(e)),
    }
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(io(&dir))?;
    }
    for ext in super::experiment_run::TRACE_EXTENSIONS {
        let trace = shared.out.join(format!("{}{ext}", run.trace_stem));
        if trace.exists() {
            std::fs::remove_file(&trace).map_err(io(&trace))?;
        }
    }
    Ok(())
}

/// Runs `run` to the end (or until cancelled) and writes its marker.
pub fn execute(shared: &Shared, run: &Slot) -> Result<RunEnd, CliError> {
    clear(shared, run)?;
    let dir = shared.out.join(&run.run_dir);
    std::fs::create_dir_all(&dir).map_err(io(&dir))?;
    let input = match &run.extras.input {
        SlotInput::Copy => {
            let input = dir.join(&shared.file_name);
            crate::output::write_file(&input, run.input.as_bytes())?;
            Some(input)
        }
        SlotInput::Given(path) => Some(path.clone()),
        SlotInput::Nothing => None,
    };
    let stdout_path = dir.join("stdout.txt");
    let stderr_path = dir.join("stderr.txt");
    let stdout = std::fs::File::create(&stdout_path).map_err(io(&stdout_path))?;
    let stderr = std::fs::File::create(&stderr_path).map_err(io(&stderr_path))?;

    let input_arg = input
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let (placeholder, input_env) = shared.input_names;
    let mut values: Vec<(&str, &str)> = vec![(placeholder, &input_arg)];
    for (k, v) in &run.extras.placeholders {
        values.push((k, v));
    }
    let command: Vec<OsString> = shared
        .command
        .iter()
        .enumerate()
        .map(|(i, a)| match (i, a.to_str()) {
            (i, Some(s)) if i > 0 && values.iter().any(|(k, _)| s.contains(k)) => {
                veer_run::eval::plan::substitute(s, &values).into()
            }
            _ => a.clone(),
        })
        .collect();
    let mut env: Vec<(OsString, OsString)> = Vec::new();
    if let Some(input) = &input {
        env.push((input_env.into(), input.clone().into_os_string()));
    }
    env.push(("VEER_RUN_DIR".into(), dir.clone().into_os_string()));
    env.push(("VEER_RUN_LABEL".into(), run.label.clone().into()));
    env.extend(run.extras.env.iter().cloned());
    let agent_trace = shared
        .trace_from
        .as_ref()
        .map(|(pattern, ext)| (expand(pattern, &dir), *ext));
    if let Some((t, _)) = &agent_trace {
        env.push(("VEER_TRACE".into(), t.clone().into_os_string()));
    }

    // The recording: the layout's trace path, appended one whole call at a time.
    let (recording, journal) = match &shared.proxy {
        Some(settings) => {
            let path = shared.out.join(format!("{}.agentlog", run.trace_stem));
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(io(parent))?;
            }
            let file = crate::output::open_append_stream(&path, &[])?;
            let journal = Arc::new(match &run.extras.identity {
                Some(identity) => Journal::with_identity(Box::new(file), None, identity),
                None => Journal::new(Box::new(file), None),
            });
            let label = run.label.clone();
            let tool = shared.tool;
            let notify: veer_record::Notify = Arc::new(move |m: &str| {
                crate::output::diag::say(tool, format!("{label}: {m}"));
            });
            (
                Some(Recording {
                    settings: settings.clone(),
                    journal: journal.clone(),
                    notify,
                }),
                Some((journal, path)),
            )
        }
        None => (None, None),
    };

    let exit = veer_record::run_agent(
        recording,
        AgentRun {
            command,
            env,
            stdout,
            stderr,
            timeout: Some(shared.timeout),
            cancel: shared.cancel.clone(),
        },
    )
    .map_err(|e| {
        CliError::input(e.to_string()).hint("check the command after `--` exists and is executable")
    })?;
    let mut warnings = Vec::new();
    if let Some((journal, path)) = &journal {
        let _ = journal.finish();
        let _ = journal.close();
        if let Some(e) = journal.io_error() {
            return Err(
                CliError::input(format!("{}: cannot write output: {e}", path.display()))
                    .hint("check free space and permissions of the experiment directory"),
            );
        }
        let s = journal.summary();
        if run.extras.eval && s.calls == s.failed && matches!(exit, AgentExit::Exited(0)) {
            // The trials reader counts a trial without a model response as failed: say so.
            warnings.push("recorded no model response".to_string());
        }
    }
    let exit = match exit {
        AgentExit::Cancelled => return Ok(RunEnd::Interrupted),
        AgentExit::TimedOut => {
            warnings.push(format!(
                "timed out after {}s; the agent's process group was stopped",
                shared.timeout.as_secs_f64()
            ));
            Exit::TimedOut
        }
        AgentExit::Exited(code) => {
            if code != 0 {
                warnings.push(format!("exited with code {code}"));
            }
            Exit::Exited(code)
        }
    };

    // The trace: the recording, or a copy of the agent's own under the layout's name.
    let trace = match (&journal, &agent_trace, &shared.trace_from) {
        (Some((_, path)), _, _) => relative(&shared.out, path),
        (None, Some((from, ext)), Some((pattern, _))) => {
            match veer_base::capped::read_capped(from, veer_trace::limits::DEFAULT_MAX_TRACE_BYTES)
            {
                Ok(bytes) => {
                    let to = shared.out.join(format!("{}{ext}", run.trace_stem));
                    if let Some(parent) = to.parent() {
                        std::fs::create_dir_all(parent).map_err(io(parent))?;
                    }
                    crate::output::write_file(&to, &bytes)?;
                    relative(&shared.out, &to)
                }
                Err(_) => {
                    warnings.push(format!("wrote no trace (expected {pattern})"));
                    String::new()
                }
            }
        }
        _ => String::new(),
    };
    if !trace.is_empty() {
        if let Err(e) = veer_trace::load_trace(&shared.out.join(&trace), &Default::default()) {
            let shown = format!("{}/", shared.out.display());
            warnings.push(format!(
                "trace unreadable: {}",
                e.to_string().replace(&shown, "")
            ));
        }
    }

    let trace = if run.extras.eval {
        eval_trace(shared, run, &dir, trace, &warnings)?
    } else {
        trace
    };
    let answer = match &shared.answer_from {
        _ if run.extras.eval => None,
        Some(pattern) => match veer_base::capped::read_capped(&expand(pattern, &dir), ANSWER_CAP) {
            Ok(bytes) => answer_from_file(&bytes),
            Err(_) => {
                warnings.push(format!("wrote no answer file (expected {pattern})"));
                None
            }
        },
        None => {
            let bytes = match veer_base::capped::read_capped(&stdout_path, ANSWER_CAP) {
                Ok(bytes) => bytes,
                Err(veer_base::capped::CappedError::Io(e)) => return Err(io(&stdout_path)(e)),
                Err(_) => {
                    warnings.push(format!(
                        "printed more than {ANSWER_CAP} bytes on stdout; no answer read"
                    ));
                    Vec::new()
                }
            };
            answer_from_stdout(&bytes)
        }
    };
    if answer.is_none() && shared.answer_from.is_none() && !run.extras.eval {
        warnings.push("printed no answer on stdout".into());
    }
    let marker = RunMarker {
        schema_version: 1,
        label: run.label.clone(),
        input_sha256: run.input_sha256.clone(),
        settings_sha256: shared.settings_sha256.clone(),
        exit,
        trace,
        answer,
        warnings,
    };
    let mut bytes = serde_json::to_vec_pretty(&marker)
        .map_err(|e| CliError::input(format!("cannot serialise a run marker: {e}")))?;
    bytes.push(b'\n');
    crate::output::write_file(&dir.join(MARKER), &bytes)?;
    Ok(RunEnd::Finished(Box::new(marker)))
}

/// An eval run's trace in the layout: the trace it made when it succeeded; when it failed
/// (`warnings` say why), that trace moved to `recorded.<ext>` in the run directory and, in
/// its place, `<stem>.agentlog` holding only the metadata record with the run's identity.
fn eval_trace(
    shared: &Shared,
    run: &Slot,
    dir: &Path,
    trace: String,
    warnings: &[String],
) -> Result<String, CliError> {
    if warnings.is_empty() {
        return Ok(trace);
    }
    if !trace.is_empty() {
        let from = shared.out.join(&trace);
        let ext = super::experiment_run::TRACE_EXTENSIONS
            .iter()
            .find(|e| trace.ends_with(*e))
            .copied()
            .unwrap_or(".agentlog");
        let to = dir.join(format!("recorded{ext}"));
        std::fs::rename(&from, &to).map_err(io(&from))?;
    }
    let path = shared.out.join(format!("{}.agentlog", run.trace_stem));
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io(parent))?;
    }
    let file = crate::output::open_append_stream(&path, &[])?;
    let mut identity = run.extras.identity.clone().unwrap_or_default();
    identity
        .tags
        .push(("eval_failed".into(), warnings.join("; ")));
    let journal = Journal::with_identity(Box::new(file), None, &identity);
    let _ = journal.close();
    if let Some(e) = journal.io_error() {
        return Err(
            CliError::input(format!("{}: cannot write output: {e}", path.display()))
                .hint("check free space and permissions of the output directory"),
        );
    }
    Ok(relative(&shared.out, &path))
}

/// `path` relative to `base` (`/`-separated), or as it is when outside.
fn relative(base: &Path, path: &Path) -> String {
    path.strip_prefix(base)
        .unwrap_or(path)
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// The marker of a run an earlier invocation finished under the same settings (its trace
/// still there).
pub fn finished_marker(out: &Path, run: &Slot, settings: &str) -> Option<RunMarker> {
    let marker = out.join(&run.run_dir).join(MARKER);
    let bytes =
        veer_base::capped::read_capped(&marker, veer_base::capped::MAX_CONFIG_FILE_BYTES).ok()?;
    let marker: RunMarker = serde_json::from_slice(&bytes).ok()?;
    let trace_ok = marker.trace.is_empty() || out.join(&marker.trace).is_file();
    (marker.records(&run.label, &run.input_sha256, settings) && trace_ok).then_some(marker)
}

/// Makes SIGINT, SIGTERM and SIGHUP set `cancel` (and nothing else) while agents run.
pub fn cancel_on_signals(cancel: &Arc<AtomicBool>) -> Result<(), CliError> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    for sig in [SIGINT, SIGTERM, SIGHUP] {
        signal_hook::flag::register(sig, cancel.clone()).map_err(|e| {
            CliError::input(format!("cannot install signal handlers: {e}"))
                .hint("this is unexpected; please report it")
        })?;
    }
    Ok(())
}

/// Runs `todo` (indices into `slots`) on `jobs` threads; the markers of the finished ones. A
/// failure every run would share (the program is missing) stops the pool and is returned.
pub fn run_pool(
    shared: &Shared,
    slots: &[Slot],
    todo: &[usize],
    jobs: usize,
) -> Result<Vec<(usize, RunMarker)>, CliError> {
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<(usize, RunMarker)>> = Mutex::new(Vec::new());
    let failure: Mutex<Option<CliError>> = Mutex::new(None);
    let progress = Progress::new(todo.len() as u64, "agent runs");
    std::thread::scope(|scope| {
        for _ in 0..jobs.min(todo.len()) {
            scope.spawn(|| loop {
                if shared.cancel.load(Ordering::Relaxed) {
                    break;
                }
                let Some(&index) = todo.get(next.fetch_add(1, Ordering::Relaxed)) else {
                    break;
                };
                let Some(run) = slots.get(index) else {
                    break;
                };
                match execute(shared, run) {
                    Ok(RunEnd::Finished(marker)) => {
                        done.lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .push((index, *marker));
                        progress.tick();
                    }
                    Ok(RunEnd::Interrupted) => break,
                    Err(e) => {
                        shared.cancel.store(true, Ordering::Relaxed);
                        failure
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .get_or_insert(e);
                        break;
                    }
                }
            });
        }
    });
    progress.finish();
    if let Some(e) = failure.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    Ok(done.into_inner().unwrap_or_else(|e| e.into_inner()))
}

/// The agent-running flags `experiment run` and `bisect` share, checked before anything runs:
/// a command after `--` (`example` is the hint's whole command line), `--jobs` ≥ 1, a positive
/// finite `--timeout`, and a `--trace-from` pattern (returned with its extension) when given.
pub fn check_agent_flags(
    command: &[OsString],
    example: &str,
    (jobs, timeout): (usize, f64),
    trace_from: Option<&String>,
) -> Result<Option<(String, &'static str)>, CliError> {
    if command.is_empty() {
        return Err(
            CliError::input("missing the agent command after `--`").hint(format!("e.g. {example}"))
        );
    }
    if jobs == 0 {
        return Err(CliError::input("--jobs: must be at least 1").hint("e.g. --jobs 4"));
    }
    if !(timeout.is_finite() && timeout > 0.0) {
        return Err(CliError::input(format!(
            "--timeout: must be a positive number of seconds, got {timeout}"
        ))
        .hint("e.g. --timeout 120"));
    }
    match trace_from {
        Some(p) => Ok(Some((p.clone(), super::experiment_run::trace_pattern(p)?))),
        None => Ok(None),
    }
}

/// Where the recording proxy sends the agents' calls (`None` with `--trace-from`: nothing is
/// proxied): the flags, else the agent's own base URLs, else the public APIs — said on stderr
/// before any run starts.
pub fn agent_upstreams(
    trace_from: Option<&String>,
    (openai, anthropic): (Option<&str>, Option<&str>),
    tool: &str,
) -> Result<Option<super::upstream::Upstreams>, CliError> {
    if trace_from.is_some() {
        return Ok(None);
    }
    let up = super::upstream::Upstreams::resolve(openai, anthropic)?;
    for line in up.describe() {
        crate::output::diag::say(tool, line);
    }
    Ok(Some(up))
}
