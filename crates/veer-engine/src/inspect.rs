//! The rows `veer inspect` shows for one trace: one per turn, with its model, tools, token
//! counts, latency, stop reason and text, and the live policy's decisions. Every front end
//! (the binary, `veer mcp`) builds its inspect report here.

use rayon::prelude::*;
use std::path::Path;
use veer_contract::inspect::{InspectReport, InspectTool, InspectTurn};
use veer_trace::{ReadOptions, Trace, TraceError};

/// The traces one `veer inspect TRACE` shows.
#[derive(Debug, Default)]
pub struct Inspected {
    /// Every trace read: the runs of one file, or each trace under a directory (sorted,
    /// recursive).
    pub traces: Vec<Trace>,
    /// The files under a directory that failed to load, in path order.
    pub failures: Vec<TraceError>,
    /// The files of a directory skipped as not traces, for the caller to show.
    pub skipped: Vec<veer_trace::load::SkippedEntry>,
}

/// Reads the traces at `path` (a trace file or a directory); a single file must load.
pub fn read(path: &Path, options: &ReadOptions) -> Result<Inspected, crate::Error> {
    if !path.is_dir() {
        return Ok(Inspected {
            traces: veer_trace::load_file(path, options)?.into_traces(),
            ..Inspected::default()
        });
    }
    let mut out = Inspected::default();
    let (entries, skipped) = veer_trace::load_directory(path, options)?;
    out.skipped = skipped;
    for entry in entries {
        match entry.trace {
            Ok(t) => out.traces.push(t),
            Err(e) => out.failures.push(e),
        }
    }
    Ok(out)
}

impl Inspected {
    /// The error the run ends with once the readable traces are shown: `N of M traces could not
    /// be read; first: …`, every other failure a further line; None when all loaded.
    pub fn unreadable(&self) -> Option<crate::Error> {
        let (first, rest) = self.failures.split_first()?;
        let total = self.failures.len() + self.traces.len();
        let mut error = crate::Error::from(first.clone());
        error.more.extend(rest.iter().map(ToString::to_string));
        error.message = format!(
            "{} of {total} traces could not be read; first: {}",
            self.failures.len(),
            error.message
        );
        Some(error)
    }
}

/// Builds the inspect report of one trace.
pub fn report(trace: &Trace) -> InspectReport {
    let (sessions, session_count) = trace.recorded_sessions();
    let calls = trace.tool_calls();
    // Only what the rows show is read from each response: the diff's per-turn features
    // (trajectory digests, shingles, …) are not needed here. Rows are built on all cores, in
    // turn order.
    let responses = trace.responses();
    let turns = trace
        .turns_with(&calls)
        .into_par_iter()
        .zip(responses.par_iter())
        .map(|(turn, r)| {
            let tools = turn
                .tool_calls
                .iter()
                .map(|&ci| {
                    let c = &calls[ci];
                    let mut arg_keys: Vec<String> = c.arguments.keys().cloned().collect();
                    arg_keys.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
                    InspectTool {
                        name: c.name.clone(),
                        arg_keys,
                    }
                })
                .collect();
            let record = &trace.records[turn.response];
            InspectTurn {
                session: sessions.get(turn.index).copied().unwrap_or(0),
                turn: turn.index,
                line: record.line,
                model: r.model().map(str::to_string),
                tools,
                input_tokens: r.usage("input_tokens"),
                output_tokens: r.usage("output_tokens"),
                latency_ms: r.latency_ms(),
                stop_reason: record.str_field("stop_reason").map(str::to_string),
                text: r.text(" "),
            }
        })
        .collect();
    InspectReport {
        source: trace.source.clone(),
        run_label: trace.run_label.clone(),
        format: trace.format,
        trace_id: trace.trace_id().to_string(),
        record_count: trace.records.len(),
        session_count,
        turns,
        enforcement: crate::policy::live_decisions(trace),
        warnings: trace.warnings.iter().map(ToString::to_string).collect(),
    }
}
