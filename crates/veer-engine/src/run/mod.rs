//! One request in, one outcome out: the comparison every front end runs. [`run`] looks at the
//! inputs and picks the kind of comparison — two traces, two directories paired by relative
//! path, cases with repeated trials (directories or Inspect AI logs), a stored baseline against
//! a directory — loads the settings' files (policy, pricing, quarantine, outcomes), measures,
//! and decides the one [`Verdict`]. [`regate`] decides a saved report again.
//!
//! The engine never prints: warnings, progress and a directory's pairs (handed out window by
//! window while the next window is diffed, so a directory's report is never held whole) go
//! through the caller's [`Hooks`].

pub mod regate;
pub mod request;

pub use regate::{read as read_saved, regate, RegateSettings, Saved};
pub use request::{
    margin_axes, parse_margin, Baseline, MarginValue, QuarantineFile, Request, Settings,
    TrialsSettings,
};

use crate::directory::{pair_directories, pair_errors_error, stream_directory, Progress};
use crate::options::{BehaviourOptions, Pricing};
use crate::trials::detect::{DetectOptions, Detected};
use crate::trials::layout::CasePattern;
use crate::trials::listing::RUN_FILES;
use crate::trials::measure::MeasureOptions;
use crate::{DiffOptions, Error};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
#[cfg(test)]
use veer_base::Level;
use veer_contract::diff::DirectoryPair;
use veer_contract::report::Report;
use veer_contract::verdict::Verdict;
use veer_trace::Trace;

/// What a directory diff hands out as it goes.
pub enum Piece {
    /// The directory report begins (its pairs follow).
    DirectoryBegins,
    /// The next pairs in relative-path order, each with its own verdict.
    Pairs(Vec<(DirectoryPair, Verdict)>),
}

/// Where the engine reports while it works.
pub struct Hooks<'a> {
    /// Progress of multi-trace work (one stage at a time).
    pub progress: &'a dyn Progress,
    /// A warning for the user (a skipped file, an expired quarantine entry, a stored
    /// baseline's other policy, an outcome line that matches no trial).
    pub warn: &'a (dyn Fn(&str) + Sync),
    /// Renders a directory diff's pieces, in order, as text; called beside the diffing of the
    /// next pairs.
    pub render: &'a mut (dyn FnMut(Piece) -> String + Send),
    /// Writes what [`Hooks::render`] gave, in order; an error stops the run.
    pub write: &'a mut dyn FnMut(String) -> Result<(), Error>,
}

/// The answer to one request.
#[derive(Debug)]
pub struct Outcome {
    /// The document.
    pub report: Report,
    /// The one verdict (the gate).
    pub verdict: Verdict,
    /// A problem the report shows (error rows) that tripped the gate: the run still ends
    /// with the gate's exit, and the problem is shown.
    pub note: Option<Error>,
    /// A problem the report shows that no gate counted: once the report is written, the run
    /// ends with this error.
    pub failure: Option<Error>,
}

impl Outcome {
    pub(crate) fn of(report: Report, verdict: Verdict) -> Outcome {
        Outcome {
            report,
            verdict,
            note: None,
            failure: None,
        }
    }
}

/// Runs one comparison.
pub fn run(request: &Request, hooks: Hooks<'_>) -> Result<Outcome, Error> {
    let s = &request.settings;
    let baseline = match &request.baseline {
        request::Baseline::Path(p) => p.clone(),
        request::Baseline::Stored { root, spec } => stored_baseline(
            root,
            spec,
            &request.candidate,
            s.policy.as_deref(),
            hooks.warn,
        )?,
    };
    let options = diff_options(s, hooks.warn)?;
    let candidate = &request.candidate;
    let warn = hooks.warn;
    let outcome = match (baseline.is_dir(), candidate.is_dir()) {
        (true, true) => directories(&baseline, candidate, s, &options, hooks),
        (false, false) => {
            if s.trials.detect {
                if let Some(outcome) = inspect_logs(&baseline, candidate, s, &options, hooks.warn)?
                {
                    return Ok(warn_dead_rules(outcome, &options, warn));
                }
            }
            pair(&baseline, candidate, s, &options)
        }
        (b_dir, _) => {
            let (dir, file) = if b_dir {
                (&baseline, candidate)
            } else {
                (candidate, &baseline)
            };
            Err(Error::input(format!(
                "mismatched inputs: {} is a directory but {} is not",
                dir.display(),
                file.display()
            ))
            .hint("pass two trace files, or two directories of traces"))
        }
    }?;
    Ok(warn_dead_rules(outcome, &options, warn))
}

/// Warns about the policy's rules that could not fire on any trace the run read.
fn warn_dead_rules(
    outcome: Outcome,
    options: &DiffOptions,
    warn: &(dyn Fn(&str) + Sync),
) -> Outcome {
    if let (Some(policy), Some(watch)) = (&options.policy, &options.coverage) {
        for w in crate::policy::dead_rule_warnings(watch, policy) {
            warn(&w);
        }
    }
    outcome
}

/// The options of a pair diff: the settings with the pricing table and the policy loaded.
fn diff_options(s: &Settings, warn: &(dyn Fn(&str) + Sync)) -> Result<DiffOptions, Error> {
    let pricing = match &s.pricing {
        Some(path) => crate::diff::load_pricing(path)?,
        None => Pricing::none(),
    };
    Ok(DiffOptions {
        behaviour: BehaviourOptions {
            seed: s.seed,
            top_k: s.top_k,
            pair_by: s.pair_by,
            pricing,
            max_align_cells: s.max_align_cells,
            fingerprint: s.fingerprint,
            lanes: s.lanes,
        },
        policy: match &s.policy {
            Some(path) => Some(Arc::new(crate::policy::load_warned(path, warn)?)),
            None => None,
        },
        coverage: s.policy.as_ref().map(|_| Arc::default()),
        fail_on_schema: s.fail_on_schema,
    })
}

/// The verified traces of a stored baseline; warns when the diff's policy is not the one the
/// baseline was stored with.
fn stored_baseline(
    root: &Path,
    spec: &str,
    candidate: &Path,
    policy: Option<&Path>,
    warn: &(dyn Fn(&str) + Sync),
) -> Result<PathBuf, Error> {
    let err = |e: crate::baseline::BaselineError| Error::input(e.message).hint(e.hint);
    let (dir, version) = crate::baseline::resolve(root, spec).map_err(err)?;
    let verified = crate::baseline::verify(&dir, version).map_err(err)?;
    let m = &verified.opened.manifest;
    if let Some(stored) = &m.policy {
        match policy {
            None => warn(&format!(
                "baseline {} was stored with policy {} (sha256 {}); this diff has no --policy",
                m.name, stored.path, stored.sha256
            )),
            Some(path) => {
                let now = veer_base::capped::read_capped(path, crate::policy::MAX_POLICY_BYTES)
                    .map(|b| crate::baseline::sha256_hex(&b))
                    .unwrap_or_default();
                if now != stored.sha256 {
                    warn(&format!(
                        "{}: not the policy baseline {} was stored with ({}, sha256 {})",
                        path.display(),
                        m.name,
                        stored.path,
                        stored.sha256
                    ));
                }
            }
        }
    }
    if !candidate.is_dir() {
        return Err(Error::input(format!(
            "{}: a stored baseline is a directory of traces, so the candidate must be one too",
            candidate.display()
        ))
        .hint("pass the directory of the candidate's runs, laid out like the baseline's"));
    }
    Ok(verified.traces)
}

/// Two directories: the cases with repeated trials, else the pairs by relative path.
fn directories(
    baseline: &Path,
    candidate: &Path,
    s: &Settings,
    options: &DiffOptions,
    hooks: Hooks<'_>,
) -> Result<Outcome, Error> {
    let pattern = match &s.trials.case_pattern {
        Some(p) => Some(CasePattern::new(p).map_err(|e| Error::input(e.message).hint(e.hint))?),
        None => None,
    };
    let detect = DetectOptions {
        trials: s.trials.detect,
        pattern: pattern.as_ref(),
        run_files: RUN_FILES,
    };
    let detected = crate::trials::detect::detect(baseline, candidate, detect, &mut |skipped| {
        for entry in skipped {
            (hooks.warn)(&entry.to_string());
        }
    })?;
    let (quarantine, quarantine_name) = load_quarantine(s, hooks.warn)?;
    let (b_files, c_files) = match detected {
        Detected::Trials(layout) => {
            let mut trials = s.trials.options(s.seed, &quarantine, &quarantine_name)?;
            trials.fail_on_schema = s.fail_on_schema;
            warn_unmatched(
                &crate::trials::check_outcome_file(&layout, &trials.outcome)?,
                hooks.warn,
            );
            let measure = MeasureOptions {
                read: &s.read,
                policy: options.policy.as_deref(),
                coverage: options.coverage.as_deref(),
                max_align_cells: s.max_align_cells,
                outcome: &trials.outcome,
                lanes: s.lanes,
            };
            hooks.progress.begin(layout.len() as u64, "diffing cases");
            let report = crate::trials::analyse(
                &baseline.display().to_string(),
                &candidate.display().to_string(),
                layout,
                measure,
                &trials,
                s.fail_on,
                s.fail_on_inconclusive,
                &|| hooks.progress.tick(),
            );
            hooks.progress.finish();
            let report = report?;
            let verdict = report.verdict.clone();
            return Ok(Outcome::of(Report::Trials(Box::new(report)), verdict));
        }
        Detected::Paths(b, c) => (b, c),
    };
    let plan = pair_directories(baseline, candidate, b_files, c_files)?;
    let (render, write) = (hooks.render, hooks.write);
    write(render(Piece::DirectoryBegins))?;
    let (summary, verdict) = stream_directory(
        &plan,
        &s.read,
        (options, s.fail_on, &quarantine),
        hooks.progress,
        |pairs: Vec<(DirectoryPair, Verdict)>| render(Piece::Pairs(pairs)),
        write,
    )?;
    let problem = pair_errors_error(&summary.errors, plan.matched.len());
    let mut outcome = Outcome::of(Report::Directory(Box::new(summary)), verdict);
    // Without a gate the error rows are the run's error (exit 2); with one, they tripped it.
    if outcome.verdict.tripped {
        outcome.note = problem;
    } else {
        outcome.failure = problem;
    }
    Ok(outcome)
}

/// The quarantine the settings name, honoured today, and the name it is shown by; every
/// expired entry is told to `warn`.
fn load_quarantine(
    s: &Settings,
    warn: &(dyn Fn(&str) + Sync),
) -> Result<(crate::quarantine::ActiveQuarantine, String), Error> {
    let (quarantine, name) = crate::quarantine::load(
        s.quarantine.explicit.as_deref(),
        s.quarantine.default.as_deref(),
        crate::quarantine::today(),
    )?;
    for w in quarantine.warnings(&name) {
        warn(&w);
    }
    Ok((quarantine, name))
}

/// Warns about the outcome file's lines that match no trial (at most five named).
fn warn_unmatched(lines: &[String], warn: &(dyn Fn(&str) + Sync)) {
    for l in lines.iter().take(5) {
        warn(&format!("{l}; ignored"));
    }
    if lines.len() > 5 {
        warn(&format!(
            "{} more lines of the outcome file match no trace",
            lines.len() - 5
        ));
    }
}

/// Two Inspect AI logs of several sample-epochs, compared case by case (sample id), trials by
/// epoch. `None` when either input is not an Inspect log, or both hold one sample-epoch each
/// (the two-trace diff).
fn inspect_logs(
    baseline: &Path,
    candidate: &Path,
    s: &Settings,
    options: &DiffOptions,
    warn: &(dyn Fn(&str) + Sync),
) -> Result<Option<Outcome>, Error> {
    let open = |p: &Path| veer_trace::formats::inspect::open_inspect_log(p, &s.read);
    let (Some(b), Some(c)) = (open(baseline)?, open(candidate)?) else {
        return Ok(None);
    };
    if b.len() <= 1 && c.len() <= 1 {
        return Ok(None);
    }
    type Cases = BTreeMap<String, Vec<Trace>>;
    let group = |log: veer_trace::formats::inspect::InspectLog<_>| -> Result<Cases, Error> {
        let mut cases = Cases::new();
        for sample in log {
            let sample = sample?;
            cases.entry(sample.case).or_default().push(sample.trace);
        }
        Ok(cases)
    };
    let (b, c) = (group(b)?, group(c)?);
    if let (Some(p), Some(watch)) = (options.policy.as_deref(), &options.coverage) {
        for t in b.values().chain(c.values()).flatten() {
            crate::policy::observe(watch, p, t);
        }
    }
    let (quarantine, quarantine_name) = load_quarantine(s, warn)?;
    let mut trials = s.trials.options(s.seed, &quarantine, &quarantine_name)?;
    trials.fail_on_schema = s.fail_on_schema;
    warn_unmatched(
        &crate::trials::check_outcome_file_in_memory(&b, &c, &trials.outcome)?,
        warn,
    );
    let report = crate::trials::analyse_in_memory(
        &baseline.display().to_string(),
        &candidate.display().to_string(),
        b,
        c,
        options.policy.as_deref(),
        s.max_align_cells,
        &trials,
        s.fail_on,
        s.fail_on_inconclusive,
    )?;
    let verdict = report.verdict.clone();
    Ok(Some(Outcome::of(Report::Trials(Box::new(report)), verdict)))
}

/// Two traces.
fn pair(
    baseline: &Path,
    candidate: &Path,
    s: &Settings,
    options: &DiffOptions,
) -> Result<Outcome, Error> {
    // Both sides are read at once; a problem with the baseline is reported first.
    let (b, c) = rayon::join(
        || veer_trace::load_trace(baseline, &s.read),
        || veer_trace::load_trace(candidate, &s.read),
    );
    let (b, c) = (b?, c?);
    crate::diff::check_pair(&b, &c)?;
    let (report, verdict) = crate::diff::diff(
        &b,
        &c,
        (
            &baseline.display().to_string(),
            &candidate.display().to_string(),
        ),
        options,
        s.fail_on,
    );
    // Freeing the traces' millions of small allocations one by one takes a while; it is done
    // beside the printing (a process that exits first simply releases them all).
    std::thread::spawn(move || drop((b, c)));
    Ok(Outcome::of(Report::Pair(Box::new(report)), verdict))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    const DEMO: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/shadow/demo"
    );
    const INSPECT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/inspect");

    struct Quiet;
    impl Progress for Quiet {
        fn begin(&self, _: u64, _: &'static str) {}
        fn tick(&self) {}
        fn finish(&self) {}
    }

    /// Runs `request`; the outcome, the warnings and the number of pairs handed out.
    fn go(request: &Request) -> Result<(Outcome, Vec<String>, usize), Error> {
        let warnings = Mutex::new(Vec::new());
        let mut pairs = 0;
        let outcome = {
            let mut render = |piece: Piece| match piece {
                Piece::DirectoryBegins => String::new(),
                Piece::Pairs(p) => {
                    pairs += p.len();
                    String::new()
                }
            };
            let mut write = |_: String| Ok(());
            run(
                request,
                Hooks {
                    progress: &Quiet,
                    warn: &|m| warnings.lock().unwrap().push(m.to_string()),
                    render: &mut render,
                    write: &mut write,
                },
            )?
        };
        Ok((outcome, warnings.into_inner().unwrap(), pairs))
    }

    fn request(b: impl Into<PathBuf>, c: impl Into<PathBuf>) -> Request {
        Request {
            baseline: Baseline::Path(b.into()),
            candidate: c.into(),
            settings: Settings::default(),
        }
    }

    /// Two directories holding the demo pair at each of `paths`.
    fn directories(paths: &[&str]) -> (tempfile::TempDir, PathBuf, PathBuf) {
        let root = tempfile::tempdir().unwrap();
        let (b, c) = (root.path().join("b"), root.path().join("c"));
        for rel in paths {
            for (side, src) in [(&b, "baseline"), (&c, "candidate")] {
                let dest = side.join(rel);
                std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
                std::fs::copy(format!("{DEMO}/{src}.agentlog"), dest).unwrap();
            }
        }
        (root, b, c)
    }

    #[test]
    fn two_files_are_a_pair_report() {
        let r = request(
            format!("{DEMO}/baseline.agentlog"),
            format!("{DEMO}/candidate.agentlog"),
        );
        let (outcome, _, pairs) = go(&r).unwrap();
        assert!(matches!(outcome.report, Report::Pair(_)));
        assert_eq!(pairs, 0);
        assert!(outcome.failure.is_none());
    }

    #[test]
    fn directories_without_trials_are_paired_by_path_and_streamed() {
        let (_root, b, c) = directories(&["one.agentlog", "sub/two.agentlog"]);
        let (outcome, _, pairs) = go(&request(&b, &c)).unwrap();
        let Report::Directory(summary) = &outcome.report else {
            panic!("not a directory report: {:?}", outcome.report)
        };
        assert_eq!(pairs, 2);
        assert!(summary.errors.is_empty());
    }

    #[test]
    fn case_directories_are_the_trials_report_unless_trials_are_off() {
        let (_root, b, c) = directories(&["a/trial-1.agentlog", "a/trial-2.agentlog"]);
        let (outcome, _, pairs) = go(&request(&b, &c)).unwrap();
        assert!(matches!(outcome.report, Report::Trials(_)));
        assert_eq!(pairs, 0);
        let mut off = request(&b, &c);
        off.settings.trials.detect = false;
        let (outcome, _, pairs) = go(&off).unwrap();
        assert!(matches!(outcome.report, Report::Directory(_)));
        assert_eq!(pairs, 2);
    }

    #[test]
    fn inspect_logs_of_several_samples_are_the_trials_report() {
        let r = request(
            format!("{INSPECT}/baseline.eval"),
            format!("{INSPECT}/candidate.eval"),
        );
        let (outcome, _, _) = go(&r).unwrap();
        assert!(matches!(outcome.report, Report::Trials(_)));
    }

    #[test]
    fn a_file_against_a_directory_is_an_input_error() {
        let (_root, b, _) = directories(&["one.agentlog"]);
        let e = go(&request(&b, format!("{DEMO}/candidate.agentlog"))).unwrap_err();
        assert_eq!(e.kind, crate::ErrorKind::Input);
        assert!(e.message.contains("mismatched inputs"), "{}", e.message);
    }

    #[test]
    fn a_missing_stored_baseline_and_a_missing_quarantine_file_are_errors() {
        let (root, _, c) = directories(&["one.agentlog"]);
        let r = Request {
            baseline: Baseline::Stored {
                root: root.path().join("store"),
                spec: "main".into(),
            },
            candidate: c.clone(),
            settings: Settings::default(),
        };
        assert_eq!(go(&r).unwrap_err().kind, crate::ErrorKind::Input);
        let mut r = request(root.path().join("b"), &c);
        r.settings.quarantine.explicit = Some(root.path().join("nope.yaml"));
        let e = go(&r).unwrap_err();
        assert!(
            e.message.contains("no quarantine file here"),
            "{}",
            e.message
        );
    }

    #[test]
    fn an_unreadable_pair_fails_the_run_without_a_gate_and_trips_one() {
        let (_root, b, c) = directories(&["one.agentlog", "two.agentlog"]);
        std::fs::write(c.join("two.agentlog"), "not a trace\n").unwrap();
        let (outcome, _, _) = go(&request(&b, &c)).unwrap();
        assert!(outcome.failure.is_some() && outcome.note.is_none());
        assert_eq!(outcome.verdict.exit_code(), 2);
        let mut gated = request(&b, &c);
        gated.settings.fail_on = Level::Severe;
        let (outcome, _, _) = go(&gated).unwrap();
        assert!(outcome.note.is_some() && outcome.failure.is_none());
        assert_eq!(outcome.verdict.exit_code(), 1);
    }

    #[test]
    fn margins_parse_as_the_flag_does() {
        assert_eq!(
            parse_margin("latency=20%").unwrap(),
            ("latency".to_string(), MarginValue::Relative(0.2))
        );
        assert_eq!(
            parse_margin("latency=50ms").unwrap().1,
            MarginValue::Absolute(50.0)
        );
        assert!(parse_margin("behaviour=10%").is_err());
        assert!(parse_margin("nonsense=1").unwrap_err().contains("axes:"));
    }
}
