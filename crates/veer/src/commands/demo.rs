//! `veer demo`: veer's main job on example traces bundled in the binary: the behaviour diff
//! of a baseline and a candidate run of a refund agent.
//!
//! The scenario: a refund agent whose candidate prompt drops "confirm the amount with the
//! customer before refunding". No files are read and nothing touches the network.

use crate::cli::{DemoArgs, DiffFormat, InspectFormat};
use crate::error::{CliError, EXIT_OK};
use crate::output::{colour_enabled, emit};
use veer_trace::agentlog::reader::read_agentlog_bytes;
use veer_trace::{ReadOptions, Trace};

/// The bundled baseline trace.
pub const BASELINE: &[u8] = include_bytes!("../../../../examples/refund-agent/baseline.agentlog");
/// The bundled candidate trace.
pub const CANDIDATE: &[u8] = include_bytes!("../../../../examples/refund-agent/candidate.agentlog");

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
pub fn run(args: &DemoArgs) -> Result<u8, CliError> {
    let (b, c) = traces()?;
    let report = veer_diff::diff(
        &b,
        &c,
        "examples/refund-agent/baseline.agentlog",
        "examples/refund-agent/candidate.agentlog",
        &veer_diff::DiffOptions::default(),
    );
    let format = match args.format {
        InspectFormat::Terminal => DiffFormat::Terminal,
        InspectFormat::Json => DiffFormat::Json,
    };
    let text = super::diff::render(&report, format, colour_enabled(false));
    emit(&text, None)?;
    Ok(EXIT_OK)
}
