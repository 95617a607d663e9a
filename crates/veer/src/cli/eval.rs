//! `clap` definition of `veer eval` (docs/eval.md): run an agent on every case of a suite for
//! N trials through the recording proxy, into the cases × trials layout `veer diff` reads.

use super::OutputArgs;
use clap::Args;
use std::path::PathBuf;
pub use veer_report::eval::EvalFormat;

/// `veer eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// The cases: a text file (one name a line; blank lines and `#` comments skipped), a
    /// .json/.yaml/.yml list (names, or objects with `name` or `id` and an `input`), or a
    /// directory whose entries (files or subdirectories) are the cases.
    #[arg(long, value_name = "FILE|DIR")]
    pub cases: PathBuf,
    /// Runs of the agent per case (trials 1..N).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub trials: u32,
    /// The output directory: OUT/CASE/trial-N.agentlog, veer's bookkeeping in OUT/.veer-eval/
    /// (created when missing; an earlier eval's is resumed).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Agent processes run at the same time.
    #[arg(long, value_name = "J", default_value_t = 1)]
    pub jobs: usize,
    /// Seconds one agent run may take; past it the run is stopped and the trial failed.
    #[arg(long, value_name = "SECS", default_value_t = 600.0)]
    pub timeout: f64,
    /// OpenAI upstream base URL of the recording proxy (ending in /v1). Default: the agent's own OPENAI_BASE_URL when set, else https://api.openai.com/v1.
    #[arg(long, value_name = "URL")]
    pub openai_upstream: Option<String>,
    /// Anthropic upstream base URL of the recording proxy. Default: the agent's own ANTHROPIC_BASE_URL when set, else https://api.anthropic.com.
    #[arg(long, value_name = "URL")]
    pub anthropic_upstream: Option<String>,
    /// Read the trace the agent writes itself instead of recording its calls: a path
    /// containing {run_dir} and ending in .agentlog, .agentlog.gz, .jsonl, .jsonl.gz or .json.
    #[arg(long, value_name = "PATTERN")]
    pub trace_from: Option<String>,
    /// Redo the trials veer finished earlier in OUT (files veer did not write are never
    /// touched).
    #[arg(long)]
    pub fresh: bool,
    /// After the runs, diff BASELINE_DIR against OUT (as `veer diff BASELINE_DIR OUT`) and
    /// exit with its gate's verdict.
    #[arg(long, value_name = "BASELINE_DIR")]
    pub compare: Option<PathBuf>,
    /// The gate of --compare (as `veer diff --fail-on`).
    #[arg(long, value_name = "LEVEL", requires = "compare")]
    pub fail_on: Option<String>,
    /// One more flag of `veer diff` for --compare (repeatable), e.g. --diff-arg=--alpha=0.01
    /// or --diff-arg=--format=json.
    #[arg(
        long,
        value_name = "ARG",
        requires = "compare",
        allow_hyphen_values = true
    )]
    pub diff_arg: Vec<String>,
    /// Output format of the summary.
    #[arg(long, value_enum, default_value_t = EvalFormat::Terminal)]
    pub format: EvalFormat,
    #[command(flatten)]
    pub out_file: OutputArgs,
    /// The agent command, after `--`: `{case}`, `{trial}` and `{input}` in its arguments are
    /// replaced (also VEER_CASE, VEER_TRIAL, VEER_CASE_INPUT).
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<std::ffi::OsString>,
}
