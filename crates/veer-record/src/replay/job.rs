//! One replay end to end — the recording's calls read, the new recording opened with the
//! replay's provenance in its metadata, the agent run against the replaying proxy, the
//! divergence (if any) written back into that metadata — and the listing of a trials
//! directory (`CASE/trial-N.agentlog`) that `veer replay DIR -o OUTDIR` replays file by file.

use super::{describe, run_replay, OnDivergence, RecordedCalls, ReplayOptions, Replayer};
use crate::journal::{Identity, Journal};
use crate::proxy::{Notify, ProxySettings};
use crate::runner::RunError;
use serde_json::{json, Value};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use veer_contract::replay::ReplayRun;
use veer_trace::Trace;

/// One recording to replay.
pub struct ReplayJob<'a> {
    /// The recording, read.
    pub trace: &'a Trace,
    /// Its path as the user gave it (or as found in a trials directory).
    pub recording: String,
    /// The new recording's path, for the report and for writing the divergence back.
    pub output: PathBuf,
    /// The new recording, opened (a new or empty file, appended to).
    pub out: Box<dyn std::io::Write + Send>,
    /// Case and trial (from the recording's metadata or its place in a trials directory).
    pub identity: Identity,
    /// Divergence handling and the branch point.
    pub options: ReplayOptions,
    /// Limits, and the live upstream (used only when `options.live`).
    pub settings: ProxySettings,
    /// Where notices go.
    pub notify: Notify,
    /// The agent command, placeholders already replaced.
    pub command: Vec<OsString>,
    /// Extra environment for the agent (`VEER_CASE`, `VEER_TRIAL`).
    pub env: Vec<(OsString, OsString)>,
}

/// Why a replay could not finish.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The proxy or the agent could not run.
    #[error(transparent)]
    Run(#[from] RunError),
    /// Writing the new recording failed.
    #[error("{path}: cannot write the new recording: {message}")]
    Write {
        /// The output path.
        path: String,
        /// The cause.
        message: String,
    },
}

/// Runs one replay and returns its summary.
pub fn replay_one(job: ReplayJob<'_>) -> Result<ReplayRun, ReplayError> {
    let script = RecordedCalls::from_trace(job.trace);
    let recording_id = job.trace.trace_id().into_owned();
    let turns_recorded = script.len() as u64;
    let on_divergence = match job.options.on_divergence {
        OnDivergence::Fail => "fail",
        OnDivergence::Live => "live",
    };
    let provenance = json!({"from": job.recording, "from_id": recording_id,
                            "branch_at": job.options.branch_at, "on_divergence": on_divergence});
    let mut identity = job.identity.clone();
    identity
        .tags
        .insert(0, ("recorder".into(), "veer replay".into()));
    let replayer = Arc::new(Replayer::new(script, job.options));
    let journal = Arc::new(
        Journal::replaying(job.out, &identity, provenance)
            .with_tool_latencies(replayer.tool_latencies()),
    );
    let code = run_replay(
        job.settings,
        journal.clone(),
        job.notify,
        replayer.clone(),
        &job.command,
        &job.env,
    )?;
    let _ = journal.close();
    let output = job.output.display().to_string();
    if let Some(e) = journal.io_error() {
        return Err(ReplayError::Write {
            path: output,
            message: e,
        });
    }
    let progress = replayer.progress();
    if let Some(d) = &progress.divergence {
        let value = serde_json::to_value(d).unwrap_or(Value::Null);
        note_divergence(&job.output, value, &describe(d)).map_err(|e| ReplayError::Write {
            path: output.clone(),
            message: e.to_string(),
        })?;
    }
    Ok(ReplayRun {
        recording: job.recording,
        recording_id,
        output,
        case: job.identity.case,
        trial: job.identity.trial,
        turns_recorded,
        turns_served: progress.served,
        turns_live: progress.live,
        branch_at: job.options.branch_at,
        on_divergence: on_divergence.into(),
        divergence: progress.divergence,
        agent_exit_code: code,
    })
}

/// Writes the divergence into the new recording's root metadata (`replay.divergence`): the
/// first line is rewritten with its new content id, and the records that named the old id as
/// their parent name the new one. A FIFO or device output is left as it is.
fn note_divergence(path: &Path, divergence: Value, message: &str) -> std::io::Result<()> {
    if !std::fs::metadata(path)?.is_file() {
        return Ok(());
    }
    let text = std::fs::read_to_string(path)?;
    let Some((first, rest)) = text.split_once('\n') else {
        return Ok(());
    };
    let Ok(mut root) = serde_json::from_str::<Value>(first) else {
        return Ok(());
    };
    let old = root
        .get("id")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let Some(payload) = root.get_mut("payload") else {
        return Ok(());
    };
    payload["replay"]["divergence"] = divergence;
    payload["replay"]["divergence"]["message"] = json!(message);
    let new = veer_trace::canonical::content_id(&*payload);
    root["id"] = json!(new);
    let mut out = root.to_string();
    out.push('\n');
    out.push_str(&rest.replace(&format!("\"{old}\""), &format!("\"{new}\"")));
    let tmp = path.with_extension("agentlog.veer-tmp");
    std::fs::write(&tmp, out)?;
    std::fs::rename(&tmp, path)
}

/// One recording of a trials directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayTrialFile {
    /// The case (the folder's name).
    pub case: String,
    /// The trial number (`trial-N.agentlog`).
    pub trial: u64,
    /// The file.
    pub path: PathBuf,
}

/// The `CASE/trial-N.agentlog` files under `dir`, in case then trial order; other files are
/// not replayed.
pub fn trials_in(dir: &Path) -> std::io::Result<Vec<ReplayTrialFile>> {
    let mut out = Vec::new();
    for case in std::fs::read_dir(dir)? {
        let case = case?;
        if !case.file_type()?.is_dir() {
            continue;
        }
        let name = case.file_name().to_string_lossy().into_owned();
        for f in std::fs::read_dir(case.path())? {
            let f = f?;
            let file = f.file_name().to_string_lossy().into_owned();
            let trial = file
                .strip_prefix("trial-")
                .and_then(|t| t.strip_suffix(".agentlog"))
                .and_then(|t| t.parse::<u64>().ok());
            if let Some(trial) = trial {
                out.push(ReplayTrialFile {
                    case: name.clone(),
                    trial,
                    path: f.path(),
                });
            }
        }
    }
    out.sort_by(|a, b| (&a.case, a.trial).cmp(&(&b.case, b.trial)));
    Ok(out)
}

/// `{case}` and `{trial}` in each argument replaced.
pub fn substitute(command: &[OsString], case: &str, trial: u64) -> Vec<OsString> {
    command
        .iter()
        .map(|a| match a.to_str() {
            Some(s) => s
                .replace("{case}", case)
                .replace("{trial}", &trial.to_string())
                .into(),
            None => a.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trials_directory_is_listed_in_case_then_trial_order() {
        let d = tempfile::tempdir().unwrap();
        for (case, file) in [
            ("b", "trial-2.agentlog"),
            ("b", "trial-10.agentlog"),
            ("a", "trial-1.agentlog"),
            ("a", "notes.txt"),
        ] {
            std::fs::create_dir_all(d.path().join(case)).unwrap();
            std::fs::write(d.path().join(case).join(file), "").unwrap();
        }
        let got: Vec<(String, u64)> = trials_in(d.path())
            .unwrap()
            .into_iter()
            .map(|t| (t.case, t.trial))
            .collect();
        assert_eq!(
            got,
            vec![("a".into(), 1), ("b".into(), 2), ("b".into(), 10)]
        );
        let cmd = substitute(
            &["agent".into(), "--case={case}".into(), "{trial}".into()],
            "a",
            3,
        );
        assert_eq!(
            cmd,
            vec![OsString::from("agent"), "--case=a".into(), "3".into()]
        );
    }

    #[test]
    fn the_divergence_is_written_into_the_root_metadata() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("new.agentlog");
        let root = json!({"tags": {"recorder": "veer replay"}, "replay": {"from": "a.agentlog"}});
        let id = veer_trace::canonical::content_id(&root);
        let child = json!({"model": "m", "messages": []});
        let cid = veer_trace::canonical::content_id(&child);
        std::fs::write(
            &path,
            format!(
                "{}\n{}\n",
                json!({"version": "0.1", "id": id, "kind": "metadata", "ts": "2026-01-01T00:00:00.000Z", "parent": null, "payload": root}),
                json!({"version": "0.1", "id": cid, "kind": "chat_request", "ts": "2026-01-01T00:00:00.000Z", "parent": id, "payload": child})
            ),
        )
        .unwrap();
        note_divergence(&path, json!({"turn": 1}), "turn 1 differs").unwrap();
        let t = veer_trace::agentlog::reader::read_agentlog_bytes(
            "new.agentlog",
            &std::fs::read(&path).unwrap(),
            &veer_trace::ReadOptions {
                strict: true,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(
            t.records[0].payload.to_value()["replay"]["divergence"]["turn"],
            1
        );
        assert_eq!(
            t.records[1].parent.as_ref().map(|p| p.to_string()),
            Some(t.records[0].id.to_string())
        );
    }
}
