//! `veer policy suggest --from REPORT`: reads a saved diff or trials report, finds the runs it
//! marks as changed and the baseline runs beside them, and asks the policy measure for rules
//! that catch the change ([`veer_policy::from_regression`]). The report says which cases
//! changed; the runs themselves are read again from the paths it names (or the directories
//! given), because a report keeps measurements, not the calls a rule needs.

use crate::error::Error;
use crate::run::{read_saved, Saved};
use crate::trials::layout;
use std::borrow::Cow;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use veer_base::Level;
use veer_contract::suggestion::{SuggestReport, SUGGEST_SCHEMA_VERSION};
use veer_contract::trials::CaseVerdict;
use veer_policy::from_regression::{rules_from_regression, CaseRuns, RecordedRun};
use veer_trace::{ReadOptions, Trace};

/// What to write rules from.
#[derive(Debug, Clone)]
pub struct SuggestRequest {
    /// A report written by `veer diff --format json` (one pair, a directory or trials).
    pub report: PathBuf,
    /// Largest accepted report in bytes.
    pub max_report_bytes: u64,
    /// The baseline trace or directory (default: the one the report names; a directory
    /// report names none, so it is needed there).
    pub baseline: Option<PathBuf>,
    /// The candidate trace or directory (as `baseline`).
    pub candidate: Option<PathBuf>,
    /// Cases to write rules from instead of the ones the report marks as changed (pair names
    /// of a directory report, case keys of a trials report).
    pub cases: Vec<String>,
    /// How the runs are read.
    pub read: ReadOptions,
}

/// One case as read from disk: names and traces.
struct Loaded {
    case: String,
    baseline: Vec<(String, Trace)>,
    candidate: Vec<(String, Trace)>,
}

/// Reads the report and the runs, and proposes and checks rules.
pub fn suggest_from(req: &SuggestRequest) -> Result<SuggestReport, Error> {
    let saved = read_saved(&req.report, req.max_report_bytes)?;
    let mut warnings = Vec::new();
    let chosen: BTreeSet<&str> = req.cases.iter().map(String::as_str).collect();
    let (kind, loaded) = match saved {
        Saved::Pair(r) => {
            let b = req
                .baseline
                .clone()
                .unwrap_or_else(|| r.baseline.path.clone().into());
            let c = req
                .candidate
                .clone()
                .unwrap_or_else(|| r.candidate.path.clone().into());
            let changed = r.worst_severity > Level::None
                || r.first_divergence.is_some()
                || r.policy.as_ref().is_some_and(|p| !p.regressions.is_empty());
            let name = c.display().to_string();
            let candidate = if changed || chosen.contains(name.as_str()) {
                vec![(name.clone(), load(&c, &req.read)?)]
            } else {
                Vec::new()
            };
            let loaded = Loaded {
                case: name,
                baseline: vec![(b.display().to_string(), load(&b, &req.read)?)],
                candidate,
            };
            ("pair", vec![loaded])
        }
        Saved::Directory(r) => {
            let (bdir, cdir) = dirs(req, None)?;
            let mut out = Vec::new();
            for p in &r.pairs {
                let changed = p.report.worst_severity > Level::None
                    || p.report.first_divergence.is_some()
                    || p.report
                        .policy
                        .as_ref()
                        .is_some_and(|x| !x.regressions.is_empty());
                let pick = if chosen.is_empty() {
                    changed
                } else {
                    chosen.contains(p.baseline.as_str()) || chosen.contains(p.candidate.as_str())
                };
                out.push(Loaded {
                    case: p.baseline.clone(),
                    baseline: vec![(
                        p.baseline.clone(),
                        load(&bdir.join(&p.baseline), &req.read)?,
                    )],
                    candidate: if pick {
                        vec![(
                            p.candidate.clone(),
                            load(&cdir.join(&p.candidate), &req.read)?,
                        )]
                    } else {
                        Vec::new()
                    },
                });
            }
            ("directory", out)
        }
        Saved::Trials(r) => {
            let given = (PathBuf::from(&r.baseline), PathBuf::from(&r.candidate));
            let (bdir, cdir) = dirs(req, Some(given))?;
            let changed: BTreeSet<String> = r
                .trials
                .cases
                .iter()
                .filter(|c| matches!(c.verdict, CaseVerdict::Regressed | CaseVerdict::Changed))
                .map(|c| c.case.clone())
                .collect();
            let listing = layout::list_cases(
                &bdir,
                Some(&cdir),
                None,
                layout::peek_identity,
                crate::trials::listing::RUN_FILES,
                &mut |_| {},
            )?;
            let mut out = Vec::new();
            let mut found = BTreeSet::new();
            for case in listing.cases()? {
                let case = case?;
                let pick = if chosen.is_empty() {
                    changed.contains(&case.key)
                } else {
                    chosen.contains(case.key.as_str())
                };
                found.insert(case.key.clone());
                let read = |files: &[layout::TrialFile]| -> Result<Vec<(String, Trace)>, Error> {
                    files
                        .iter()
                        .map(|f| Ok((f.name.to_string(), load(&f.path(), &req.read)?)))
                        .collect()
                };
                out.push(Loaded {
                    case: case.key.clone(),
                    baseline: read(&case.baseline)?,
                    candidate: if pick {
                        read(&case.candidate)?
                    } else {
                        Vec::new()
                    },
                });
            }
            for c in changed.iter().filter(|c| !found.contains(*c)) {
                warnings.push(format!(
                    "case `{c}` of the report is not found in the directories (was the report made with --case-pattern?)"
                ));
            }
            ("trials", out)
        }
        Saved::Shadow(_) => {
            return Err(Error::input(format!(
                "{}: a Shadow report names no runs to write rules from",
                req.report.display()
            ))
            .hint("re-run the diff with `veer diff … --format json` and pass that report"))
        }
    };
    for c in &chosen {
        if !loaded
            .iter()
            .any(|l| l.case == *c || l.candidate.iter().any(|(n, _)| n == c))
        {
            return Err(
                Error::input(format!("--case {c}: no such case in the report")).hint(
                    "name a pair's relative path (directory report) or a case key (trials report)",
                ),
            );
        }
    }
    for l in &loaded {
        if !l.candidate.is_empty() && l.baseline.is_empty() {
            warnings.push(format!(
                "case `{}` has no baseline run: only rules that no other baseline breaks are checked",
                l.case
            ));
        }
    }
    let cases: Vec<CaseRuns<'_>> = loaded
        .iter()
        .map(|l| CaseRuns {
            case: l.case.clone(),
            baseline: l
                .baseline
                .iter()
                .map(|(name, trace)| RecordedRun { name, trace })
                .collect(),
            candidate: l
                .candidate
                .iter()
                .map(|(name, trace)| RecordedRun { name, trace })
                .collect(),
        })
        .collect();
    let regressed_cases: Vec<String> = loaded
        .iter()
        .filter(|l| !l.candidate.is_empty())
        .map(|l| l.case.clone())
        .collect();
    if regressed_cases.is_empty() {
        warnings.push(
            "the report marks no run as changed: there is nothing for a rule to catch (name cases with --case)"
                .into(),
        );
    }
    let rules = if regressed_cases.is_empty() {
        Vec::new()
    } else {
        rules_from_regression(&cases)
    };
    Ok(SuggestReport {
        schema_version: Cow::Borrowed(SUGGEST_SCHEMA_VERSION),
        from: req.report.display().to_string(),
        report_kind: kind.into(),
        regressed_cases,
        baseline_runs: loaded.iter().map(|l| l.baseline.len()).sum(),
        candidate_runs: loaded.iter().map(|l| l.candidate.len()).sum(),
        rules,
        warnings,
    })
}

fn load(path: &Path, read: &ReadOptions) -> Result<Trace, Error> {
    Ok(veer_trace::load_trace(path, read)?)
}

/// The two directories: given on the command line, else the report's own.
fn dirs(
    req: &SuggestRequest,
    saved: Option<(PathBuf, PathBuf)>,
) -> Result<(PathBuf, PathBuf), Error> {
    match (&req.baseline, &req.candidate, saved) {
        (Some(b), Some(c), _) => Ok((b.clone(), c.clone())),
        (b, c, Some((sb, sc))) => Ok((b.clone().unwrap_or(sb), c.clone().unwrap_or(sc))),
        _ => Err(Error::input(format!(
            "{}: a directory report names its runs relative to the two directories",
            req.report.display()
        ))
        .hint("pass them: `veer policy suggest --from REPORT --baseline BASELINE_DIR --candidate CANDIDATE_DIR`")),
    }
}
