//! What `veer convert` and `veer inspect` do with an Inspect AI eval log, which holds one run
//! per sample and epoch where every other input holds one: convert writes one `.agentlog` per
//! sample-epoch (`DIR/CASE/trial-N.agentlog`, never replacing a file), inspect lists the
//! sample-epochs with their scores and turns (docs/formats.md §Inspect AI).

use crate::cli::InspectFormat;
use crate::error::{CliError, Exit};
use crate::output::{emit, emit_data, interrupt, print_warnings};
use std::fs::File;
use std::io::{BufReader, Write};
use std::path::Path;
use veer_contract::inspect::{InspectDocument, INSPECT_SCHEMA_VERSION};
use veer_trace::agentlog::writer::write_record;
use veer_trace::formats::inspect::{case_file_name, InspectLog};
use veer_trace::Trace;

/// An open log read from a file.
pub type FileLog = InspectLog<BufReader<File>>;

/// Whether `-o` names a directory: one that exists, or a path ending in `/`.
pub fn is_directory_output(out: &Path) -> bool {
    out.is_dir() || out.as_os_str().as_encoded_bytes().ends_with(b"/")
}

/// `veer convert LOG [-o OUT]`: with `-o DIR/` one `.agentlog` per sample-epoch under `DIR`;
/// otherwise the log must hold one sample-epoch, written to `-o FILE` or stdout.
pub fn convert(log: FileLog, output: Option<&Path>) -> Result<Exit, CliError> {
    match output {
        Some(dir) if is_directory_output(dir) => convert_to_directory(log, dir),
        _ => {
            let trace = log.into_single_trace().map_err(|e| {
                let mut e = CliError::from(e);
                if e.message.contains("sample-epochs") {
                    e.hint = Some("write one .agentlog per sample-epoch with `-o DIR/` (files DIR/CASE/trial-N.agentlog)".into());
                }
                e
            })?;
            print_warnings(&trace.warnings);
            emit_data(&agentlog_bytes(&trace)?, output)?;
            Ok(Exit::done())
        }
    }
}

fn agentlog_bytes(trace: &Trace) -> Result<Vec<u8>, CliError> {
    let mut bytes = Vec::new();
    let mut line = Vec::new();
    for r in &super::convert::converted(std::slice::from_ref(trace)) {
        write_record(&mut bytes, &mut line, r)
            .map_err(|e| CliError::output("the converted trace", &e))?;
    }
    Ok(bytes)
}

/// Writes `DIR/CASE/trial-N.agentlog` for each sample-epoch, in log order. A file that exists
/// already is never replaced (exit 2 naming it; the files written before it stay), nor is a
/// case directory that is not a plain directory (a symlink could lead outside `DIR`) written in.
fn convert_to_directory(log: FileLog, dir: &Path) -> Result<Exit, CliError> {
    std::fs::create_dir_all(dir).map_err(|e| CliError::output(&dir.display().to_string(), &e))?;
    let mut written = 0usize;
    for sample in log {
        let sample = sample?;
        print_warnings(&sample.trace.warnings);
        let case_dir = dir.join(case_file_name(&sample.case));
        match std::fs::symlink_metadata(&case_dir) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Err(CliError::input(format!(
                "{}: exists and is not a directory",
                case_dir.display()
            ))
            .hint(
                "convert into an empty directory; veer never writes through a link or over a file",
            )),
            Err(_) => std::fs::create_dir(&case_dir)
                .map_err(|e| CliError::output(&case_dir.display().to_string(), &e))?,
        }
        let target = case_dir.join(format!("trial-{}.agentlog", sample.trial));
        write_new(&target, &agentlog_bytes(&sample.trace)?)?;
        written += 1;
    }
    eprintln!(
        "wrote {written} trace{} under {}",
        if written == 1 { "" } else { "s" },
        dir.display()
    );
    Ok(Exit::done())
}

/// Writes `bytes` to a new file `target`: a hidden temporary file beside it, linked to
/// `target` only if nothing is there (atomic: the file appears whole or not at all).
fn write_new(target: &Path, bytes: &[u8]) -> Result<(), CliError> {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = target.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let shown = target.display().to_string();
    let result = interrupt::create_temporary(&tmp)
        .and_then(|mut f| f.write_all(bytes).and_then(|()| f.sync_all()))
        .and_then(|()| std::fs::hard_link(&tmp, target));
    interrupt::remove_temporary(&tmp);
    match result {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(CliError::input(format!(
            "{shown}: refusing to overwrite an existing file"
        ))
        .hint("convert into an empty directory, or remove the old conversion first")),
        Err(e) => Err(CliError::output(&shown, &e)),
    }
}

/// Runs `veer inspect` on an Inspect log.
pub fn inspect(
    log: FileLog,
    format: InspectFormat,
    colour: bool,
    output: Option<&Path>,
) -> Result<Exit, CliError> {
    let report = veer_engine::inspect::log_report(log, &mut |w| crate::output::diag::warn(w))?;
    let text = match format {
        InspectFormat::Json => veer_report::json::to_json(&InspectDocument {
            schema_version: INSPECT_SCHEMA_VERSION.into(),
            traces: Vec::new(),
            log: Some(report),
        }),
        InspectFormat::Terminal => {
            veer_report::inspect::log_terminal(&report, veer_report::style::Style { colour })
        }
    };
    emit(&text, output)?;
    Ok(Exit::done())
}

/// The Inspect log at `path`, when it is one (by content).
pub fn open(path: &Path, read: &veer_trace::ReadOptions) -> Result<Option<FileLog>, CliError> {
    if path.is_dir() {
        return Ok(None);
    }
    Ok(veer_trace::formats::inspect::open_inspect_log(path, read)?)
}
