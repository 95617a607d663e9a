//! A stored baseline's manifest — what was stored (each file's sha256 before and after
//! compression), how it is laid out in cases and trials, where it came from, who approved it —
//! and the one-line summary `veer baseline list` prints per baseline. Plain data: veer-engine
//! writes, reads and verifies baselines; the printers in veer-report lay these out.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The manifest format's version (bumped when a field changes meaning or is removed).
pub const MANIFEST_SCHEMA_VERSION: u32 = 1;

/// Where a baseline's traces came from.
#[derive(JsonSchema, Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BaselineSource {
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
#[derive(JsonSchema, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BaselinePolicy {
    /// The policy file as given.
    pub path: String,
    /// Hex sha256 of its bytes.
    pub sha256: String,
}

/// One stored file.
#[derive(JsonSchema, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BaselineFile {
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
#[derive(JsonSchema, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BaselineCase {
    /// The case: the file's parent directory (relative), or the file's name without its
    /// trace extension when it sits at the top.
    pub case: String,
    /// Its trace files (relative paths), in byte order: one per trial.
    pub trials: Vec<String>,
}

/// The case/trial layout inferred from the relative paths.
#[derive(JsonSchema, Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BaselineLayout {
    /// Cases in byte order of their names.
    pub cases: Vec<BaselineCase>,
}

/// One approval.
#[derive(JsonSchema, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BaselineApproval {
    /// Who approved (`--by`, else the CI actor or the user name).
    pub by: String,
    /// When, as `YYYY-MM-DDTHH:MM:SS.sssZ`.
    pub at: String,
    /// Why (`--reason`).
    pub reason: String,
}

/// A baseline version's manifest (one revision of it).
#[derive(JsonSchema, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BaselineManifest {
    /// [`MANIFEST_SCHEMA_VERSION`].
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
    pub source: BaselineSource,
    /// The policy, when `--policy` was given.
    pub policy: Option<BaselinePolicy>,
    /// The version this one replaced (`update`); `None` for the first.
    pub previous_version: Option<u32>,
    /// Cases and trials.
    pub layout: BaselineLayout,
    /// Every stored file, in path byte order.
    pub files: Vec<BaselineFile>,
    /// Approvals, oldest first.
    pub approvals: Vec<BaselineApproval>,
}

impl BaselineManifest {
    /// The manifest as stored: pretty JSON and a final newline.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec_pretty(self).unwrap_or_default();
        bytes.push(b'\n');
        bytes
    }
}

/// One line of `veer baseline list`.
#[derive(JsonSchema, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BaselineSummary {
    /// The baseline's name (its directory's name).
    pub name: String,
    /// Its versions, ascending.
    pub versions: Vec<u32>,
    /// The latest version's manifest revision.
    pub revision: u32,
    /// Files in the latest version.
    pub files: usize,
    /// Cases in the latest version.
    pub cases: usize,
    /// Approvals of the latest version.
    pub approvals: usize,
    /// When the latest version was created.
    pub created_at: String,
    /// Its commit, when known.
    pub commit: Option<String>,
    /// Why its manifest could not be read, when it could not (files are not hashed here).
    pub problem: Option<String>,
}
