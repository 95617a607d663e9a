//! Writing baselines: `create` / `update` (a new version, built aside and renamed into place)
//! and `approve` (a new manifest revision, linked into place only if its name is free).

use super::manifest::{infer_layout, Approval, FileEntry, Manifest, PolicyRef, Source};
use super::verify::{verify, versions};
use super::{sha256_hex, BaselineError, MANIFEST_SCHEMA_VERSION};
use rayon::prelude::*;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use veer_trace::load::{list_trace_files, relative_name, SkippedEntry};
use veer_trace::{Document, ReadOptions, TraceError};

/// What `create` / `update` record besides the traces.
#[derive(Debug, Clone)]
pub struct CreateOptions {
    /// The baseline's name (checked by `super::check_name`).
    pub name: String,
    /// veer's version.
    pub veer_version: String,
    /// Creation time, `YYYY-MM-DDTHH:MM:SS.sssZ`.
    pub created_at: String,
    /// Provenance.
    pub source: Source,
    /// The policy's path and hash, when given.
    pub policy: Option<PolicyRef>,
    /// How each trace is read (every file is read once to check it and pick its compression).
    pub read: ReadOptions,
    /// `true` for `update` (a new version of an existing baseline), `false` for `create`
    /// (refused when the baseline exists).
    pub update: bool,
}

/// A stored version.
#[derive(Debug, Clone)]
pub struct Created {
    /// Its manifest (revision 1).
    pub manifest: Manifest,
    /// Its directory (`…/NAME/vN`).
    pub version_dir: PathBuf,
    /// Trace-named entries of the runs directory that are not regular files, never read.
    pub skipped: Vec<SkippedEntry>,
}

fn trace_error(e: &TraceError) -> BaselineError {
    BaselineError::new(
        e.to_string(),
        e.hint
            .clone()
            .unwrap_or_else(|| "a baseline stores only traces veer can read".into()),
    )
}

/// Stores the traces of `runs` as a new version of the baseline in `dir` (`…/NAME`).
pub fn create(dir: &Path, runs: &Path, options: &CreateOptions) -> Result<Created, BaselineError> {
    super::check_name(&options.name)?;
    let existing = versions(dir)?;
    let version = match (existing.last(), options.update) {
        (Some(&last), true) => last + 1,
        (None, false) => 1,
        (Some(&last), false) => {
            return Err(BaselineError::new(
                format!("{}: baseline `{}` already exists (latest version {last})", dir.display(), options.name),
                format!("store a new version with `veer baseline update {} --name {}`; versions are never replaced", runs.display(), options.name),
            ))
        }
        (None, true) => {
            return Err(BaselineError::new(
                format!("{}: no baseline `{}` to update", dir.display(), options.name),
                format!("create it first: `veer baseline create {} --name {}`", runs.display(), options.name),
            ))
        }
    };
    let listing = list_trace_files(runs).map_err(|e| trace_error(&e))?;
    fs::create_dir_all(dir)
        .map_err(|e| BaselineError::io(dir, "create the baseline directory", &e))?;
    let tmp = dir.join(format!(".v{version}.{}.tmp", std::process::id()));
    if tmp.exists() {
        // Left by a run of this same process id that was killed; it was never a version.
        let _ = fs::remove_dir_all(&tmp);
    }
    let result = build(&tmp, runs, &listing.files, version, options);
    let manifest = match result {
        Ok(m) => m,
        Err(e) => {
            let _ = fs::remove_dir_all(&tmp);
            return Err(e);
        }
    };
    let version_dir = dir.join(format!("v{version}"));
    if let Err(e) = fs::rename(&tmp, &version_dir) {
        let _ = fs::remove_dir_all(&tmp);
        return Err(BaselineError::new(
            format!(
                "{}: cannot store version {version}: {e}",
                version_dir.display()
            ),
            "another veer may have stored this version at the same moment; run the command again",
        ));
    }
    Ok(Created {
        manifest,
        version_dir,
        skipped: listing.skipped,
    })
}

/// Fills the hidden directory `tmp` with the traces and the first manifest revision.
fn build(
    tmp: &Path,
    runs: &Path,
    files: &[PathBuf],
    version: u32,
    options: &CreateOptions,
) -> Result<Manifest, BaselineError> {
    let traces = tmp.join("traces");
    fs::create_dir_all(&traces)
        .map_err(|e| BaselineError::io(&traces, "create a directory", &e))?;
    let entries: Vec<Result<FileEntry, BaselineError>> = files
        .par_iter()
        .map(|path| store_one(runs, path, &traces, &options.read))
        .collect();
    let files = entries.into_iter().collect::<Result<Vec<_>, _>>()?;
    let paths: Vec<String> = files.iter().map(|f| f.path.clone()).collect();
    let manifest = Manifest {
        schema_version: MANIFEST_SCHEMA_VERSION,
        kind: "veer-baseline".into(),
        name: options.name.clone(),
        version,
        revision: 1,
        previous_revision_sha256: None,
        created_at: options.created_at.clone(),
        veer_version: options.veer_version.clone(),
        source: options.source.clone(),
        policy: options.policy.clone(),
        previous_version: version.checked_sub(1).filter(|v| *v > 0),
        layout: infer_layout(&paths),
        files,
        approvals: Vec::new(),
    };
    let manifests = tmp.join("manifests");
    fs::create_dir_all(&manifests)
        .map_err(|e| BaselineError::io(&manifests, "create a directory", &e))?;
    write_new(&manifests.join(revision_file(1)), &manifest.to_bytes())?;
    Ok(manifest)
}

/// The file name of manifest revision `r`: `0001.json`, …
pub(crate) fn revision_file(r: u32) -> String {
    format!("{r:04}.json")
}

/// Reads, checks and stores one trace; its manifest entry.
fn store_one(
    runs: &Path,
    path: &Path,
    traces: &Path,
    read: &ReadOptions,
) -> Result<FileEntry, BaselineError> {
    let rel = relative_name(runs, path);
    let source = path.display().to_string();
    let bytes = veer_base::capped::read_capped(path, read.max_trace_bytes).map_err(|e| match e
        .too_large_message("trace", Some("--max-trace-bytes"))
    {
        Some((m, h)) => BaselineError::new(format!("{source}: {m}"), h),
        None => match e {
            veer_base::capped::CappedError::Io(io) => BaselineError::io(path, "read", &io),
            _ => BaselineError::new(format!("{source}: cannot read"), "check the file"),
        },
    })?;
    let gzip_magic = bytes.starts_with(&[0x1f, 0x8b]);
    // Every trace is read once: a baseline holds only traces veer reads, and `.agentlog`
    // (whose reader reads gzip by its magic bytes) is compressed under its own name.
    let compress = match veer_trace::load_bytes(&source, &bytes, read) {
        Ok(Document::Trace(t)) => !gzip_magic && t.format == veer_base::format::Format::Agentlog,
        Ok(_) => false,
        Err(e) => return Err(trace_error(&e)),
    };
    let stored = if compress {
        gzip(&bytes)
    } else {
        bytes.clone()
    };
    let target = traces.join(&rel);
    if let Some(parent) = target.parent() {
        fs::create_dir_all(parent)
            .map_err(|e| BaselineError::io(parent, "create a directory", &e))?;
    }
    write_new(&target, &stored)?;
    Ok(FileEntry {
        path: rel,
        sha256: sha256_hex(&stored),
        bytes: stored.len() as u64,
        compression: if compress { "gzip" } else { "none" }.into(),
        source_sha256: sha256_hex(&bytes),
        source_bytes: bytes.len() as u64,
    })
}

/// gzip of `bytes`, deterministic (no name, no time in the header).
fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(
        Vec::with_capacity(bytes.len() / 3 + 64),
        flate2::Compression::default(),
    );
    // Writing to a Vec cannot fail.
    let _ = enc.write_all(bytes);
    enc.finish().unwrap_or_default()
}

/// Writes a file that must not exist yet: the bytes go to a hidden temporary file beside it,
/// are synced, then hard-linked to `path` (which fails if `path` exists, so nothing is ever
/// replaced) and the temporary name removed. The file is left read-only.
pub(crate) fn write_new(path: &Path, bytes: &[u8]) -> Result<(), BaselineError> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let written = (|| -> std::io::Result<()> {
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        let mut perms = f.metadata()?.permissions();
        perms.set_readonly(true);
        fs::set_permissions(&tmp, perms)?;
        fs::hard_link(&tmp, path)
    })();
    let _ = fs::remove_file(&tmp);
    written.map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => BaselineError::new(
            format!(
                "{}: already exists; baselines are never rewritten",
                path.display()
            ),
            "another veer may have written it at the same moment; run the command again",
        ),
        _ => BaselineError::io(path, "write", &e),
    })
}

/// Records an approval of version `version` (the latest when `None`) as a new manifest
/// revision, after verifying every file. Returns the new revision.
pub fn approve(
    dir: &Path,
    version: Option<u32>,
    approval: Approval,
) -> Result<Manifest, BaselineError> {
    let verified = verify(dir, version)?;
    let opened = verified.opened;
    let mut next = opened.manifest.clone();
    next.revision += 1;
    next.previous_revision_sha256 = Some(opened.revision_sha256.clone());
    next.approvals.push(approval);
    let path = opened
        .version_dir
        .join("manifests")
        .join(revision_file(next.revision));
    write_new(&path, &next.to_bytes())?;
    Ok(next)
}
