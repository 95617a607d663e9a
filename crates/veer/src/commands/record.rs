//! `veer record` and `veer record serve`: check the flags, open the output and the policy,
//! then hand over to `veer-record`, which runs the proxy (and the agent command) and records.

use crate::cli::{Enforce, ProxyArgs, RecordArgs, RecordCommand};
use crate::error::{CliError, Exit, EXIT_ERROR};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use veer_engine::policy::Mode;
use veer_record::{Journal, Notify, ProxySettings};

/// Runs `veer record`.
pub fn run(args: &RecordArgs) -> Result<Exit, CliError> {
    match &args.serve {
        Some(RecordCommand::Serve(s)) => serve(&s.proxy, s.port),
        None => record_command(&args.proxy, &args.command),
    }
}

struct Prepared {
    settings: ProxySettings,
    upstreams: super::upstream::Upstreams,
    journal: Arc<Journal>,
    output: String,
}

fn prepare(p: &ProxyArgs) -> Result<Prepared, CliError> {
    let upstreams = super::upstream::Upstreams::resolve_with_azure(
        p.openai_upstream.as_deref(),
        p.anthropic_upstream.as_deref(),
        p.azure_upstream.as_deref(),
    )?;
    if !(p.timeout.is_finite() && p.timeout > 0.0) {
        return Err(CliError::input(format!(
            "--timeout: must be a positive number of seconds, got {}",
            p.timeout
        ))
        .hint("e.g. --timeout 120"));
    }
    let policy = match &p.policy {
        Some(path) => {
            let policy = veer_engine::policy::load(path)
                .map_err(|e| crate::commands::policy::policy_error(&e))?;
            let mode = match p.enforce {
                Enforce::Warn => Mode::Warn,
                Enforce::Replace => Mode::Replace,
                Enforce::Raise => Mode::Raise,
            };
            Some((policy, mode))
        }
        None => None,
    };
    let Some(output) = &p.output else {
        return Err(CliError::input("-o FILE is required").hint("e.g. -o run.agentlog"));
    };
    let inputs: Vec<&Path> = p.policy.iter().map(|x| x.as_path()).collect();
    let file = crate::output::open_append_stream(output, &inputs)?;
    let identity = veer_record::Identity {
        case: p.case.clone(),
        trial: p.trial,
        tags: p.tag.clone(),
    };
    let hold_streams = matches!(policy, Some((_, Mode::Replace | Mode::Raise)));
    let settings = ProxySettings {
        openai_upstream: upstreams.openai.url.clone(),
        anthropic_upstream: upstreams.anthropic.url.clone(),
        azure_upstream: upstreams.azure.as_ref().map(|a| a.url.clone()),
        max_request_bytes: p.max_body_bytes,
        timeout: Duration::from_secs_f64(p.timeout),
        hold_streams,
        ..ProxySettings::default()
    };
    Ok(Prepared {
        settings,
        upstreams,
        journal: Arc::new(if p.redact {
            Journal::with_identity(Box::new(file), policy, &identity)
                .redacting(veer_secrets::Detector::builtin())
        } else {
            Journal::with_identity(Box::new(file), policy, &identity)
        }),
        output: output.display().to_string(),
    })
}

fn notify() -> Notify {
    Arc::new(|m: &str| {
        crate::output::diag::say("veer record", m);
    })
}

fn run_error(e: veer_record::RunError) -> CliError {
    let hint = match &e {
        veer_record::RunError::Spawn { .. } => "check the command after `--` exists and is executable",
        veer_record::RunError::Bind { .. } => "pick another --port, or 0 for a free one",
        veer_record::RunError::Tls(_) => {
            "install the system's CA certificates (e.g. the ca-certificates package), or use an http:// upstream"
        }
        _ => "this is unexpected; please report it",
    };
    CliError::input(e.to_string()).hint(hint)
}

/// Ends the run: end-of-run policy checks, the summary, and a write error if there was one.
fn finish(p: &Prepared) -> Result<(), CliError> {
    let say = notify();
    if let Some(m) = p.journal.finish() {
        say(&format!("warning: {m}"));
    }
    let _ = p.journal.close();
    let s = p.journal.summary();
    say(&s.line(&p.output));
    match p.journal.io_error() {
        Some(e) => Err(CliError::input(format!("{}: cannot write output: {e}", p.output))
            .hint("the recording stops at the last whole call written; check free space and permissions")),
        None => Ok(()),
    }
}

/// Says where the calls will go, before anything is sent.
fn say_upstreams(p: &Prepared) {
    let say = notify();
    for line in p.upstreams.describe() {
        say(&line);
    }
}

fn record_command(p: &ProxyArgs, command: &[std::ffi::OsString]) -> Result<Exit, CliError> {
    let prepared = prepare(p)?;
    say_upstreams(&prepared);
    let code = veer_record::run_command(
        prepared.settings.clone(),
        prepared.journal.clone(),
        notify(),
        command,
    )
    .map_err(run_error)?;
    finish(&prepared)?;
    Ok(Exit::Agent(u8::try_from(code).unwrap_or(EXIT_ERROR)))
}

fn serve(p: &ProxyArgs, port: u16) -> Result<Exit, CliError> {
    let prepared = prepare(p)?;
    say_upstreams(&prepared);
    let output = prepared.output.clone();
    let azure = prepared.upstreams.azure.is_some();
    veer_record::serve(
        prepared.settings.clone(),
        prepared.journal.clone(),
        notify(),
        port,
        |addr| {
            let mut out = anstream::stdout();
            let _ = writeln!(
                out,
                "veer record: listening on {addr}, recording to {output} (Ctrl-C to stop)\nexport OPENAI_BASE_URL=http://{addr}/openai/v1\nexport ANTHROPIC_BASE_URL=http://{addr}/anthropic"
            );
            if azure {
                let _ = writeln!(out, "export AZURE_OPENAI_ENDPOINT=http://{addr}/azure");
            }
            let _ = out.flush();
        },
    )
    .map_err(run_error)?;
    finish(&prepared)?;
    Ok(Exit::done())
}
