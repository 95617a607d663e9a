//! The directory diff (docs/corpus.md), composed here for every front end: the pairing of two
//! directories of traces by relative path ([`pair_directories`]), the stream over the pairs that
//! diffs them in parallel and hands them on in path order ([`stream_directory`]), and the pooled
//! fingerprint test over every response ([`Pool`], fed by [`pair_rows`]). The binary adds its flags, progress bar,
//! printers and files; the Python package pairs through the same function.

mod pooled;
mod stream;
pub mod summary;

pub use pooled::{PairRows, Pool};
pub use stream::{pair_errors_error, pair_rows, stream_directory};
/// The number of features in one response fingerprint row (a row is `[f64; DIM]`).
pub use veer_diff::fingerprint::DIM;

use crate::error::Error;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use veer_contract::diff::Unmatched;

/// What a long directory diff tells its front end as it goes (the binary draws a progress bar;
/// `Quiet` tells no one). Stages run one after another; `tick` is called from worker threads.
pub trait Progress: Sync {
    /// A stage of `total` steps, named `label` (e.g. "diffing trace pairs"), begins.
    fn begin(&self, total: u64, label: &'static str);
    /// One step of the current stage is done.
    fn tick(&self);
    /// The current stage is over.
    fn finish(&self);
}

/// Progress told to no one (a front end that shows none, such as `veer mcp`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Quiet;

impl Progress for Quiet {
    fn begin(&self, _: u64, _: &'static str) {}
    fn tick(&self) {}
    fn finish(&self) {}
}

/// The trace pairs of a directory diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectoryPlan {
    /// (relative name, baseline path, candidate path), in relative-path byte order.
    pub matched: Vec<(String, PathBuf, PathBuf)>,
    /// Files found on one side only.
    pub unmatched: Unmatched,
}

/// Directory mode's pairing: the files of both directories (relative name, path) paired by
/// relative path; an input error when no file has a counterpart.
pub fn pair_directories(
    baseline: &Path,
    candidate: &Path,
    b_files: Vec<(String, PathBuf)>,
    c_files: Vec<(String, PathBuf)>,
) -> Result<DirectoryPlan, Error> {
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
        return Err(Error::input(format!(
            "no trace in {} has a counterpart with the same relative path in {}",
            baseline.display(),
            candidate.display()
        ))
        .hint("directory mode pairs files by relative path, e.g. a/run1.agentlog with b/run1.agentlog"));
    }
    Ok(DirectoryPlan { matched, unmatched })
}

/// The trace files of `dir` as (`/`-separated relative name, path), in relative-path byte order
/// (`veer_trace::load::trace_files`).
pub fn trace_files_of(dir: &Path) -> Result<Vec<(String, PathBuf)>, Error> {
    Ok(veer_trace::load::trace_files(dir)?
        .into_iter()
        .map(|p| (veer_trace::load::relative_name(dir, &p), p))
        .collect())
}

/// Lists both directories and pairs their files ([`pair_directories`]).
pub fn plan_directories(baseline: &Path, candidate: &Path) -> Result<DirectoryPlan, Error> {
    pair_directories(
        baseline,
        candidate,
        trace_files_of(baseline)?,
        trace_files_of(candidate)?,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(names: &[&str]) -> Vec<(String, PathBuf)> {
        names
            .iter()
            .map(|n| (n.to_string(), PathBuf::from(format!("/d/{n}"))))
            .collect()
    }

    #[test]
    fn pairs_by_relative_path_in_byte_order_and_lists_the_rest() {
        let plan = pair_directories(
            Path::new("b"),
            Path::new("c"),
            files(&[
                "z.agentlog",
                "a/1.agentlog",
                "only_b.agentlog",
                "B.agentlog",
            ]),
            files(&[
                "a/1.agentlog",
                "only_c.agentlog",
                "z.agentlog",
                "B.agentlog",
            ]),
        )
        .unwrap();
        let names: Vec<&str> = plan.matched.iter().map(|m| m.0.as_str()).collect();
        assert_eq!(names, ["B.agentlog", "a/1.agentlog", "z.agentlog"]);
        assert_eq!(plan.unmatched.baseline_only, ["only_b.agentlog"]);
        assert_eq!(plan.unmatched.candidate_only, ["only_c.agentlog"]);
    }

    #[test]
    fn no_counterpart_at_all_is_an_input_error_with_a_hint() {
        let e = pair_directories(
            Path::new("b"),
            Path::new("c"),
            files(&["x.agentlog"]),
            files(&["y.agentlog"]),
        )
        .unwrap_err();
        assert!(
            e.message.contains("no trace in b has a counterpart"),
            "{}",
            e.message
        );
        assert!(e.hint.is_some());
    }
}
