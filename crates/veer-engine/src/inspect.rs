//! The rows `veer inspect` shows for one trace: one per turn, with its model, tools, token
//! counts, latency, stop reason and text, and the live policy's decisions; for an Inspect AI
//! log, one row per sample-epoch with its scores. Every front end (the binary, `veer mcp`)
//! builds its inspect report here.

use rayon::prelude::*;
use std::io::{Read, Seek};
use std::path::Path;
use veer_contract::inspect::{InspectReport, InspectTool, InspectTurn, LogReport, SampleRow};
use veer_trace::formats::inspect::{case_file_name, InspectLog, InspectSample, OUTCOME_KEY};
use veer_trace::{Kind, ReadOptions, Trace, TraceError};

/// The report of an Inspect AI log: one row per sample-epoch, in log order. Each sample's
/// reader warnings go to `warn` as it is read; a sample that cannot be read is an error.
pub fn log_report<R: Read + Seek>(
    log: InspectLog<R>,
    warn: &mut dyn FnMut(&veer_trace::Warning),
) -> Result<LogReport, crate::Error> {
    let info = log.info().clone();
    let source = log.source().to_string();
    let mut samples = Vec::with_capacity(log.len());
    for sample in log {
        let sample = sample?;
        sample.trace.warnings.iter().for_each(&mut *warn);
        samples.push(sample_row(&sample));
    }
    Ok(LogReport {
        source,
        format: veer_base::format::Format::Inspect,
        task: info.task,
        model: info.model,
        status: info.status,
        epochs: info.epochs,
        samples,
    })
}

/// One sample-epoch's row: its outcome and scores, turns, tools, tokens, and the file
/// `veer convert` writes it to.
fn sample_row(s: &InspectSample) -> SampleRow {
    let meta = &s.trace.records[0];
    let json = |k: &str| {
        meta.field(k)
            .map(|v| serde_json::to_value(v).unwrap_or_default())
    };
    let responses = s.trace.responses();
    let sum = |k: &str| {
        responses
            .iter()
            .filter_map(|r| r.usage(k))
            .sum::<f64>()
            .max(0.0) as u64
    };
    SampleRow {
        case: s.case.clone(),
        trial: s.trial,
        outcome: meta.str_field(OUTCOME_KEY).map(str::to_string),
        scores: json("scores").unwrap_or_default(),
        turns: s.trace.count(&Kind::ChatResponse),
        tools: s.trace.tool_calls().into_iter().map(|c| c.name).collect(),
        input_tokens: sum("input_tokens"),
        output_tokens: sum("output_tokens"),
        error: meta.str_field("error").map(str::to_string),
        converts_to: format!("{}/trial-{}.agentlog", case_file_name(&s.case), s.trial),
    }
}

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
