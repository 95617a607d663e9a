//! `veer convert INPUT… [-o OUT]`: any format veer reads, written as one canonical `.agentlog`.
//!
//! OTLP/JSON inputs are read together as one set of spans (an export split over files, in any
//! order); other inputs are read one by one and follow each other as recorded sessions. The
//! records are those the diff and the policy engine see, so the output diffs like its inputs.
//! An Inspect AI eval log (one run per sample-epoch) is converted by [`super::inspect_log`].
//!
//! Like every output of veer, the converted trace is redacted: secrets in payloads, `meta` and
//! unknown envelope keys become `[REDACTED:<kind>]`, and a record whose payload changed gets
//! the content id of its redacted payload (its children's `parent` follows), so the output
//! reads back under `--strict`. `--no-redact` writes the content verbatim.

use crate::cli::ConvertArgs;
use crate::error::{CliError, Exit};
use crate::output::{emit_data, print_warnings};
use std::io::Read;
use std::path::Path;
use veer_trace::agentlog::writer::write_record;
use veer_trace::formats::otel;
use veer_trace::{Record, Trace};

/// Runs `veer convert`.
pub fn run(args: &ConvertArgs) -> Result<Exit, CliError> {
    if let Some(out) = &args.output {
        refuse_overwriting_an_input(out, &args.inputs)?;
    }
    let options = args.read.options();
    if let [input] = args.inputs.as_slice() {
        if let Some(log) = super::inspect_log::open(input, &options)? {
            return super::inspect_log::convert(log, args.output.as_deref());
        }
    }
    let traces: Vec<Trace> = if args.inputs.len() > 1 && all_otel(&args.inputs)? {
        let mut files = Vec::with_capacity(args.inputs.len());
        for p in &args.inputs {
            let shown = p.display().to_string();
            let bytes = veer_base::capped::read_capped(p, options.max_trace_bytes).map_err(
                |e| match e {
                    veer_base::capped::CappedError::Io(e) => {
                        CliError::input(format!("{shown}: cannot read: {e}"))
                            .hint("check the path and the file's permissions")
                    }
                    veer_base::capped::CappedError::TooLarge(limit) => {
                        veer_trace::limits::trace_too_large(&shown, limit).into()
                    }
                    veer_base::capped::CappedError::OutOfMemory(n) => {
                        veer_trace::limits::out_of_memory(&shown, None, "the file", n as usize)
                            .into()
                    }
                },
            )?;
            files.push((p.display().to_string(), bytes));
        }
        let views: Vec<(&str, &[u8])> = files
            .iter()
            .map(|(n, b)| (n.as_str(), b.as_slice()))
            .collect();
        vec![otel::read_many(&files[0].0, &views)?]
    } else {
        let mut all = Vec::new();
        for p in &args.inputs {
            all.extend(veer_trace::load_file(p, &options)?.into_traces());
        }
        all
    };
    for t in &traces {
        print_warnings(&t.warnings);
    }
    let mut bytes = Vec::new();
    let mut line = Vec::new();
    for r in &converted(&traces) {
        write_record(&mut bytes, &mut line, r)
            .map_err(|e| CliError::output("the converted trace", &e))?;
    }
    emit_data(&bytes, args.output.as_deref())?;
    Ok(Exit::done())
}

/// The records written for `traces`: content ids for placeholder ids, clocks that never go
/// backwards, secrets replaced unless `--no-redact` (the engine's
/// [`veer_engine::redact::converted_records`], shared with the Python package).
pub fn converted(traces: &[Trace]) -> Vec<Record> {
    veer_engine::redact::converted_records(traces, veer_secrets::display::redactor())
}

/// Whether every input starts like an OTLP/JSON export.
fn all_otel(inputs: &[std::path::PathBuf]) -> Result<bool, CliError> {
    for p in inputs {
        let mut head = [0u8; 4096];
        let n = std::fs::File::open(p)
            .and_then(|mut f| f.read(&mut head))
            .map_err(|e| {
                CliError::input(format!("{}: cannot read: {e}", p.display()))
                    .hint("check the path and the file's permissions")
            })?;
        if !otel::sniff(&head[..n]) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// `-o` naming one of the inputs would replace the user's trace with its conversion.
fn refuse_overwriting_an_input(out: &Path, inputs: &[std::path::PathBuf]) -> Result<(), CliError> {
    let Ok(target) = out.canonicalize() else {
        return Ok(()); // does not exist yet
    };
    for p in inputs {
        if p.canonicalize().is_ok_and(|c| c == target) {
            return Err(CliError::input(format!(
                "{}: refusing to write the output onto an input",
                out.display()
            ))
            .hint("pick another -o path; veer never overwrites the traces it reads"));
        }
    }
    Ok(())
}
