//! One agent run for an experiment (`veer experiment run`): optionally a recording proxy of its
//! own, the agent command in a process group of its own with its stdout and stderr sent to
//! files, a time limit, and a cancel flag the caller sets on Ctrl-C. Every way the run can end
//! — exit, time limit, cancel — leaves no process of the group behind and the proxy stopped
//! (calls in flight get the grace period, so the recording holds whole calls only).
//!
//! Unlike [`crate::runner::run_command`] this installs no signal handler: the caller owns the
//! signals and says "stop" through the flag, so several runs can go on in parallel threads.

use crate::journal::Journal;
use crate::proxy::{Notify, ProxySettings};
use crate::runner::RunError;
use crate::server::Server;
use std::ffi::OsString;
use std::fs::File;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How often the cancel flag is looked at while the agent runs.
const POLL: Duration = Duration::from_millis(50);
/// How long an agent asked to stop (SIGTERM to its group) has before SIGKILL.
const TERM_GRACE: Duration = Duration::from_secs(2);
/// How long calls in flight may take to finish once the agent ended.
const PROXY_GRACE: Duration = Duration::from_secs(5);

/// The recording side of a run: the proxy's settings and the journal it records to.
pub struct Recording {
    /// Upstreams and limits of the proxy.
    pub settings: ProxySettings,
    /// Where the calls are recorded.
    pub journal: Arc<Journal>,
    /// Where user-facing notices of the proxy go.
    pub notify: Notify,
}

/// One agent process to run.
pub struct AgentRun {
    /// Program and arguments (placeholders already replaced); must not be empty.
    pub command: Vec<OsString>,
    /// Extra environment variables (the rest of the environment is inherited); with a
    /// recording, `OPENAI_BASE_URL` and `ANTHROPIC_BASE_URL` are added after these.
    pub env: Vec<(OsString, OsString)>,
    /// Receives the agent's standard output.
    pub stdout: File,
    /// Receives the agent's standard error.
    pub stderr: File,
    /// Wall-clock limit for the agent (`None`: none).
    pub timeout: Option<Duration>,
    /// Set by the caller to stop the run (Ctrl-C); looked at every 50 ms.
    pub cancel: Arc<AtomicBool>,
}

/// How an agent run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentExit {
    /// The agent exited by itself: its exit code (128 + signal when a signal ended it).
    Exited(i32),
    /// The time limit passed; the process group was stopped.
    TimedOut,
    /// The cancel flag was set; the process group was stopped.
    Cancelled,
}

fn runtime() -> Result<tokio::runtime::Runtime, RunError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .thread_name("veer-agent")
        .build()
        .map_err(RunError::Runtime)
}

/// Sends `sig` to every process of the group `pgid`.
fn signal_group(pgid: u32, sig: i32) {
    if let Ok(pid) = libc::pid_t::try_from(pgid) {
        // SAFETY: kill(2) on a process group we created, with a valid signal number, has no
        // memory-safety preconditions.
        unsafe {
            libc::kill(-pid, sig);
        }
    }
}

/// Runs one agent (stdin closed) and waits until it ends, its time limit passes or the run is
/// cancelled. With `recording`, a proxy on 127.0.0.1 records its model calls for the length of
/// the run. Fails only when the proxy cannot start or the program cannot be started.
pub fn run_agent(recording: Option<Recording>, run: AgentRun) -> Result<AgentExit, RunError> {
    let rt = runtime()?;
    rt.block_on(async move {
        let azure = recording
            .as_ref()
            .is_some_and(|r| r.settings.azure_upstream.is_some());
        let server = match recording {
            Some(r) => {
                let shared = crate::runner::shared(r.settings, r.journal, r.notify)?;
                Some(
                    Server::start(0, shared, PROXY_GRACE)
                        .await
                        .map_err(|source| RunError::Bind { port: 0, source })?,
                )
            }
            None => None,
        };
        let program = run.command.first().cloned().unwrap_or_default();
        let mut cmd = tokio::process::Command::new(&program);
        cmd.args(run.command.iter().skip(1))
            .envs(run.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::from(run.stdout))
            .stderr(Stdio::from(run.stderr))
            .process_group(0)
            .kill_on_drop(true);
        if let Some(s) = &server {
            let (openai, anthropic) = s.base_urls();
            cmd.env("OPENAI_BASE_URL", openai)
                .env("ANTHROPIC_BASE_URL", anthropic);
            if azure {
                cmd.env("AZURE_OPENAI_ENDPOINT", s.azure_endpoint());
            }
        }
        let spawned = cmd.spawn();
        let mut child = match spawned {
            Ok(c) => c,
            Err(source) => {
                if let Some(s) = server {
                    s.stop().await;
                }
                return Err(RunError::Spawn {
                    program: program.to_string_lossy().into_owned(),
                    source,
                });
            }
        };
        let pgid = child.id().unwrap_or(0);
        let started = Instant::now();
        let exit = loop {
            if run.cancel.load(Ordering::Relaxed) {
                break None;
            }
            if run.timeout.is_some_and(|t| started.elapsed() >= t) {
                break Some(AgentExit::TimedOut);
            }
            match tokio::time::timeout(POLL, child.wait()).await {
                Ok(Ok(status)) => break Some(AgentExit::Exited(exit_code(status))),
                Ok(Err(_)) => break Some(AgentExit::Exited(1)),
                Err(_) => continue,
            }
        };
        let exit = match exit {
            Some(AgentExit::Exited(code)) => AgentExit::Exited(code),
            stopped => {
                // Ask the whole group to stop, then insist.
                if pgid != 0 {
                    signal_group(pgid, libc::SIGTERM);
                }
                if tokio::time::timeout(TERM_GRACE, child.wait())
                    .await
                    .is_err()
                {
                    let _ = child.start_kill();
                    let _ = child.wait().await;
                }
                stopped.unwrap_or(AgentExit::Cancelled)
            }
        };
        // Processes the agent left behind in its group do not outlive the run.
        if pgid != 0 {
            signal_group(pgid, libc::SIGKILL);
        }
        if let Some(s) = server {
            s.stop().await;
        }
        Ok(exit)
    })
}

fn exit_code(s: std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    s.code()
        .or_else(|| s.signal().map(|sig| 128 + sig))
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files() -> (tempfile::TempDir, File, File) {
        let d = tempfile::tempdir().unwrap();
        let o = File::create(d.path().join("out")).unwrap();
        let e = File::create(d.path().join("err")).unwrap();
        (d, o, e)
    }

    fn agent(script: &str, timeout: Option<Duration>) -> (tempfile::TempDir, AgentRun) {
        let (d, stdout, stderr) = files();
        let run = AgentRun {
            command: vec!["sh".into(), "-c".into(), script.into()],
            env: vec![("VEER_X".into(), "x-value".into())],
            stdout,
            stderr,
            timeout,
            cancel: Arc::new(AtomicBool::new(false)),
        };
        (d, run)
    }

    #[test]
    fn exit_code_output_and_environment() {
        let (d, run) = agent("echo \"$VEER_X\"; echo e >&2; exit 3", None);
        assert_eq!(run_agent(None, run).unwrap(), AgentExit::Exited(3));
        assert_eq!(
            std::fs::read_to_string(d.path().join("out")).unwrap(),
            "x-value\n"
        );
        assert_eq!(
            std::fs::read_to_string(d.path().join("err")).unwrap(),
            "e\n"
        );
    }

    #[test]
    fn a_hang_times_out_and_its_whole_group_is_stopped() {
        let (d, mut run) = agent("", Some(Duration::from_millis(300)));
        let late = d.path().join("late");
        run.command[2] = format!("(sleep 1; echo late > '{}') & sleep 30", late.display()).into();
        let t = Instant::now();
        assert_eq!(run_agent(None, run).unwrap(), AgentExit::TimedOut);
        assert!(t.elapsed() < Duration::from_secs(10));
        std::thread::sleep(Duration::from_millis(1500));
        assert!(
            !late.exists(),
            "the agent's background child was stopped too"
        );
    }

    #[test]
    fn cancel_stops_a_running_agent() {
        let (_d, run) = agent("trap '' TERM; sleep 30", None);
        let cancel = run.cancel.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            cancel.store(true, Ordering::Relaxed);
        });
        let t = Instant::now();
        assert_eq!(run_agent(None, run).unwrap(), AgentExit::Cancelled);
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "SIGKILL after the grace"
        );
    }

    #[test]
    fn a_missing_program_is_a_spawn_error() {
        let (_d, mut run) = agent("", None);
        run.command = vec!["/nonexistent/veer-agent".into()];
        assert!(matches!(run_agent(None, run), Err(RunError::Spawn { .. })));
    }
}
