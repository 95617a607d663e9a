//! `veer demo`: veer's main job on example traces bundled in the binary: the behaviour diff
//! of a baseline and a candidate run of a refund agent, with the policy comparison.
//!
//! The scenario: a refund agent whose candidate prompt drops "confirm the amount with the
//! customer before refunding". No files are read and nothing touches the network.

use crate::cli::{DemoArgs, DiffFormat};
use crate::error::{CliError, Exit};
use crate::output::{colour_enabled, emit};
use veer_report::diff::output::Judged;
use veer_report::printer::OutputFormat;
use veer_report::style::Style;
use veer_trace::agentlog::reader::read_agentlog_bytes;
use veer_trace::{ReadOptions, Trace};

/// The bundled baseline trace.
pub const BASELINE: &[u8] = include_bytes!("../../demo/refund-agent/baseline.agentlog");
/// The bundled candidate trace.
pub const CANDIDATE: &[u8] = include_bytes!("../../demo/refund-agent/candidate.agentlog");
/// The bundled policy.
pub const POLICY: &str = include_str!("../../demo/refund-agent/policy.yaml");

/// Loads the two bundled traces.
pub fn traces() -> Result<(Trace, Trace), CliError> {
    let opts = ReadOptions {
        strict: true,
        ..Default::default()
    };
    let b = read_agentlog_bytes("examples/refund-agent/baseline.agentlog", BASELINE, &opts)?;
    let c = read_agentlog_bytes("examples/refund-agent/candidate.agentlog", CANDIDATE, &opts)?;
    Ok((b, c))
}

/// Runs `veer demo`.
pub fn run(args: &DemoArgs) -> Result<Exit, CliError> {
    let (b, c) = traces()?;
    let policy = veer_engine::policy::load_str(
        POLICY,
        "examples/refund-agent/policy.yaml",
        false,
        std::path::Path::new("examples/refund-agent"),
    )
    .map_err(|e| super::policy::policy_error(&e))?;
    let mut options = veer_engine::DiffOptions {
        policy: Some(std::sync::Arc::new(policy)),
        ..veer_engine::DiffOptions::default()
    };
    options.lanes = args.format.shows_lanes();
    let (report, verdict) = veer_engine::diff::diff(
        &b,
        &c,
        (
            "examples/refund-agent/baseline.agentlog",
            "examples/refund-agent/candidate.agentlog",
        ),
        &options,
        veer_base::Level::None,
    );
    let judged = Judged {
        report: &report,
        verdict: &verdict,
    };
    let style = Style {
        colour: colour_enabled(args.out.output.is_some()),
    };
    let mut text = args.format.print(&judged, style);
    if args.format == DiffFormat::Terminal && args.out.output.is_none() {
        text.push_str(
            "\nThis was `veer diff examples/refund-agent/baseline.agentlog \
             examples/refund-agent/candidate.agentlog --policy examples/refund-agent/policy.yaml`.\n\
             Add `--fail-on severe` to gate a merge on it; try `veer demo --format markdown` for the \
             pull-request comment.\n",
        );
    }
    emit(&text, args.out.output.as_deref())?;
    if let Some(path) = super::diff::step_summary_path(args.format) {
        let markdown = DiffFormat::Markdown.print(&judged, style);
        crate::output::append_step_summary(&path, &markdown)?;
    }
    Ok(Exit::done())
}
