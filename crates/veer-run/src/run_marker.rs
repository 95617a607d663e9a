//! One finished run: how its agent process ended, the marker written last in its run directory
//! (and when it lets a run be reused), its answer and its status.

use crate::PlannedRun;
use serde::{Deserialize, Serialize};
use veer_experiment::divergence::PreparedTrace;
use veer_experiment::status::{run_status, AgentKind};
use veer_trace::Trace;

/// How a run's agent process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Exit {
    /// It exited with this code (128 + signal when a signal ended it).
    Exited(i32),
    /// It ran past the time limit and was stopped.
    TimedOut,
}

/// The marker of a finished run (`run.json` in its run directory), written last: a run
/// directory without a valid marker is an unfinished run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunMarker {
    /// Marker layout version (1).
    pub schema_version: u32,
    /// traxr's run label.
    pub label: String,
    /// SHA-256 of the input copy the agent ran on.
    pub input_sha256: String,
    /// SHA-256 of the experiment's settings that change a run's outcome (the command, where
    /// the trace and answer come from, the upstreams, the time limit); a marker of other
    /// settings is not reused.
    pub settings_sha256: String,
    /// How the agent ended.
    pub exit: Exit,
    /// The trace file, relative to the experiment directory.
    pub trace: String,
    /// The run's answer (see [`answer_from_stdout`]); `None` when it gave none.
    pub answer: Option<String>,
    /// Problems of this run (no answer, no trace, exit code, time limit), one line each.
    pub warnings: Vec<String>,
}

impl RunMarker {
    /// Whether this marker records `run` under the same settings (so the run can be reused).
    pub fn matches(&self, run: &PlannedRun, settings_sha256: &str) -> bool {
        self.records(&run.label, &run.input_sha256, settings_sha256)
    }

    /// Whether this marker records the run labelled `label` on an input of SHA-256
    /// `input_sha256` under the settings `settings_sha256` (any runner's runs, e.g.
    /// `veer bisect`'s).
    pub fn records(&self, label: &str, input_sha256: &str, settings_sha256: &str) -> bool {
        self.schema_version == 1
            && self.label == label
            && self.input_sha256 == input_sha256
            && self.settings_sha256 == settings_sha256
    }
}

/// The answer of a run from its standard output: the last line that is not blank, without
/// surrounding whitespace; `None` when every line is blank. Invalid UTF-8 is replaced.
pub fn answer_from_stdout(stdout: &[u8]) -> Option<String> {
    String::from_utf8_lossy(stdout)
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_string)
}

/// The answer written to an `--answer-from` file: its content without surrounding whitespace;
/// `None` when that is empty.
pub fn answer_from_file(content: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(content);
    let t = text.trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// A run's status: `timeout` when it ran past the limit, `error` when it exited non-zero or
/// its trace could not be read, else the trace's own status (`ok`, `empty` — no model call —,
/// `crashed`; spec §11.1).
pub fn status(exit: Exit, trace_readable: bool, kind: AgentKind, trace: &Trace) -> String {
    match exit {
        Exit::TimedOut => "timeout".into(),
        Exit::Exited(code) if code != 0 => "error".into(),
        Exit::Exited(_) if !trace_readable => "error".into(),
        Exit::Exited(_) => run_status(kind, &PreparedTrace::new(trace).events).into(),
    }
}
