//! The `veer replay` summary: for each recording replayed, how many of its turns were served
//! from the recording and how many went live, where the agent's requests first differed from
//! the recorded ones (the divergence), and how the agent exited. `--format json` prints it
//! (`veer schema replay`); the terminal, Markdown and HTML printers format the same data.

use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// Where a replayed agent's request first differed from the recording.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReplayDivergence {
    /// The 0-based index of the model call (turn) that diverged, counted over the whole run.
    pub turn: u64,
    /// The endpoint the agent called: `openai.chat_completions`, `openai.responses` or
    /// `anthropic.messages`.
    pub endpoint: String,
    /// Why it did not match: `content` (a field differs), `extra_call` (the recording has no
    /// more calls), `provider` (the recording is of another provider's API).
    pub reason: String,
    /// The first differing field of the request record, as a path (`messages[3].content`,
    /// `model`, `tools[0].input_schema.required`); empty when the reason is not `content`.
    pub path: String,
    /// The recorded value at `path` as compact JSON, secrets redacted, cut to 500 characters;
    /// `null` when the recording has no value there.
    pub recorded: Option<String>,
    /// The agent's value at `path`, the same way.
    pub got: Option<String>,
}

/// One recording replayed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReplayRun {
    /// The recording replayed, as given (a file, or a file found in a trials directory).
    pub recording: String,
    /// The recording's trace id (the content id of its root metadata record).
    pub recording_id: String,
    /// The new recording written.
    pub output: String,
    /// The recording's case (trials directories), when it has one.
    pub case: Option<String>,
    /// The recording's trial number, when it has one.
    pub trial: Option<u64>,
    /// Model calls in the recording.
    pub turns_recorded: u64,
    /// Model calls answered from the recording.
    pub turns_served: u64,
    /// Model calls forwarded to the live provider (after `--branch-at`, or after a divergence
    /// with `--on-divergence live`).
    pub turns_live: u64,
    /// `--branch-at N`: the number of recorded responses served before going live.
    pub branch_at: Option<u64>,
    /// What a divergence does: `fail` (answer with an error, exit 1) or `live`.
    pub on_divergence: String,
    /// The first divergence, if there was one.
    pub divergence: Option<ReplayDivergence>,
    /// The agent command's exit code (128 + the signal number when a signal ended it).
    pub agent_exit_code: i32,
}

/// The `veer replay --format json` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReplayReport {
    /// JSON schema version ("1").
    pub schema_version: Cow<'static, str>,
    /// One entry per recording replayed, in case then trial order.
    pub runs: Vec<ReplayRun>,
    /// Runs that diverged from their recording.
    pub diverged: u64,
}
