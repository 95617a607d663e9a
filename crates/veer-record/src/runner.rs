//! Running a recording: the proxy alone (`veer record serve`) or around an agent command
//! (`veer record -- CMD`), with the signal handling that leaves a complete file. This is the
//! only place a tokio runtime is built; callers stay synchronous.

use crate::journal::Journal;
use crate::proxy::{Notify, ProxySettings, Shared};
use crate::server::Server;
use std::ffi::OsString;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::signal::unix::{signal, SignalKind};

/// Why a recording could not run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The async runtime could not start.
    #[error("cannot start the proxy's runtime: {0}")]
    Runtime(std::io::Error),
    /// The port could not be bound.
    #[error("cannot listen on 127.0.0.1:{port}: {source}")]
    Bind {
        /// The port asked for (0 = any).
        port: u16,
        /// The cause.
        source: std::io::Error,
    },
    /// TLS could not be set up for an `https://` upstream.
    #[error("{0}")]
    Tls(String),
    /// The agent command could not be started.
    #[error("cannot run {program}: {source}")]
    Spawn {
        /// The program name.
        program: String,
        /// The cause.
        source: std::io::Error,
    },
    /// Signal handlers could not be installed.
    #[error("cannot install signal handlers: {0}")]
    Signals(std::io::Error),
}

/// How long calls in flight may take to finish once the run stops.
const GRACE: Duration = Duration::from_secs(5);

fn runtime() -> Result<tokio::runtime::Runtime, RunError> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("veer-record")
        .build()
        .map_err(RunError::Runtime)
}

pub(crate) fn shared(
    settings: ProxySettings,
    journal: Arc<Journal>,
    notify: Notify,
) -> Result<Arc<Shared>, RunError> {
    shared_with(settings, journal, notify, false).map(Arc::new)
}

/// The handlers' shared state; `offline` (a replay with no live upstream) needs no TLS setup
/// because nothing is forwarded.
pub(crate) fn shared_with(
    settings: ProxySettings,
    journal: Arc<Journal>,
    notify: Notify,
    offline: bool,
) -> Result<Shared, RunError> {
    let tls = !offline
        && (settings.openai_upstream.starts_with("https:")
            || settings.anthropic_upstream.starts_with("https:")
            || settings
                .azure_upstream
                .as_deref()
                .is_some_and(|u| u.starts_with("https:")));
    let client = crate::upstream::client(tls).map_err(RunError::Tls)?;
    Ok(Shared {
        settings,
        client,
        journal,
        notify,
        replay: None,
    })
}

/// Runs the proxy until SIGINT or SIGTERM; `ready` gets the address once it listens.
pub fn serve(
    settings: ProxySettings,
    journal: Arc<Journal>,
    notify: Notify,
    port: u16,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), RunError> {
    let rt = runtime()?;
    rt.block_on(async move {
        let shared = shared(settings, journal, notify)?;
        let server = Server::start(port, shared, GRACE)
            .await
            .map_err(|source| RunError::Bind { port, source })?;
        let mut int = signal(SignalKind::interrupt()).map_err(RunError::Signals)?;
        let mut term = signal(SignalKind::terminate()).map_err(RunError::Signals)?;
        ready(server.addr);
        tokio::select! {
            _ = int.recv() => {}
            _ = term.recv() => {}
        }
        server.stop().await;
        Ok(())
    })
}

/// Runs `command` with `OPENAI_BASE_URL` and `ANTHROPIC_BASE_URL` (and, when an Azure
/// upstream is set, `AZURE_OPENAI_ENDPOINT`) pointing at the proxy (the
/// rest of the environment and stdio inherited) and returns its exit code (128 + signal when a
/// signal ended it). SIGINT/SIGTERM to veer are passed on to the command, which gets
/// ten seconds to end before it is killed.
pub fn run_command(
    settings: ProxySettings,
    journal: Arc<Journal>,
    notify: Notify,
    command: &[OsString],
) -> Result<i32, RunError> {
    let rt = runtime()?;
    rt.block_on(async move {
        let azure = settings.azure_upstream.is_some();
        let shared = shared(settings, journal, notify)?;
        let server = Server::start(0, shared, GRACE)
            .await
            .map_err(|source| RunError::Bind { port: 0, source })?;
        let (openai, anthropic) = server.base_urls();
        let program = command.first().cloned().unwrap_or_default();
        let mut int = signal(SignalKind::interrupt()).map_err(RunError::Signals)?;
        let mut term = signal(SignalKind::terminate()).map_err(RunError::Signals)?;
        let mut cmd = tokio::process::Command::new(&program);
        cmd.args(&command[1..])
            .env("OPENAI_BASE_URL", openai)
            .env("ANTHROPIC_BASE_URL", anthropic)
            .kill_on_drop(true);
        if azure {
            cmd.env("AZURE_OPENAI_ENDPOINT", server.azure_endpoint());
        }
        let mut child = cmd.spawn().map_err(|source| RunError::Spawn {
            program: program.to_string_lossy().into_owned(),
            source,
        })?;
        let forward = |child: &tokio::process::Child, sig: i32| {
            if let Some(pid) = child.id() {
                // SAFETY: kill(2) with a pid we spawned and a valid signal number has no
                // memory-safety preconditions.
                unsafe {
                    libc::kill(pid as libc::pid_t, sig);
                }
            }
        };
        let status = tokio::select! {
            s = child.wait() => s,
            _ = int.recv() => { forward(&child, libc::SIGINT); stop_child(&mut child).await }
            _ = term.recv() => { forward(&child, libc::SIGTERM); stop_child(&mut child).await }
        };
        server.stop().await;
        let code = match status {
            Ok(s) => exit_code(s),
            Err(_) => 1,
        };
        Ok(code)
    })
}

/// Sends `sig` to the agent.
pub(crate) fn forward(child: &tokio::process::Child, sig: i32) {
    if let Some(pid) = child.id() {
        // SAFETY: kill(2) with a pid we spawned and a valid signal number has no
        // memory-safety preconditions.
        unsafe {
            libc::kill(pid as libc::pid_t, sig);
        }
    }
}

/// Waits ten seconds for an agent asked to stop, then kills it.
pub(crate) async fn stop_child(
    child: &mut tokio::process::Child,
) -> std::io::Result<std::process::ExitStatus> {
    match tokio::time::timeout(Duration::from_secs(10), child.wait()).await {
        Ok(s) => s,
        Err(_) => {
            let _ = child.start_kill();
            child.wait().await
        }
    }
}

/// An exit status as a code: 128 + the signal number when a signal ended it.
pub(crate) fn exit_code(s: std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    s.code()
        .or_else(|| s.signal().map(|sig| 128 + sig))
        .unwrap_or(1)
}
