//! `clap` definitions of the commands that judge traces against rules: `veer check`,
//! `veer policy validate`, `veer policy suggest` and `veer gate`, with the shared `--fail-on` parser.

use super::{OutputArgs, ReadArgs};
use clap::{Args, Subcommand};
use std::path::PathBuf;
pub use veer_report::policy::suggest::SuggestFormat;
pub use veer_report::policy::CheckFormat;

/// `veer check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The trace: a file (.agentlog, optionally .gz, or traxr JSON) or a directory of traces.
    pub trace: PathBuf,
    /// The policy file (.yaml/.yml, or .json); Shadow policy files load unchanged. Required,
    /// here or as `policy = "…"` in veer.toml.
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// Exit 1 when the worst violation reaches this level (info → minor, warning → moderate,
    /// error and critical → severe); `never` (or `none`) never trips.
    #[arg(long, value_name = "LEVEL", default_value = "severe", value_parser = parse_fail_on)]
    pub fail_on: veer_base::Level,
    /// Do not fail the gate on calls the live policy blocked while the run was recorded
    /// (`veer record --enforce replace|raise`); they are still listed, with status
    /// `prevented`.
    #[arg(long)]
    pub allow_prevented: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = CheckFormat::Terminal)]
    pub format: CheckFormat,
    #[command(flatten)]
    pub read: ReadArgs,
    #[command(flatten)]
    pub out: OutputArgs,
}

/// `--fail-on`: never (none), minor, moderate or severe.
pub fn parse_fail_on(s: &str) -> Result<veer_base::Level, String> {
    veer_base::Level::parse_fail_on(s)
        .ok_or_else(|| format!("`{s}` is not a level; use never, minor, moderate or severe"))
}

/// `veer policy …`.
#[derive(Debug, Subcommand)]
pub enum PolicyCommand {
    /// Load and validate a policy file: every problem with file, line, column, rule id and a
    /// hint. Exit 0 when valid, 2 otherwise.
    #[command(
        after_help = "Examples:\n  veer policy validate policy.yaml\n  veer policy validate policies/pii.json"
    )]
    Validate(PolicyValidateArgs),
    /// Write rules that catch a regression: from a saved `veer diff --format json` report (a
    /// pair, a directory or repeated trials), propose `no_call`, `must_call_before`,
    /// `trajectory_match` (the baseline's usual calls with their stable arguments) and
    /// `forbidden_text` rules, and keep only those that fire on a changed run and stay silent
    /// on every baseline run. Prints a commented policy file.
    #[command(
        after_help = "Examples:\n  veer diff base.agentlog cand.agentlog --format json -o report.json\n  veer policy suggest --from report.json -o policy.yaml\n  veer policy suggest --from suite.json --baseline runs/main --candidate runs/pr --format terminal\n\nA pair report names its two traces; a directory report needs --baseline and --candidate.\nThe rules describe what the baseline did: read them before committing them."
    )]
    Suggest(PolicySuggestArgs),
}

/// `veer policy suggest`.
#[derive(Debug, Args)]
pub struct PolicySuggestArgs {
    /// The report to write rules from (`veer diff … --format json`).
    #[arg(long, value_name = "REPORT")]
    pub from: PathBuf,
    /// The baseline trace or directory (default: the one the report names).
    #[arg(long, value_name = "PATH")]
    pub baseline: Option<PathBuf>,
    /// The candidate trace or directory (default: the one the report names).
    #[arg(long, value_name = "PATH")]
    pub candidate: Option<PathBuf>,
    /// Write rules from this case instead of the ones the report marks as changed (a pair's
    /// relative path, or a trials case key); repeatable.
    #[arg(long = "case", value_name = "NAME")]
    pub cases: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = SuggestFormat::Yaml)]
    pub format: SuggestFormat,
    /// Replace the -o FILE when it already exists (a policy file is yours: it is never
    /// replaced without this).
    #[arg(long)]
    pub force: bool,
    /// Largest accepted REPORT in bytes.
    #[arg(long, value_name = "N", default_value_t = veer_base::capped::DEFAULT_MAX_REPORT_BYTES, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_report_bytes: u64,
    #[command(flatten)]
    pub read: ReadArgs,
    #[command(flatten)]
    pub out: OutputArgs,
}

/// `veer policy validate`.
#[derive(Debug, Args)]
pub struct PolicyValidateArgs {
    /// The policy file.
    pub file: PathBuf,
    /// Also check the rules against these traces (files or directories): name every rule that
    /// could never fire on them — a tool no trace calls or declares, a path that resolves in no
    /// turn — with a did-you-mean. Exit 1 when there is one.
    #[arg(long, value_name = "TRACES", num_args = 1..)]
    pub against: Vec<PathBuf>,
    #[command(flatten)]
    pub read: ReadArgs,
}

/// `veer gate`.
#[derive(Debug, Args)]
pub struct GateArgs {
    /// A report written by `veer diff --format json` (one pair or a directory).
    pub report: PathBuf,
    /// Exit 1 when the worst signal (the severity of an axis that changed in its worse
    /// direction — an improvement never counts —, a powered rejection of a stored
    /// behaviour-fingerprint test → moderate, policy regression) reaches this level; `never`
    /// (or `none`) never trips.
    #[arg(long, value_name = "LEVEL", default_value = "severe", value_parser = parse_fail_on)]
    pub fail_on: veer_base::Level,
    /// Recompute the policy diff with this policy instead of using the report's.
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// The baseline trace (with --policy).
    #[arg(long, value_name = "TRACE")]
    pub baseline: Option<PathBuf>,
    /// The candidate trace (with --policy).
    #[arg(long, value_name = "TRACE")]
    pub candidate: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = GateFormat::Terminal)]
    pub format: GateFormat,
    /// Largest accepted REPORT in bytes.
    #[arg(long, value_name = "N", default_value_t = veer_base::capped::DEFAULT_MAX_REPORT_BYTES, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_report_bytes: u64,
    #[command(flatten)]
    pub read: ReadArgs,
    #[command(flatten)]
    pub out: OutputArgs,
}

pub use veer_report::policy::gate::GateFormat;
