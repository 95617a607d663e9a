//! `clap` definitions of the single-purpose commands: `veer convert`, `veer inspect`,
//! `veer demo`, `veer schema`, `veer scan` and the hidden `veer synth`.

use super::{DiffFormat, OutputArgs, ReadArgs};
use clap::Args;
use std::path::PathBuf;
pub use veer_report::inspect::InspectFormat;
pub use veer_report::scan::ScanFormat;

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

/// `veer demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Output format (every format of `veer diff`).
    #[arg(long, value_enum, default_value_t = DiffFormat::Terminal)]
    pub format: DiffFormat,
    #[command(flatten)]
    pub out: OutputArgs,
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
