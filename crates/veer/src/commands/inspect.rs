//! `veer inspect TRACE`: one row per turn of one trace (an Inspect AI log: one row per
//! sample-epoch, by [`super::inspect_log`]).

use crate::cli::{InspectArgs, InspectFormat};
use crate::error::{CliError, Exit};
use crate::output::{colour_enabled, emit, print_skipped, print_warnings};
use veer_contract::inspect::{InspectDocument, InspectReport, INSPECT_SCHEMA_VERSION};
use veer_report::printer::OutputFormat as _;
use veer_report::style::Style;

/// Runs `veer inspect`.
///
/// A directory shows every trace under it (sorted, recursive); files that fail to load are
/// reported after the others and make the exit code 2.
pub fn run(args: &InspectArgs) -> Result<Exit, CliError> {
    let options = args.read.options();
    if let Some(log) = super::inspect_log::open(&args.trace, &options)? {
        let colour = colour_enabled(args.out.output.is_some());
        return super::inspect_log::inspect(log, args.format, colour, args.out.output.as_deref());
    }
    let inspected = veer_engine::inspect::read(&args.trace, &options)?;
    print_skipped(&inspected.skipped);
    let reports: Vec<InspectReport> = inspected
        .traces
        .iter()
        .map(veer_engine::inspect::report)
        .collect();
    for t in &inspected.traces {
        print_warnings(&t.warnings);
    }
    if !reports.is_empty() {
        let colour = colour_enabled(args.out.output.is_some());
        emit(
            &render(&reports, args.format, colour),
            args.out.output.as_deref(),
        )?;
    }
    match inspected.unreadable() {
        None => Ok(Exit::done()),
        Some(e) => Err(e),
    }
}

/// Renders one or more inspect reports (a results file holds several runs).
pub fn render(reports: &[InspectReport], format: InspectFormat, colour: bool) -> String {
    let doc = InspectDocument {
        schema_version: INSPECT_SCHEMA_VERSION.into(),
        traces: reports.to_vec(),
        log: None,
    };
    format.print(&doc, Style { colour })
}
