//! Reading baselines back: their versions, the current manifest revision (checked against
//! every earlier one), every file re-hashed (`verify`), and the list of baselines.

use super::manifest::{read_manifest, Manifest};
use super::store::revision_file;
use super::{check_name, sha256_hex, BaselineError};
use rayon::prelude::*;
use std::collections::BTreeSet;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Most manifest revisions (approvals + 1) read from one version.
pub(crate) const MAX_REVISIONS: u32 = 10_000;

/// The version numbers stored in a baseline directory (`v1`, `v2`, …), ascending; empty when
/// the directory does not exist.
pub fn versions(dir: &Path) -> Result<Vec<u32>, BaselineError> {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(BaselineError::io(dir, "read the baseline directory", &e)),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| BaselineError::io(dir, "read the baseline directory", &e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(n) = name.strip_prefix('v').and_then(|n| n.parse::<u32>().ok()) {
            if format!("v{n}") == name && n > 0 {
                out.push(n);
            }
        }
    }
    out.sort_unstable();
    Ok(out)
}

/// A baseline version's current manifest revision, checked against the earlier ones.
#[derive(Debug, Clone)]
pub struct Opened {
    /// The version's directory (`…/NAME/vN`).
    pub version_dir: PathBuf,
    /// The current (highest) revision of its manifest.
    pub manifest: Manifest,
    /// Hex sha256 of that revision's file.
    pub revision_sha256: String,
    /// Every version of the baseline, ascending.
    pub versions: Vec<u32>,
}

/// A verified version: every file hashed and matching its manifest.
#[derive(Debug, Clone)]
pub struct Verified {
    /// The version and its manifest.
    pub opened: Opened,
    /// Its directory of traces, ready for a directory diff.
    pub traces: PathBuf,
}

fn tampered(path: &Path, what: String) -> BaselineError {
    BaselineError::new(
        format!("{}: {what}", path.display()),
        "the baseline was changed after it was stored; restore it from a copy, or store the runs again with `veer baseline update`",
    )
}

/// Opens version `version` (the latest when `None`) of the baseline in `dir`: reads every
/// manifest revision and checks that they form one chain (each names the sha256 of the one
/// before it and lists the same files). Files are not hashed here; see [`verify`].
pub fn open(dir: &Path, version: Option<u32>) -> Result<Opened, BaselineError> {
    let all = versions(dir)?;
    let Some(&latest) = all.last() else {
        return Err(BaselineError::new(
            format!("{}: no baseline here", dir.display()),
            "create one with `veer baseline create RUNS_DIR --name NAME`; `veer baseline list` shows those there are",
        ));
    };
    let v = version.unwrap_or(latest);
    if !all.contains(&v) {
        return Err(BaselineError::new(
            format!(
                "{}: no version {v} (versions: {})",
                dir.display(),
                list_numbers(&all)
            ),
            "name a stored version, e.g. main@1, or leave the version off for the latest",
        ));
    }
    let version_dir = dir.join(format!("v{v}"));
    let manifests = version_dir.join("manifests");
    let mut revisions: Vec<u32> = Vec::new();
    let entries = fs::read_dir(&manifests)
        .map_err(|e| BaselineError::io(&manifests, "read the manifests", &e))?;
    for entry in entries {
        let entry = entry.map_err(|e| BaselineError::io(&manifests, "read the manifests", &e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        match name
            .strip_suffix(".json")
            .and_then(|n| n.parse::<u32>().ok())
        {
            Some(r) if revision_file(r) == name && r > 0 => revisions.push(r),
            _ => {
                return Err(tampered(
                    &entry.path(),
                    "not a manifest revision of this baseline".into(),
                ))
            }
        }
    }
    revisions.sort_unstable();
    let count = revisions.len() as u32;
    if count == 0 || count > MAX_REVISIONS || revisions.iter().zip(1..).any(|(r, k)| *r != k) {
        return Err(tampered(
            &manifests,
            format!(
                "manifest revisions are not 1..N: {}",
                list_numbers(&revisions)
            ),
        ));
    }
    let mut first: Option<Manifest> = None;
    let mut current: Option<(Manifest, String)> = None;
    for r in 1..=count {
        let path = manifests.join(revision_file(r));
        let bytes = veer_base::capped::read_capped(&path, 256 << 20).map_err(|e| match e {
            veer_base::capped::CappedError::Io(io) => BaselineError::io(&path, "read", &io),
            _ => tampered(&path, "manifest larger than 256 MiB".into()),
        })?;
        let m = read_manifest(&path, &bytes)?;
        if m.revision != r || m.version != v {
            return Err(tampered(
                &path,
                format!(
                    "(revision): says version {} revision {}, stored as version {v} revision {r}",
                    m.version, m.revision
                ),
            ));
        }
        let previous_sha = current.as_ref().map(|(_, sha)| sha);
        if m.previous_revision_sha256.as_ref() != previous_sha {
            return Err(tampered(
                &path,
                format!(
                    "(previous_revision_sha256): does not match the sha256 of revision {} ({})",
                    r - 1,
                    previous_sha.map_or("none", String::as_str)
                ),
            ));
        }
        if let Some(f) = &first {
            if m.files != f.files
                || m.layout != f.layout
                || m.created_at != f.created_at
                || m.name != f.name
            {
                return Err(tampered(&path, "(files): differs from the version's first revision; an approval never changes the files".into()));
            }
        } else {
            first = Some(m.clone());
        }
        current = Some((m, sha256_hex(&bytes)));
    }
    let (manifest, revision_sha256) =
        current.ok_or_else(|| tampered(&manifests, "no manifest".into()))?;
    Ok(Opened {
        version_dir,
        manifest,
        revision_sha256,
        versions: all,
    })
}

fn list_numbers(v: &[u32]) -> String {
    if v.is_empty() {
        return "none".into();
    }
    v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
}

/// [`open`], then every stored file hashed against the manifest (and, for compressed files,
/// decompressed and hashed against the source hash); a file missing, added, or different is
/// an error naming it (the first in path order).
pub fn verify(dir: &Path, version: Option<u32>) -> Result<Verified, BaselineError> {
    let opened = open(dir, version)?;
    let traces = opened.version_dir.join("traces");
    let mut on_disk = BTreeSet::new();
    walk(&traces, &traces, &mut on_disk)?;
    let listed: BTreeSet<&str> = opened
        .manifest
        .files
        .iter()
        .map(|f| f.path.as_str())
        .collect();
    if let Some(extra) = on_disk.iter().find(|p| !listed.contains(p.as_str())) {
        return Err(tampered(
            &traces.join(extra),
            "not in the manifest (a file was added to the baseline)".into(),
        ));
    }
    let problems: Vec<Option<BaselineError>> = opened
        .manifest
        .files
        .par_iter()
        .map(|f| {
            let path = traces.join(&f.path);
            if !on_disk.contains(&f.path) {
                return Some(tampered(&path, "missing (the manifest lists it)".into()));
            }
            check_file(&path, f).err()
        })
        .collect();
    if let Some(e) = problems.into_iter().flatten().next() {
        return Err(e);
    }
    Ok(Verified { opened, traces })
}

/// Hashes one stored file against its entry.
fn check_file(path: &Path, f: &super::FileEntry) -> Result<(), BaselineError> {
    let bytes = veer_base::capped::read_capped(path, f.bytes).map_err(|e| match e {
        veer_base::capped::CappedError::Io(io) => BaselineError::io(path, "read", &io),
        _ => tampered(
            path,
            format!(
                "sha256 mismatch: the file is larger than the {} bytes the manifest records",
                f.bytes
            ),
        ),
    })?;
    let sha = sha256_hex(&bytes);
    if sha != f.sha256 {
        return Err(tampered(
            path,
            format!(
                "sha256 mismatch: the manifest records {}, the file hashes to {sha}",
                f.sha256
            ),
        ));
    }
    let source = match f.compression.as_str() {
        "gzip" => {
            let mut out = Vec::new();
            let mut dec = flate2::read::GzDecoder::new(bytes.as_slice())
                .take(f.source_bytes.saturating_add(1));
            dec.read_to_end(&mut out)
                .map_err(|e| tampered(path, format!("cannot decompress: {e}")))?;
            sha256_hex(&out)
        }
        _ => sha,
    };
    if source != f.source_sha256 {
        return Err(tampered(
            path,
            format!(
                "source sha256 mismatch: the manifest records {}, the content hashes to {source}",
                f.source_sha256
            ),
        ));
    }
    Ok(())
}

/// Every entry under `dir` as a relative `/` path; anything that is not a regular file or a
/// directory (a symlink, a FIFO) is an error naming it.
fn walk(root: &Path, dir: &Path, out: &mut BTreeSet<String>) -> Result<(), BaselineError> {
    let entries = fs::read_dir(dir).map_err(|e| BaselineError::io(dir, "read", &e))?;
    for entry in entries {
        let entry = entry.map_err(|e| BaselineError::io(dir, "read", &e))?;
        let path = entry.path();
        let ft = entry
            .file_type()
            .map_err(|e| BaselineError::io(&path, "read", &e))?;
        if ft.is_dir() {
            walk(root, &path, out)?;
        } else if ft.is_file() {
            out.insert(veer_trace::load::relative_name(root, &path));
        } else {
            return Err(tampered(
                &path,
                "not a regular file (baselines hold regular files only)".into(),
            ));
        }
    }
    Ok(())
}

/// Splits `NAME@N` / `PATH@N` into the baseline and its version, and finds its directory: a
/// spec containing `/` (or starting with `.`) is a path to a baseline directory; anything
/// else a name under `root`.
pub fn resolve(root: &Path, spec: &str) -> Result<(PathBuf, Option<u32>), BaselineError> {
    let (base, version) = match spec.rsplit_once('@') {
        Some((b, v)) if !v.is_empty() && v.bytes().all(|c| c.is_ascii_digit()) => {
            let n = v.parse::<u32>().ok().filter(|n| *n > 0).ok_or_else(|| {
                BaselineError::new(
                    format!("`{spec}`: version `{v}` is not a version number"),
                    "versions are 1, 2, …",
                )
            })?;
            (b, Some(n))
        }
        _ => (spec, None),
    };
    if base.contains('/') || base.starts_with('.') {
        return Ok((PathBuf::from(base), version));
    }
    check_name(base)?;
    Ok((root.join(base), version))
}

use veer_contract::baseline::BaselineSummary;

/// The baselines under `root`, by name; an empty list when `root` does not exist.
pub fn list(root: &Path) -> Result<Vec<BaselineSummary>, BaselineError> {
    let entries = match fs::read_dir(root) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(BaselineError::io(root, "read", &e)),
    };
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| BaselineError::io(root, "read", &e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if check_name(&name).is_ok() && entry.path().is_dir() {
            names.push(name);
        }
    }
    names.sort();
    Ok(names
        .into_iter()
        .map(|name| match open(&root.join(&name), None) {
            Ok(o) => BaselineSummary {
                name,
                versions: o.versions,
                revision: o.manifest.revision,
                files: o.manifest.files.len(),
                cases: o.manifest.layout.cases.len(),
                approvals: o.manifest.approvals.len(),
                created_at: o.manifest.created_at,
                commit: o.manifest.source.commit,
                problem: None,
            },
            Err(e) => BaselineSummary {
                name,
                versions: Vec::new(),
                revision: 0,
                files: 0,
                cases: 0,
                approvals: 0,
                created_at: String::new(),
                commit: None,
                problem: Some(e.message),
            },
        })
        .collect())
}
