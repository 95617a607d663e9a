//! `veer scan PATH…`: finds secrets in traces and reports where (file, line, column, kind) —
//! never the secret itself. Exit 1 on any finding, 2 when a path cannot be read: such a path
//! is an error row of the report (file, error, hint) and every other file is still scanned.

use crate::cli::ScanArgs;
use crate::error::{CliError, Exit};
use crate::output::{colour_enabled, emit, print_skipped};
use crate::progress::Progress;
use rayon::prelude::*;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use veer_contract::scan::{FileFinding, ScanError, ScanReport};
use veer_report::printer::OutputFormat as _;
use veer_report::style::Style;
use veer_secrets::{Detector, ExtraPattern};
use veer_trace::agentlog::lines::{Line, LineReader};

/// The extra patterns file: `{patterns: [{name, regex}, …]}` in YAML or JSON.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct PatternsFile {
    patterns: Vec<ExtraPattern>,
}

/// Loads `--patterns FILE` into a detector with the built-in patterns first.
pub fn load_detector(patterns: Option<&Path>) -> Result<Detector, CliError> {
    let Some(path) = patterns else {
        return Ok(Detector::builtin());
    };
    let shown = path.display().to_string();
    let cant_read = |e: &dyn std::fmt::Display| {
        CliError::input(format!("{shown}: (file): cannot read patterns: {e}"))
            .hint("--patterns takes a YAML or JSON file: patterns: [{name: ..., regex: ...}]")
    };
    let cap = veer_base::capped::MAX_CONFIG_FILE_BYTES;
    let bytes = veer_base::capped::read_capped(path, cap).map_err(|e| match e {
        veer_base::capped::CappedError::Io(e) => cant_read(&e),
        other => {
            let (message, hint) = other
                .too_large_message("patterns file", None)
                .unwrap_or_default();
            CliError::input(format!("{shown}: (file): {message}")).hint(hint)
        }
    })?;
    let text =
        String::from_utf8(bytes).map_err(|_| cant_read(&"stream did not contain valid UTF-8"))?;
    let file: PatternsFile = serde_saphyr::from_str(&text).map_err(|e| {
        CliError::input(format!("{shown}: {e}"))
            .hint("expected `patterns:` followed by a list of {name, regex} entries")
    })?;
    Detector::with_extra(&file.patterns).map_err(|e| {
        CliError::input(format!("{shown}: patterns: {e}"))
            .hint("names are letters, digits and '_'; regexes use Rust regex syntax")
    })
}

/// Runs `veer scan`.
pub fn run(args: &ScanArgs) -> Result<Exit, CliError> {
    let detector = load_detector(args.patterns.as_deref())?;
    let mut files: Vec<PathBuf> = Vec::new();
    let mut errors: Vec<ScanError> = Vec::new();
    for p in &args.paths {
        if p.is_dir() {
            match veer_trace::load::list_trace_files(p) {
                Ok(listing) => {
                    print_skipped(&listing.skipped);
                    files.extend(listing.files);
                }
                Err(e) => errors.push(ScanError {
                    file: p.display().to_string(),
                    error: e.to_string(),
                    hint: e.hint,
                }),
            }
        } else {
            files.push(p.clone());
        }
    }
    // Files are scanned on all cores and reported in path order.
    let progress = Progress::new(files.len() as u64, "scanning traces");
    let results: Vec<Result<Vec<FileFinding>, ScanError>> = files
        .par_iter()
        .map(|f| {
            let r = scan_file(&detector, f, args.max_line_bytes, args.max_trace_bytes);
            progress.tick();
            r
        })
        .collect();
    progress.finish();
    let mut findings = Vec::new();
    let mut scanned = 0;
    for result in results {
        match result {
            Ok(found) => {
                scanned += 1;
                findings.extend(found);
            }
            Err(e) => errors.push(e),
        }
    }
    let report = ScanReport {
        schema_version: veer_report::SCHEMA_VERSION.into(),
        files_scanned: scanned,
        findings,
        errors,
    };
    let style = Style {
        colour: colour_enabled(args.output.is_some()),
    };
    let text = args.format.print(&report, style);
    emit(&text, args.output.as_deref())?;
    if let Some(first) = report.errors.first() {
        let n = report.errors.len();
        let mut error = CliError::input(format!(
            "{n} path(s) could not be scanned (error rows in the report); first: {}",
            first.error
        ));
        error.more = report.errors[1..].iter().map(|e| e.error.clone()).collect();
        error.hint = first.hint.clone();
        return Err(error);
    }
    Ok(Exit::Verdict(veer_engine::verdict::scan_verdict(
        &report.findings,
    )))
}

fn scan_file(
    detector: &Detector,
    path: &Path,
    max_line_bytes: u64,
    max_trace_bytes: u64,
) -> Result<Vec<FileFinding>, ScanError> {
    use veer_trace::limits::Counting;
    let shown = path.display().to_string();
    let io = |e: std::io::Error| {
        ScanError::new(
            path,
            format!("{shown}: (file): cannot read: {e}"),
            "check the path and its permissions",
        )
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut reader = BufReader::with_capacity(1 << 16, Counting::new(file, max_trace_bytes));
    let gzip = reader.fill_buf().map_err(io)?.starts_with(&[0x1f, 0x8b]);
    // Bytes are counted after decompression: a gzip bomb stops at --max-trace-bytes.
    let input: Box<dyn BufRead> = if gzip {
        Box::new(Counting::new(
            BufReader::new(flate2::bufread::MultiGzDecoder::new(reader)),
            max_trace_bytes,
        ))
    } else {
        Box::new(reader)
    };
    scan_lines(detector, &shown, input, max_line_bytes).map_err(|(error, hint)| ScanError {
        file: shown.clone(),
        error,
        hint: Some(hint.to_string()),
    })
}

fn scan_lines<R: Read + BufRead>(
    detector: &Detector,
    shown: &str,
    input: R,
    max_line_bytes: u64,
) -> Result<Vec<FileFinding>, (String, &'static str)> {
    let mut lines = LineReader::new(input, max_line_bytes);
    let mut out = Vec::new();
    let read_error = |e: std::io::Error| match veer_trace::limits::bytes_exceeded(&e) {
        Some(limit) => (
            veer_trace::limits::trace_too_large(shown, limit).to_string(),
            "raise the limit with --max-trace-bytes N, or check for a runaway or corrupt input",
        ),
        None => (
            format!("{shown}: (file): cannot read: {e}"),
            "check that the file is readable",
        ),
    };
    loop {
        let blank = match lines.next_line() {
            Ok(None) => return Ok(out),
            Ok(Some(Line::OutOfMemory(n, bytes))) => {
                return Err((
                    format!("{shown}:{n}: (line): cannot allocate {bytes} bytes for this line: out of memory"),
                    "lower --max-line-bytes",
                ))
            }
            Ok(Some(Line::TooLong(n))) => {
                return Err((
                    format!(
                    "{shown}:{n}: (line): line is longer than the limit of {max_line_bytes} bytes"
                ),
                    "raise the limit with --max-line-bytes",
                ))
            }
            Ok(Some(Line::Bytes(n, bytes))) => {
                let text = String::from_utf8_lossy(bytes);
                for f in detector.scan_line(n, &text) {
                    out.push(FileFinding {
                        file: shown.to_string(),
                        line: f.line,
                        column: f.column,
                        kind: f.kind,
                    });
                }
                bytes.iter().all(u8::is_ascii_whitespace)
            }
            Err(e) => return Err(read_error(e)),
        };
        if blank {
            lines.skip_blank_lines().map_err(read_error)?;
        }
    }
}
