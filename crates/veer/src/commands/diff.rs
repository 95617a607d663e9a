//! `veer diff`: the flags become one [`Request`], the engine runs it (`veer_engine::run`, which
//! picks the comparison from the inputs), and the outcome is printed in the chosen format. A
//! directory diff's pairs are printed while the engine diffs the next ones; everything else is
//! printed whole once it is decided. A bad input is exit 2 before any output can be seen; a
//! directory pair that cannot be read becomes an error row (docs/diff.md, "When a pair cannot
//! be read").

use crate::cli::DEFAULT_QUARANTINE;
use crate::cli::{DiffArgs, DiffFormat, FingerprintScaleKey, PairByArg, DEFAULT_BASELINE_ROOT};
use crate::error::{CliError, Exit};
use crate::output::stream::{emit_streamed, ReportStream};
use crate::output::tee::{Collected, Tee};
use crate::output::{append_step_summary, colour_enabled};
use crate::progress::Progress;
use std::path::Path;
use std::path::PathBuf;
use veer_base::Level;
use veer_contract::divergence::PairBy;
use veer_contract::report::Report;
use veer_contract::trials::CaseVerdict;
use veer_contract::verdict::Verdict;
use veer_engine::options::FingerprintOptions;
use veer_engine::run::{Baseline, Hooks, Piece, QuarantineFile, Settings, TrialsSettings};
use veer_engine::{Outcome, Request};
use veer_report::diff::markdown::DirectoryComment;
use veer_report::diff::output::Judged;
use veer_report::diff::stream::DirectoryPrinter;
use veer_report::printer::OutputFormat;
use veer_report::style::Style;

/// Runs `veer diff`.
pub fn run(args: &DiffArgs) -> Result<Exit, CliError> {
    let request = request(args)?;
    let format = args.format;
    let style = Style {
        colour: colour_enabled(args.out.file().is_some()),
    };
    let step = step_summary_path(format);
    // A directory's pairs stream once; the other documents of the run collect beside it.
    let plain = Style { colour: false };
    let mut tee = Tee::new(format.directory_printer(style));
    let kept = args
        .history
        .is_some()
        .then(|| tee.also(DiffFormat::Json.directory_printer(plain)));
    let extras: Vec<(DiffFormat, &Path, Collected)> = args
        .out
        .extras()
        .into_iter()
        .map(|(f, p)| (f, p, tee.also(f.directory_printer(plain))))
        .collect();
    let (outcome, markdown) = emit_streamed(args.out.file(), format.is_json(), |out| {
        let mut printer: Box<dyn DirectoryPrinter> = Box::new(tee);
        let mut comment = step.is_some().then(DirectoryComment::default);
        let bars = Bars::default();
        let outcome = {
            let mut render = |piece: Piece| match piece {
                Piece::DirectoryBegins => printer.begin(),
                Piece::Pairs(pairs) => {
                    let mut text = String::new();
                    for (p, v) in &pairs {
                        text.push_str(&printer.pair(p, v));
                        if let Some(c) = &mut comment {
                            c.pair(p, v);
                        }
                    }
                    text
                }
            };
            let mut write = |text: String| out.write(&text);
            veer_engine::run(
                &request,
                Hooks {
                    progress: &bars,
                    warn: &|m| crate::output::diag::warn(m),
                    render: &mut render,
                    write: &mut write,
                },
            )?
        };
        let markdown = print(&outcome, (format, style), printer, comment, out)?;
        Ok((outcome, markdown))
    })?;
    if let Some(db) = &args.history {
        let json = match &outcome.report {
            Report::Pair(report) => veer_report::json::to_json(report),
            Report::Trials(report) => {
                // History keeps the JSON report's summary whatever `--format` printed.
                let json: String = veer_report::json::trials_json_pieces(report).collect();
                if let Some(e) = veer_engine::trials::spill::case_read_error(&report.trials.cases) {
                    return Err(e);
                }
                json
            }
            _ => kept
                .as_ref()
                .and_then(|k| k.lock().ok().map(|k| k.clone()))
                .unwrap_or_default(),
        };
        super::history::record_report(json.as_bytes(), history_source(&outcome.report), db)?;
    }
    write_extras(&outcome, &extras, plain)?;
    if let Some((path, markdown)) = step.zip(markdown) {
        append_step_summary(&path, &markdown)?;
    }
    if let Some(failure) = outcome.failure {
        return Err(failure);
    }
    if let Some(note) = &outcome.note {
        crate::output::diag::error(note);
    }
    if let Report::Trials(report) = &outcome.report {
        for c in report.trials.cases.iter() {
            if let (CaseVerdict::Failed, Some(e)) = (c.verdict, &c.error) {
                crate::output::diag::warn(format!("case {}: {}", c.case, e.error));
            }
        }
        if let Some(e) = veer_engine::trials::spill::case_read_error(&report.trials.cases) {
            return Err(e);
        }
    }
    gate_lines(&outcome, args.fail_on.inconclusive);
    // The command ends here: freeing the report's many small allocations one by one takes
    // longer than the process exit that releases them all.
    std::mem::forget(outcome.report);
    Ok(Exit::Verdict(outcome.verdict))
}

/// Writes the other documents of the run (`-o FORMAT=PATH`): a directory's collected beside
/// the stream, a pair's or a trials report's rendered from the outcome. Each is written
/// atomically with secrets redacted, as `-o FILE` is.
fn write_extras(
    outcome: &Outcome,
    extras: &[(DiffFormat, &Path, Collected)],
    style: Style,
) -> Result<(), CliError> {
    for (format, path, collected) in extras {
        let text = match &outcome.report {
            Report::Directory(_) => collected.lock().map(|c| c.clone()).unwrap_or_default(),
            Report::Pair(report) => format.print(
                &Judged {
                    report: &**report,
                    verdict: &outcome.verdict,
                },
                style,
            ),
            Report::Trials(report) if *format == DiffFormat::Json => {
                veer_report::json::trials_json_pieces(report).collect()
            }
            Report::Trials(report) => format.print(&**report, style),
            Report::Gate(..) => continue,
        };
        crate::output::emit(&text, Some(path))?;
    }
    Ok(())
}

/// What history calls the report it keeps.
fn history_source(report: &Report) -> &'static str {
    match report {
        Report::Pair(_) => "the diff",
        Report::Trials(_) => "the trials diff",
        _ => "the directory diff",
    }
}

/// Prints the outcome (a directory's pairs were printed already; its end is printed here) and
/// returns the Markdown report for the GitHub step summary when one is wanted.
fn print(
    outcome: &Outcome,
    (format, style): (DiffFormat, Style),
    printer: Box<dyn DirectoryPrinter>,
    comment: Option<DirectoryComment>,
    out: &mut ReportStream<'_>,
) -> Result<Option<String>, CliError> {
    let verdict = &outcome.verdict;
    match &outcome.report {
        Report::Directory(summary) => {
            out.write(&printer.finish(summary, verdict))?;
            Ok(comment.map(|c| Box::new(c).finish(summary, verdict)))
        }
        Report::Pair(report) => {
            if format != DiffFormat::Terminal {
                for w in &report.warnings {
                    crate::output::diag::warn(w);
                }
            }
            let judged = Judged {
                report: &**report,
                verdict,
            };
            out.write_whole(&format.print(&judged, style))?;
            Ok(comment.map(|_| DiffFormat::Markdown.print(&judged, style)))
        }
        Report::Trials(report) => {
            let read_error = || veer_engine::trials::spill::case_read_error(&report.trials.cases);
            if format == DiffFormat::Json {
                // Case by case: the document's text is never held whole.
                veer_report::json::trials_json_pieces(report)
                    .try_for_each(|piece| out.write(&piece))?;
            } else {
                let text = format.print(&**report, style);
                if let Some(e) = read_error() {
                    return Err(e);
                }
                out.write_whole(&text)?;
            }
            // A spilled report that could not be read back is not written as if complete.
            if let Some(e) = read_error() {
                return Err(e);
            }
            Ok(comment.map(|_| DiffFormat::Markdown.print(&**report, style)))
        }
        Report::Gate(..) => Err(CliError::new(
            crate::error::ErrorKind::Internal,
            "a diff cannot answer with a gate report",
        )),
    }
}

/// The gate's lines on stderr, when a gate is set.
fn gate_lines(outcome: &Outcome, fail_on_inconclusive: bool) {
    let verdict: &Verdict = &outcome.verdict;
    if verdict.fail_on == Level::None {
        // The tool-schema gate has its own threshold: it speaks even with --fail-on never.
        if let Some(line) = veer_report::diff::tool_schema::gate_line(verdict) {
            crate::output::diag::say("", line);
        }
        return;
    }
    match &outcome.report {
        Report::Trials(report) => {
            for line in veer_report::diff::output::trials_gate_lines(report, fail_on_inconclusive) {
                crate::output::diag::say("", line);
            }
        }
        _ => {
            for line in veer_report::diff::tool_schema::gate_lines(verdict, &verdict.gate()) {
                crate::output::diag::say("", line);
            }
        }
    }
}

/// The request the flags make.
pub fn request(args: &DiffArgs) -> Result<Request, CliError> {
    // `--baseline NAME CANDIDATE_DIR`: the stored baseline, verified, is the baseline side.
    let (baseline, candidate) = match &args.stored_baseline {
        Some(spec) => {
            if !args.candidate.as_os_str().is_empty() {
                return Err(CliError::input(format!(
                    "--baseline {spec} names the baseline, but two paths were given ({} and {})",
                    args.baseline.display(),
                    args.candidate.display()
                ))
                .hint(format!(
                    "give only the candidate directory: veer diff --baseline {spec} runs/pr/"
                )));
            }
            let stored = Baseline::Stored {
                root: PathBuf::from(DEFAULT_BASELINE_ROOT),
                spec: spec.clone(),
            };
            (stored, args.baseline.clone())
        }
        None if args.candidate.as_os_str().is_empty() => {
            return Err(CliError::input(format!(
                "veer diff needs a baseline and a candidate; only {} was given",
                args.baseline.display()
            ))
            .hint("give two paths (veer diff BASELINE CANDIDATE), or name a stored baseline: veer diff --baseline NAME CANDIDATE_DIR (or `baseline = \"NAME\"` in veer.toml)"))
        }
        None => (
            Baseline::Path(args.baseline.clone()),
            args.candidate.clone(),
        ),
    };
    let t = &args.trials;
    Ok(Request {
        baseline,
        candidate,
        settings: Settings {
            seed: args.seed,
            top_k: args.top_k,
            pair_by: match args.pair_by {
                PairByArg::Auto => PairBy::Auto,
                PairByArg::Index => PairBy::Index,
                PairByArg::Alignment => PairBy::Alignment,
            },
            pricing: args.pricing.clone(),
            policy: args.policy.clone(),
            max_align_cells: args.max_align_cells,
            fingerprint: fingerprint_options(args),
            lanes: args.format.shows_lanes(),
            read: args.read.options(),
            fail_on: args.fail_on.level,
            fail_on_inconclusive: args.fail_on.inconclusive,
            fail_on_schema: args.fail_on_schema.class(),
            trials: TrialsSettings {
                detect: t.trials != crate::cli::TrialsMode::Off,
                case_pattern: t.case_pattern.clone(),
                alpha: t.alpha,
                margins: t.margin.clone(),
                outcome: t.outcome.clone(),
                outcome_threshold: t.outcome_threshold,
                allow_missing: t.allow_missing,
            },
            quarantine: QuarantineFile {
                explicit: args.quarantine.clone(),
                default: Some(PathBuf::from(DEFAULT_QUARANTINE)),
            },
        },
    })
}

/// With `--format github`: the `GITHUB_STEP_SUMMARY` file, when set (non-empty).
pub fn step_summary_path(format: DiffFormat) -> Option<PathBuf> {
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

/// The binary's progress bars for the engine's multi-trace work: one bar per stage.
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
