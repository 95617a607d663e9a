//! A directory's trace files held compactly for grouping into cases (issue 28, item 7).
//!
//! With 10,000 cases of 10 trials a side the listing is 200,000 files, and it is alive while
//! every case is grouped, before any is measured: it sets the peak memory of a trials diff. So a
//! side is held as its root once and each file's relative name, and a file's full path is built
//! only when the file is opened ([`super::layout::TrialFile::path`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where a listed file is on disk, without a full path per file: most files are their
/// directory root (shared by every file of the side) joined with their relative name; a file
/// whose name is not valid UTF-8 (its relative name is lossy) keeps its own path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// `root.join(name)` is the file; the root is shared by the whole side.
    Joined(Arc<Path>),
    /// The file's own path (its relative name cannot be joined back to it).
    Whole(Arc<Path>),
}

/// One listed file: its relative name, and its own path only when the name cannot be joined
/// back to it (not valid UTF-8).
pub(crate) type ListedFile = (Box<str>, Option<Arc<Path>>);

/// One side's trace files, listed compactly (issue 28, item 7): the directory root once and
/// each file's relative name (`/`-separated) as a boxed string, in byte order of the name.
/// Per file this holds the name's bytes, a 16-byte box and, only for a file whose name is not
/// valid UTF-8, its own path; never a full `PathBuf` per file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Listing {
    /// The directory the names are relative to (`None`: an empty listing).
    root: Option<Arc<Path>>,
    /// Relative names in byte order, and the rare file that keeps its own path.
    files: Vec<ListedFile>,
}

impl Listing {
    /// The listing of `paths`, files found under `root` (as `veer_trace::load::list_trace_files`
    /// gives them), named relative to `root` and sorted by name.
    pub fn new(root: &Path, paths: Vec<PathBuf>) -> Listing {
        let root: Arc<Path> = Arc::from(root);
        let mut files: Vec<ListedFile> = paths
            .into_iter()
            .map(|p| {
                let name = veer_trace::load::relative_name(&root, &p);
                let whole = (root.join(&name) != p).then(|| Arc::from(p.as_path()));
                (name.into_boxed_str(), whole)
            })
            .collect();
        files.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        files.shrink_to_fit();
        Listing {
            root: Some(root),
            files,
        }
    }

    /// Number of files.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// True when there is no file.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The relative names, in byte order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.files.iter().map(|f| &*f.0)
    }

    /// The root and the files (relative name, own path when the name is lossy), for grouping.
    pub(crate) fn into_parts(self) -> (Option<Arc<Path>>, Vec<ListedFile>) {
        (self.root, self.files)
    }

    /// Each file as (relative name, full path), in byte order of the name (the path-paired
    /// report's input).
    pub fn into_pairs(self) -> Vec<(String, PathBuf)> {
        let root = self.root;
        self.files
            .into_iter()
            .map(|(name, whole)| {
                let path = match (&whole, &root) {
                    (Some(p), _) => p.to_path_buf(),
                    (None, Some(r)) => r.join(&*name),
                    (None, None) => PathBuf::from(&*name),
                };
                (name.into_string(), path)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_compact_listing_sorts_groups_and_joins_unicode_and_nested_names() {
        let root = Path::new("/data/base");
        // Given out of order: the listing sorts by name (byte order).
        let paths = [
            "zeta/run-2.agentlog",
            "café/Ωmega/run-1.agentlog",
            "zeta/run-1.agentlog",
            "café/Ωmega/run-2.agentlog",
            "a/b/c/d.1.agentlog",
            "a/b/c/d.2.agentlog",
        ];
        let listing = Listing::new(root, paths.iter().map(|p| root.join(p)).collect());
        assert_eq!(listing.len(), 6);
        let names: Vec<&str> = listing.names().collect();
        assert_eq!(
            names,
            [
                "a/b/c/d.1.agentlog",
                "a/b/c/d.2.agentlog",
                "café/Ωmega/run-1.agentlog",
                "café/Ωmega/run-2.agentlog",
                "zeta/run-1.agentlog",
                "zeta/run-2.agentlog",
            ]
        );
        // Every file joins back to the path it was listed at; no path is held per file.
        assert!(listing.files.iter().all(|f| f.1.is_none()));
        let pairs = listing.clone().into_pairs();
        for (name, path) in &pairs {
            assert_eq!(path, &root.join(name));
        }
        let l = super::super::layout::group(listing, Listing::default(), None, |_| None);
        type Shape<'a> = (&'a str, Vec<&'a str>, Vec<Option<&'a str>>);
        let shape: Vec<Shape> = l
            .cases
            .iter()
            .map(|c| {
                (
                    c.key.as_str(),
                    c.baseline.iter().map(|f| &*f.name).collect(),
                    c.baseline.iter().map(|f| f.trial.as_deref()).collect(),
                )
            })
            .collect();
        assert_eq!(
            shape,
            [
                (
                    "a/b/c/d",
                    vec!["a/b/c/d.1.agentlog", "a/b/c/d.2.agentlog"],
                    vec![Some("1"), Some("2")]
                ),
                (
                    "café/Ωmega",
                    vec!["café/Ωmega/run-1.agentlog", "café/Ωmega/run-2.agentlog"],
                    vec![Some("1"), Some("2")]
                ),
                (
                    "zeta",
                    vec!["zeta/run-1.agentlog", "zeta/run-2.agentlog"],
                    vec![Some("1"), Some("2")]
                ),
            ]
        );
        let f = &l.cases[1].baseline[1];
        assert_eq!(f.path(), root.join("café/Ωmega/run-2.agentlog"));
        assert!(matches!(f.origin, Origin::Joined(_)));
        // The root is shared by every file of the side, not copied.
        let roots: Vec<*const u8> = l
            .cases
            .iter()
            .flat_map(|c| &c.baseline)
            .map(|f| match &f.origin {
                Origin::Joined(r) => r.as_os_str().as_encoded_bytes().as_ptr(),
                Origin::Whole(_) => std::ptr::null(),
            })
            .collect();
        assert!(roots.windows(2).all(|w| w[0] == w[1]) && !roots[0].is_null());
    }

    #[cfg(unix)]
    #[test]
    fn a_name_that_is_not_utf8_keeps_its_own_path() {
        use std::os::unix::ffi::OsStrExt;
        let root = Path::new("/r");
        let bytes = [b"/r/case/run-".as_slice(), &[0xff], b".agentlog"].concat();
        let odd = PathBuf::from(std::ffi::OsStr::from_bytes(&bytes));
        let listing = Listing::new(root, vec![odd.clone(), root.join("case/run-2.agentlog")]);
        let pairs = listing.into_pairs();
        assert_eq!(pairs.len(), 2);
        assert!(pairs.iter().any(|(_, p)| p == &odd), "{pairs:?}");
        assert!(pairs
            .iter()
            .all(|(n, p)| n.contains('\u{fffd}') == (p == &odd)));
    }
}
