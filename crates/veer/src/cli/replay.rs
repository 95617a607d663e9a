//! `clap` definitions of `veer replay`: the recording (or trials directory) to replay, the new
//! recording, what a divergence does, the live upstream and the branch point, and the summary.

use clap::{Args, ValueEnum};
use std::path::PathBuf;
pub use veer_report::replay::ReplayFormat;

/// `veer replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The recording to replay (an .agentlog written by `veer record`), or a trials directory
    /// of CASE/trial-N.agentlog files.
    #[arg(value_name = "RECORDING")]
    pub recording: PathBuf,
    /// The new recording to write (a new or empty file), or with a trials directory the
    /// directory to write CASE/trial-N.agentlog into.
    #[arg(short = 'o', long = "output", value_name = "NEW")]
    pub output: PathBuf,
    /// What a request that matches no recorded call does: fail (answer it with an HTTP 422
    /// error, stop the agent, exit 1) or live (forward it and every later call to --upstream).
    #[arg(long, value_enum, default_value_t = OnDivergenceArg::Fail)]
    pub on_divergence: OnDivergenceArg,
    /// The live provider's base URL, as the agent's OPENAI_BASE_URL or ANTHROPIC_BASE_URL would
    /// be (e.g. https://api.openai.com/v1); needed by --on-divergence live and --branch-at.
    #[arg(long, value_name = "URL")]
    pub upstream: Option<String>,
    /// Serve the first N recorded responses, then forward every later call to --upstream.
    #[arg(long, value_name = "N")]
    pub branch_at: Option<u64>,
    /// Format of the replay summary.
    #[arg(long, value_enum, default_value_t = ReplayFormat::Terminal)]
    pub format: ReplayFormat,
    /// Write the summary to FILE instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Seconds to wait for the live upstream's answer, and at most between two chunks.
    #[arg(long, value_name = "SECONDS", default_value_t = 600.0)]
    pub timeout: f64,
    /// Largest request body accepted from the agent; larger ones are refused with HTTP 413.
    #[arg(long, value_name = "BYTES", default_value_t = veer_record::proxy::MAX_REQUEST_BYTES)]
    pub max_body_bytes: usize,
    /// The agent to run, after `--`; in a trials directory `{case}` and `{trial}` are replaced.
    #[arg(last = true, required = true, value_name = "CMD")]
    pub command: Vec<std::ffi::OsString>,
}

/// `--on-divergence`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OnDivergenceArg {
    /// Answer with an error, stop the agent, exit 1.
    Fail,
    /// Continue against the live upstream and record the rest.
    Live,
}
