//! The keyed trial files of a large directory diff, sorted on disk (memory
//! flat in the number of cases).
//!
//! Which case a file belongs to can come from its metadata, so the files of one case may be
//! anywhere in either directory, and pairing cases needs every file's key before the first case
//! is measured. Holding that list in memory grows with the suite (about 180 bytes a file). So
//! the files are keyed a batch at a time and, past a few thousand, written out as sorted runs to
//! temporary files (an external merge sort); the cases are then read back by merging the runs,
//! one case at a time. Memory is one run's buffer and one line per run, whatever the number of
//! cases.

use super::layout::{Case, Origin, TrialFile};
use super::spill::{LineFile, Lines};
use crate::error::Error;
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::Arc;

/// Which side a file is on: 0 = baseline, 1 = candidate.
pub(super) type SideIndex = u8;

/// One trial file with its case key, in the order cases are built: by key, then side, then
/// relative name (then own path, for two names made equal by lossy decoding).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Keyed {
    /// The case key.
    pub key: String,
    /// 0 = baseline, 1 = candidate.
    pub side: SideIndex,
    /// Relative name (`/`-separated).
    pub name: Box<str>,
    /// The trial label, when the pattern, metadata or name gave one.
    pub trial: Option<Box<str>>,
    /// The file's own path, only when its name is not valid UTF-8 (cannot be joined back).
    pub whole: Option<Arc<Path>>,
}

impl Keyed {
    fn order(&self, other: &Keyed) -> std::cmp::Ordering {
        (&self.key, self.side, &self.name)
            .cmp(&(&other.key, other.side, &other.name))
            .then_with(|| self.whole.cmp(&other.whole))
    }
}

/// Sorts keyed files into case order.
pub(super) fn sort(files: &mut [Keyed]) {
    files.sort_unstable_by(Keyed::order);
}

/// A [`Keyed`] as one line of a run file (short field names: a run holds every file).
#[derive(Serialize, Deserialize)]
struct Line {
    k: String,
    s: SideIndex,
    n: Box<str>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    t: Option<Box<str>>,
    /// The own path's bytes (`whole`), rare.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    w: Option<Vec<u8>>,
}

impl Line {
    fn of(k: Keyed) -> Line {
        Line {
            k: k.key,
            s: k.side,
            n: k.name,
            t: k.trial,
            w: k.whole.map(|p| p.as_os_str().as_encoded_bytes().to_vec()),
        }
    }

    fn keyed(self) -> Keyed {
        Keyed {
            key: self.k,
            side: self.s.min(1),
            name: self.n,
            trial: self.t,
            whole: self.w.map(|b| Arc::from(path_of_bytes(b).as_path())),
        }
    }
}

/// A path from the bytes [`Line::of`] wrote (on Unix, exactly; elsewhere, lossily).
fn path_of_bytes(bytes: Vec<u8>) -> std::path::PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        std::path::PathBuf::from(std::ffi::OsString::from_vec(bytes))
    }
    #[cfg(not(unix))]
    {
        std::path::PathBuf::from(String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// Sorted runs of keyed files, each in its own temporary file (deleted when dropped).
#[derive(Debug, Default)]
pub(super) struct Runs {
    files: Vec<LineFile>,
}

impl Runs {
    /// Sorts `files` and writes them as one more run.
    pub(super) fn spill(&mut self, mut files: Vec<Keyed>) -> Result<(), Error> {
        sort(&mut files);
        let mut run = LineFile::new()?;
        for k in files {
            run.push(&Line::of(k))?;
        }
        run.close()?;
        self.files.push(run);
        Ok(())
    }

    /// Number of runs written.
    pub(super) fn len(&self) -> usize {
        self.files.len()
    }
}

/// Every run's files merged back into case order (a k-way merge; the runs are few, so the
/// smallest head is found by a scan). The first read error ends the merge.
struct Merged {
    /// Kept so the files live as long as their readers.
    _runs: Arc<Runs>,
    heads: Vec<(Option<Keyed>, Lines<Line>)>,
    failed: bool,
}

impl Merged {
    fn new(runs: Arc<Runs>) -> Result<Merged, Error> {
        let mut heads = Vec::with_capacity(runs.files.len());
        for f in &runs.files {
            let mut lines = f.read::<Line>()?;
            let head = lines.next().transpose()?.map(Line::keyed);
            heads.push((head, lines));
        }
        Ok(Merged {
            _runs: runs,
            heads,
            failed: false,
        })
    }
}

impl Iterator for Merged {
    type Item = Result<Keyed, Error>;

    fn next(&mut self) -> Option<Result<Keyed, Error>> {
        if self.failed {
            return None;
        }
        let mut best: Option<usize> = None;
        for (i, (head, _)) in self.heads.iter().enumerate() {
            let Some(h) = head else { continue };
            let better = match best.and_then(|b| self.heads[b].0.as_ref()) {
                Some(b) => h.order(b).is_lt(),
                None => true,
            };
            if better {
                best = Some(i);
            }
        }
        let (head, lines) = &mut self.heads[best?];
        let next = match lines.next().transpose() {
            Ok(n) => n.map(Line::keyed),
            Err(e) => {
                self.failed = true;
                return Some(Err(e));
            }
        };
        std::mem::replace(head, next).map(Ok)
    }
}

/// The cases of sorted runs, built one at a time from the merged files: the files of a case
/// are consecutive in the merge.
pub(super) struct RunCases {
    merged: Merged,
    roots: [Arc<Path>; 2],
    next: Option<Keyed>,
    failed: bool,
}

impl RunCases {
    /// The cases of `runs`, whose relative names join onto `roots` (baseline, candidate).
    pub(super) fn new(runs: Arc<Runs>, roots: [Arc<Path>; 2]) -> Result<RunCases, Error> {
        Ok(RunCases {
            merged: Merged::new(runs)?,
            roots,
            next: None,
            failed: false,
        })
    }
}

/// A keyed file as a trial of its case.
pub(super) fn trial_file(k: Keyed, roots: &[Arc<Path>; 2]) -> TrialFile {
    TrialFile {
        name: k.name,
        origin: match k.whole {
            Some(p) => Origin::Whole(p),
            None => Origin::Joined(roots[usize::from(k.side.min(1))].clone()),
        },
        trial: k.trial,
    }
}

/// Appends keyed files, already in case order, to `cases` (a new case at each new key).
pub(super) fn push_case_file(cases: &mut Vec<Case>, k: Keyed, roots: &[Arc<Path>; 2]) {
    if cases.last().is_none_or(|c| c.key != k.key) {
        cases.push(Case {
            key: k.key.clone(),
            baseline: Vec::new(),
            candidate: Vec::new(),
        });
    }
    if let Some(case) = cases.last_mut() {
        let side = k.side;
        let file = trial_file(k, roots);
        if side == 0 {
            case.baseline.push(file);
        } else {
            case.candidate.push(file);
        }
    }
}

impl Iterator for RunCases {
    type Item = Result<Case, Error>;

    fn next(&mut self) -> Option<Result<Case, Error>> {
        if self.failed {
            return None;
        }
        let first = match self.next.take() {
            Some(k) => k,
            None => match self.merged.next()? {
                Ok(k) => k,
                Err(e) => {
                    self.failed = true;
                    return Some(Err(e));
                }
            },
        };
        let mut one = Vec::with_capacity(1);
        push_case_file(&mut one, first, &self.roots);
        loop {
            match self.merged.next() {
                None => break,
                Some(Err(e)) => {
                    self.failed = true;
                    return Some(Err(e));
                }
                Some(Ok(k)) if k.key == one[0].key => push_case_file(&mut one, k, &self.roots),
                Some(Ok(k)) => {
                    self.next = Some(k);
                    break;
                }
            }
        }
        let mut case = one.pop()?;
        case.baseline.shrink_to_fit();
        case.candidate.shrink_to_fit();
        Some(Ok(case))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keyed(key: &str, side: u8, name: &str) -> Keyed {
        Keyed {
            key: key.into(),
            side,
            name: name.into(),
            trial: Some("1".into()),
            whole: None,
        }
    }

    #[test]
    fn runs_merge_back_into_cases_in_key_order() {
        let roots: [Arc<Path>; 2] = [Arc::from(Path::new("/b")), Arc::from(Path::new("/c"))];
        let mut runs = Runs::default();
        runs.spill(vec![keyed("b", 1, "b/2"), keyed("a", 0, "a/1")])
            .unwrap();
        runs.spill(vec![
            keyed("b", 0, "b/1"),
            keyed("c", 0, "c/1"),
            keyed("a", 1, "a/9"),
        ])
        .unwrap();
        runs.spill(vec![keyed("a", 0, "a/0")]).unwrap();
        assert_eq!(runs.len(), 3);
        let cases: Vec<Case> = RunCases::new(Arc::new(runs), roots)
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let shape: Vec<(&str, Vec<&str>, Vec<&str>)> = cases
            .iter()
            .map(|c| {
                (
                    c.key.as_str(),
                    c.baseline.iter().map(|f| &*f.name).collect(),
                    c.candidate.iter().map(|f| &*f.name).collect(),
                )
            })
            .collect();
        assert_eq!(
            shape,
            [
                ("a", vec!["a/0", "a/1"], vec!["a/9"]),
                ("b", vec!["b/1"], vec!["b/2"]),
                ("c", vec!["c/1"], vec![]),
            ]
        );
        assert_eq!(cases[0].candidate[0].path(), Path::new("/c/a/9"));
    }

    #[cfg(unix)]
    #[test]
    fn an_own_path_that_is_not_utf8_round_trips_through_a_run() {
        use std::os::unix::ffi::OsStrExt;
        let odd: Arc<Path> =
            Arc::from(Path::new(std::ffi::OsStr::from_bytes(b"/r/x\xff.agentlog")));
        let mut k = keyed("x", 0, "x\u{fffd}.agentlog");
        k.whole = Some(odd.clone());
        let mut runs = Runs::default();
        runs.spill(vec![k]).unwrap();
        let roots: [Arc<Path>; 2] = [Arc::from(Path::new("/r")), Arc::from(Path::new("/s"))];
        let case = RunCases::new(Arc::new(runs), roots)
            .unwrap()
            .next()
            .unwrap()
            .unwrap();
        assert_eq!(case.baseline[0].path(), odd.to_path_buf());
    }

    #[test]
    fn a_run_that_cannot_be_read_back_is_an_error_not_a_short_list() {
        let mut runs = Runs::default();
        runs.spill(vec![keyed("a", 0, "a/1")]).unwrap();
        // Corrupt the run: the read-back must fail loudly.
        std::fs::write(runs.files[0].path(), b"{not json\n").unwrap();
        let roots: [Arc<Path>; 2] = [Arc::from(Path::new("/b")), Arc::from(Path::new("/c"))];
        let got = RunCases::new(Arc::new(runs), roots).map(|it| it.collect::<Vec<_>>());
        match got {
            Err(e) => assert!(e.message.contains("temporary file"), "{e:?}"),
            Ok(items) => assert!(items.iter().any(Result::is_err), "{items:?}"),
        }
    }
}
