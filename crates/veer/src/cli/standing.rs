//! `clap` definitions of the commands that keep a team's standing record: `veer baseline …`
//! (named, immutable, verified baselines) and `veer history …` (comparison summaries in
//! SQLite). Kept beside `cli.rs` so each family of commands reads in one place.

use super::{OutputArgs, ReadArgs};
use clap::{Args, Subcommand};
use std::path::PathBuf;
pub use veer_report::history::{DriftFormat, ReportFormat, StandingFormat};

/// Where baselines live unless `--root` says otherwise.
pub const DEFAULT_BASELINE_ROOT: &str = ".veer/baselines";
/// The history database unless a path is given.
pub const DEFAULT_HISTORY_DB: &str = ".veer/history.sqlite";
/// The quarantine file `veer history flaky --write` appends to and `veer diff` honours.
pub const DEFAULT_QUARANTINE: &str = ".veer/quarantine.yaml";

/// `veer baseline` subcommands.
#[derive(Debug, Subcommand)]
pub enum BaselineCommand {
    /// Store a directory of runs as a new baseline: the traces (`.agentlog` gzip-compressed
    /// under its own name, other formats as read), a manifest with each file's sha256, the
    /// case/trial layout, veer's version, the policy's hash and the git commit and CI run.
    #[command(
        after_help = "Examples:\n  veer baseline create runs/main --name main\n  veer baseline create runs/main --name main --policy policy.yaml\n  veer baseline create runs/main --path ci/baselines/main\n\nThe baseline goes to .veer/baselines/NAME/v1/ (docs/baselines.md); it is never rewritten."
    )]
    Create(BaselineCreateArgs),
    /// Store a directory of runs as the next version of an existing baseline; the earlier
    /// versions stay as they were.
    #[command(after_help = "Example:\n  veer baseline update runs/main --name main")]
    Update(BaselineCreateArgs),
    /// Record who approved a baseline version, when and why: a new manifest revision (the
    /// stored traces are verified first and never touched).
    #[command(
        after_help = "Example:\n  veer baseline approve main --by ana --reason \"reviewed the refund flows\""
    )]
    Approve(BaselineApproveArgs),
    /// Re-hash every file of a baseline version against its manifest; exit 2 naming the first
    /// file that was changed, added or removed.
    #[command(
        after_help = "Examples:\n  veer baseline verify main\n  veer baseline verify main@1 --format json"
    )]
    Verify(BaselineRefArgs),
    /// List the baselines under .veer/baselines (or --root).
    #[command(after_help = "Example:\n  veer baseline list --format json")]
    List(BaselineListArgs),
    /// Show a baseline version's manifest: provenance, approvals, cases and files.
    #[command(
        after_help = "Examples:\n  veer baseline show main\n  veer baseline show main@2 --format json"
    )]
    Show(BaselineRefArgs),
}

/// Where a baseline is: a name under --root, or --path.
#[derive(Debug, Clone, Args)]
pub struct BaselineRootArgs {
    /// Directory holding named baselines.
    #[arg(long, value_name = "DIR", default_value = DEFAULT_BASELINE_ROOT)]
    pub root: PathBuf,
}

/// `veer baseline create` and `update`.
#[derive(Debug, Args)]
pub struct BaselineCreateArgs {
    /// The runs to store: a directory of traces (cases as subdirectories, one file per trial,
    /// or files at the top, one case each).
    pub runs: PathBuf,
    /// The baseline's name (letters, digits, `.`, `_`, `-`): stored in --root/NAME.
    #[arg(
        long,
        value_name = "NAME",
        required_unless_present = "path",
        conflicts_with = "path"
    )]
    pub name: Option<String>,
    /// Store the baseline in this directory instead of --root/NAME (its name is the
    /// directory's name).
    #[arg(long, value_name = "DIR")]
    pub path: Option<PathBuf>,
    /// The policy the runs are judged by; its sha256 is recorded.
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// The git commit of the runs (default: GITHUB_SHA, CI_COMMIT_SHA, … or `git rev-parse
    /// HEAD`).
    #[arg(long, value_name = "SHA")]
    pub commit: Option<String>,
    /// The CI run that made them (default: GITHUB_RUN_ID, CI_PIPELINE_ID, …).
    #[arg(long, value_name = "ID")]
    pub ci_run: Option<String>,
    /// Output format of the summary (json: the manifest).
    #[arg(long, value_enum, default_value_t = StandingFormat::Terminal)]
    pub format: StandingFormat,
    #[command(flatten)]
    pub root: BaselineRootArgs,
    #[command(flatten)]
    pub read: ReadArgs,
}

/// A baseline named on the command line.
#[derive(Debug, Args)]
pub struct BaselineRefArgs {
    /// The baseline: NAME (under --root), or a path to its directory (containing `/`), with
    /// `@N` for version N (default: the latest), e.g. `main@2`.
    pub baseline: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t = StandingFormat::Terminal)]
    pub format: StandingFormat,
    #[command(flatten)]
    pub root: BaselineRootArgs,
    #[command(flatten)]
    pub out: OutputArgs,
}

/// `veer baseline approve`.
#[derive(Debug, Args)]
pub struct BaselineApproveArgs {
    /// The baseline: NAME or a path, with `@N` for a version (default: the latest).
    pub baseline: String,
    /// Who approves (default: GITHUB_ACTOR, GITLAB_USER_LOGIN or USER).
    #[arg(long, value_name = "WHO")]
    pub by: Option<String>,
    /// Why: what was reviewed.
    #[arg(long, value_name = "TEXT")]
    pub reason: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t = StandingFormat::Terminal)]
    pub format: StandingFormat,
    #[command(flatten)]
    pub root: BaselineRootArgs,
}

/// `veer baseline list`.
#[derive(Debug, Args)]
pub struct BaselineListArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = StandingFormat::Terminal)]
    pub format: StandingFormat,
    #[command(flatten)]
    pub root: BaselineRootArgs,
    #[command(flatten)]
    pub out: OutputArgs,
}

/// `veer history` subcommands.
#[derive(Debug, Subcommand)]
pub enum HistoryCommand {
    /// Add a saved `veer diff --format json` report's summary to the history: per axis, per
    /// policy rule, per case verdict, the gate, commit, branch, time and veer version.
    #[command(
        after_help = "Examples:\n  veer history add report.json\n  veer history add report.json --commit $SHA --branch main --db ci/history.sqlite\n\nSafe from parallel CI jobs writing the same database (WAL, busy timeout). See docs/history.md."
    )]
    Add(HistoryAddArgs),
    /// Print trends: per axis (and per case) the latest level, the worst, and a sparkline over
    /// the last comparisons.
    #[command(
        after_help = "Examples:\n  veer history show\n  veer history show --axis cost --since 2026-11-01\n  veer history show --case refund --branch main --format json"
    )]
    Show(HistoryShowArgs),
    /// Write every stored comparison as JSON Lines (one object per comparison) or Parquet
    /// (one row per gate, axis, rule and case), for warehouses.
    #[command(
        after_help = "Examples:\n  veer history export --format jsonl -o history.jsonl\n  veer history export --format parquet -o history.parquet"
    )]
    Export(HistoryExportArgs),
    /// Draw the trends as one self-contained HTML page (inline SVG charts per axis, verdict
    /// strips per case; no script, nothing fetched).
    #[command(
        after_help = "Example:\n  veer history report --format html -o trend.html --since 2026-11-01"
    )]
    Report(HistoryReportArgs),
    /// Detect drift over a branch's history (main by default): a CUSUM control chart per axis
    /// (on the deltas) and per case (on bad verdicts), limits set from a warm-up window.
    /// Exit 1 when a series is drifting at its latest comparison.
    #[command(
        after_help = "Examples:\n  veer history drift\n  veer history drift --axis cost --format json\n  veer history drift --branch release --case refund --format markdown\n\nMethod, false-alarm rates and detection delays: docs/history.md (Drift)."
    )]
    Drift(HistoryDriftArgs),
    /// List flaky cases: verdicts that flip between comparisons of unchanged code (the same
    /// commit on the same branch), and propose quarantine entries for them.
    #[command(
        after_help = "Examples:\n  veer history flaky\n  veer history flaky --propose\n  veer history flaky --write --expires-in 7\n\n--write appends to the quarantine file (never changing its entries); veer diff then\nmeasures and shows those cases but does not let them trip the gate. See docs/history.md."
    )]
    Flaky(HistoryFlakyArgs),
}

/// `veer history drift`.
#[derive(Debug, Args)]
pub struct HistoryDriftArgs {
    /// The branch whose history is monitored.
    #[arg(long, value_name = "BRANCH", default_value = "main")]
    pub branch: String,
    /// Only this axis (and no cases unless --case is given too).
    #[arg(long, value_name = "AXIS")]
    pub axis: Option<String>,
    /// Only this case (and no axes unless --axis is given too).
    #[arg(long, value_name = "CASE")]
    pub case: Option<String>,
    /// Only comparisons recorded at or after this date (YYYY-MM-DD, UTC) or instant.
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// At most this many comparisons, the most recent (1 to 1,000,000).
    #[arg(long, value_name = "N", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub last: u64,
    /// Comparisons at the start of each series that set its in-control level (5 to 1,000).
    /// The documented false-alarm rates are for the default, 30.
    #[arg(long, value_name = "N", default_value_t = 30, value_parser = clap::value_parser!(u64).range(5..=1_000))]
    pub warmup: u64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = DriftFormat::Text)]
    pub format: DriftFormat,
    #[command(flatten)]
    pub db: HistoryDbArgs,
    #[command(flatten)]
    pub out: OutputArgs,
}

/// `veer history flaky`.
#[derive(Debug, Args)]
pub struct HistoryFlakyArgs {
    /// Only comparisons of this branch (default: every branch, each commit grouped per branch).
    #[arg(long, value_name = "BRANCH")]
    pub branch: Option<String>,
    /// Only comparisons recorded at or after this date (YYYY-MM-DD, UTC) or instant.
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// At most this many comparisons, the most recent (1 to 1,000,000).
    #[arg(long, value_name = "N", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub last: u64,
    /// Also print the quarantine entries proposed for the flaky cases not yet quarantined
    /// (YAML, ready for the quarantine file). Nothing is written.
    #[arg(long)]
    pub propose: bool,
    /// Append the proposed entries to the quarantine file (existing entries are never
    /// changed; the file is replaced atomically).
    #[arg(long)]
    pub write: bool,
    /// The quarantine file.
    #[arg(long, value_name = "FILE", default_value = DEFAULT_QUARANTINE)]
    pub quarantine: PathBuf,
    /// Days from today (UTC) until a proposed entry expires (1 to 365).
    #[arg(long, value_name = "DAYS", default_value_t = 14, value_parser = clap::value_parser!(u64).range(1..=365))]
    pub expires_in: u64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = StandingFormat::Terminal)]
    pub format: StandingFormat,
    #[command(flatten)]
    pub db: HistoryDbArgs,
    #[command(flatten)]
    pub out: OutputArgs,
}

/// `veer history report`.
#[derive(Debug, Args)]
pub struct HistoryReportArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = ReportFormat::Html)]
    pub format: ReportFormat,
    /// Only comparisons recorded at or after this date (YYYY-MM-DD, UTC) or instant.
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// Only comparisons of this branch.
    #[arg(long, value_name = "BRANCH")]
    pub branch: Option<String>,
    /// At most this many comparisons, the most recent (1 to 1,000,000).
    #[arg(long, value_name = "N", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub last: u64,
    #[command(flatten)]
    pub db: HistoryDbArgs,
    #[command(flatten)]
    pub out: OutputArgs,
}

/// The database named on the command line.
#[derive(Debug, Clone, Args)]
pub struct HistoryDbArgs {
    /// The history database.
    #[arg(long, value_name = "PATH", default_value = DEFAULT_HISTORY_DB)]
    pub db: PathBuf,
}

/// `veer history add`.
#[derive(Debug, Args)]
pub struct HistoryAddArgs {
    /// The report: the output of `veer diff … --format json` (a pair or a directory).
    pub report: PathBuf,
    /// The git commit compared (default: GITHUB_SHA, CI_COMMIT_SHA, … or `git rev-parse HEAD`).
    #[arg(long, value_name = "SHA")]
    pub commit: Option<String>,
    /// The branch (default: GITHUB_HEAD_REF/GITHUB_REF_NAME, CI_COMMIT_REF_NAME, … or the git
    /// branch).
    #[arg(long, value_name = "BRANCH")]
    pub branch: Option<String>,
    /// The CI run (default: GITHUB_RUN_ID, CI_PIPELINE_ID, …).
    #[arg(long, value_name = "ID")]
    pub ci_run: Option<String>,
    /// Record the comparison at this instant (RFC 3339, e.g. 2026-11-01T12:00:00Z) instead of
    /// now: for importing old reports.
    #[arg(long, value_name = "TIME")]
    pub time: Option<String>,
    #[command(flatten)]
    pub db: HistoryDbArgs,
}

/// `veer history show`.
#[derive(Debug, Args)]
pub struct HistoryShowArgs {
    /// Only comparisons with a verdict for this case, and that case's trend.
    #[arg(long, value_name = "CASE")]
    pub case: Option<String>,
    /// Only this axis (semantic, trajectory, safety, verbosity, latency, cost, reasoning, …).
    #[arg(long, value_name = "AXIS")]
    pub axis: Option<String>,
    /// Only comparisons recorded at or after this date (YYYY-MM-DD, UTC) or instant (RFC 3339).
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// Only comparisons of this branch.
    #[arg(long, value_name = "BRANCH")]
    pub branch: Option<String>,
    /// At most this many comparisons, the most recent (1 to 1,000,000).
    #[arg(long, value_name = "N", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub last: u64,
    /// Sparkline width: the last N comparisons drawn (1 to 200).
    #[arg(long, value_name = "N", default_value_t = 40, value_parser = clap::value_parser!(u64).range(1..=200))]
    pub width: u64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = StandingFormat::Terminal)]
    pub format: StandingFormat,
    #[command(flatten)]
    pub db: HistoryDbArgs,
    #[command(flatten)]
    pub out: OutputArgs,
}

/// Formats of `veer history export`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// JSON Lines: one comparison per line, oldest first.
    Jsonl,
    /// Parquet: one row per comparison's gate, axis, rule and case (columns in
    /// docs/history.md); binary, so give -o FILE.
    Parquet,
}

/// `veer history export`.
#[derive(Debug, Args)]
pub struct HistoryExportArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = ExportFormat::Jsonl)]
    pub format: ExportFormat,
    /// Only comparisons recorded at or after this date (YYYY-MM-DD, UTC) or instant.
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// Only comparisons of this branch.
    #[arg(long, value_name = "BRANCH")]
    pub branch: Option<String>,
    #[command(flatten)]
    pub db: HistoryDbArgs,
    #[command(flatten)]
    pub out: OutputArgs,
}
