//! The manifest of one baseline version: what was stored (each file's sha256 before and after
//! compression), how it is laid out in cases and trials, where it came from, who approved it.
//! Serialized as pretty JSON with its own `schema_version`; the same manifest gives the same
//! bytes.

use super::BaselineError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The manifest format's version (bumped when a field changes meaning or is removed).
pub(crate) const MANIFEST_SCHEMA_VERSION: u32 = 1;

/// Where a baseline's traces came from.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    /// The runs directory as given to `create` / `update`.
    pub runs_dir: String,
    /// The git commit of the runs, when known (CI variables, else `git rev-parse HEAD`).
    pub commit: Option<String>,
    /// The CI run that made them, when known (`GITHUB_RUN_ID`, `CI_PIPELINE_ID`, …).
    pub ci_run: Option<String>,
    /// The CI system named by the environment (`github`, `gitlab`, …), when known.
    pub ci_provider: Option<String>,
}

/// The policy the baseline was made under (`--policy`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolicyRef {
    /// The policy file as given.
    pub path: String,
    /// Hex sha256 of its bytes.
    pub sha256: String,
}

/// One stored file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    /// Path relative to the version's `traces/` directory, `/`-separated (the same relative
    /// path as in the runs directory, so a directory diff pairs it with the candidate's).
    pub path: String,
    /// Hex sha256 of the stored bytes.
    pub sha256: String,
    /// Stored size in bytes.
    pub bytes: u64,
    /// `gzip` (veer compressed it) or `none` (stored as read: already gzip, or a JSON format
    /// whose reader does not read gzip).
    pub compression: String,
    /// Hex sha256 of the bytes as read from the runs directory.
    pub source_sha256: String,
    /// Size in bytes as read from the runs directory.
    pub source_bytes: u64,
}

/// One case and its trial files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaseLayout {
    /// The case: the file's parent directory (relative), or the file's name without its
    /// trace extension when it sits at the top.
    pub case: String,
    /// Its trace files (relative paths), in byte order: one per trial.
    pub trials: Vec<String>,
}

/// The case/trial layout inferred from the relative paths.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layout {
    /// Cases in byte order of their names.
    pub cases: Vec<CaseLayout>,
}

/// One approval.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Approval {
    /// Who approved (`--by`, else the CI actor or the user name).
    pub by: String,
    /// When, as `YYYY-MM-DDTHH:MM:SS.sssZ`.
    pub at: String,
    /// Why (`--reason`).
    pub reason: String,
}

/// A baseline version's manifest (one revision of it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// `MANIFEST_SCHEMA_VERSION`.
    pub schema_version: u32,
    /// Always `veer-baseline`.
    pub kind: String,
    /// The baseline's name.
    pub name: String,
    /// The version (1, 2, …): a new one per `update`.
    pub version: u32,
    /// The manifest revision within the version (1 at creation, +1 per approval).
    pub revision: u32,
    /// Hex sha256 of the previous revision's file; `None` for revision 1.
    pub previous_revision_sha256: Option<String>,
    /// When the version was created, `YYYY-MM-DDTHH:MM:SS.sssZ`.
    pub created_at: String,
    /// The veer that created it.
    pub veer_version: String,
    /// Where the traces came from.
    pub source: Source,
    /// The policy, when `--policy` was given.
    pub policy: Option<PolicyRef>,
    /// The version this one replaced (`update`); `None` for the first.
    pub previous_version: Option<u32>,
    /// Cases and trials.
    pub layout: Layout,
    /// Every stored file, in path byte order.
    pub files: Vec<FileEntry>,
    /// Approvals, oldest first.
    pub approvals: Vec<Approval>,
}

impl Manifest {
    /// The manifest as stored: pretty JSON and a final newline.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec_pretty(self).unwrap_or_default();
        bytes.push(b'\n');
        bytes
    }

    /// Reads a manifest file, naming it (and the JSON path) in errors.
    pub fn read(path: &Path, bytes: &[u8]) -> Result<Manifest, BaselineError> {
        let de = &mut serde_json::Deserializer::from_slice(bytes);
        let m: Manifest = serde_path_to_error::deserialize(de).map_err(|e| {
            BaselineError::new(
                format!("{}: ({}): not a baseline manifest: {}", path.display(), e.path(), e.inner()),
                "the manifest was changed or damaged; restore the baseline from a copy or create a new version",
            )
        })?;
        if m.schema_version != MANIFEST_SCHEMA_VERSION || m.kind != "veer-baseline" {
            return Err(BaselineError::new(
                format!(
                    "{}: (schema_version): manifest schema version {} of kind `{}` is not one this veer reads (version {MANIFEST_SCHEMA_VERSION}, kind veer-baseline)",
                    path.display(),
                    m.schema_version,
                    m.kind
                ),
                "use the veer that created the baseline, or create a new one",
            ));
        }
        Ok(m)
    }
}

/// The trace extensions stripped from a top-level file's name to make its case name.
const EXTENSIONS: [&str; 5] = [".agentlog.gz", ".jsonl.gz", ".agentlog", ".jsonl", ".json"];

/// The layout of `paths` (relative, `/`-separated): a file under a directory belongs to the
/// case named by that directory; a top-level file is a case of its own.
pub(crate) fn infer_layout(paths: &[String]) -> Layout {
    let mut cases: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for p in paths {
        let case = match p.rsplit_once('/') {
            Some((dir, _)) => dir.to_string(),
            None => EXTENSIONS
                .iter()
                .find_map(|ext| p.strip_suffix(ext))
                .unwrap_or(p)
                .to_string(),
        };
        cases.entry(case).or_default().push(p.clone());
    }
    Layout {
        cases: cases
            .into_iter()
            .map(|(case, mut trials)| {
                trials.sort();
                CaseLayout { case, trials }
            })
            .collect(),
    }
}
