//! Whether `veer diff BASE_DIR CAND_DIR` is a repeated-trials diff or the path-paired one:
//! `--trials off` pairs by path; otherwise the files are grouped into cases
//! and the trials report applies when some case has two or more trials (or a `--case-pattern`
//! was given) and some case is on both sides.

use super::layout::{self, CasePattern, Layout};
use crate::error::Error;
use std::path::{Path, PathBuf};
use veer_trace::load::SkippedEntry;

/// What [`detect`] found in two directories.
#[derive(Debug)]
pub enum Detected {
    /// The trials report applies: the cases and their trials.
    Trials(Layout),
    /// The path-paired report applies: each side's files as (relative name, path).
    Paths(Vec<(String, PathBuf)>, Vec<(String, PathBuf)>),
}

/// How [`detect`] decides.
#[derive(Debug, Clone, Copy)]
pub struct DetectOptions<'a> {
    /// `false` (`--trials off`): always the path-paired report.
    pub trials: bool,
    /// `--case-pattern`: implies the trials report when some case is on both sides.
    pub pattern: Option<&'a CasePattern>,
    /// Keyed files held in memory before sorted runs go to disk ([`super::listing::RUN_FILES`]).
    pub run_files: usize,
}

/// Whether the trials report applies to two directories' files: not with `trials: false`, nor
/// when no case has two or more trials and no pattern was given, nor when no case is on both
/// sides (the path-paired report then says which files have no counterpart); then the files are
/// given back for the path-paired report, in an order that report does not depend on.
/// `on_skipped` is told each side's entries that are not regular files. Errors: a directory
/// that cannot be read or holds no trace, a temporary file that cannot be written or read.
pub fn detect(
    baseline: &Path,
    candidate: &Path,
    options: DetectOptions<'_>,
    on_skipped: &mut dyn FnMut(&[SkippedEntry]),
) -> Result<Detected, Error> {
    if !options.trials {
        let mut pairs = |dir: &Path| -> Result<Vec<(String, PathBuf)>, Error> {
            let listing = veer_trace::load::list_trace_files(dir)?;
            on_skipped(&listing.skipped);
            Ok(listing
                .files
                .into_iter()
                .map(|p| (veer_trace::load::relative_name(dir, &p), p))
                .collect())
        };
        let b = pairs(baseline)?;
        return Ok(Detected::Paths(b, pairs(candidate)?));
    }
    let layout = layout::list_cases(
        baseline,
        Some(candidate),
        options.pattern,
        layout::peek_identity,
        options.run_files,
        on_skipped,
    )?;
    if layout.has_pairs() && (options.pattern.is_some() || layout.has_trials()) {
        return Ok(Detected::Trials(layout));
    }
    let (mut b, mut c) = (Vec::new(), Vec::new());
    for case in layout.into_cases()? {
        let case = case?;
        let pair = |f: layout::TrialFile| {
            let path = f.path();
            (f.name.into_string(), path)
        };
        b.extend(case.baseline.into_iter().map(pair));
        c.extend(case.candidate.into_iter().map(pair));
    }
    Ok(Detected::Paths(b, c))
}
