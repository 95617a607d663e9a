//! The command line: `clap` derive definitions only. Each subcommand's work is in
//! [`crate::commands`]. This file holds the top-level [`Cli`] and [`Command`] and the argument
//! groups many commands share ([`ReadArgs`], [`OutputArgs`]); each family of commands has its
//! arguments in a submodule, re-exported here so every type is `cli::Name`.

mod bisect;
mod diff;
mod eval;
mod experiment;
mod judge;
mod record;
mod replay;
mod setup;
mod standing;
mod tools;
mod trials;
pub use bisect::*;
pub use diff::*;
pub use eval::*;
pub use experiment::*;
pub use judge::*;
pub use record::*;
pub use replay::*;
pub use setup::*;
pub use standing::*;
pub use tools::*;
pub use trials::*;

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

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
    /// Serve veer's checks to an AI assistant or editor as Model Context Protocol tools over
    /// stdio: diff, check, inspect, explain and policy_validate (docs/mcp.md). An MCP client
    /// starts it; stdout carries the protocol only, logs go to stderr. veer.toml is not read
    /// for the tools' options.
    #[command(
        after_help = "Example (Claude Code):\n  claude mcp add veer -- veer mcp\n\nAny MCP client: run the command `veer mcp` with no arguments, transport stdio."
    )]
    Mcp(McpArgs),
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
    /// Replay a recording: runs CMD as `veer record` does, but the proxy answers each model
    /// call from the recording instead of the provider, and reports where the agent's requests
    /// first differ from the recorded ones. Writes a new recording of the run.
    #[command(
        after_help = "Examples:\n  veer replay run.agentlog -o replayed.agentlog -- python my_agent.py\n  veer replay run.agentlog -o new.agentlog --on-divergence live --upstream https://api.openai.com/v1 -- ./agent\n  veer replay run.agentlog -o new.agentlog --branch-at 3 --upstream https://api.anthropic.com -- ./agent\n  veer replay runs/main -o runs/replayed -- python agent.py {case}\n\nExit codes: the agent's own, 1 when its requests diverged from the recording (with\n--on-divergence fail), 2 bad input (an unreadable recording, a recording of another provider).\nSee docs/replay.md."
    )]
    Replay(ReplayArgs),
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
    /// The eval loop in one command: run an agent on every case of a suite for N trials,
    /// each through the recording proxy (as `veer record --case C --trial N`), into
    /// OUT/CASE/trial-N.agentlog — the layout `veer diff` reads as cases with trials —,
    /// resuming an earlier run, and optionally diff it against a baseline (docs/eval.md).
    #[command(
        after_help = "Examples:\n  veer eval --cases cases.txt --trials 5 --out runs/pr -- python agent.py --case {case}\n  veer eval --cases suite.yaml --trials 3 --out runs/pr --jobs 4 -- node agent.js {input}\n  veer eval --cases tasks/ --trials 5 --out runs/pr --compare runs/main --fail-on minor -- ./agent {input}\n\nEach run gets VEER_CASE, VEER_TRIAL, VEER_CASE_INPUT (the case's input file), VEER_RUN_DIR\nand VEER_RUN_LABEL; {case}, {trial} and {input} in the arguments are replaced.\nA failed trial (non-zero exit, time-out, no trace) is kept as failed and the others go on.\n\nExit codes: 0 done (failed trials included), 1 the --compare gate tripped, 2 bad input or flags,\n130 interrupted (finished trials are kept: run the same command again to resume)."
    )]
    Eval(EvalArgs),
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
    /// Turn a corpus of production traces into a regression suite: each trace reduced to its
    /// behaviour signature (tool calls with argument shapes, stop reasons, errors and policy
    /// violations), the signatures clustered by k-medoids, and the medoids, the rare and the
    /// failing behaviours copied to SUITE/CASE/trial-N.EXT with SUITE/suite.json saying why
    /// each was chosen (docs/mine.md).
    #[command(
        after_help = "Examples:\n  veer mine traces/ --out suite/\n  veer mine traces/ --out suite/ --cases 8 --per-case 3 --policy policy.yaml\n  veer mine traces/ --out suite/ --format markdown -o mined.md"
    )]
    Mine(crate::commands::mine::MineArgs),
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

/// `veer mcp` takes no arguments: the tools take theirs from the client.
#[derive(Debug, clap::Args)]
pub struct McpArgs {}
