//! `veer diff BASELINE CANDIDATE`: the behaviour diff of two traces, or of two directories of
//! traces paired by relative path. Inputs are checked before any measure runs (exit 2 on a bad
//! file, a bad pricing table, mismatched formats or an empty side).

use crate::cli::{DiffArgs, DiffFormat, FingerprintScaleKey, PairByArg};
use crate::error::{CliError, EXIT_GATE, EXIT_OK};
use crate::output::{append_step_summary, colour_enabled, emit};
use crate::progress::Progress;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use veer_diff::report::{DirectoryPair, DIFF_SCHEMA_VERSION};
use veer_diff::{
    fingerprint_block, DiffOptions, DiffReport, DirectoryReport, FingerprintBlock, PairBy, Pricing,
    SideFingerprints, Unmatched,
};
use veer_policy::{Gate, Level};
use veer_report::findings::{diff_findings, directory_findings};
use veer_report::style::Style;
use veer_trace::{ReadOptions, Trace};

/// Runs `veer diff`.
pub fn run(args: &DiffArgs) -> Result<u8, CliError> {
    let pricing = match &args.pricing {
        Some(path) => load_pricing(path)?,
        None => Pricing::none(),
    };
    let options = DiffOptions {
        seed: args.seed,
        top_k: args.top_k,
        pair_by: match args.pair_by {
            PairByArg::Index => PairBy::Index,
            PairByArg::Alignment => PairBy::Alignment,
        },
        pricing,
        policy: match &args.policy {
            Some(path) => Some(Arc::new(super::policy::load(path)?)),
            None => None,
        },
        fail_on: args.fail_on,
        max_align_cells: args.max_align_cells,
        fingerprint: fingerprint_options(args),
        lanes: args.format == DiffFormat::Html,
    };
    let read = args.read.options();
    let colour = colour_enabled(args.out.output.is_some());
    let (text, gate, summary) = match (args.baseline.is_dir(), args.candidate.is_dir()) {
        (true, true) => {
            let report = directory(&args.baseline, &args.candidate, &read, &options)?;
            (
                render_directory(&report, args.format, colour),
                report.gate,
                step_summary(args.format, || {
                    veer_report::diff::markdown::render_directory(&report)
                }),
            )
        }
        (false, false) => {
            // Both sides are read at once; a problem with the baseline is reported first.
            let (b, c) = rayon::join(
                || load(&args.baseline, &read),
                || load(&args.candidate, &read),
            );
            let (b, c) = (b?, c?);
            check_pair(&b, &c)?;
            let report = veer_diff::diff(
                &b,
                &c,
                &args.baseline.display().to_string(),
                &args.candidate.display().to_string(),
                &options,
            );
            if args.format != DiffFormat::Terminal {
                print_report_warnings(&report);
            }
            let out = (
                render(&report, args.format, colour),
                report.gate,
                step_summary(args.format, || veer_report::diff::markdown::render(&report)),
            );
            // The command ends here: freeing the traces' millions of small allocations one by
            // one takes longer than the process exit that releases them all.
            std::mem::forget((b, c, report));
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
    if let Some((path, markdown)) = summary {
        append_step_summary(&path, &markdown)?;
    }
    if gate.fail_on != Level::None {
        let _ = writeln!(
            anstream::stderr(),
            "{}",
            veer_report::policy::gate_line(&gate)
        );
    }
    Ok(if gate.tripped { EXIT_GATE } else { EXIT_OK })
}

/// With `--format github` and `GITHUB_STEP_SUMMARY` set (non-empty): that file and the
/// Markdown report to append to it.
pub fn step_summary(
    format: DiffFormat,
    markdown: impl FnOnce() -> String,
) -> Option<(PathBuf, String)> {
    if format != DiffFormat::Github {
        return None;
    }
    let path = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty())?;
    Some((PathBuf::from(path), markdown()))
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

/// Renders one report in `format`.
pub fn render(report: &DiffReport, format: DiffFormat, colour: bool) -> String {
    match format {
        DiffFormat::Terminal => veer_report::diff::terminal::render(report, Style { colour }),
        DiffFormat::Json => veer_report::json::to_json(report),
        DiffFormat::Markdown => veer_report::diff::markdown::render(report),
        DiffFormat::Junit => veer_report::diff::junit::render(report),
        DiffFormat::Html => veer_report::html::diff::render(report),
        DiffFormat::Sarif => veer_report::sarif::render(&diff_findings(report)),
        DiffFormat::Github => veer_report::github::render(&diff_findings(report), &report.gate),
    }
}

fn render_directory(report: &DirectoryReport, format: DiffFormat, colour: bool) -> String {
    match format {
        DiffFormat::Terminal => {
            veer_report::diff::terminal::render_directory(report, Style { colour })
        }
        DiffFormat::Json => veer_report::json::to_json(report),
        DiffFormat::Markdown => veer_report::diff::markdown::render_directory(report),
        DiffFormat::Junit => veer_report::diff::junit::render_directory(report),
        DiffFormat::Html => veer_report::html::diff::render_directory(report),
        DiffFormat::Sarif => veer_report::sarif::render(&directory_findings(report)),
        DiffFormat::Github => {
            veer_report::github::render(&directory_findings(report), &report.gate)
        }
    }
}

fn print_report_warnings(report: &DiffReport) {
    let mut err = anstream::stderr();
    for w in &report.warnings {
        let _ = writeln!(err, "warning: {w}");
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

/// Directory mode: pair files by relative path, load in parallel, diff pairs in parallel.
fn directory(
    baseline: &Path,
    candidate: &Path,
    read: &ReadOptions,
    options: &DiffOptions,
) -> Result<DirectoryReport, CliError> {
    let names = |dir: &Path| -> Result<BTreeMap<String, PathBuf>, CliError> {
        Ok(veer_trace::load::trace_files(dir)?
            .into_iter()
            .map(|p| (veer_trace::load::relative_name(dir, &p), p))
            .collect())
    };
    let b_files = names(baseline)?;
    let c_files = names(candidate)?;
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

    // Every file is read and checked before any measure runs (exit 2 on the first pass);
    // traces are not kept, so a large directory never sits in memory at once.
    let checking = Progress::new(matched.len() as u64, "checking trace pairs");
    let failures: Vec<CliError> = matched
        .par_iter()
        .filter_map(|(_, bp, cp)| {
            let r = load_pair(bp, cp, read).err();
            checking.tick();
            r
        })
        .collect();
    checking.finish();
    if let Some(error) = combine(failures) {
        return Err(error);
    }

    let progress = Progress::new(matched.len() as u64, "diffing trace pairs");
    // Each pair also hands back its response fingerprints, pooled below into one test.
    let results: Vec<Result<(DirectoryPair, SideFingerprints), CliError>> = matched
        .par_iter()
        .map(|(name, bp, cp)| {
            let (b, c) = load_pair(bp, cp, read)?;
            let (report, rows) = veer_diff::diff_keeping_fingerprints(
                &b,
                &c,
                &bp.display().to_string(),
                &cp.display().to_string(),
                options,
            );
            progress.tick();
            Ok((
                DirectoryPair {
                    baseline: name.clone(),
                    candidate: name.clone(),
                    report,
                },
                rows,
            ))
        })
        .collect();
    progress.finish();
    let mut pairs = Vec::with_capacity(results.len());
    let mut failures = Vec::new();
    let (mut pooled_b, mut pooled_c) = (Vec::new(), Vec::new());
    for r in results {
        match r {
            Ok((p, (b, c))) => {
                pairs.push(p);
                pooled_b.extend(b);
                pooled_c.extend(c);
            }
            Err(e) => failures.push(e),
        }
    }
    if let Some(error) = combine(failures) {
        return Err(error);
    }
    let aggregate = veer_diff::aggregate::aggregate(&pairs, &unmatched);
    let fingerprint = fingerprint_block(&pooled_b, &pooled_c, &options.fingerprint);
    let pooled_level = fingerprint
        .as_ref()
        .map_or(Level::None, FingerprintBlock::gate_level);
    let worst = pairs
        .iter()
        .map(|p| p.report.gate.worst)
        .fold(pooled_level, Level::max);
    Ok(DirectoryReport {
        schema_version: DIFF_SCHEMA_VERSION,
        pairs,
        unmatched,
        aggregate,
        fingerprint,
        gate: Gate::decide(options.fail_on, worst),
    })
}

/// Loads and checks one baseline/candidate pair.
fn load_pair(bp: &Path, cp: &Path, read: &ReadOptions) -> Result<(Trace, Trace), CliError> {
    let b = load(bp, read)?;
    let c = load(cp, read)?;
    check_pair(&b, &c)?;
    Ok((b, c))
}

/// One error naming the first failure and listing the others; `None` when there is none.
fn combine(mut failures: Vec<CliError>) -> Option<CliError> {
    if failures.is_empty() {
        return None;
    }
    let count = failures.len();
    let mut first = failures.remove(0);
    first
        .more
        .extend(failures.iter().map(|e| e.message.clone()));
    if count > 1 {
        first.message = format!(
            "{count} trace pairs cannot be compared; first: {}",
            first.message
        );
    }
    Some(first)
}
