//! `veer diff BASE_DIR CAND_DIR` with repeated trials (issue 28): the flags, and the hand-over
//! to the engine (`veer_engine::trials`), which detects the cases, measures them case by case
//! and decides; this module only parses, prints and maps the gate to the exit code.

use crate::cli::{DiffArgs, DiffFormat};
use crate::error::CliError;
use crate::output::emit;
use crate::progress::Progress;
use clap::Args;
use std::path::Path;
use std::sync::Arc;
use veer_base::Level;
use veer_contract::trials::{CaseVerdict, TrialsReport};
use veer_engine::trials::detect::{DetectOptions, Detected};
use veer_engine::trials::layout::{CasePattern, Layout};
use veer_engine::trials::listing::RUN_FILES;
use veer_engine::trials::measure::{MeasureOptions, AXES};
use veer_engine::trials::outcome::{OutcomeFile, OutcomeRule, OutcomeSource};
use veer_engine::trials::{Margin, TrialsOptions, DEFAULT_BEHAVIOUR_MARGIN, DEFAULT_MARGINS};

/// `--trials`: whether a directory's repeated trials are detected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TrialsMode {
    /// Cases with several trials are detected (trailing numbers, `NAME.N.EXT` siblings,
    /// `CASE/trial-N` subdirectories, the trace's own case/trial metadata); without any case of
    /// two or more trials the report is the path-paired one.
    Auto,
    /// Files are paired by relative path, as before trials existed.
    Off,
}

/// The repeated-trials flags of `veer diff` (directory mode).
#[derive(Debug, Clone, Args)]
pub struct TrialsArgs {
    /// Repeated trials in directory mode: `auto` groups each case's trials and compares cases
    /// (docs/trials.md), `off` pairs files by relative path.
    #[arg(long, value_enum, value_name = "MODE", default_value_t = TrialsMode::Auto)]
    pub trials: TrialsMode,
    /// A regular expression matched against each file's relative path, with named groups
    /// `case` and, optionally, `trial`, e.g. '^(?P<case>[^/]+)/run-(?P<trial>[0-9]+)'. Implies
    /// the trials report; files it does not match are cases of their own.
    #[arg(long, value_name = "REGEX")]
    pub case_pattern: Option<String>,
    /// Significance level of the trials tests (adjusted p-values are compared with it), in
    /// (0, 1).
    #[arg(long, value_name = "P", default_value_t = 0.05, value_parser = parse_alpha)]
    pub alpha: f64,
    /// Practical margin of an axis, as AXIS=VALUE (repeatable): `N%` of the baseline mean or
    /// `N` in the axis's unit; a change counts only beyond both. Axes and defaults: latency
    /// 20% and 50 (ms), output_tokens 20% and 20, tool_calls 10% and 0.5, turns 10% and 0.5,
    /// behaviour 0.1 (excess event-level d_norm).
    #[arg(long, value_name = "AXIS=VALUE", value_parser = parse_margin)]
    pub margin: Vec<(String, MarginValue)>,
    /// The pass/fail outcome of each trial, for pass^k and the per-case pass rates: a field
    /// of the trace's metadata record (a dotted path, e.g. scores.accuracy), or a FILE.jsonl of
    /// lines {"side": "baseline"|"candidate", "case": "…", "trial": N, "outcome": …}. Default:
    /// the metadata `outcome` (else `score`, as Inspect AI logs carry), else policy-clean.
    #[arg(long, value_name = "FIELD|FILE.jsonl")]
    pub outcome: Option<String>,
    /// A numeric score passes when it is ≥ X (inclusive). Without it only 0 and 1 (and
    /// booleans, pass/fail, C/I) are outcomes; any other score is an error.
    #[arg(long, value_name = "X", value_parser = parse_threshold)]
    pub outcome_threshold: Option<f64>,
    /// Cases on one side only, and cases a trial of which could not be measured, do not trip
    /// the gate (they are still listed). Default: they trip it, so an eval job that crashed
    /// halfway does not pass.
    #[arg(long, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true", default_value_t = false, action = clap::ArgAction::Set)]
    pub allow_missing: bool,
}

/// `--outcome-threshold`: a finite number.
fn parse_threshold(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        _ => Err(format!("`{s}` is not a finite number, e.g. 0.5")),
    }
}

/// The outcome rule `--outcome` and `--outcome-threshold` select: a value ending in `.jsonl`
/// is a file (read and checked here, exit 2 on a bad line), anything else a metadata field.
fn outcome_rule(args: &TrialsArgs) -> Result<OutcomeRule, CliError> {
    let threshold = args.outcome_threshold;
    let source = match args.outcome.as_deref().map(str::trim) {
        None => OutcomeSource::Metadata,
        Some("") => {
            return Err(CliError::input("--outcome is empty")
                .hint("name a metadata field (e.g. --outcome scores.accuracy) or a FILE.jsonl"))
        }
        Some(f) if f.to_ascii_lowercase().ends_with(".jsonl") => {
            OutcomeSource::File(Arc::new(OutcomeFile::load(Path::new(f), threshold)?))
        }
        Some(field) => OutcomeSource::Field(field.to_string()),
    };
    Ok(OutcomeRule { source, threshold })
}

/// Warns about the outcome file's lines that match no trial (at most five named).
fn warn_unmatched(lines: &[String]) {
    for l in lines.iter().take(5) {
        crate::output::diag::warn(format!("{l}; ignored"));
    }
    if lines.len() > 5 {
        crate::output::diag::warn(format!(
            "{} more lines of the outcome file match no trace",
            lines.len() - 5
        ));
    }
}

/// One `--margin` value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MarginValue {
    /// A share of the baseline mean (0.2 for `20%`).
    Relative(f64),
    /// In the axis's unit.
    Absolute(f64),
}

/// `--alpha`: a number in (0, 1).
fn parse_alpha(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(a) if a > 0.0 && a < 1.0 => Ok(a),
        _ => Err(format!("`{s}` is not a level in (0, 1), e.g. 0.05")),
    }
}

/// `--margin AXIS=VALUE`.
pub fn parse_margin(s: &str) -> Result<(String, MarginValue), String> {
    let names: Vec<&str> = AXES.iter().map(|a| a.name).chain(["behaviour"]).collect();
    let (axis, value) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not AXIS=VALUE (axes: {})", names.join(", ")))?;
    let axis = axis.trim();
    if !names.contains(&axis) {
        return Err(format!(
            "unknown axis `{axis}` (axes: {})",
            names.join(", ")
        ));
    }
    let value = value.trim();
    let number = |t: &str| match t.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!(
            "`{value}` is not a non-negative number, e.g. 20% or 50"
        )),
    };
    let parsed = match value.strip_suffix('%') {
        Some(p) => MarginValue::Relative(number(p)? / 100.0),
        None => MarginValue::Absolute(number(
            value
                .strip_suffix("ms")
                .or_else(|| value.strip_suffix("tokens"))
                .unwrap_or(value),
        )?),
    };
    if axis == "behaviour" && matches!(parsed, MarginValue::Relative(_)) {
        return Err("the behaviour margin is an excess d_norm, e.g. behaviour=0.1".to_string());
    }
    Ok((axis.to_string(), parsed))
}

/// `veer diff --fail-on`: a level, or `inconclusive` (trips on any regression and on
/// inconclusive cases of a trials report; without trials it acts as `minor`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiffFailOn {
    /// The threshold.
    pub level: Level,
    /// Whether inconclusive cases trip the gate.
    pub inconclusive: bool,
}

/// `--fail-on` for `veer diff`: never (none), minor, moderate, severe or inconclusive.
pub fn parse_diff_fail_on(s: &str) -> Result<DiffFailOn, String> {
    if s.trim().eq_ignore_ascii_case("inconclusive") {
        return Ok(DiffFailOn {
            level: Level::Minor,
            inconclusive: true,
        });
    }
    Level::parse_fail_on(s)
        .map(|level| DiffFailOn {
            level,
            inconclusive: false,
        })
        .ok_or_else(|| {
            format!("`{s}` is not a level; use never, minor, moderate or severe (or inconclusive, with repeated trials)")
        })
}

/// The trials options the flags select (an outcome file is read here), with the quarantine's
/// honoured cases and its expired entries as the report's warnings.
fn options(
    args: &DiffArgs,
    quarantine: &super::quarantine::Loaded,
) -> Result<TrialsOptions, CliError> {
    let mut margins: [Margin; 4] = DEFAULT_MARGINS;
    let mut behaviour = DEFAULT_BEHAVIOUR_MARGIN;
    for (axis, value) in &args.trials.margin {
        if axis == "behaviour" {
            if let MarginValue::Absolute(v) = value {
                behaviour = *v;
            }
            continue;
        }
        if let Some(i) = AXES.iter().position(|a| a.name == axis) {
            match value {
                MarginValue::Relative(r) => margins[i].relative = *r,
                MarginValue::Absolute(a) => margins[i].absolute = *a,
            }
        }
    }
    Ok(TrialsOptions {
        alpha: args.trials.alpha,
        seed: args.seed,
        margins,
        behaviour_margin: behaviour,
        outcome: outcome_rule(&args.trials)?,
        quarantine: quarantine.active.cases.clone(),
        allow_missing: args.trials.allow_missing,
        warnings: quarantine.active.warnings(
            &args
                .quarantine
                .as_deref()
                .unwrap_or(Path::new(crate::cli::DEFAULT_QUARANTINE))
                .display()
                .to_string(),
        ),
        ..TrialsOptions::default()
    })
}

/// Whether the trials report applies to two directories (`veer_engine::trials::detect`): the
/// cases, or each side's files for the path-paired report. Skipped entries are warned about as
/// each side is walked; a bad `--case-pattern` is exit 2.
pub fn detect(args: &DiffArgs) -> Result<Detected, CliError> {
    let pattern = match &args.trials.case_pattern {
        Some(p) => Some(CasePattern::new(p).map_err(|e| CliError::input(e.message).hint(e.hint))?),
        None => None,
    };
    let options = DetectOptions {
        trials: args.trials.trials != TrialsMode::Off,
        pattern: pattern.as_ref(),
        run_files: RUN_FILES,
    };
    veer_engine::trials::detect::detect(&args.baseline, &args.candidate, options, &mut |skipped| {
        crate::output::print_skipped(skipped)
    })
}

/// Runs the trials analysis on `layout` (consumed case by case) and prints it; the exit code.
/// Quarantined cases are measured and shown but never trip the gate (expired entries were
/// warned about when the file was loaded and are in the report's warnings).
pub fn run(
    args: &DiffArgs,
    layout: Layout,
    quarantine: &super::quarantine::Loaded,
) -> Result<u8, CliError> {
    let policy = match &args.policy {
        Some(path) => Some(super::policy::load(path)?),
        None => None,
    };
    let read = args.read.options();
    let options = options(args, quarantine)?;
    warn_unmatched(&veer_engine::trials::check_outcome_file(
        &layout,
        &options.outcome,
    )?);
    let measure = MeasureOptions {
        read: &read,
        policy: policy.as_ref(),
        max_align_cells: args.max_align_cells,
        outcome: &options.outcome,
        lanes: args.format == DiffFormat::Html,
    };
    let progress = Progress::new(layout.len() as u64, "diffing cases");
    let report = veer_engine::trials::analyse(
        &args.baseline.display().to_string(),
        &args.candidate.display().to_string(),
        layout,
        measure,
        &options,
        args.fail_on.level,
        args.fail_on.inconclusive,
        &|| progress.tick(),
    );
    progress.finish();
    let report = report?;
    print(args, &report)
}

/// `veer diff base.eval cand.eval` (issue 32): two Inspect AI logs of several sample-epochs
/// compared case by case (sample id), trials by epoch. `None` when either input is not an
/// Inspect log, both hold one sample-epoch each (the two-trace diff), or `--trials off`.
pub fn run_logs(args: &DiffArgs) -> Result<Option<u8>, CliError> {
    if args.trials.trials == TrialsMode::Off {
        return Ok(None);
    }
    let read = args.read.options();
    let (Some(b), Some(c)) = (
        super::inspect_log::open(&args.baseline, &read)?,
        super::inspect_log::open(&args.candidate, &read)?,
    ) else {
        return Ok(None);
    };
    if b.len() <= 1 && c.len() <= 1 {
        return Ok(None);
    }
    let group = |log: super::inspect_log::FileLog| -> Result<_, CliError> {
        let mut cases: std::collections::BTreeMap<String, Vec<veer_trace::Trace>> =
            std::collections::BTreeMap::new();
        for sample in log {
            let sample = sample?;
            cases.entry(sample.case).or_default().push(sample.trace);
        }
        Ok(cases)
    };
    let (b, c) = (group(b)?, group(c)?);
    let policy = match &args.policy {
        Some(path) => Some(super::policy::load(path)?),
        None => None,
    };
    let quarantine = super::quarantine::load(args.quarantine.as_deref())?;
    let options = options(args, &quarantine)?;
    warn_unmatched(&veer_engine::trials::check_outcome_file_in_memory(
        &b,
        &c,
        &options.outcome,
    )?);
    let report = veer_engine::trials::analyse_in_memory(
        &args.baseline.display().to_string(),
        &args.candidate.display().to_string(),
        b,
        c,
        policy.as_ref(),
        args.max_align_cells,
        &options,
        args.fail_on.level,
        args.fail_on.inconclusive,
    )?;
    print(args, &report).map(Some)
}

/// Prints a trials report in the chosen format, the gate lines on stderr; the exit code.
fn print(args: &DiffArgs, report: &TrialsReport) -> Result<u8, CliError> {
    if args.format == DiffFormat::Json {
        // Case by case: the document's text is never held whole.
        crate::output::stream::emit_streamed(args.out.output.as_deref(), true, |out| {
            veer_report::json::trials_json_pieces(report)
                .try_for_each(|piece| out.write(&piece))?;
            // A spilled report that could not be read back is not written as if complete.
            veer_engine::trials::spill::case_read_error(&report.trials.cases).map_or(Ok(()), Err)
        })?;
    } else {
        let text = render(report, args.format);
        if let Some(e) = veer_engine::trials::spill::case_read_error(&report.trials.cases) {
            return Err(e);
        }
        emit(&text, args.out.output.as_deref())?;
    }
    if let Some(db) = &args.history {
        // History keeps the JSON report's summary whatever `--format` printed.
        let json: String = veer_report::json::trials_json_pieces(report).collect();
        if let Some(e) = veer_engine::trials::spill::case_read_error(&report.trials.cases) {
            return Err(e);
        }
        super::history::record_report(json.as_bytes(), "the trials diff", db)?;
    }
    if args.format == DiffFormat::Github {
        if let Some((path, markdown)) =
            super::diff::step_summary(args.format, || veer_report::diff::trials::markdown(report))
        {
            crate::output::append_step_summary(&path, &markdown)?;
        }
    }
    let mut quarantined = Vec::new();
    for c in report.trials.cases.iter() {
        if c.verdict == CaseVerdict::Failed {
            if let Some(e) = &c.error {
                crate::output::diag::warn(format!("case {}: {}", c.case, e.error));
            }
        } else if c.quarantined
            && matches!(
                c.verdict,
                CaseVerdict::Regressed | CaseVerdict::Changed | CaseVerdict::Inconclusive
            )
        {
            quarantined.push(format!("{} {}", c.case, c.verdict));
        }
    }
    if let Some(e) = veer_engine::trials::spill::case_read_error(&report.trials.cases) {
        return Err(e);
    }
    let verdict = &report.verdict;
    if verdict.fail_on != Level::None {
        for t in &verdict.trips {
            crate::output::diag::say("", format!("tripped: {}", t.reason));
        }
        if !quarantined.is_empty() {
            let more = quarantined.len().saturating_sub(5);
            quarantined.truncate(5);
            if more > 0 {
                quarantined.push(format!("and {more} more"));
            }
            crate::output::diag::say(
                "",
                format!(
                    "quarantined (measured, not gating): {}",
                    quarantined.join(", ")
                ),
            );
        }
        crate::output::diag::say(
            "",
            veer_report::policy::trials_gate_line(verdict, args.fail_on.inconclusive),
        );
    }
    Ok(verdict.exit_code())
}

/// The report in `format`.
fn render(report: &TrialsReport, format: DiffFormat) -> String {
    use veer_report::diff::trials;
    match format {
        DiffFormat::Terminal => trials::terminal(report),
        DiffFormat::Json => veer_report::json::trials_to_json(report),
        DiffFormat::Markdown => trials::markdown(report),
        DiffFormat::Junit => trials::junit(report),
        DiffFormat::Github => trials::github(report),
        DiffFormat::Html => trials::html(report),
        DiffFormat::Sarif => trials::sarif(report),
        DiffFormat::Gitlab => veer_report::gitlab::trials(report),
    }
}
