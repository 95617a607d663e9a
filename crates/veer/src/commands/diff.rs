//! `veer diff BASELINE CANDIDATE`: the behaviour diff of two traces, or of two directories of
//! traces paired by relative path. For two files, a bad file, a bad pricing table, mismatched
//! formats or an empty side is exit 2 before any output can be seen. A directory diff streams:
//! pairs are diffed in parallel and printed in path order through a bounded reorder window, the
//! summary folded from per-pair summaries (docs/corpus.md); a pair that cannot be read or
//! compared becomes an error row, fails a set gate (exit 1) and otherwise ends the run with
//! exit 2 once the whole report is written (docs/diff.md, "When a pair cannot be read").

use crate::cli::{DiffArgs, DiffFormat, FingerprintScaleKey, PairByArg};
use crate::error::CliError;
use crate::output::stream::{emit_streamed, ReportStream};
use crate::output::{append_step_summary, colour_enabled, emit};
use crate::progress::Progress;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use veer_base::Level;
use veer_contract::diff::{DiffReport, DirectoryPair, PairError};
use veer_contract::divergence::PairBy;
use veer_contract::verdict::Verdict;
use veer_engine::directory::{
    pair_directories, pair_errors_error, stream_directory, DirectoryPlan,
};
use veer_engine::options::{BehaviourOptions, FingerprintOptions, Pricing};
use veer_engine::DiffOptions;
use veer_report::diff::junit::DirectorySuites;
use veer_report::diff::markdown::DirectoryComment;
use veer_report::diff::stream::DirectoryPrinter;
use veer_report::diff::terminal::DirectoryTable;
use veer_report::findings::diff_findings;
use veer_report::github::DirectoryCommands;
use veer_report::html::diff::DirectoryPage;
use veer_report::json::DirectoryJson;
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
        behaviour: BehaviourOptions {
            seed: args.seed,
            top_k: args.top_k,
            pair_by: match args.pair_by {
                PairByArg::Auto => PairBy::Auto,
                PairByArg::Index => PairBy::Index,
                PairByArg::Alignment => PairBy::Alignment,
            },
            pricing,
            max_align_cells: args.max_align_cells,
            fingerprint: fingerprint_options(args),
            lanes: args.format == DiffFormat::Html,
        },
        policy: match &args.policy {
            Some(path) => Some(Arc::new(super::policy::load(path)?)),
            None => None,
        },
    };
    let read = args.read.options();
    let colour = colour_enabled(args.out.output.is_some());
    let (text, summary, verdict) = match (args.baseline.is_dir(), args.candidate.is_dir()) {
        (true, true) => {
            let detected = super::trials::detect(args)?;
            let quarantine = super::quarantine::load(args.quarantine.as_deref())?;
            let (b_files, c_files) = match detected {
                veer_engine::trials::detect::Detected::Trials(layout) => {
                    return super::trials::run(args, layout, &quarantine);
                }
                veer_engine::trials::detect::Detected::Paths(b, c) => (b, c),
            };
            let plan = pair_directories(&args.baseline, &args.candidate, b_files, c_files)?;
            let step = step_summary_path(args.format);
            let json = matches!(
                args.format,
                DiffFormat::Json | DiffFormat::Sarif | DiffFormat::Gitlab
            );
            let kept = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
            let mut printer = directory_printer(args.format, colour);
            if args.history.is_some() {
                printer = Box::new(super::history::KeepJson::new(printer, kept.clone()));
            }
            let (verdict, markdown, errors) =
                emit_streamed(args.out.output.as_deref(), json, |out| {
                    let comment = step.is_some().then(DirectoryComment::default);
                    stream_directory_to(
                        &plan,
                        &read,
                        (&options, args.fail_on.level, &quarantine),
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
fn fingerprint_options(args: &DiffArgs) -> FingerprintOptions {
    let mut options = FingerprintOptions::default();
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
        DiffFormat::Gitlab => veer_report::gitlab::render(&diff_findings(report, verdict)),
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
        DiffFormat::Sarif => Box::new(veer_report::sarif::directory_log()),
        DiffFormat::Github => Box::new(DirectoryCommands),
        DiffFormat::Gitlab => Box::new(veer_report::gitlab::directory_report()),
    }
}

fn print_report_warnings(report: &DiffReport) {
    for w in &report.warnings {
        crate::output::diag::warn(w);
    }
}

/// Reads and validates a pricing file.
fn load_pricing(path: &Path) -> Result<Pricing, CliError> {
    veer_engine::diff::load_pricing(path)
}

fn load(path: &Path, read: &ReadOptions) -> Result<Trace, CliError> {
    Ok(veer_trace::load_trace(path, read)?)
}

/// Both sides must hold at least one response, of comparable formats
/// ([`veer_engine::diff::check_pair`]).
fn check_pair(b: &Trace, c: &Trace) -> Result<(), CliError> {
    veer_engine::diff::check_pair(b, c)
}

/// The binary's progress bars for the engine's directory stream: one bar per stage.
#[derive(Default)]
struct Bars(std::sync::RwLock<Option<Progress>>);

impl veer_engine::directory::Progress for Bars {
    fn begin(&self, total: u64, label: &'static str) {
        if let Ok(mut bar) = self.0.write() {
            *bar = Some(Progress::new(total, label));
        }
    }
    fn tick(&self) {
        if let Ok(bar) = self.0.read() {
            bar.iter().for_each(Progress::tick);
        }
    }
    fn finish(&self) {
        if let Ok(mut bar) = self.0.write() {
            bar.take().iter().for_each(Progress::finish);
        }
    }
}

/// Directory mode: the engine's stream over the pairs ([`stream_directory`]), each pair
/// printed in path order as soon as it and every earlier pair are done, then the summary with
/// the error rows of the pairs that could not be measured. Returns the verdict (the engine's,
/// at `fail_on`), with `comment` the Markdown report for the step summary, and the error rows.
fn stream_directory_to(
    plan: &DirectoryPlan,
    read: &ReadOptions,
    (options, fail_on, quarantine): (&DiffOptions, Level, &super::quarantine::Loaded),
    mut printer: Box<dyn DirectoryPrinter>,
    mut comment: Option<DirectoryComment>,
    out: &mut ReportStream<'_>,
) -> Result<(Verdict, Option<String>, Vec<PairError>), CliError> {
    out.write(&printer.begin())?;
    let (summary, verdict) = stream_directory(
        plan,
        read,
        (options, fail_on, &quarantine.active),
        &Bars::default(),
        |pairs: Vec<(DirectoryPair, Verdict)>| {
            let mut text = String::new();
            for (p, v) in &pairs {
                text.push_str(&printer.pair(p, v));
                if let Some(c) = &mut comment {
                    c.pair(p, v);
                }
            }
            text
        },
        |text| out.write(&text),
    )?;
    out.write(&printer.finish(&summary, &verdict))?;
    let markdown = comment.map(|c| Box::new(c).finish(&summary, &verdict));
    Ok((verdict, markdown, summary.errors))
}
