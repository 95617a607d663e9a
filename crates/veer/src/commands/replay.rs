//! `veer replay RECORDING -o NEW -- CMD`: check the flags, read the recording (or each
//! recording of a trials directory), open the new recording, hand each replay over to
//! `veer-record`, and print the summary.

use crate::cli::{OnDivergenceArg, ReplayArgs};
use crate::error::{CliError, Exit, EXIT_ERROR};
use crate::output::{colour_enabled, emit};
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use veer_contract::replay::{ReplayReport, ReplayRun};
use veer_record::replay::job::{replay_one, substitute, trials_in, ReplayError, ReplayJob};
use veer_record::replay::{OnDivergence, ReplayOptions};
use veer_record::{Identity, Notify, ProxySettings};
use veer_report::printer::OutputFormat as _;
use veer_report::style::Style;

/// One recording to replay and where its new recording goes.
struct Planned {
    recording: PathBuf,
    output: PathBuf,
    case: Option<String>,
    trial: Option<u64>,
}

fn notify() -> Notify {
    Arc::new(|m: &str| {
        crate::output::diag::say("veer replay", m.trim_start_matches("veer replay: "));
    })
}

fn check_flags(a: &ReplayArgs) -> Result<ProxySettings, CliError> {
    let needs_upstream = a.branch_at.is_some() || a.on_divergence == OnDivergenceArg::Live;
    if needs_upstream && a.upstream.is_none() {
        let flag = if a.branch_at.is_some() {
            "--branch-at"
        } else {
            "--on-divergence live"
        };
        return Err(CliError::input(format!(
            "{flag} goes on against the live provider, but no --upstream was given"
        ))
        .hint("add --upstream URL, the provider's base URL as the agent's SDK would use it, e.g. --upstream https://api.openai.com/v1"));
    }
    if let Some(u) = &a.upstream {
        if !(u.starts_with("http://") || u.starts_with("https://")) {
            return Err(
                CliError::input(format!("--upstream: `{u}` is not an http(s) URL"))
                    .hint("e.g. --upstream https://api.openai.com/v1 or --upstream https://api.anthropic.com"),
            );
        }
    }
    if !(a.timeout.is_finite() && a.timeout > 0.0) {
        return Err(CliError::input(format!(
            "--timeout: must be a positive number of seconds, got {}",
            a.timeout
        ))
        .hint("e.g. --timeout 120"));
    }
    let mut settings = ProxySettings {
        max_request_bytes: a.max_body_bytes,
        timeout: Duration::from_secs_f64(a.timeout),
        ..ProxySettings::default()
    };
    match &a.upstream {
        Some(u) => {
            settings.openai_upstream = u.clone();
            settings.anthropic_upstream = u.clone();
        }
        None => {
            // Nothing is forwarded without --upstream; an address that cannot be reached
            // makes sure of it.
            settings.openai_upstream = "http://127.0.0.1:9/v1".into();
            settings.anthropic_upstream = "http://127.0.0.1:9".into();
        }
    }
    Ok(settings)
}

fn plan(a: &ReplayArgs) -> Result<Vec<Planned>, CliError> {
    if !a.recording.is_dir() {
        return Ok(vec![Planned {
            recording: a.recording.clone(),
            output: a.output.clone(),
            case: None,
            trial: None,
        }]);
    }
    let shown = a.recording.display().to_string();
    let trials = trials_in(&a.recording).map_err(|e| {
        CliError::input(format!("{shown}: cannot list the trials directory: {e}"))
            .hint("pass a recording, or a directory of CASE/trial-N.agentlog files")
    })?;
    if trials.is_empty() {
        return Err(
            CliError::input(format!("{shown}: (file): no CASE/trial-N.agentlog files in this directory"))
                .hint("`veer replay DIR -o OUTDIR` replays a trials directory as `veer record --case CASE --trial N` writes it"),
        );
    }
    Ok(trials
        .into_iter()
        .map(|t| Planned {
            output: a
                .output
                .join(&t.case)
                .join(format!("trial-{}.agentlog", t.trial)),
            recording: t.path,
            case: Some(t.case),
            trial: Some(t.trial),
        })
        .collect())
}

fn run_one(a: &ReplayArgs, settings: &ProxySettings, p: &Planned) -> Result<ReplayRun, CliError> {
    let source = p.recording.display().to_string();
    let trace = veer_trace::load_file(&p.recording, &veer_trace::ReadOptions::default())?
        .into_trace(&source)?;
    let calls = trace.count(&veer_trace::Kind::ChatRequest);
    if calls == 0 {
        return Err(CliError::input(format!(
            "{source}: (file): the recording has no model call to replay"
        ))
        .hint(
            "replay a recording written by `veer record` (chat_request and chat_response records)",
        ));
    }
    let root = trace.records.first().map(|r| r.payload.to_value());
    let case = p.case.clone().or_else(|| {
        root.as_ref()
            .and_then(|v| v.get("case")?.as_str().map(str::to_string))
    });
    let trial = p
        .trial
        .or_else(|| root.as_ref().and_then(|v| v.get("trial")?.as_u64()));
    let file = crate::output::open_append_stream(&p.output, &[p.recording.as_path()])?;
    let (command, mut env) = match (&case, trial) {
        (Some(c), Some(t)) => (substitute(&a.command, c, t), Vec::new()),
        _ => (a.command.clone(), Vec::new()),
    };
    if let Some(c) = &case {
        env.push((OsString::from("VEER_CASE"), OsString::from(c)));
    }
    if let Some(t) = trial {
        env.push((OsString::from("VEER_TRIAL"), OsString::from(t.to_string())));
    }
    let job = ReplayJob {
        trace: &trace,
        recording: source,
        output: p.output.clone(),
        out: Box::new(file),
        identity: Identity {
            case,
            trial,
            tags: Vec::new(),
        },
        options: ReplayOptions {
            on_divergence: match a.on_divergence {
                OnDivergenceArg::Fail => OnDivergence::Fail,
                OnDivergenceArg::Live => OnDivergence::Live,
            },
            branch_at: a.branch_at,
            live: a.upstream.is_some(),
        },
        settings: settings.clone(),
        notify: notify(),
        command,
        env,
    };
    replay_one(job).map_err(|e| {
        let hint = match &e {
            ReplayError::Run(veer_record::RunError::Spawn { .. }) => {
                "check the command after `--` exists and is executable"
            }
            ReplayError::Write { .. } => "check free space and permissions",
            _ => "this is unexpected; please report it",
        };
        CliError::input(e.to_string()).hint(hint)
    })
}

/// Runs `veer replay`.
pub fn run(a: &ReplayArgs) -> Result<Exit, CliError> {
    let settings = check_flags(a)?;
    let planned = plan(a)?;
    let mut runs = Vec::new();
    for p in &planned {
        let run = run_one(a, &settings, p)?;
        let say = notify();
        say(&format!(
            "{} call(s) served from {}, {} live, recorded to {}",
            run.turns_served, run.recording, run.turns_live, run.output
        ));
        runs.push(run);
    }
    let diverged = runs.iter().filter(|r| r.divergence.is_some()).count() as u64;
    let report = ReplayReport {
        schema_version: veer_report::SCHEMA_VERSION.into(),
        runs,
        diverged,
    };
    let style = Style {
        colour: colour_enabled(a.report.is_some()),
    };
    emit(&a.format.print(&report, style), a.report.as_deref())?;
    let other_provider = report.runs.iter().find_map(|r| {
        r.divergence
            .as_ref()
            .filter(|d| d.reason == "provider")
            .map(|d| (r, d))
    });
    if let Some((r, d)) = other_provider {
        return Err(CliError::input(format!(
            "{}: (file): the recording is of another provider than the one the agent calls (recorded {}, the agent called {})",
            r.recording,
            d.recorded.as_deref().unwrap_or("?"),
            d.endpoint
        ))
        .hint("replay a recording of the same provider, or point the agent at the provider it was recorded with"));
    }
    if diverged > 0 && a.on_divergence == OnDivergenceArg::Fail {
        return Ok(Exit::Agent(1));
    }
    let code = report
        .runs
        .iter()
        .map(|r| r.agent_exit_code)
        .find(|c| *c != 0)
        .unwrap_or(0);
    Ok(Exit::Agent(u8::try_from(code).unwrap_or(EXIT_ERROR)))
}
