//! Baselines: a named, immutable, content-addressed copy of a directory of traces that later
//! runs are compared against (`veer baseline …`, `veer diff --baseline NAME`; docs/baselines.md).
//!
//! A baseline lives in one directory (`.veer/baselines/NAME/` by default):
//!
//! ```text
//! NAME/v1/traces/<relative path>    the traces (`.agentlog` gzip-compressed under its own name)
//! NAME/v1/manifests/0001.json       the manifest: every file's sha256, layout, provenance
//! NAME/v1/manifests/0002.json       an approval: the same files, one more approval recorded
//! NAME/v2/…                         `update`: a new version; v1 stays as it was
//! ```
//!
//! Nothing is ever rewritten: a version is built in a hidden directory and renamed into place
//! in one step, a manifest revision is written to a temporary file and linked to its name only
//! if that name is free, and stored files are made read-only. [`verify`] re-hashes every file,
//! checks every manifest revision against the first and the chain of revision hashes, and
//! names the first file that differs.

mod manifest;
mod store;
mod verify;

pub use verify::versions;

pub(crate) use manifest::MANIFEST_SCHEMA_VERSION;

pub(crate) use manifest::FileEntry;
pub use store::{approve, create, CreateOptions, Created};
pub use verify::{list, open, resolve, verify, Opened, Verified};

use std::fmt;
use std::path::{Path, PathBuf};

/// Longest baseline name, in bytes.
pub(crate) const MAX_NAME_BYTES: usize = 100;

/// A baseline failure: a message naming the file (and field), and what to do about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaselineError {
    /// What failed, naming the path.
    pub message: String,
    /// What to do about it.
    pub hint: String,
}

impl BaselineError {
    pub(crate) fn new(message: impl Into<String>, hint: impl Into<String>) -> Self {
        BaselineError {
            message: message.into(),
            hint: hint.into(),
        }
    }

    pub(crate) fn io(path: &Path, what: &str, e: &std::io::Error) -> Self {
        BaselineError::new(
            format!("{}: cannot {what}: {e}", path.display()),
            "check that the path exists and is readable and writable; nothing was changed",
        )
    }
}

impl fmt::Display for BaselineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for BaselineError {}

/// Checks a baseline name: 1 to [`MAX_NAME_BYTES`] bytes of ASCII letters, digits, `.`, `_`
/// and `-`, not starting with `.`.
pub(crate) fn check_name(name: &str) -> Result<(), BaselineError> {
    let ok = !name.is_empty()
        && name.len() <= MAX_NAME_BYTES
        && !name.starts_with('.')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if ok {
        Ok(())
    } else {
        Err(BaselineError::new(
            format!("`{name}` is not a baseline name"),
            "use letters, digits, `.`, `_` and `-` (at most 100, not starting with `.`), e.g. --name main",
        ))
    }
}

/// The directory of baseline `name` under `root`.
pub fn dir_of(root: &Path, name: &str) -> Result<PathBuf, BaselineError> {
    check_name(name)?;
    Ok(root.join(name))
}

/// Hex sha256 of `bytes` (64 lowercase hex digits).
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(bytes);
    let mut s = String::with_capacity(64);
    for b in digest {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

#[cfg(test)]
mod tests;
