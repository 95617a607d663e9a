//! The command line: `clap` derive definitions only. Each subcommand's work is in
//! [`crate::commands`].

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

mod bisect;
mod setup;
mod standing;
pub use bisect::*;
pub use setup::*;
pub use standing::*;

/// veer tells you what changed in your agent's behaviour, where it first changed, and whether
/// it breaks a rule the agent must keep.
///
/// It reads recorded agent traces (Shadow `.agentlog` JSON Lines, traxr trace JSON,
/// OpenTelemetry OTLP/JSON spans with GenAI or OpenInference attributes) and
/// compares a baseline run with a candidate run, deterministically, offline.
///
/// Exit codes: 0 ok, 1 a gate tripped, 2 usage or input error. A stdout closed early
/// (`veer … | head -1`) ends quietly with the command's own code; Ctrl-C or SIGTERM ends by the
/// signal (130, 143) and leaves any previous `-o` file as it was.
#[derive(Debug, Parser)]
#[command(
    name = "veer",
    version,
    propagate_version = true,
    after_help = "Examples:\n  veer demo                         # see veer on bundled example traces\n  veer inspect run.agentlog         # one row per turn of a trace"
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// Print secrets found in traces (API keys, tokens, e-mail addresses, …) as they are,
    /// instead of `[REDACTED:<kind>]`, in every report, message and converted trace (`veer
    /// record` writes recordings verbatim unless `--redact`).
    #[arg(long, global = true)]
    pub no_redact: bool,
    /// Read settings from FILE instead of the veer.toml found by walking up from the working
    /// directory (also VEER_CONFIG=FILE). Flags given on the command line win over it.
    #[arg(long, global = true, value_name = "FILE", conflicts_with = "no_config")]
    pub config: Option<PathBuf>,
    /// Ignore veer.toml and VEER_CONFIG: flags and veer's defaults only.
    #[arg(long, global = true)]
    pub no_config: bool,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show one trace, one row per turn: session, model, tools and their argument keys, tokens,
    /// latency, stop reason and a text preview; then the live-policy decisions of a recording
    /// made with `veer record --enforce` (blocked calls with their rule and turn).
    #[command(
        after_help = "Examples:\n  veer inspect traces/run-42.agentlog\n  veer inspect results.json --format json -o turns.json\n  veer inspect run.agentlog.gz --strict"
    )]
    Inspect(InspectArgs),
    /// Convert traces in any format veer reads (.agentlog, traxr, OpenTelemetry OTLP/JSON,
    /// Inspect AI logs, and the other formats of docs/formats.md) to one canonical .agentlog:
    /// content ids, a parent chain, and a metadata record naming the source format and veer's
    /// version. Several OTLP/JSON inputs are read as one set of spans (a run exported over
    /// several files); other inputs follow one another as sessions. Secrets are redacted like
    /// in every output (content ids computed after redaction); --no-redact keeps them.
    #[command(
        after_help = "Examples:\n  veer convert otel-export.json -o run.agentlog\n  veer convert spans-1.jsonl spans-2.jsonl -o run.agentlog\n  veer convert traxr-trace.json > run.agentlog\n  veer --no-redact convert run.json -o run.agentlog   # keep secrets verbatim\n\nThe output diffs like its inputs: `veer diff a.agentlog b.agentlog` gives the same report as\n`veer diff a.json b.json` (exactly so when nothing was redacted)."
    )]
    Convert(ConvertArgs),
    /// Compare a baseline run with a candidate run: nine behaviour axes with confidence
    /// intervals and severities, where the behaviour first diverged, the ranked divergences,
    /// the most changed pairs and recommendations, and the live-policy decisions of recordings
    /// made with `veer record --enforce`. BASELINE and CANDIDATE are two trace files, two
    /// Inspect AI logs, or two directories: traces paired by relative path or, when each case
    /// was run several times, cases compared trial set against trial set with a calibrated
    /// gate (docs/trials.md).
    #[command(
        after_help = "Examples:\n  veer diff baseline.agentlog candidate.agentlog\n  veer diff runs/main/ runs/pr-123/ --format markdown -o comment.md\n  veer diff a.agentlog b.agentlog --pricing pricing.json --format json --seed 7\n  veer diff a.agentlog b.agentlog --pair-by alignment --top-k 10 --format junit -o diff.xml\n  veer diff a.agentlog b.agentlog --format html -o diff.html\n  veer diff a.agentlog b.agentlog --policy policy.yaml --format sarif -o veer.sarif\n  veer diff a.agentlog b.agentlog --policy policy.yaml --format github   # in GitHub Actions\n  veer diff base.agentlog cand.agentlog --policy policy.yaml --fail-on moderate\n  veer diff a.agentlog b.agentlog --fingerprint-scale output_tokens=200000 --fingerprint-scale latency_ms=120000"
    )]
    Diff(DiffArgs),
    /// Run veer's main job on example traces bundled in the binary (no files, no network): the
    /// diff of a refund agent whose candidate prompt dropped "confirm before refunding",
    /// checked against its bundled policy.
    #[command(
        after_help = "Examples:\n  veer demo\n  veer demo --format markdown\n  veer demo --format json"
    )]
    Demo(DemoArgs),
    /// Check one trace (or every trace of a directory) against a behaviour policy: every
    /// violation with its rule, session, turn and detail, then the gate on the violations. A
    /// call the live policy blocked while the run was recorded (`veer record --enforce`) is a
    /// violation with status `prevented`.
    #[command(
        after_help = "Examples:\n  veer check run.agentlog --policy policy.yaml\n  veer check traces/ --policy policy.yaml --fail-on moderate --format junit -o policy.xml\n  veer check run.agentlog --policy policy.yaml --format html -o check.html\n  veer check traces/ --policy policy.yaml --format sarif -o veer.sarif\n  veer check run.agentlog --policy policy.yaml --format json --fail-on never"
    )]
    Check(CheckArgs),
    /// Work with policy files: validate one before `veer check`, `veer diff --policy` or
    /// `veer record --policy` uses it.
    #[command(
        subcommand,
        after_help = "Example:\n  veer policy validate policy.yaml"
    )]
    Policy(PolicyCommand),
    /// Re-apply the merge gate to a saved `veer diff --format json` report: the worst
    /// regressed axis (an improvement never counts) and the policy regressions stored in it, or,
    /// with --policy, the policy diff of --baseline and --candidate recomputed once.
    #[command(
        after_help = "Examples:\n  veer gate report.json --fail-on moderate\n  veer gate report.json --policy policy.yaml --baseline base.agentlog --candidate cand.agentlog"
    )]
    Gate(GateArgs),
    /// Find secrets in traces: API keys (OpenAI, Anthropic, GitHub, AWS, Google), JWTs, PEM
    /// private keys, e-mail addresses, phone numbers and card numbers. Reports file, line,
    /// column and kind, never the secret. Exit 1 when anything is found.
    #[command(
        after_help = "Examples:\n  veer scan traces/\n  veer scan run.agentlog --patterns team-patterns.yaml --format json\n\nA patterns file adds kinds of your own:\n  patterns:\n    - name: internal_token\n      regex: 'itk_[a-z0-9]{32}'"
    )]
    Scan(ScanArgs),
    /// Print the JSON Schema of a `--format json` document (generated from the types that
    /// write it; the same files are committed under docs/json-schema/).
    #[command(
        after_help = "Examples:\n  veer schema --list\n  veer schema diff\n  veer schema check -o check.schema.json\n  veer schema --all-to docs/json-schema    # regenerate the committed schemas"
    )]
    Schema(SchemaArgs),
    /// Perturbation experiments with traxr's trace-level metrics: d_norm, the first structural
    /// divergence t* and t*/T, control-flow changes, answers, token overhead, the
    /// manifestation and the noise floor, for one clean/perturbed pair or a whole experiment.
    #[command(
        subcommand,
        after_help = "Examples:\n  veer experiment pair clean.agentlog perturbed.agentlog\n  veer experiment analyze results.json --format markdown -o report.md\n  veer experiment analyze runs/item-7/ --format csv -o pairs.csv"
    )]
    Experiment(ExperimentCommand),
    /// Record an agent's model calls: a local proxy speaking the OpenAI and Anthropic APIs
    /// forwards every call to the provider, gives the agent the answer unchanged (streams
    /// chunk by chunk) and appends each call to an .agentlog; with --policy the policy is
    /// enforced live. Runs CMD with OPENAI_BASE_URL and ANTHROPIC_BASE_URL pointing at the
    /// proxy and exits with CMD's exit code; `veer record serve` runs the proxy alone.
    #[command(
        args_conflicts_with_subcommands = true,
        subcommand_negates_reqs = true,
        after_help = "Examples:\n  veer record -o run.agentlog -- python my_agent.py\n  veer record -o run.agentlog --policy policy.yaml --enforce replace -- node agent.js\n  veer record -o run.agentlog --openai-upstream http://localhost:8000/v1 -- ./agent\n  veer record serve --port 8089 -o run.agentlog\n\nThe agent's SDKs must read OPENAI_BASE_URL / ANTHROPIC_BASE_URL (the official ones do).\nAPI keys and credential headers are forwarded, never written. See docs/record.md."
    )]
    Record(RecordArgs),
    /// Cases and trials needed to detect a change of a given size, from a directory of
    /// repeated trials of one side: the noise is estimated from the trials' own spread
    /// (docs/trials.md).
    #[command(
        after_help = "Examples:\n  veer plan runs/main --mde 50                      # 50 ms of latency\n  veer plan runs/main --mde 20 --axis output_tokens --power 0.9\n  veer plan runs/main --mde 1 --axis tool_calls --format json -o plan.json"
    )]
    Plan(crate::commands::plan::PlanArgs),
    /// Named, immutable baselines: store a directory of runs (content-addressed, verified on
    /// every use), approve it, update it, list and show them. `veer diff --baseline NAME
    /// CANDIDATE_DIR` compares against one.
    #[command(
        subcommand,
        after_help = "Examples:\n  veer baseline create runs/main --name main --policy policy.yaml\n  veer baseline approve main --by ana --reason \"reviewed\"\n  veer diff --baseline main runs/pr-123/\n  veer baseline verify main"
    )]
    Baseline(BaselineCommand),
    /// The history of comparisons in an embedded database (.veer/history.sqlite): add a saved
    /// report, show trends with sparklines, export for warehouses.
    #[command(
        subcommand,
        after_help = "Examples:\n  veer diff runs/main runs/pr --format json -o report.json --history\n  veer history add report.json --commit $SHA --branch main\n  veer history show --axis cost --since 2026-11-01\n  veer history export --format jsonl -o history.jsonl"
    )]
    History(HistoryCommand),
    /// Which change between two agent configurations caused the behaviour change: splits A→B
    /// into atomic deltas, runs the agent on a design of mixtures (full factorial or
    /// Plackett–Burman), measures every run against A's and attributes each measure to the
    /// deltas with bootstrap intervals (docs/bisect.md).
    #[command(
        after_help = "Examples:\n  veer bisect --baseline-config a.yaml --candidate-config b.yaml --out bisect/ -- python agent.py --config {config}\n  veer bisect --baseline-config a.json --candidate-config b.json --out bisect/ --plan\n  veer bisect --baseline-config a.toml --candidate-config b.toml --out bisect/ --from-runs traces/\n  veer bisect --baseline-config .env.main --candidate-config .env.pr --out b/ --group PROMPT=prompt --trials 5 --jobs 4 -- ./agent\n\nEach run gets its design point's configuration: {config} in the arguments is replaced by its\npath, and VEER_CONFIG, VEER_RUN_DIR and VEER_RUN_LABEL are set (VEER_TRACE with --trace-from).\nThe agent's model calls go through a recording proxy (OPENAI_BASE_URL, ANTHROPIC_BASE_URL).\n\nExit codes: 0 done, 2 bad input or flags (or more runs than --max-runs),\n130 interrupted (finished runs are kept: run the same command again to resume)."
    )]
    Bisect(BisectArgs),
    /// The settings of veer.toml (docs/config.md): `veer config show` prints the effective
    /// settings and where each came from.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Set a repository up for veer: a commented veer.toml, a starter policy
    /// (veer-policy.yaml) and a GitHub workflow (.github/workflows/veer.yml) using veer's
    /// action. An existing file is never overwritten: it is skipped and named.
    #[command(after_help = "Examples:
  veer init
  veer init path/to/repo

Exit codes: 0 when every file was written or already existed, 2 when one could not be written.")]
    Init(InitArgs),
    /// Write synthetic trace pairs for benchmarks (developer tool).
    #[command(hide = true)]
    Synth(SynthArgs),
}

/// How traces are read; shared by every command that reads traces.
#[derive(Debug, Clone, Args)]
pub struct ReadArgs {
    /// Verify content ids, timestamps, parent links, the format version and duplicate keys;
    /// unknown record kinds become errors.
    #[arg(long)]
    pub strict: bool,
    /// Longest accepted line in bytes, newline included.
    #[arg(long, value_name = "N", default_value_t = veer_trace::options::DEFAULT_MAX_LINE_BYTES, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_line_bytes: u64,
    /// Largest accepted trace file in bytes, counted as read: after decompression, blank
    /// lines included (a gzip bomb or an endless stream stops here).
    #[arg(long, value_name = "N", default_value_t = veer_trace::limits::DEFAULT_MAX_TRACE_BYTES, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_trace_bytes: u64,
    /// Most records accepted from one trace file (`.agentlog` records; traxr events, summed
    /// over a results file's runs).
    #[arg(long, value_name = "N", default_value_t = veer_trace::limits::DEFAULT_MAX_RECORDS, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_records: u64,
}

impl ReadArgs {
    /// The reader options these flags select.
    pub fn options(&self) -> veer_trace::ReadOptions {
        veer_trace::ReadOptions {
            strict: self.strict,
            max_line_bytes: self.max_line_bytes,
            max_trace_bytes: self.max_trace_bytes,
            max_records: self.max_records,
        }
    }
}

/// Where and how a report is written.
#[derive(Debug, Clone, Args)]
pub struct OutputArgs {
    /// Write the report to FILE instead of stdout. A regular file is replaced atomically (a
    /// symlink's target is, and the link stays); a device or FIFO is written through; a FILE
    /// that is one of the command's inputs is refused (exit 2). See docs/output.md.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// `veer record`.
#[derive(Debug, Args)]
pub struct RecordArgs {
    /// `serve`: the proxy alone.
    #[command(subcommand)]
    pub serve: Option<RecordCommand>,
    #[command(flatten)]
    pub proxy: ProxyArgs,
    /// The agent to run, after `--`, e.g. `-- python my_agent.py`.
    #[arg(last = true, required = true, value_name = "CMD")]
    pub command: Vec<std::ffi::OsString>,
}

/// `veer record` subcommands.
#[derive(Debug, Subcommand)]
pub enum RecordCommand {
    /// Run the proxy alone for an agent started elsewhere: prints the base URLs to use and
    /// records until Ctrl-C (SIGINT) or SIGTERM.
    #[command(
        after_help = "Example:\n  veer record serve --port 8089 -o run.agentlog\n  # in another shell:\n  OPENAI_BASE_URL=http://127.0.0.1:8089/openai/v1 python my_agent.py"
    )]
    Serve(ServeArgs),
}

/// `veer record serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Port to listen on (127.0.0.1 only); 0 picks a free one.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub port: u16,
    #[command(flatten)]
    pub proxy: ProxyArgs,
}

/// What `veer record` and `veer record serve` share.
#[derive(Debug, Args)]
pub struct ProxyArgs {
    /// The .agentlog to write: a new (or empty) file, appended one whole call at a time; an
    /// existing non-empty file is never overwritten.
    #[arg(short = 'o', long = "output", value_name = "FILE", required = true)]
    pub output: Option<PathBuf>,
    /// OpenAI upstream base URL (what OPENAI_BASE_URL would be, ending in /v1).
    #[arg(long, value_name = "URL", default_value = veer_record::proxy::OPENAI_DEFAULT)]
    pub openai_upstream: String,
    /// Anthropic upstream base URL (what ANTHROPIC_BASE_URL would be).
    #[arg(long, value_name = "URL", default_value = veer_record::proxy::ANTHROPIC_DEFAULT)]
    pub anthropic_upstream: String,
    /// A behaviour policy to enforce while the agent runs.
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// What a violation does: warn (pass, warn on stderr), replace (answer with a policy
    /// message in the provider's shape), raise (answer with an HTTP 422 error the SDKs raise).
    #[arg(long, value_enum, default_value_t = Enforce::Warn, requires = "policy")]
    pub enforce: Enforce,
    /// Seconds to wait for the upstream's answer, and at most between two chunks of a stream.
    #[arg(long, value_name = "SECONDS", default_value_t = 600.0)]
    pub timeout: f64,
    /// Largest request body accepted from the agent; larger ones are refused with HTTP 413.
    #[arg(long, value_name = "BYTES", default_value_t = veer_record::proxy::MAX_REQUEST_BYTES)]
    pub max_body_bytes: usize,
    /// Write the recording with secrets found in prompts, answers and tool results (API keys,
    /// tokens, e-mail addresses, …; see docs/secrets.md) replaced by `[REDACTED:<kind>]`. The
    /// agent and the upstream still see the real content; a --policy judges it too.
    #[arg(long)]
    pub redact: bool,
    /// The eval case this recording is a run of, written into the metadata record; `veer diff`
    /// pairs cases by it and compares their trials (docs/trials.md).
    #[arg(long, value_name = "NAME", value_parser = parse_case_name)]
    pub case: Option<String>,
    /// The trial number of this run of the case (written into the metadata record).
    #[arg(long, value_name = "N", requires = "case")]
    pub trial: Option<u64>,
    /// A tag for the metadata record, as KEY=VALUE (repeatable), e.g. --tag branch=main.
    #[arg(long, value_name = "KEY=VALUE", value_parser = parse_tag)]
    pub tag: Vec<(String, String)>,
}

/// `--case`: a non-empty name without control characters.
fn parse_case_name(s: &str) -> Result<String, String> {
    if s.trim().is_empty() || s.chars().any(char::is_control) {
        return Err(
            "must be a non-empty name without control characters, e.g. --case refund-42".into(),
        );
    }
    Ok(s.to_string())
}

/// `--tag KEY=VALUE`: a non-empty key.
fn parse_tag(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.to_string())),
        _ => Err(format!("`{s}` is not KEY=VALUE, e.g. --tag branch=main")),
    }
}

/// `--enforce` modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Enforce {
    /// Pass the answer and print a warning.
    Warn,
    /// Answer with the policy's replacement message.
    Replace,
    /// Answer with an error.
    Raise,
}

/// `veer convert`.
#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// The traces to convert, in any format veer reads (detected by content).
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    #[command(flatten)]
    pub read: ReadArgs,
    /// Write the .agentlog to FILE (atomically) instead of stdout. For an Inspect AI log, `-o
    /// DIR/` (an existing directory or a path ending in `/`) writes one DIR/CASE/trial-N.agentlog
    /// per sample-epoch, never replacing a file.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// `veer inspect`.
#[derive(Debug, Args)]
pub struct InspectArgs {
    /// The trace: an .agentlog (optionally .gz) or a traxr trace JSON. For a traxr results file
    /// every run is shown; for an Inspect AI log (.eval or .json) every sample-epoch.
    pub trace: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = InspectFormat::Terminal)]
    pub format: InspectFormat,
    #[command(flatten)]
    pub read: ReadArgs,
    #[command(flatten)]
    pub out: OutputArgs,
}

/// Formats `veer inspect` offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum InspectFormat {
    /// A table for a terminal.
    Terminal,
    /// JSON: {schema_version, traces: [...], log (an Inspect AI log)} (`veer schema inspect`).
    Json,
}

/// `veer demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Output format (every format of `veer diff`).
    #[arg(long, value_enum, default_value_t = DiffFormat::Terminal)]
    pub format: DiffFormat,
}

/// `veer schema`.
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// The document: diff, diff-directory, check, gate, inspect, scan, perturb,
    /// experiment-pair, experiment-analyze, experiment-results, bisect, config (`--list`
    /// describes each).
    #[arg(value_name = "NAME", required_unless_present_any = ["list", "all_to"])]
    pub name: Option<String>,
    /// List every document name and the command that writes it.
    #[arg(long, conflicts_with_all = ["name", "all_to"])]
    pub list: bool,
    /// Write every schema to DIR/NAME.schema.json (how docs/json-schema/ is regenerated).
    #[arg(long, value_name = "DIR", conflicts_with = "name")]
    pub all_to: Option<PathBuf>,
    #[command(flatten)]
    pub out: OutputArgs,
}

/// `veer scan`.
#[derive(Debug, Args)]
pub struct ScanArgs {
    /// Files or directories to scan (directories: every trace file under them).
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Extra patterns: a YAML or JSON file `patterns: [{name, regex}, …]`.
    #[arg(long, value_name = "FILE")]
    pub patterns: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ScanFormat::Terminal)]
    pub format: ScanFormat,
    /// Longest accepted line in bytes, newline included.
    #[arg(long, value_name = "N", default_value_t = veer_trace::options::DEFAULT_MAX_LINE_BYTES, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_line_bytes: u64,
    /// Largest accepted file in bytes, counted as read: after decompression, blank lines
    /// included.
    #[arg(long, value_name = "N", default_value_t = veer_trace::limits::DEFAULT_MAX_TRACE_BYTES, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_trace_bytes: u64,
    /// Write the report to FILE instead of stdout. A regular file is replaced atomically (a
    /// symlink's target is, and the link stays); a device or FIFO is written through; a FILE
    /// that is one of the command's inputs is refused (exit 2). See docs/output.md.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Formats `veer scan` offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ScanFormat {
    /// `file:line:column: kind` lines and a summary.
    Terminal,
    /// JSON: {schema_version, files_scanned, findings, errors} (`veer schema scan`).
    Json,
}

/// `veer synth` (hidden; used by `bench/run.sh`).
#[derive(Debug, Args)]
pub struct SynthArgs {
    /// Turns per trace.
    #[arg(long, default_value_t = 100)]
    pub turns: usize,
    /// Near-identical (about 1% of turns changed), changed (about 10%) or fully divergent
    /// pairs.
    #[arg(long, value_enum, default_value_t = SynthKind::Near)]
    pub kind: SynthKind,
    /// Number of pairs: 1 writes DIR/baseline.agentlog and DIR/candidate.agentlog; more write
    /// DIR/baseline/pair-NNNNN.agentlog and DIR/candidate/pair-NNNNN.agentlog.
    #[arg(long, default_value_t = 1)]
    pub pairs: usize,
    /// Random seed.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Output directory.
    #[arg(long, value_name = "DIR")]
    pub out_dir: PathBuf,
}

/// What kind of synthetic pair to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SynthKind {
    /// The candidate differs from the baseline in about 1% of its turns.
    Near,
    /// About one turn in ten changed: 8% edited as in `near`, 1% dropped, 1% inserted.
    Changed,
    /// The candidate is unrelated to the baseline.
    Divergent,
}

/// `veer diff`.
#[derive(Debug, Clone, Args)]
pub struct DiffArgs {
    /// The baseline: a trace file (.agentlog, optionally .gz, or traxr JSON), or a directory of
    /// traces. With `--baseline NAME`, the only path given: the candidate directory.
    pub baseline: PathBuf,
    /// The candidate: a trace file of the same format, or a directory whose traces are paired
    /// with the baseline's by relative path.
    #[arg(
        required_unless_present = "stored_baseline",
        default_value = "",
        hide_default_value = true,
        value_parser = clap::builder::TypedValueParser::map(clap::builder::OsStringValueParser::new(), PathBuf::from)
    )]
    pub candidate: PathBuf,
    /// Compare against a stored baseline (`veer baseline create`): NAME under .veer/baselines,
    /// or a path to one, `@N` for version N. Every file is verified first; a changed baseline
    /// is exit 2 naming the file. Give only the candidate directory.
    #[arg(long = "baseline", id = "stored_baseline", value_name = "NAME")]
    pub stored_baseline: Option<String>,
    /// Add this comparison's summary to the history database (default .veer/history.sqlite;
    /// another path as --history=PATH).
    #[arg(long, value_name = "PATH", num_args = 0..=1, require_equals = true, default_missing_value = DEFAULT_HISTORY_DB)]
    pub history: Option<PathBuf>,
    /// Quarantined cases (YAML: `case`, `reason`, `expires`): directory pairs by relative path
    /// and repeated-trials cases by case key are still measured and shown, marked quarantined,
    /// but never trip the gate; an expired
    /// entry is a warning and gates again. Default: .veer/quarantine.yaml when it exists. See
    /// docs/history.md (Quarantine).
    #[arg(long, value_name = "FILE")]
    pub quarantine: Option<PathBuf>,
    /// Model prices for the cost axis: a JSON object mapping model name to
    /// {input, output, cached_input, cached_write_5m, cached_write_1h, reasoning,
    /// batch_discount} in USD per token, or to [input, output]. Without it cost is not
    /// compared.
    #[arg(long, value_name = "FILE")]
    pub pricing: Option<PathBuf>,
    /// Seed of the bootstrap confidence intervals (same seed, same bytes).
    #[arg(long, value_name = "N", default_value_t = 42)]
    pub seed: u64,
    /// Number of ranked divergences in the report (terminal and Markdown show the first 3;
    /// at least 1).
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = parse_top_k)]
    pub top_k: usize,
    /// How responses are paired: `auto` (index where the alignment pairs every turn
    /// one-to-one in order, alignment otherwise), `index` (i-th with i-th, within each
    /// recorded session: the reference tool's numbers) or `alignment` (the turns the
    /// first-divergence alignment pairs). With auto and alignment a dropped or added tool call
    /// counts as a trajectory change of 1 at its turn. The report names the pairing used.
    #[arg(long, value_enum, value_name = "HOW", default_value_t = PairByArg::Auto)]
    pub pair_by: PairByArg,
    /// A behaviour policy (.yaml/.yml or .json) evaluated on both sides: violations the
    /// candidate introduced are regressions, those it cleared are fixes.
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// Exit 1 when the worst signal (the severity of an axis that changed in its worse
    /// direction — an improvement never counts —, a powered rejection of the behaviour-
    /// fingerprint test → moderate, or policy regression: info → minor, warning → moderate,
    /// error and critical → severe) reaches this level; `never` (or `none`) never trips.
    /// With repeated trials (docs/trials.md): a statistically supported regression beyond its
    /// margin, a deterministic rule break or an unmeasurable case trips any level, and
    /// `inconclusive` also trips on inconclusive cases (acts as `minor` without trials).
    #[arg(long, value_name = "LEVEL", default_value = "never", value_parser = crate::commands::trials::parse_diff_fail_on)]
    pub fail_on: crate::commands::trials::DiffFailOn,
    /// Work budget of the exact turn alignment, in DP cells per round; beyond it the turn
    /// alignment is anchored on identical turns (the report says `alignment: "anchored"`).
    /// The structural block is the same at every budget; its own, fixed, budget and the
    /// other comparisons' are in docs/limits.md ("Work per input dimension").
    #[arg(long, value_name = "N", default_value_t = veer_diff::DEFAULT_MAX_ALIGN_CELLS, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_align_cells: u64,
    /// Saturation point of a log-scaled fingerprint dimension, as KEY=VALUE (repeatable):
    /// output_tokens (default 4096), latency_ms (30000), tool_calls (8), text_chars (16384),
    /// arg_keys (32). Raise them for long-context or slow thinking models.
    #[arg(long, value_name = "KEY=VALUE", value_parser = parse_fingerprint_scale)]
    pub fingerprint_scale: Vec<(FingerprintScaleKey, f64)>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = DiffFormat::Terminal)]
    pub format: DiffFormat,
    #[command(flatten)]
    pub trials: crate::commands::trials::TrialsArgs,
    #[command(flatten)]
    pub read: ReadArgs,
    #[command(flatten)]
    pub out: OutputArgs,
}

/// The scales `--fingerprint-scale` sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FingerprintScaleKey {
    /// Output tokens.
    OutputTokens,
    /// Latency in milliseconds.
    LatencyMs,
    /// Tool calls in one response.
    ToolCalls,
    /// Characters of response text.
    TextChars,
    /// Argument keys over a response's tool calls.
    ArgKeys,
}

/// `--fingerprint-scale KEY=VALUE`: a known key and a positive finite number.
fn parse_fingerprint_scale(s: &str) -> Result<(FingerprintScaleKey, f64), String> {
    const KEYS: &str = "output_tokens, latency_ms, tool_calls, text_chars, arg_keys";
    let (key, value) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not KEY=VALUE (keys: {KEYS})"))?;
    let key = match key.trim() {
        "output_tokens" => FingerprintScaleKey::OutputTokens,
        "latency_ms" => FingerprintScaleKey::LatencyMs,
        "tool_calls" => FingerprintScaleKey::ToolCalls,
        "text_chars" => FingerprintScaleKey::TextChars,
        "arg_keys" => FingerprintScaleKey::ArgKeys,
        other => return Err(format!("unknown scale `{other}` (keys: {KEYS})")),
    };
    match value.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok((key, v)),
        _ => Err(format!("`{value}` is not a positive number")),
    }
}

/// `--top-k`: a whole number of at least 1.
fn parse_top_k(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("must be at least 1 (the number of ranked divergences to report)".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("`{s}` is not a whole number")),
    }
}

/// `--pair-by` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PairByArg {
    /// Index where the alignment pairs every turn one-to-one in order, alignment otherwise.
    Auto,
    /// The i-th response with the i-th, within each recorded session.
    Index,
    /// The turns paired by the first-divergence alignment.
    Alignment,
}

/// Formats `veer diff` offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DiffFormat {
    /// Tables and text for a terminal.
    Terminal,
    /// JSON (`veer schema diff`, `veer schema diff-directory`).
    Json,
    /// A Markdown report for a pull-request comment.
    Markdown,
    /// JUnit XML: one test case per trace pair and axis.
    Junit,
    /// One self-contained HTML page (inline CSS, JS and SVG; opens from disk, readable with
    /// JavaScript off).
    Html,
    /// SARIF 2.1.0: the first divergence (a note), policy findings and severe axes at the
    /// candidate file and line; `error` exactly for what tripped the gate.
    Sarif,
    /// GitHub Actions workflow commands (::error/::warning/::notice); with
    /// GITHUB_STEP_SUMMARY set, the Markdown report is appended to that file.
    Github,
    /// GitLab Code Quality report (a JSON array of issues; docs/ci.md), for
    /// `artifacts:reports:codequality`.
    Gitlab,
}

/// `veer check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The trace: a file (.agentlog, optionally .gz, or traxr JSON) or a directory of traces.
    pub trace: PathBuf,
    /// The policy file (.yaml/.yml, or .json); Shadow policy files load unchanged.
    #[arg(long, value_name = "FILE")]
    pub policy: PathBuf,
    /// Exit 1 when the worst violation reaches this level (info → minor, warning → moderate,
    /// error and critical → severe); `never` (or `none`) never trips.
    #[arg(long, value_name = "LEVEL", default_value = "severe", value_parser = parse_fail_on)]
    pub fail_on: veer_policy::Level,
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
pub fn parse_fail_on(s: &str) -> Result<veer_policy::Level, String> {
    veer_policy::Level::parse_fail_on(s)
        .ok_or_else(|| format!("`{s}` is not a level; use never, minor, moderate or severe"))
}

/// Formats `veer check` offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CheckFormat {
    /// One line per violation.
    Terminal,
    /// JSON: {schema_version, policy, traces: [{trace, violations}], gate} (`veer schema check`).
    Json,
    /// A Markdown table for a pull-request comment.
    Markdown,
    /// JUnit XML: one test case per rule and trace.
    Junit,
    /// One self-contained HTML page (inline CSS, JS and SVG; opens from disk, readable with
    /// JavaScript off).
    Html,
    /// SARIF 2.1.0: every violation at its trace file and line.
    Sarif,
    /// GitHub Actions workflow commands (::error/::warning); with GITHUB_STEP_SUMMARY set, the
    /// Markdown report is appended to that file.
    Github,
    /// GitLab Code Quality report (a JSON array of issues; docs/ci.md), for
    /// `artifacts:reports:codequality`.
    Gitlab,
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
}

/// `veer policy validate`.
#[derive(Debug, Args)]
pub struct PolicyValidateArgs {
    /// The policy file.
    pub file: PathBuf,
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
    pub fail_on: veer_policy::Level,
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
    #[arg(long, value_name = "N", default_value_t = veer_trace::limits::DEFAULT_MAX_REPORT_BYTES, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_report_bytes: u64,
    #[command(flatten)]
    pub read: ReadArgs,
    #[command(flatten)]
    pub out: OutputArgs,
}

/// Formats `veer gate` offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum GateFormat {
    /// A short summary.
    Terminal,
    /// JSON: {schema_version, report, worst_axis, fingerprint (when it counts), policy_source,
    /// regressions, gate} (`veer schema gate`).
    Json,
}

/// `veer experiment …`.
#[derive(Debug, Subcommand)]
pub enum ExperimentCommand {
    /// Measure one clean/perturbed pair: d_norm and the edit-distance decomposition, the first
    /// structural divergence t* and t*/T, control-flow changes, answers, token overhead, the
    /// manifestation and the noise floor (from --rerun traces).
    #[command(
        after_help = "Examples:\n  veer experiment pair clean.agentlog perturbed.agentlog\n  veer experiment pair clean.json perturbed.json --rerun clean-2.json --rerun clean-3.json\n  veer experiment pair base.agentlog ocr.agentlog --expected 42 --format json --detail -o pair.json\n  veer experiment pair case.json              # a traxr analyzer case holds both traces"
    )]
    Pair(ExperimentPairArgs),
    /// Measure a whole experiment: every pair, the summary, the aggregates by perturbation and
    /// by manifestation group; a pair whose change lies within the clean re-runs' own spread
    /// is marked `within_noise`. INPUT is a traxr results JSON (every pair is re-derived from its
    /// stored traces and answers) or a directory holding baseline.<ext>, optional reruns/*
    /// (clean re-runs for the noise floor) and perturbed/<name>.<ext>, of any trace format.
    #[command(
        after_help = "Examples:\n  veer experiment analyze results.json\n  veer experiment analyze runs/item-7/ --expected 42 --format markdown -o report.md\n  veer experiment analyze runs/item-7/ --format csv -o pairs.csv\n  veer experiment analyze runs/item-7/ --format html -o experiment.html\n  veer experiment analyze results.json --format json -o rederived.json\n\nDirectory layout:\n  runs/item-7/baseline.agentlog         the clean run\n  runs/item-7/reruns/run-2.agentlog     clean re-runs (optional; the noise floor)\n  runs/item-7/perturbed/ocr_noise.agentlog\n  runs/item-7/perturbed/null_content.json"
    )]
    Analyze(ExperimentAnalyzeArgs),
    /// Apply a perturbation operator to an input file (.csv, .tsv, a .json array of objects,
    /// .txt, .md) and write the perturbed copy, for an agent run whose trace is then compared
    /// with `veer experiment pair`. --all applies every operator of the file's kind, each into
    /// its own directory. The output depends only on the content, the operator and the seed; an
    /// operator that does not apply (too little content) writes nothing and says why.
    #[command(
        after_help = "Examples:\n  veer experiment perturb sales.csv --operator column_swap --out perturbed/sales.csv\n  veer experiment perturb report.md --operator ocr_noise --seed 7 --out report.ocr.md\n  veer experiment perturb rows.json --operator unit_change --out rows.units.json --format json\n  veer experiment perturb report.md --all --out inputs/   # inputs/<operator>/report.md\n\nOperators:\n  tabular (.csv .tsv .json): column_swap label_corrupt data_type_corrupt row_duplicate\n                             irrelevant_columns unit_change null_content\n  text (.txt .md):           ocr_noise number_corruption text_redaction paragraph_shuffle\n                             encoding_error section_removal null_content\n\nThe per-operator seed is the first 4 bytes of SHA-256(\"<seed>:<file name>:<operator>\"),\nas traxr derives it; the random stream is veer's own, so outputs are not byte-identical\nwith traxr's."
    )]
    Perturb(ExperimentPerturbArgs),
    /// Run the whole perturbation experiment on any agent command: the clean input, N clean
    /// re-runs (the noise floor) and one run per applicable operator (the copies `experiment
    /// perturb` writes), each recorded through `veer record`'s proxy (or, with --trace-from,
    /// from the trace the agent writes itself); then measure every pair, write DIR/results.json
    /// (traxr's results layout) and print the analysis. A rerun of the same command reuses the
    /// finished runs; Ctrl-C leaves DIR consistent.
    #[command(
        after_help = "Examples:\n  veer experiment run --input sales.csv --out exp/ -- python agent.py {input}\n  veer experiment run --input report.md --out exp/ --reruns 3 --jobs 4 --expected 42 -- ./agent --file {input}\n  veer experiment run --input rows.json --out exp/ --operators column_swap,null_content --timeout 120 -- node agent.js\n  veer experiment run --input notes.txt --out exp/ --trace-from '{run_dir}/trace.jsonl' -- python agent.py\n\nEach run gets its own copy of the input: {input} in the arguments is replaced by its path,\nand VEER_INPUT, VEER_RUN_DIR and VEER_RUN_LABEL are set (VEER_TRACE with --trace-from).\nThe agent's model calls go through a recording proxy (OPENAI_BASE_URL, ANTHROPIC_BASE_URL).\nIts answer is its last non-blank stdout line (or the --answer-from file).\n\nDIR afterwards:\n  baseline.agentlog, reruns/rerun-001.agentlog, perturbed/<operator>.agentlog   traces\n  runs/<...>/<input name>, stdout.txt, stderr.txt, run.json   each run's input copy and output\n  results.json   traxr results layout: veer experiment analyze DIR/results.json\n\nExit codes: 0 every run finished (whatever the agent did), 2 bad input or flags,\n130 interrupted (finished runs are kept: run the same command again to resume)."
    )]
    Run(ExperimentRunArgs),
}

/// `veer experiment run`.
#[derive(Debug, Args)]
pub struct ExperimentRunArgs {
    /// The clean input: .csv / .tsv, .json (an array of objects), .txt or .md.
    #[arg(long, value_name = "FILE")]
    pub input: PathBuf,
    /// The experiment directory (created when missing; an earlier one is resumed).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Operators to run: `all` (every operator of the input's kind) or a comma-separated list.
    #[arg(long, value_name = "all|OP,OP", default_value = "all")]
    pub operators: String,
    /// Clean re-runs of the input for the noise floor (0: the floor is unmeasured).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub reruns: usize,
    /// The experiment's base seed (each operator's seed is derived from it, as in `perturb`).
    #[arg(long, value_name = "S", default_value_t = veer_perturb::DEFAULT_BASE_SEED)]
    pub seed: u64,
    /// The expected answer: enables task_success.
    #[arg(long, value_name = "ANSWER")]
    pub expected: Option<String>,
    /// Seconds one agent run may take; past it the run is stopped and its status is timeout.
    #[arg(long, value_name = "SECS", default_value_t = 600.0)]
    pub timeout: f64,
    /// Agent processes run at the same time.
    #[arg(long, value_name = "J", default_value_t = 1)]
    pub jobs: usize,
    /// OpenAI upstream base URL of the recording proxy (ending in /v1).
    #[arg(long, value_name = "URL", default_value = veer_record::proxy::OPENAI_DEFAULT)]
    pub openai_upstream: String,
    /// Anthropic upstream base URL of the recording proxy.
    #[arg(long, value_name = "URL", default_value = veer_record::proxy::ANTHROPIC_DEFAULT)]
    pub anthropic_upstream: String,
    /// Read the trace the agent writes itself (any format veer reads) instead of recording
    /// its calls: a path containing {run_dir} and ending in .agentlog, .agentlog.gz, .jsonl,
    /// .jsonl.gz or .json.
    #[arg(long, value_name = "PATTERN")]
    pub trace_from: Option<String>,
    /// Take each run's answer from this file (a path containing {run_dir}) instead of the last
    /// non-blank stdout line.
    #[arg(long, value_name = "FILE")]
    pub answer_from: Option<String>,
    /// Redo every run, even those an earlier invocation finished.
    #[arg(long)]
    pub fresh: bool,
    /// Output format of the analysis.
    #[arg(long, value_enum, default_value_t = ExperimentAnalyzeFormat::Terminal)]
    pub format: ExperimentAnalyzeFormat,
    #[command(flatten)]
    pub out_file: OutputArgs,
    /// The agent command, after `--`; `{input}` in it is replaced by the run's input copy.
    #[arg(last = true, required = true, value_name = "CMD")]
    pub command: Vec<std::ffi::OsString>,
}

/// `veer experiment perturb`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("which").required(true).args(["operator", "all"])))]
pub struct ExperimentPerturbArgs {
    /// The input file: .csv / .tsv (delimiter detected from the content), .json (an array of
    /// objects), .txt or .md.
    pub file: PathBuf,
    /// The operator to apply (see the list below).
    #[arg(long, value_name = "OP", value_parser = clap::builder::PossibleValuesParser::new(veer_perturb::Operator::all_names()))]
    pub operator: Option<String>,
    /// Apply every operator of the file's kind, in traxr's matrix order; --out is then a
    /// directory and each copy is written to <out>/<operator>/<file name>.
    #[arg(long, conflicts_with = "operator")]
    pub all: bool,
    /// The experiment's base seed; the operator's own seed is derived from it, the file name and
    /// the operator.
    #[arg(long, value_name = "N", default_value_t = veer_perturb::DEFAULT_BASE_SEED)]
    pub seed: u64,
    /// Where to write the perturbed copy (atomically; never the input file itself); with --all,
    /// the directory to write the copies under (created when missing).
    #[arg(long, value_name = "PATH")]
    pub out: PathBuf,
    /// Output format of the summary printed on stdout.
    #[arg(long, value_enum, default_value_t = ExperimentPerturbFormat::Terminal)]
    pub format: ExperimentPerturbFormat,
}

/// Formats `veer experiment perturb` offers for its summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExperimentPerturbFormat {
    /// One line: what was applied, or why not.
    Terminal,
    /// JSON: {schema_version, file, base_seed, bytes_in, perturbations: [{operator, seed,
    /// status, reason, out, bytes_out}]} (`veer schema perturb`).
    Json,
}

/// `veer experiment pair`.
#[derive(Debug, Args)]
pub struct ExperimentPairArgs {
    /// The clean (baseline) trace: .agentlog (optionally .gz) or traxr trace JSON. A traxr
    /// analyzer case file holds both traces and is given alone.
    pub clean: PathBuf,
    /// The perturbed trace, in either format.
    pub perturbed: Option<PathBuf>,
    /// A clean re-run of the same input; the noise floor is the largest d_norm of the re-runs
    /// against CLEAN. Repeat for more re-runs.
    #[arg(long = "rerun", value_name = "FILE")]
    pub reruns: Vec<PathBuf>,
    /// Task id shown in the report.
    #[arg(long, value_name = "ID")]
    pub task_id: Option<String>,
    /// The expected answer: enables task_success.
    #[arg(long, value_name = "ANSWER")]
    pub expected: Option<String>,
    /// Include the full alignment (aligned_pairs with both events) in the JSON.
    #[arg(long)]
    pub detail: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ExperimentPairFormat::Terminal)]
    pub format: ExperimentPairFormat,
    #[command(flatten)]
    pub read: ReadArgs,
    #[command(flatten)]
    pub out: OutputArgs,
}

/// Formats `veer experiment pair` offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExperimentPairFormat {
    /// A short human summary.
    Terminal,
    /// JSON: traxr's divergence report keys plus the pair result (`veer schema
    /// experiment-pair`).
    Json,
    /// One self-contained HTML page (inline CSS, JS and SVG; opens from disk, readable with
    /// JavaScript off), with the event alignment.
    Html,
}

/// `veer experiment analyze`.
#[derive(Debug, Args)]
pub struct ExperimentAnalyzeArgs {
    /// A traxr results JSON, or an experiment directory (baseline.*, reruns/*, perturbed/*).
    pub input: PathBuf,
    /// The expected answer, for task_success (for a results file it replaces
    /// fingerprint.expected_answer).
    #[arg(long, value_name = "ANSWER")]
    pub expected: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ExperimentAnalyzeFormat::Terminal)]
    pub format: ExperimentAnalyzeFormat,
    #[command(flatten)]
    pub read: ReadArgs,
    #[command(flatten)]
    pub out: OutputArgs,
}

/// Formats `veer experiment analyze` offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExperimentAnalyzeFormat {
    /// The summary, then tables of the pairs and the aggregates.
    Terminal,
    /// traxr's results JSON layout (sorted keys, every run's trace included; `veer schema
    /// experiment-analyze`).
    Json,
    /// A Markdown report.
    Markdown,
    /// One row per pair.
    Csv,
    /// One self-contained HTML page (inline CSS, JS and SVG; opens from disk, readable with
    /// JavaScript off).
    Html,
}
