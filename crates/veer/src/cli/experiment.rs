//! `clap` definitions of `veer experiment …`: `run`, `perturb`, `pair` and `analyze`, with
//! the formats each offers.

use super::{OutputArgs, ReadArgs};
use clap::{Args, Subcommand};
use std::path::PathBuf;
pub use veer_report::experiment::ExperimentPerturbFormat;
pub use veer_report::experiment::{ExperimentAnalyzeFormat, ExperimentPairFormat};

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
    #[arg(long, value_name = "S", default_value_t = veer_engine::perturb::DEFAULT_BASE_SEED)]
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
    /// OpenAI upstream base URL of the recording proxy (ending in /v1). Default: the agent's own OPENAI_BASE_URL when set, else https://api.openai.com/v1.
    #[arg(long, value_name = "URL")]
    pub openai_upstream: Option<String>,
    /// Anthropic upstream base URL of the recording proxy. Default: the agent's own ANTHROPIC_BASE_URL when set, else https://api.anthropic.com.
    #[arg(long, value_name = "URL")]
    pub anthropic_upstream: Option<String>,
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
    #[arg(long, value_name = "OP", value_parser = clap::builder::PossibleValuesParser::new(veer_engine::perturb::Operator::all_names()))]
    pub operator: Option<String>,
    /// Apply every operator of the file's kind, in traxr's matrix order; --out is then a
    /// directory and each copy is written to <out>/<operator>/<file name>.
    #[arg(long, conflicts_with = "operator")]
    pub all: bool,
    /// The experiment's base seed; the operator's own seed is derived from it, the file name and
    /// the operator.
    #[arg(long, value_name = "N", default_value_t = veer_engine::perturb::DEFAULT_BASE_SEED)]
    pub seed: u64,
    /// Where to write the perturbed copy (atomically; never the input file itself); with --all,
    /// the directory to write the copies under (created when missing).
    #[arg(long, value_name = "PATH")]
    pub out: PathBuf,
    /// Output format of the summary printed on stdout.
    #[arg(long, value_enum, default_value_t = ExperimentPerturbFormat::Terminal)]
    pub format: ExperimentPerturbFormat,
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
