//! `veer diff BASELINE CANDIDATE`: the behaviour diff of two traces, or of two directories of
//! traces paired by relative path. For two files, a bad file, a bad pricing table, mismatched
//! formats or an empty side is exit 2 before any output can be seen. A directory diff streams:
//! pairs are diffed in parallel and printed in path order through a bounded reorder window, the
//! summary folded from per-pair summaries (docs/corpus.md); a pair that cannot be read or
//! compared becomes an error row, fails a set gate (exit 1) and otherwise ends the run with
//! exit 2 once the whole report is written (docs/diff.md, "When a pair cannot be read").

use super::pooled::{PairRows, Pool};
use crate::cli::{DiffArgs, DiffFormat, FingerprintScaleKey, PairByArg};
use crate::error::CliError;
use crate::output::stream::{emit_streamed, ReportStream};
use crate::output::{append_step_summary, colour_enabled, emit};
use crate::progress::Progress;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use veer_diff::aggregate::PairSummary;
use veer_diff::fingerprint;
use veer_diff::report::{DirectoryPair, PairError};
use veer_diff::{
    DiffOptions, DiffReport, DirectorySummary, PairBy, Pricing, SideFingerprints, Unmatched,
};
use veer_engine::verdict::DirectoryVerdict;
use veer_engine::Verdict;
use veer_policy::Level;
use veer_report::diff::junit::DirectorySuites;
use veer_report::diff::markdown::DirectoryComment;
use veer_report::diff::stream::DirectoryPrinter;
use veer_report::diff::terminal::DirectoryTable;
use veer_report::findings::diff_findings;
use veer_report::github::DirectoryCommands;
use veer_report::html::diff::DirectoryPage;
use veer_report::json::DirectoryJson;
use veer_report::sarif::DirectoryLog;
use veer_report::style::Style;
use veer_trace::{ReadOptions, Trace};

/// Runs `veer diff`.
pub fn run(args: &DiffArgs) -> Result<u8, CliError> {
    // `--baseline NAME CANDIDATE_DIR`: the stored baseline, verified, is the baseline side.
    let resolved;
    let args = match &args.stored_baseline {
        Some(spec) => {
            resolved = super::baseline::diff_args(args, spec)?;
            &resolved
        }
        None => args,
    };
    let pricing = match &args.pricing {
        Some(path) => load_pricing(path)?,
        None => Pricing::none(),
    };
    let options = DiffOptions {
        seed: args.seed,
        top_k: args.top_k,
        pair_by: match args.pair_by {
            PairByArg::Auto => PairBy::Auto,
            PairByArg::Index => PairBy::Index,
            PairByArg::Alignment => PairBy::Alignment,
        },
        pricing,
        policy: match &args.policy {
            Some(path) => Some(Arc::new(super::policy::load(path)?)),
            None => None,
        },
        max_align_cells: args.max_align_cells,
        fingerprint: fingerprint_options(args),
        lanes: args.format == DiffFormat::Html,
    };
    let read = args.read.options();
    let colour = colour_enabled(args.out.output.is_some());
    let (text, summary, verdict) = match (args.baseline.is_dir(), args.candidate.is_dir()) {
        (true, true) => {
            let b_files = super::trials::files_of(&args.baseline)?;
            let c_files = super::trials::files_of(&args.candidate)?;
            let (b_files, c_files) = match super::trials::detect(args, b_files, c_files)? {
                super::trials::Detected::Trials(layout) => return super::trials::run(args, layout),
                super::trials::Detected::Paths(b, c) => (b, c),
            };
            let plan = pair_directories(&args.baseline, &args.candidate, b_files, c_files)?;
            let step = step_summary_path(args.format);
            let json = matches!(args.format, DiffFormat::Json | DiffFormat::Sarif);
            let kept = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
            let mut printer = directory_printer(args.format, colour);
            if args.history.is_some() {
                printer = Box::new(super::history::KeepJson::new(printer, kept.clone()));
            }
            let (verdict, markdown, errors) =
                emit_streamed(args.out.output.as_deref(), json, |out| {
                    let comment = step.is_some().then(DirectoryComment::default);
                    stream_directory(
                        &plan,
                        &read,
                        (&options, args.fail_on.level),
                        printer,
                        comment,
                        out,
                    )
                })?;
            if let Some(db) = &args.history {
                let json = kept.lock().map(|k| k.clone()).unwrap_or_default();
                super::history::record_report(json.as_bytes(), "the directory diff", db)?;
            }
            // The report is written, error rows included; stderr names them too. Without a
            // gate they are the command's error (exit 2); with one, they tripped it (exit 1).
            let summary = step.zip(markdown);
            if let Some(error) = pair_errors_error(&errors, plan.matched.len()) {
                if verdict.exit_code() == 2 {
                    if let Some((path, markdown)) = summary {
                        append_step_summary(&path, &markdown)?;
                    }
                    return Err(error);
                }
                crate::output::diag::error(&error);
            }
            return finish(&verdict, summary);
        }
        (false, false) => {
            if let Some(code) = super::trials::run_logs(args)? {
                return Ok(code);
            }
            // Both sides are read at once; a problem with the baseline is reported first.
            let (b, c) = rayon::join(
                || load(&args.baseline, &read),
                || load(&args.candidate, &read),
            );
            let (b, c) = (b?, c?);
            check_pair(&b, &c)?;
            let (report, verdict) = veer_engine::diff::diff(
                &b,
                &c,
                (
                    &args.baseline.display().to_string(),
                    &args.candidate.display().to_string(),
                ),
                &options,
                args.fail_on.level,
            );
            if args.format != DiffFormat::Terminal {
                print_report_warnings(&report);
            }
            let kept = args
                .history
                .as_ref()
                .map(|db| (db, veer_report::json::to_json(&report)));
            let out = (
                render(&report, &verdict, args.format, colour),
                step_summary(args.format, || {
                    veer_report::diff::markdown::render(&report, &verdict)
                }),
                verdict,
            );
            // The command ends here: freeing the traces' millions of small allocations one by
            // one takes longer than the process exit that releases them all.
            std::mem::forget((b, c, report));
            if let Some((db, json)) = kept {
                emit(&out.0, args.out.output.as_deref())?;
                super::history::record_report(json.as_bytes(), "the diff", db)?;
                return finish(&out.2, out.1);
            }
            out
        }
        (b_dir, _) => {
            let (dir, file) = if b_dir {
                (&args.baseline, &args.candidate)
            } else {
                (&args.candidate, &args.baseline)
            };
            return Err(CliError::input(format!(
                "mismatched inputs: {} is a directory but {} is not",
                dir.display(),
                file.display()
            ))
            .hint("pass two trace files, or two directories of traces"));
        }
    };
    emit(&text, args.out.output.as_deref())?;
    finish(&verdict, summary)
}

/// The end of `veer diff`: the step summary appended, the gate line on stderr, the exit code
/// (the verdict's).
fn finish(verdict: &Verdict, summary: Option<(PathBuf, String)>) -> Result<u8, CliError> {
    if let Some((path, markdown)) = summary {
        append_step_summary(&path, &markdown)?;
    }
    if verdict.fail_on != Level::None {
        crate::output::diag::say("", veer_report::policy::gate_line(&verdict.gate()));
    }
    Ok(verdict.exit_code())
}

/// With `--format github` and `GITHUB_STEP_SUMMARY` set (non-empty): that file and the
/// Markdown report to append to it.
pub fn step_summary(
    format: DiffFormat,
    markdown: impl FnOnce() -> String,
) -> Option<(PathBuf, String)> {
    step_summary_path(format).map(|path| (path, markdown()))
}

/// With `--format github`: the `GITHUB_STEP_SUMMARY` file, when set (non-empty).
fn step_summary_path(format: DiffFormat) -> Option<PathBuf> {
    if format != DiffFormat::Github {
        return None;
    }
    let path = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty())?;
    Some(PathBuf::from(path))
}

/// The fingerprint test's options: the default scales with each `--fingerprint-scale` applied.
fn fingerprint_options(args: &DiffArgs) -> veer_diff::FingerprintOptions {
    let mut options = veer_diff::FingerprintOptions::default();
    for &(key, value) in &args.fingerprint_scale {
        let scale = &mut options.scales;
        match key {
            FingerprintScaleKey::OutputTokens => scale.output_tokens = value,
            FingerprintScaleKey::LatencyMs => scale.latency_ms = value,
            FingerprintScaleKey::ToolCalls => scale.tool_calls = value,
            FingerprintScaleKey::TextChars => scale.text_chars = value,
            FingerprintScaleKey::ArgKeys => scale.arg_keys = value,
        }
    }
    options
}

/// Renders one report and its verdict in `format`.
pub fn render(report: &DiffReport, verdict: &Verdict, format: DiffFormat, colour: bool) -> String {
    match format {
        DiffFormat::Terminal => {
            veer_report::diff::terminal::render(report, verdict, Style { colour })
        }
        DiffFormat::Json => veer_report::json::to_json(report),
        DiffFormat::Markdown => veer_report::diff::markdown::render(report, verdict),
        DiffFormat::Junit => veer_report::diff::junit::render(report, verdict),
        DiffFormat::Html => veer_report::html::diff::render(report, verdict),
        DiffFormat::Sarif => veer_report::sarif::render(&diff_findings(report, verdict)),
        DiffFormat::Github => veer_report::github::render(&diff_findings(report, verdict), verdict),
    }
}

/// The printer of a directory diff in `format`.
fn directory_printer(format: DiffFormat, colour: bool) -> Box<dyn DirectoryPrinter> {
    match format {
        DiffFormat::Terminal => Box::new(DirectoryTable::new(Style { colour })),
        DiffFormat::Json => Box::new(DirectoryJson::new()),
        DiffFormat::Markdown => Box::new(DirectoryComment::default()),
        DiffFormat::Junit => Box::new(DirectorySuites::default()),
        DiffFormat::Html => Box::new(DirectoryPage::default()),
        DiffFormat::Sarif => Box::new(DirectoryLog::default()),
        DiffFormat::Github => Box::new(DirectoryCommands),
    }
}

fn print_report_warnings(report: &DiffReport) {
    for w in &report.warnings {
        crate::output::diag::warn(w);
    }
}

/// Reads and validates a pricing file.
fn load_pricing(path: &Path) -> Result<Pricing, CliError> {
    Ok(veer_diff::inputs::load_pricing(path)?)
}

fn load(path: &Path, read: &ReadOptions) -> Result<Trace, CliError> {
    Ok(veer_trace::load_trace(path, read)?)
}

/// Both sides must hold at least one response, of comparable formats
/// ([`veer_diff::inputs::check_pair`]).
fn check_pair(b: &Trace, c: &Trace) -> Result<(), CliError> {
    Ok(veer_diff::inputs::check_pair(b, c)?)
}

/// The trace pairs of a directory diff.
struct DirectoryPlan {
    /// (relative name, baseline path, candidate path), in relative-path byte order.
    matched: Vec<(String, PathBuf, PathBuf)>,
    unmatched: Unmatched,
}

/// Directory mode's pairing: the files of both directories (relative name, path) paired by
/// relative path; an error when no file has a counterpart.
fn pair_directories(
    baseline: &Path,
    candidate: &Path,
    b_files: Vec<(String, PathBuf)>,
    c_files: Vec<(String, PathBuf)>,
) -> Result<DirectoryPlan, CliError> {
    let b_files: BTreeMap<String, PathBuf> = b_files.into_iter().collect();
    let c_files: BTreeMap<String, PathBuf> = c_files.into_iter().collect();
    let mut unmatched = Unmatched::default();
    let mut matched: Vec<(String, PathBuf, PathBuf)> = Vec::new();
    for (name, bp) in &b_files {
        match c_files.get(name) {
            Some(cp) => matched.push((name.clone(), bp.clone(), cp.clone())),
            None => unmatched.baseline_only.push(name.clone()),
        }
    }
    unmatched.candidate_only = c_files
        .keys()
        .filter(|k| !b_files.contains_key(*k))
        .cloned()
        .collect();
    if matched.is_empty() {
        return Err(CliError::input(format!(
            "no trace in {} has a counterpart with the same relative path in {}",
            baseline.display(),
            candidate.display()
        ))
        .hint("directory mode pairs files by relative path, e.g. a/run1.agentlog with b/run1.agentlog"));
    }
    Ok(DirectoryPlan { matched, unmatched })
}

/// Trace pairs diffed at once per worker thread: the reorder window. Pairs are diffed in
/// windows of this many per thread, gathered in path order, and printed while the next window
/// is diffed, so at most two windows of reports are held at any time.
const WINDOW_PER_THREAD: usize = 32;

/// Directory mode: diff the pairs in parallel, print each in path order as soon as it and every
/// earlier pair are done, fold their summaries, then print the summary with the error rows of
/// the pairs that could not be measured. Returns the verdict (the engine's, at `fail_on`),
/// with `comment` the Markdown report for the step summary, and the error rows.
fn stream_directory(
    plan: &DirectoryPlan,
    read: &ReadOptions,
    (options, fail_on): (&DiffOptions, Level),
    mut printer: Box<dyn DirectoryPrinter>,
    mut comment: Option<DirectoryComment>,
    out: &mut ReportStream<'_>,
) -> Result<(Verdict, Option<String>, Vec<PairError>), CliError> {
    out.write(&printer.begin())?;
    let progress = Progress::new(plan.matched.len() as u64, "diffing trace pairs");
    let mut summary = PairSummary::default();
    let mut verdict = DirectoryVerdict::new(fail_on);
    // Every response's fingerprint, pooled into one test at the end (docs/corpus.md).
    let mut pool = Pool::default();
    let window = rayon::current_num_threads().max(1) * WINDOW_PER_THREAD;
    let mut done: Vec<(DirectoryPair, Verdict)> = Vec::new();
    let mut print = |pairs: Vec<(DirectoryPair, Verdict)>| -> String {
        let mut text = String::new();
        for (p, v) in &pairs {
            text.push_str(&printer.pair(p, v));
            if let Some(c) = &mut comment {
                c.pair(p, v);
            }
        }
        text
    };
    // The pairs that could not be measured, in path order, and their indices in the plan.
    let mut errors: Vec<PairError> = Vec::new();
    let mut bad: Vec<usize> = Vec::new();
    for (at, chunk) in plan.matched.chunks(window).enumerate() {
        let previous = std::mem::take(&mut done);
        let (text, results) = rayon::join(
            || print(previous),
            || {
                chunk
                    .par_iter()
                    .map(|(name, bp, cp)| {
                        let r = diff_pair(name, bp, cp, read, (options, fail_on));
                        progress.tick();
                        r
                    })
                    .collect::<Vec<_>>()
            },
        );
        out.write(&text)?;
        for (k, r) in results.into_iter().enumerate() {
            match r {
                Ok((pair, rows)) => {
                    summary.merge(PairSummary::of_pair(&pair.report));
                    let pair_verdict = verdict.pair(&pair.baseline, &pair.report);
                    pool.push(rows);
                    done.push((pair, pair_verdict));
                }
                Err(e) => {
                    bad.push(at * window + k);
                    errors.push(*e);
                }
            }
        }
    }
    let text = print(done);
    out.write(&text)?;
    progress.finish();

    let unmatched_count = plan.unmatched.baseline_only.len() + plan.unmatched.candidate_only.len();
    let again = |bp: &PathBuf, cp: &PathBuf| -> Result<PairRows, CliError> {
        let (b, c) = load_pair(bp, cp, read)?;
        let scales = &options.fingerprint.scales;
        Ok(rayon::join(
            || fingerprint::trace_matrix(&b, scales),
            || fingerprint::trace_matrix(&c, scales),
        ))
    };
    // The pooled test's second pass reads the measured pairs only (`bad` is in path order).
    let measured: Vec<(String, PathBuf, PathBuf)>;
    let pooled_pairs = if bad.is_empty() {
        plan.matched.as_slice()
    } else {
        measured = plan
            .matched
            .iter()
            .enumerate()
            .filter(|(i, _)| bad.binary_search(i).is_err())
            .map(|(_, p)| p.clone())
            .collect();
        measured.as_slice()
    };
    let fingerprint = pool.test(pooled_pairs, window, again, &options.fingerprint)?;
    let verdict = verdict.finish(fingerprint.as_ref(), &errors);
    let mut aggregate = summary.finish(unmatched_count);
    aggregate.error_pairs = errors.len();
    let summary = DirectorySummary {
        gate: verdict.gate(),
        errors,
        unmatched: plan.unmatched.clone(),
        aggregate,
        fingerprint,
    };
    out.write(&printer.finish(&summary, &verdict))?;
    let markdown = comment.map(|c| Box::new(c).finish(&summary, &verdict));
    Ok((verdict, markdown, summary.errors))
}

/// Reads, checks and diffs one pair, handing back its response fingerprints too; the pair's
/// error row when it cannot be read or compared.
fn diff_pair(
    name: &str,
    bp: &Path,
    cp: &Path,
    read: &ReadOptions,
    (options, fail_on): (&DiffOptions, Level),
) -> Result<(DirectoryPair, SideFingerprints), Box<PairError>> {
    let (b, c) = read_pair(name, bp, cp, read)?;
    let (report, _, rows) = veer_engine::diff::diff_keeping_fingerprints(
        &b,
        &c,
        (&bp.display().to_string(), &cp.display().to_string()),
        options,
        fail_on,
    );
    Ok((
        DirectoryPair {
            baseline: name.to_string(),
            candidate: name.to_string(),
            report,
        },
        rows,
    ))
}

/// Loads and checks one baseline/candidate pair.
fn load_pair(bp: &Path, cp: &Path, read: &ReadOptions) -> Result<(Trace, Trace), CliError> {
    let b = load(bp, read)?;
    let c = load(cp, read)?;
    check_pair(&b, &c)?;
    Ok((b, c))
}

/// Reads and checks one pair of a directory diff; its error row when it cannot be measured.
fn read_pair(
    name: &str,
    bp: &Path,
    cp: &Path,
    read: &ReadOptions,
) -> Result<(Trace, Trace), Box<PairError>> {
    let row = |file: Option<String>, line, error: String, hint| {
        Box::new(PairError {
            baseline: name.to_string(),
            candidate: name.to_string(),
            file,
            line,
            error,
            hint,
        })
    };
    let load = |path: &Path| {
        veer_trace::load_trace(path, read).map_err(|e| {
            let mut error = e.to_string();
            if !e.related.is_empty() {
                let more = e.related.len();
                error.push_str(&format!(
                    " (and {more} more problem{} in this file)",
                    if more == 1 { "" } else { "s" }
                ));
            }
            row(Some(path.display().to_string()), e.line, error, e.hint)
        })
    };
    let b = load(bp)?;
    let c = load(cp)?;
    veer_diff::inputs::check_pair(&b, &c)
        .map_err(|e| row(e.file, e.line, e.message, Some(e.hint)))?;
    Ok((b, c))
}

/// One error naming the first pair that could not be measured and listing the others;
/// `None` when every pair was measured.
fn pair_errors_error(errors: &[PairError], total: usize) -> Option<CliError> {
    let first = errors.first()?;
    let mut error = CliError::input(format!(
        "{} of {total} trace pairs could not be read or compared (error rows in the report); first: {}",
        errors.len(),
        first.error
    ));
    error.more = errors.iter().skip(1).map(|e| e.error.clone()).collect();
    error.hint = first.hint.clone();
    Some(error)
}
