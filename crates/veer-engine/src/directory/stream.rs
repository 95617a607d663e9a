//! The stream over a directory diff's pairs: pairs are read and diffed in parallel, a window at
//! a time, and handed on in path order — the previous window is rendered while the next one is
//! diffed, so at most two windows of reports are held; the per-pair summaries are folded, the
//! verdict is decided pair by pair, the fingerprints are pooled, and a pair that cannot be read
//! or compared becomes an error row (docs/corpus.md, docs/diff.md "When a pair cannot be read").

use super::pooled::{PairRows, Pool};
use super::{DirectoryPlan, Progress};
use crate::error::Error;
use crate::quarantine::ActiveQuarantine;
use crate::verdict::DirectoryVerdict;
use crate::DiffOptions;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use veer_base::Level;
use veer_contract::diff::DirectorySummary;
use veer_contract::diff::{DirectoryPair, PairError};
use veer_contract::verdict::Verdict;
use veer_diff::aggregate::PairSummary;
use veer_diff::fingerprint;
use veer_diff::{FingerprintOptions, SideFingerprints};
use veer_trace::{ReadOptions, Trace};

/// Trace pairs diffed at once per worker thread: the reorder window. Pairs are diffed in
/// windows of this many per thread, gathered in path order, and handed on while the next window
/// is diffed, so at most two windows of reports are held at any time.
pub(crate) const WINDOW_PER_THREAD: usize = 32;

/// Diffs every pair of `plan` at the gate's threshold `fail_on`; pairs whose relative path is
/// honoured by `quarantine` are measured, shown and marked quarantined but never trip the gate
/// ([`DirectoryVerdict::with_quarantine`]); the summary's quarantine block names the pairs it
/// excused and the expired entries. `render` receives the measured
/// pairs with their verdicts in path order, a window at a time (it runs beside the diff of the
/// next window); `emit` receives what it made, in order, on the calling thread. Returns the
/// summary (error rows, unmatched files, aggregate, pooled fingerprint test, gate) and the
/// directory's verdict. An error only when `emit` fails or a trace changed between the diff and
/// the pooled test's second pass; a pair that cannot be measured is an error row.
pub fn stream_directory<R: Send>(
    plan: &DirectoryPlan,
    read: &ReadOptions,
    (options, fail_on, quarantine): (&DiffOptions, Level, &ActiveQuarantine),
    progress: &dyn Progress,
    mut render: impl FnMut(Vec<(DirectoryPair, Verdict)>) -> R + Send,
    mut emit: impl FnMut(R) -> Result<(), Error>,
) -> Result<(DirectorySummary, Verdict), Error> {
    progress.begin(plan.matched.len() as u64, "diffing trace pairs");
    let mut summary = PairSummary::default();
    let mut verdict = DirectoryVerdict::new(fail_on).with_quarantine(quarantine.cases.clone());
    // Every response's fingerprint, pooled into one test at the end (docs/corpus.md).
    let mut pool = Pool::default();
    let mut schema = super::summary::SchemaFold::default();
    let window = rayon::current_num_threads().max(1) * WINDOW_PER_THREAD;
    let mut done: Vec<(DirectoryPair, Verdict)> = Vec::new();
    // The pairs that could not be measured, in path order, and their indices in the plan.
    let mut errors: Vec<PairError> = Vec::new();
    let mut bad: Vec<usize> = Vec::new();
    for (at, chunk) in plan.matched.chunks(window).enumerate() {
        let previous = std::mem::take(&mut done);
        let (rendered, results) = rayon::join(
            || render(previous),
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
        emit(rendered)?;
        for (k, r) in results.into_iter().enumerate() {
            match r {
                Ok((mut pair, rows)) => {
                    pair.quarantined = quarantine.mark(&pair.baseline);
                    summary.merge(PairSummary::of_pair(&pair.report));
                    schema.pair(&pair);
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
    emit(render(done))?;
    progress.finish();

    let unmatched_count = plan.unmatched.baseline_only.len() + plan.unmatched.candidate_only.len();
    let again = |bp: &PathBuf, cp: &PathBuf| pair_rows(bp, cp, read, &options.fingerprint);
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
    let fingerprint = pool.test(pooled_pairs, window, again, &options.fingerprint, progress)?;
    let verdict = verdict.finish(fingerprint.as_ref(), &errors);
    let mut aggregate = summary.finish(unmatched_count);
    aggregate.error_pairs = errors.len();
    let summary = DirectorySummary {
        gate: verdict.gate(),
        errors,
        unmatched: plan.unmatched.clone(),
        aggregate,
        fingerprint,
        quarantine: quarantine.summary(&verdict),
        tool_schema: schema.finish(options.fail_on_schema),
    };
    Ok((summary, verdict))
}

/// One pair's response fingerprints (baseline rows, candidate rows), read and checked as the
/// diff reads them: the rows the pooled test takes from this pair, in both of its passes.
pub fn pair_rows(
    bp: &Path,
    cp: &Path,
    read: &ReadOptions,
    options: &FingerprintOptions,
) -> Result<PairRows, Error> {
    let (b, c) = load_pair(bp, cp, read)?;
    Ok(rayon::join(
        || fingerprint::trace_matrix(&b, &options.scales),
        || fingerprint::trace_matrix(&c, &options.scales),
    ))
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
    let (report, _, rows) = crate::diff::diff_keeping_fingerprints(
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
            quarantined: None,
        },
        rows,
    ))
}

/// Loads and checks one baseline/candidate pair.
fn load_pair(bp: &Path, cp: &Path, read: &ReadOptions) -> Result<(Trace, Trace), Error> {
    let b = veer_trace::load_trace(bp, read)?;
    let c = veer_trace::load_trace(cp, read)?;
    veer_diff::inputs::check_pair(&b, &c)?;
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
/// `None` when every pair was measured (`total` is the number of matched pairs).
pub fn pair_errors_error(errors: &[PairError], total: usize) -> Option<Error> {
    let first = errors.first()?;
    let mut error = Error::input(format!(
        "{} of {total} trace pairs could not be read or compared (error rows in the report); first: {}",
        errors.len(),
        first.error
    ));
    error.more = errors.iter().skip(1).map(|e| e.error.clone()).collect();
    error.hint = first.hint.clone();
    Some(error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::directory::{plan_directories, Quiet};

    const DEMO: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/shadow/demo"
    );

    /// Two directories: `a.agentlog` and `c/d.agentlog` the demo pair, `b.agentlog` broken on
    /// the candidate side, `only.agentlog` on the baseline side only.
    fn corpus() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let root = tempfile::tempdir().unwrap();
        let (b, c) = (root.path().join("b"), root.path().join("c"));
        let demo = |side: &str| std::fs::read(format!("{DEMO}/{side}.agentlog")).unwrap();
        for (dir, side) in [(&b, "baseline"), (&c, "candidate")] {
            std::fs::create_dir_all(dir.join("c")).unwrap();
            std::fs::write(dir.join("a.agentlog"), demo(side)).unwrap();
            std::fs::write(dir.join("c/d.agentlog"), demo(side)).unwrap();
        }
        std::fs::write(b.join("b.agentlog"), demo("baseline")).unwrap();
        std::fs::write(c.join("b.agentlog"), b"{not json\n").unwrap();
        std::fs::write(b.join("only.agentlog"), demo("baseline")).unwrap();
        (root, b, c)
    }

    #[test]
    fn pairs_arrive_in_path_order_with_error_rows_and_the_pair_diffs_verdicts() {
        let (_root, b, c) = corpus();
        let plan = plan_directories(&b, &c).unwrap();
        let options = DiffOptions::default();
        let mut seen: Vec<String> = Vec::new();
        let mut emitted = 0;
        let (summary, verdict) = stream_directory(
            &plan,
            &ReadOptions::default(),
            (&options, Level::Severe, &ActiveQuarantine::default()),
            &Quiet,
            |pairs: Vec<(DirectoryPair, Verdict)>| {
                pairs
                    .into_iter()
                    .map(|(p, _)| (p.baseline, p.report))
                    .collect::<Vec<_>>()
            },
            |pairs| {
                emitted += 1;
                seen.extend(pairs.into_iter().map(|(name, report)| {
                    // The stream's report is the engine's pair diff of the same files.
                    let read = |p: &Path| veer_trace::load_trace(p, &ReadOptions::default());
                    let (tb, tc) = (read(&b.join(&name)).unwrap(), read(&c.join(&name)).unwrap());
                    let paths = (
                        b.join(&name).display().to_string(),
                        c.join(&name).display().to_string(),
                    );
                    let (alone, _) =
                        crate::diff::diff(&tb, &tc, (&paths.0, &paths.1), &options, Level::Severe);
                    assert_eq!(report, alone, "{name}");
                    name
                }));
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(seen, ["a.agentlog", "c/d.agentlog"]);
        assert!(emitted >= 2, "the last window is handed on too");
        assert_eq!(summary.errors.len(), 1);
        assert_eq!(summary.errors[0].baseline, "b.agentlog");
        assert_eq!(summary.unmatched.baseline_only, ["only.agentlog"]);
        assert_eq!(summary.aggregate.trace_pairs, 2);
        assert_eq!(summary.aggregate.error_pairs, 1);
        // An unreadable pair trips a set gate.
        assert!(verdict.tripped, "{verdict:?}");
        assert_eq!(summary.gate, verdict.gate());
        let e = pair_errors_error(&summary.errors, plan.matched.len()).unwrap();
        assert!(e.message.starts_with("1 of 3 trace pairs"), "{}", e.message);
    }

    #[test]
    fn an_emit_error_stops_the_stream() {
        let (_root, b, c) = corpus();
        let plan = plan_directories(&b, &c).unwrap();
        let r = stream_directory(
            &plan,
            &ReadOptions::default(),
            (
                &DiffOptions::default(),
                Level::None,
                &ActiveQuarantine::default(),
            ),
            &Quiet,
            |pairs: Vec<(DirectoryPair, Verdict)>| pairs.len(),
            |_| Err(Error::input("the output is gone")),
        );
        assert_eq!(
            r.err().map(|e| e.message),
            Some("the output is gone".into())
        );
    }
}
