//! `veer mine CORPUS --out SUITE/`: a directory of production traces turned into a regression
//! suite of representative cases. Flags here; the work is `veer_engine::mine`, the summary is
//! `veer_report::mine`'s printers.

use crate::cli::{OutputArgs, ReadArgs};
use crate::error::{CliError, Exit};
use crate::output::{colour_enabled, emit, print_skipped};
use crate::progress::Progress;
use clap::Args;
use std::path::PathBuf;
use veer_report::mine::MineFormat;
use veer_report::printer::OutputFormat as _;
use veer_report::style::Style;

/// `veer mine`.
#[derive(Debug, Args)]
pub struct MineArgs {
    /// A directory of traces in any format veer reads (recursive; unreadable files are listed
    /// as skipped, not fatal).
    pub corpus: PathBuf,
    /// The suite directory to write: SUITE/CASE/trial-N.EXT (copies of the chosen traces) and
    /// SUITE/suite.json. Must be new, empty, or a previous `veer mine` output.
    #[arg(long, value_name = "SUITE")]
    pub out: PathBuf,
    /// Number of clusters K (1..=100); default: the K of best average silhouette in
    /// 2..=min(20, signatures − 1).
    #[arg(long, value_name = "K")]
    pub cases: Option<usize>,
    /// Traces copied per case, medoid first (1..=100).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub per_case: usize,
    /// Seed of the signature sample kept beyond the cap of distinct signatures.
    #[arg(long, value_name = "S", default_value_t = 42)]
    pub seed: u64,
    /// A policy file: traces that violate it count as failing.
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// Output format of the summary.
    #[arg(long, value_enum, default_value_t = MineFormat::Terminal)]
    pub format: MineFormat,
    #[command(flatten)]
    pub read: ReadArgs,
    #[command(flatten)]
    pub out_args: OutputArgs,
}

/// Runs `veer mine`.
pub fn run(args: &MineArgs) -> Result<Exit, CliError> {
    let policy = match &args.policy {
        Some(p) => Some(super::policy::load(p)?),
        None => None,
    };
    let corpus = veer_engine::mine::Corpus::list(&args.corpus)?;
    print_skipped(&corpus.skipped_entries);
    let options = veer_engine::mine::MineOptions {
        cases: args.cases,
        per_case: args.per_case,
        seed: args.seed,
        policy: args
            .policy
            .as_ref()
            .zip(policy.as_ref())
            .map(|(path, p)| (path.display().to_string(), p)),
        read: args.read.options(),
        signature_cap: veer_engine::mine::SIGNATURE_CAP,
    };
    let progress = Progress::new(corpus.len() as u64, "traces");
    let report = veer_engine::mine::mine(&corpus, &options, &|| progress.tick());
    progress.finish();
    let report = report?;
    let suite_json = MineFormat::Json.print(&report, Style { colour: false });
    veer_engine::mine::write_suite(&args.out, &args.corpus, &report, &suite_json)?;
    let colour = colour_enabled(args.out_args.output.is_some());
    emit(
        &args.format.print(&report, Style { colour }),
        args.out_args.output.as_deref(),
    )?;
    Ok(Exit::done())
}
