//! `clap` definition of `veer bisect` (docs/bisect.md): which change between two agent
//! configurations caused the behaviour change.

use super::OutputArgs;
use clap::Args;
use std::path::PathBuf;
pub use veer_report::bisect::BisectFormat;

/// Default most runs `veer bisect` starts.
pub const DEFAULT_MAX_RUNS: usize = 100;

/// `veer bisect`.
#[derive(Debug, Args)]
pub struct BisectArgs {
    /// The configuration before the change (A): .json, .yaml/.yml, .toml or .env.
    #[arg(long, value_name = "FILE")]
    pub baseline_config: PathBuf,
    /// The configuration after the change (B), in the same format as A.
    #[arg(long, value_name = "FILE")]
    pub candidate_config: PathBuf,
    /// The bisect directory: each design point's configuration, every run, bisect.json
    /// (created when missing; an earlier one is resumed).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Runs of the agent per design point (2 or more for intervals; 1 is inconclusive).
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub trials: usize,
    /// Most agent runs to start (points × trials): the design is the largest that fits (full
    /// factorial, else fold-over Plackett–Burman, else Plackett–Burman).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_RUNS)]
    pub max_runs: usize,
    /// Merge every delta at or under PATH (keys joined by `.`) into one factor called NAME.
    /// Repeatable.
    #[arg(long = "group", value_name = "PATH=NAME")]
    pub groups: Vec<String>,
    /// A policy whose rule violations are measures too (`policy:RULE_ID`).
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// Seed of the bootstrap intervals.
    #[arg(long, value_name = "S", default_value_t = veer_engine::bisect::BISECT_DEFAULT_SEED)]
    pub seed: u64,
    /// Agent processes run at the same time.
    #[arg(long, value_name = "J", default_value_t = 1)]
    pub jobs: usize,
    /// Seconds one agent run may take; past it the run is stopped and its status is timeout.
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
    /// Print the design (and write each point's configuration into --out) without running.
    #[arg(long, conflicts_with = "from_runs")]
    pub plan: bool,
    /// Run nothing: attribute from traces already made for the design's points, found as
    /// RUNS/<point>/<any name>.<trace extension> (one file per trial; `veer bisect --plan`
    /// lists the points).
    #[arg(long, value_name = "RUNS")]
    pub from_runs: Option<PathBuf>,
    /// Redo every run, even those an earlier invocation finished.
    #[arg(long)]
    pub fresh: bool,
    /// Most cells of one structural alignment (each run against each baseline run).
    #[arg(long, value_name = "N", default_value_t = veer_engine::options::DEFAULT_MAX_ALIGN_CELLS, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_align_cells: u64,
    /// Output format of the report.
    #[arg(long, value_enum, default_value_t = BisectFormat::Terminal)]
    pub format: BisectFormat,
    #[command(flatten)]
    pub out_file: OutputArgs,
    /// The agent command, after `--`; `{config}` in it is replaced by the run's configuration
    /// file (also in VEER_CONFIG).
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<std::ffi::OsString>,
}
