//! Two directories' trace files grouped into cases, streamed.
//!
//! With 10,000 cases of 10 trials a side a diff lists 200,000 files, and every file's case key
//! must be known before the first case is measured (a key can come from the file's metadata, so
//! a case's files may be anywhere). So the directories are walked without holding their
//! listings ([`veer_trace::load::walk_trace_files`]), the files are keyed a batch at a time (in
//! parallel: keying may read a file's first line), and the keyed files are kept in memory only
//! up to [`RUN_FILES`]; past that they go to sorted runs on disk (`super::case_runs`) and the
//! cases are read back one at a time. The rules that give the keys are in [`super::layout`].

use super::case_runs::{self, Keyed, RunCases, Runs, SideIndex};
use super::layout::{key_of, Case, CasePattern, TraceIdentity};
use crate::error::Error;
use rayon::prelude::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use veer_contract::trials::KeySource;
use veer_trace::load::SkippedEntry;

/// Keyed files held in memory before they are sorted and written out as a run (about 150 bytes
/// each: a few MB at most). A directory diff with fewer files never touches the disk.
pub const RUN_FILES: usize = 16_384;

/// Files keyed at once (in parallel).
const KEY_BATCH: usize = 4_096;

/// The cases of a directory diff, in key byte order: held in memory, or in sorted runs on disk
/// read back one case at a time.
#[derive(Debug)]
pub struct Layout {
    store: Store,
    /// The rules that gave the keys, each once.
    pub sources: BTreeSet<KeySource>,
    shape: Shape,
}

#[derive(Debug)]
enum Store {
    Held(Vec<Case>),
    Runs {
        runs: Arc<Runs>,
        roots: [Arc<Path>; 2],
    },
}

/// Counts over every case, taken once when the layout is built.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Shape {
    cases: usize,
    baseline_trials: usize,
    candidate_trials: usize,
    /// Some case has two or more trials on a side.
    repeated: bool,
    /// Some case has trials on both sides.
    paired: bool,
}

impl Shape {
    fn add(&mut self, c: &Case) {
        self.cases += 1;
        self.baseline_trials += c.baseline.len();
        self.candidate_trials += c.candidate.len();
        self.repeated |= c.baseline.len() > 1 || c.candidate.len() > 1;
        self.paired |= !c.baseline.is_empty() && !c.candidate.is_empty();
    }
}

impl Layout {
    /// True when some case has more than one trial on either side: the directory holds
    /// repeated trials and the trials report applies.
    pub fn has_trials(&self) -> bool {
        self.shape.repeated
    }

    /// True when some case has trials on both sides.
    pub(crate) fn has_pairs(&self) -> bool {
        self.shape.paired
    }

    /// Number of cases.
    pub fn len(&self) -> usize {
        self.shape.cases
    }

    /// True when there is no case.
    pub fn is_empty(&self) -> bool {
        self.shape.cases == 0
    }

    /// `(baseline, candidate)` trial counts over all cases.
    pub fn trial_counts(&self) -> (usize, usize) {
        (self.shape.baseline_trials, self.shape.candidate_trials)
    }

    /// True when the cases are in sorted runs on disk rather than in memory.
    pub fn spilled(&self) -> bool {
        matches!(self.store, Store::Runs { .. })
    }

    /// The cases in key order, each built as it is read (from memory: a copy). An error is a
    /// run file that cannot be read back (exit 2; never a shorter list).
    pub fn cases(&self) -> Result<LayoutCases<'_>, Error> {
        Ok(LayoutCases(match &self.store {
            Store::Held(cases) => Inner::Borrowed(cases.iter()),
            Store::Runs { runs, roots } => Inner::Runs(RunCases::new(runs.clone(), roots.clone())?),
        }))
    }

    /// [`Layout::cases`], consuming the layout (held cases are moved, not copied).
    pub(crate) fn into_cases(self) -> Result<LayoutCases<'static>, Error> {
        Ok(LayoutCases(match self.store {
            Store::Held(cases) => Inner::Owned(cases.into_iter()),
            Store::Runs { runs, roots } => Inner::Runs(RunCases::new(runs, roots)?),
        }))
    }
}

/// The cases of a [`Layout`], in key order.
pub struct LayoutCases<'a>(Inner<'a>);

enum Inner<'a> {
    Borrowed(std::slice::Iter<'a, Case>),
    Owned(std::vec::IntoIter<Case>),
    Runs(RunCases),
}

impl Iterator for LayoutCases<'_> {
    type Item = Result<Case, Error>;

    fn next(&mut self) -> Option<Result<Case, Error>> {
        match &mut self.0 {
            Inner::Borrowed(it) => it.next().cloned().map(Ok),
            Inner::Owned(it) => it.next().map(Ok),
            Inner::Runs(it) => it.next(),
        }
    }
}

/// Groups trace files into cases as they are found: keys a batch at a time and, past
/// `run_files` keyed files, writes sorted runs to disk.
struct Grouper<'a, P> {
    pattern: Option<&'a CasePattern>,
    peek: P,
    run_files: usize,
    roots: [Arc<Path>; 2],
    /// Found, not yet keyed: side, relative name, own path when the name is lossy.
    pending: Vec<(SideIndex, Box<str>, Option<Arc<Path>>)>,
    keyed: Vec<Keyed>,
    runs: Runs,
    sources: BTreeSet<KeySource>,
}

impl<'a, P: Fn(&Path) -> Option<TraceIdentity> + Sync> Grouper<'a, P> {
    fn new(pattern: Option<&'a CasePattern>, peek: P, run_files: usize) -> Self {
        let empty: Arc<Path> = Arc::from(Path::new(""));
        Grouper {
            pattern,
            peek,
            run_files: run_files.max(1),
            roots: [empty.clone(), empty],
            pending: Vec::new(),
            keyed: Vec::new(),
            runs: Runs::default(),
            sources: BTreeSet::new(),
        }
    }

    /// Sets the directory `side`'s relative names are relative to.
    fn root(&mut self, side: SideIndex, root: &Path) {
        self.roots[usize::from(side)] = Arc::from(root);
    }

    /// One file found under the side's root.
    fn push(&mut self, side: SideIndex, path: &Path) -> Result<(), Error> {
        let root = &self.roots[usize::from(side)];
        let name = veer_trace::load::relative_name(root, path);
        let whole = (root.join(&name) != path).then(|| Arc::from(path));
        self.pending.push((side, name.into_boxed_str(), whole));
        if self.pending.len() >= KEY_BATCH {
            self.key_pending()?;
        }
        Ok(())
    }

    /// Keys the pending files (in parallel) and spills a run when enough are held.
    fn key_pending(&mut self) -> Result<(), Error> {
        let roots = &self.roots;
        let (pattern, peek) = (self.pattern, &self.peek);
        let keyed: Vec<(Keyed, KeySource)> = std::mem::take(&mut self.pending)
            .into_par_iter()
            .map(|(side, name, whole)| {
                let path = || match &whole {
                    Some(p) => p.to_path_buf(),
                    None => roots[usize::from(side)].join(&*name),
                };
                let (key, trial, source) = key_of(&name, path, pattern, peek);
                let k = Keyed {
                    key,
                    side,
                    name,
                    trial: trial.map(String::into_boxed_str),
                    whole,
                };
                (k, source)
            })
            .collect();
        for (k, source) in keyed {
            self.sources.insert(source);
            self.keyed.push(k);
        }
        if self.keyed.len() >= self.run_files {
            self.runs.spill(std::mem::take(&mut self.keyed))?;
        }
        Ok(())
    }

    /// The layout of every file pushed.
    fn finish(mut self) -> Result<Layout, Error> {
        self.key_pending()?;
        if self.runs.len() == 0 {
            let mut keyed = std::mem::take(&mut self.keyed);
            case_runs::sort(&mut keyed);
            let mut cases = Vec::new();
            for k in keyed {
                case_runs::push_case_file(&mut cases, k, &self.roots);
            }
            let mut shape = Shape::default();
            for c in &mut cases {
                c.baseline.shrink_to_fit();
                c.candidate.shrink_to_fit();
                shape.add(c);
            }
            cases.shrink_to_fit();
            return Ok(Layout {
                store: Store::Held(cases),
                sources: self.sources,
                shape,
            });
        }
        if !self.keyed.is_empty() {
            self.runs.spill(std::mem::take(&mut self.keyed))?;
        }
        let runs = Arc::new(self.runs);
        let mut shape = Shape::default();
        for case in RunCases::new(runs.clone(), self.roots.clone())? {
            shape.add(&case?);
        }
        Ok(Layout {
            store: Store::Runs {
                runs,
                roots: self.roots,
            },
            sources: self.sources,
            shape,
        })
    }
}

/// The cases of `baseline` and (when given) `candidate`, walked without holding either
/// listing: each trace file's key by `pattern`, else `peek` (normally
/// [`super::layout::peek_identity`]), else its name. `on_skipped` is told each side's entries
/// that are not regular files, after that side's walk. Past `run_files` files, the keyed files
/// go to sorted runs in the system's temporary directory. Errors: a directory that cannot be
/// read or holds no trace (as [`veer_trace::load::list_trace_files`]), a temporary file that
/// cannot be written.
pub fn list_cases(
    baseline: &Path,
    candidate: Option<&Path>,
    pattern: Option<&CasePattern>,
    peek: impl Fn(&Path) -> Option<TraceIdentity> + Sync,
    run_files: usize,
    on_skipped: &mut dyn FnMut(&[SkippedEntry]),
) -> Result<Layout, Error> {
    let mut grouper = Grouper::new(pattern, peek, run_files);
    for (side, dir) in [(0, Some(baseline)), (1, candidate)] {
        let Some(dir) = dir else { continue };
        grouper.root(side, dir);
        let skipped = veer_trace::load::walk_trace_files(dir, |p: PathBuf| grouper.push(side, &p))?;
        on_skipped(&skipped);
    }
    grouper.finish()
}

/// The cases of relative names under two roots (no file system walk; `peek` still sees each
/// full path). For tests and callers that list files themselves.
#[cfg(test)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn group_names(
    roots: [&Path; 2],
    baseline: &[&str],
    candidate: &[&str],
    pattern: Option<&CasePattern>,
    peek: impl Fn(&Path) -> Option<TraceIdentity> + Sync,
    run_files: usize,
) -> Result<Layout, Error> {
    let mut grouper = Grouper::new(pattern, peek, run_files);
    for (side, names) in [(0, baseline), (1, candidate)] {
        grouper.root(side, roots[usize::from(side)]);
        for n in names {
            grouper.push(side, &roots[usize::from(side)].join(n))?;
        }
    }
    grouper.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trials::layout::Origin;

    const NAMES: [&str; 6] = [
        "zeta/run-2.agentlog",
        "café/Ωmega/run-1.agentlog",
        "zeta/run-1.agentlog",
        "café/Ωmega/run-2.agentlog",
        "a/b/c/d.1.agentlog",
        "a/b/c/d.2.agentlog",
    ];

    type Shape<'a> = (String, Vec<String>, Vec<Option<String>>, usize);

    fn shape(l: &Layout) -> Vec<Shape<'_>> {
        l.cases()
            .unwrap()
            .map(|c| {
                let c = c.unwrap();
                (
                    c.key.clone(),
                    c.baseline.iter().map(|f| f.name.to_string()).collect(),
                    c.baseline
                        .iter()
                        .map(|f| f.trial.as_deref().map(str::to_string))
                        .collect(),
                    c.candidate.len(),
                )
            })
            .collect()
    }

    #[test]
    fn names_group_in_key_order_and_join_onto_one_shared_root() {
        let root = Path::new("/data/base");
        let l = group_names(
            [root, Path::new("/c")],
            &NAMES,
            &[],
            None,
            |_| None,
            RUN_FILES,
        )
        .unwrap();
        assert!(!l.spilled());
        let s = shape(&l);
        let keys: Vec<&str> = s.iter().map(|c| c.0.as_str()).collect();
        assert_eq!(keys, ["a/b/c/d", "café/Ωmega", "zeta"]);
        assert_eq!(
            s[1].1,
            ["café/Ωmega/run-1.agentlog", "café/Ωmega/run-2.agentlog"]
        );
        assert_eq!(s[0].2, [Some("1".to_string()), Some("2".to_string())]);
        let cases: Vec<Case> = l.into_cases().unwrap().map(Result::unwrap).collect();
        let f = &cases[1].baseline[1];
        assert_eq!(f.path(), root.join("café/Ωmega/run-2.agentlog"));
        // The root is shared by every file of the side, not copied.
        let roots: Vec<*const u8> = cases
            .iter()
            .flat_map(|c| &c.baseline)
            .map(|f| match &f.origin {
                Origin::Joined(r) => r.as_os_str().as_encoded_bytes().as_ptr(),
                Origin::Whole(_) => std::ptr::null(),
            })
            .collect();
        assert!(roots.windows(2).all(|w| w[0] == w[1]) && !roots[0].is_null());
    }

    #[test]
    fn spilled_runs_give_the_same_cases_as_memory_at_every_run_size() {
        let b: Vec<String> = (0..40)
            .map(|i| format!("case{:02}/run-{}.agentlog", (i * 7) % 13, i % 3 + 1))
            .collect();
        let c: Vec<String> = (0..31)
            .map(|i| format!("case{:02}/trial_{}.agentlog", (i * 5) % 11, i % 4))
            .collect();
        let (b, c): (Vec<&str>, Vec<&str>) = (
            b.iter().map(String::as_str).collect(),
            c.iter().map(String::as_str).collect(),
        );
        let roots = [Path::new("/b"), Path::new("/c")];
        let held = group_names(roots, &b, &c, None, |_| None, usize::MAX).unwrap();
        assert!(!held.spilled());
        for run in [1, 2, 3, 7, 50] {
            let spilled = group_names(roots, &b, &c, None, |_| None, run).unwrap();
            assert!(spilled.spilled(), "run size {run}");
            assert_eq!(shape(&spilled), shape(&held), "run size {run}");
            assert_eq!(spilled.len(), held.len());
            assert_eq!(spilled.trial_counts(), held.trial_counts());
            assert_eq!(spilled.has_trials(), held.has_trials());
            assert_eq!(spilled.sources, held.sources);
            // Read twice: each reading is independent.
            assert_eq!(shape(&spilled), shape(&held));
        }
        assert_eq!(held.trial_counts(), (40, 31));
    }

    #[test]
    fn a_walk_groups_a_real_directory_and_reports_skipped_entries() {
        let dir = tempfile::tempdir().unwrap();
        for (side, k) in [("b", 3), ("c", 2)] {
            for case in ["x", "y"] {
                let d = dir.path().join(side).join(case);
                std::fs::create_dir_all(&d).unwrap();
                for t in 1..=k {
                    std::fs::write(d.join(format!("run-{t}.agentlog")), "").unwrap();
                }
            }
        }
        std::fs::create_dir_all(dir.path().join("b/z/run-1.agentlog")).unwrap();
        let (b, c) = (dir.path().join("b"), dir.path().join("c"));
        let mut skipped = Vec::new();
        let l = list_cases(&b, Some(&c), None, |_| None, 2, &mut |s| {
            skipped.push(s.len())
        })
        .unwrap();
        assert_eq!(skipped, [0, 0]);
        assert!(l.spilled());
        assert_eq!(
            (l.len(), l.trial_counts(), l.has_trials()),
            (2, (6, 4), true)
        );
        let x = l.cases().unwrap().next().unwrap().unwrap();
        assert_eq!(x.candidate[1].path(), c.join("x/run-2.agentlog"));
        // No trace at all: the walk's error, with its hint.
        let empty = dir.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        let e = list_cases(&empty, None, None, |_| None, 2, &mut |_| {}).unwrap_err();
        assert!(e.message.contains("holds no traces"), "{e:?}");
    }

    #[cfg(unix)]
    #[test]
    fn a_name_that_is_not_utf8_keeps_its_own_path_in_memory_and_on_disk() {
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        let case = dir.path().join("case");
        std::fs::create_dir(&case).unwrap();
        let odd = case.join(std::ffi::OsStr::from_bytes(b"run-\xff.agentlog"));
        std::fs::write(&odd, "").unwrap();
        std::fs::write(case.join("run-2.agentlog"), "").unwrap();
        for run in [1, RUN_FILES] {
            let l = list_cases(dir.path(), None, None, |_| None, run, &mut |_| {}).unwrap();
            let files: Vec<PathBuf> = l
                .cases()
                .unwrap()
                .flat_map(|c| c.unwrap().baseline)
                .map(|f| f.path())
                .collect();
            assert!(files.contains(&odd), "{files:?}");
            assert!(files.contains(&case.join("run-2.agentlog")));
        }
    }
}
