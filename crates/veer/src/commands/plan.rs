//! `veer plan DIR --mde X`: how many cases and trials a suite needs to detect a change of X on an
//! axis. Flags here; the estimate is `veer_engine::trials::plan`, the text `veer_report::plan`.

use crate::cli::{OutputArgs, ReadArgs};
use crate::error::{CliError, Exit};
use crate::output::emit;
use clap::Args;
use std::path::PathBuf;
use veer_engine::trials::layout::{self, CasePattern};
use veer_engine::trials::measure::AXES;
use veer_report::plan::PlanFormat;
use veer_report::printer::OutputFormat as _;
use veer_report::style::Style;

/// `veer plan`.
#[derive(Debug, Args)]
pub struct PlanArgs {
    /// A directory of repeated trials of one side (e.g. runs/main), laid out as for `veer diff`
    /// (docs/trials.md).
    pub dir: PathBuf,
    /// The smallest change to detect, in the axis's unit (e.g. 50 for 50 ms of latency), > 0.
    #[arg(long, value_name = "X")]
    pub mde: f64,
    /// The axis: latency (ms), output_tokens, tool_calls or turns.
    #[arg(long, value_name = "AXIS", default_value = "latency")]
    pub axis: String,
    /// Two-sided significance level, in (0, 1).
    #[arg(long, value_name = "P", default_value_t = 0.05)]
    pub alpha: f64,
    /// Power, in (0, 1).
    #[arg(long, value_name = "P", default_value_t = 0.8)]
    pub power: f64,
    /// Case grouping, as `veer diff --case-pattern`.
    #[arg(long, value_name = "REGEX")]
    pub case_pattern: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = PlanFormat::Terminal)]
    pub format: PlanFormat,
    /// Same as `--format json` (kept for scripts written before `--format`).
    #[arg(long, hide = true)]
    pub json: bool,
    #[command(flatten)]
    pub read: ReadArgs,
    #[command(flatten)]
    pub out: OutputArgs,
}

/// Runs `veer plan`.
pub fn run(args: &PlanArgs) -> Result<Exit, CliError> {
    let names: Vec<&str> = AXES.iter().map(|a| a.name).collect();
    let Some(axis) = names.iter().position(|n| *n == args.axis) else {
        return Err(
            CliError::input(format!("--axis: unknown axis `{}`", args.axis))
                .hint(format!("axes: {}", names.join(", "))),
        );
    };
    if !(args.mde.is_finite() && args.mde > 0.0) {
        return Err(CliError::input(format!(
            "--mde: must be a positive number, got {}",
            args.mde
        ))
        .hint("e.g. --mde 50 (in the axis's unit)"));
    }
    for (flag, v) in [("--alpha", args.alpha), ("--power", args.power)] {
        if !(v > 0.0 && v < 1.0) {
            return Err(
                CliError::input(format!("{flag}: must be in (0, 1), got {v}"))
                    .hint("e.g. --alpha 0.05 --power 0.8"),
            );
        }
    }
    let pattern = match &args.case_pattern {
        Some(p) => Some(CasePattern::new(p).map_err(|e| CliError::input(e.message).hint(e.hint))?),
        None => None,
    };
    let layout = layout::list_cases(
        &args.dir,
        None,
        pattern.as_ref(),
        layout::peek_identity,
        veer_engine::trials::listing::RUN_FILES,
        &mut |skipped| crate::output::print_skipped(skipped),
    )?;
    let plan = veer_engine::trials::plan::plan_directory(
        &layout,
        &args.read.options(),
        axis,
        args.mde,
        args.alpha,
        args.power,
    )
    .map_err(|m| {
        CliError::input(format!("{}: {m}", args.dir.display()))
            .hint("lay out two or more runs per case (CASE/run-N.agentlog); see docs/trials.md")
    })?;
    let format = if args.json {
        PlanFormat::Json
    } else {
        args.format
    };
    let text = format.print(&plan, Style { colour: false });
    emit(&text, args.out.output.as_deref())?;
    Ok(Exit::done())
}
