//! Reading a path: files (their format detected by content in [`crate::formats`]) and
//! directories as sets of traces.

use crate::error::TraceError;
use crate::model::Trace;
use crate::options::ReadOptions;
use crate::traxr::{AnalyzerCase, ExperimentResults};
use rayon::prelude::*;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

/// Maximum number of files read from one directory.
pub const MAX_DIRECTORY_FILES: usize = 100_000;

/// What a file turned out to hold.
#[derive(Debug, Clone, PartialEq)]
pub enum Document {
    /// One trace (`.agentlog` or a bare traxr trace).
    Trace(Trace),
    /// A traxr experiment results file.
    Results(Box<ExperimentResults>),
    /// A traxr analyzer golden case.
    AnalyzerCase(Box<AnalyzerCase>),
}

impl Document {
    /// The single trace, or an error naming what the file holds instead.
    pub fn into_trace(self, source: &str) -> Result<Trace, TraceError> {
        match self {
            Document::Trace(t) => Ok(t),
            Document::Results(_) => Err(TraceError::new(
                source,
                None,
                "(file)",
                "this is a traxr experiment results file, not a single trace",
            )
            .with_hint("use `veer experiment analyze` on it")),
            Document::AnalyzerCase(_) => Err(TraceError::new(
                source,
                None,
                "(file)",
                "this is a traxr analyzer case (two traces), not a single trace",
            )
            .with_hint("use `veer experiment pair` on it")),
        }
    }

    /// Every trace the document holds, in file order: the trace; a results file's runs; an
    /// analyzer case's clean then perturbed trace.
    pub fn into_traces(self) -> Vec<Trace> {
        match self {
            Document::Trace(t) => vec![t],
            Document::Results(r) => r.traces.into_iter().map(|(_, t)| t).collect(),
            Document::AnalyzerCase(c) => vec![c.clean, c.perturbed],
        }
    }
}

/// Reads one file, detecting its format by content.
pub fn load_file(path: &Path, options: &ReadOptions) -> Result<Document, TraceError> {
    let source = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|e| open_error(&source, &e))?;
    if meta.is_dir() {
        return Err(TraceError::new(
            &source,
            None,
            "(file)",
            "is a directory, expected a trace file",
        )
        .with_hint("pass a file, or use a command that reads directories"));
    }
    let file = File::open(path).map_err(|e| open_error(&source, &e))?;
    let document = crate::formats::read_document(
        &source,
        BufReader::with_capacity(1 << 16, file),
        options,
        Some(meta.len()),
    )?;
    // A Claude Code session whose sub-agents wrote files of their own is read with them.
    if let Document::Trace(t) = &document {
        if t.format == veer_base::format::Format::ClaudeCode {
            let agents = crate::formats::claude_subagents::companions(path, t);
            if !agents.is_empty() {
                let t = crate::formats::claude_subagents::read_session(path, agents, options)?;
                if t.records.len() as u64 > options.max_records {
                    return Err(crate::limits::too_many_records(
                        &source,
                        None,
                        options.max_records,
                    ));
                }
                return Ok(Document::Trace(t));
            }
        }
    }
    Ok(document)
}

/// Reads a document held in memory, detecting its format by content (as [`load_file`]).
pub fn load_bytes(
    source: &str,
    bytes: &[u8],
    options: &ReadOptions,
) -> Result<Document, TraceError> {
    crate::formats::read_document(source, bytes, options, Some(bytes.len() as u64))
}

/// Reads one file that must hold a single trace.
pub fn load_trace(path: &Path, options: &ReadOptions) -> Result<Trace, TraceError> {
    let source = path.display().to_string();
    load_file(path, options)?.into_trace(&source)
}

pub(crate) fn open_error(source: &str, e: &std::io::Error) -> TraceError {
    if let Some(limit) = crate::limits::bytes_exceeded(e) {
        return crate::limits::trace_too_large(source, limit);
    }
    let (msg, hint) = match e.kind() {
        std::io::ErrorKind::OutOfMemory => (
            "cannot read: out of memory".to_string(),
            "the file needs more memory than veer can get; lower --max-trace-bytes or split the input",
        ),
        std::io::ErrorKind::NotFound => ("no such file or directory".to_string(), "check the path"),
        std::io::ErrorKind::PermissionDenied => (
            "permission denied".to_string(),
            "check the file's permissions",
        ),
        _ => (
            format!("cannot read: {e}"),
            "check that the file is readable",
        ),
    };
    TraceError::new(source, None, "(file)", msg).with_hint(hint)
}

/// Whether a file name looks like a trace veer reads from a directory.
pub(crate) fn is_trace_file_name(name: &str) -> bool {
    !name.starts_with('.')
        && [".agentlog", ".agentlog.gz", ".jsonl", ".jsonl.gz", ".json"]
            .iter()
            .any(|ext| name.ends_with(ext))
}

/// An entry of a trace directory that is never opened: a trace-named entry that is not a
/// regular file. Reading a FIFO would block until some writer came, a socket or a device is
/// not a recording; a symlink is followed, and counts as what it points to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedEntry {
    /// The entry's path.
    pub path: PathBuf,
    /// What it is: `FIFO`, `socket`, `character device`, `block device`, `dangling symlink`,
    /// `symlink to a FIFO`, …
    pub kind: String,
}

impl std::fmt::Display for SkippedEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: skipped: a {} is not a trace file (only regular files are read from a directory)",
            self.path.display(),
            self.kind
        )
    }
}

/// The trace files of a directory and the trace-named entries skipped because they are not
/// regular files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TraceFiles {
    /// Regular files (or symlinks to regular files), sorted by relative path (byte order).
    pub files: Vec<PathBuf>,
    /// Entries never opened, in relative-path order.
    pub skipped: Vec<SkippedEntry>,
}

/// What a file type names, for a skipped entry.
fn kind_name(ft: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "FIFO";
        }
        if ft.is_socket() {
            return "socket";
        }
        if ft.is_char_device() {
            return "character device";
        }
        if ft.is_block_device() {
            return "block device";
        }
    }
    if ft.is_dir() {
        return "directory";
    }
    "file that is not a regular file"
}

/// The trace files under `dir`, recursively, sorted by relative path (byte order). Hidden
/// entries are skipped; unreadable directories are errors. Only regular files are listed:
/// see [`list_trace_files`] for the entries left out.
pub fn trace_files(dir: &Path) -> Result<Vec<PathBuf>, TraceError> {
    Ok(list_trace_files(dir)?.files)
}

/// The trace files under `dir`, recursively, sorted by relative path (byte order), and the
/// trace-named entries that are not regular files, which are never opened (a FIFO would block
/// the read forever). Symlinks are followed: to a directory, it is walked; to a regular file,
/// it is listed; dangling or to anything else, it is skipped. Hidden entries are skipped
/// silently; unreadable directories are errors.
pub fn list_trace_files(dir: &Path) -> Result<TraceFiles, TraceError> {
    let mut files = Vec::new();
    let skipped = walk_trace_files(dir, |path| {
        files.push(path);
        Ok::<(), TraceError>(())
    })?;
    let relative = |p: &PathBuf| -> Vec<u8> {
        p.strip_prefix(dir)
            .unwrap_or(p)
            .as_os_str()
            .as_encoded_bytes()
            .to_vec()
    };
    files.sort_by_cached_key(relative);
    Ok(TraceFiles { files, skipped })
}

/// [`list_trace_files`] without holding the list: each trace file's path is handed to `visit`
/// as it is found, in directory order (not sorted), so a caller that groups or spills the files
/// holds none of them here. Returns the skipped entries, sorted by relative path. Errors as
/// [`list_trace_files`] (an unreadable directory, more than [`MAX_DIRECTORY_FILES`] files, no
/// trace file at all), or the first error `visit` returns (the walk stops there).
///
/// Memory: the directories still to walk (one path each) and the skipped entries; never the
/// files.
pub fn walk_trace_files<E: From<TraceError>>(
    dir: &Path,
    mut visit: impl FnMut(PathBuf) -> Result<(), E>,
) -> Result<Vec<SkippedEntry>, E> {
    let source = dir.display().to_string();
    let meta = std::fs::metadata(dir).map_err(|e| open_error(&source, &e))?;
    if !meta.is_dir() {
        return Err(TraceError::new(&source, None, "(file)", "not a directory").into());
    }
    let mut found = 0usize;
    let mut skipped = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries =
            std::fs::read_dir(&d).map_err(|e| open_error(&d.display().to_string(), &e))?;
        for entry in entries {
            let entry = entry.map_err(|e| open_error(&d.display().to_string(), &e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let path = entry.path();
            let ft = entry
                .file_type()
                .map_err(|e| open_error(&path.display().to_string(), &e))?;
            // What the entry is once symlinks are followed (`None`: a dangling link).
            let target = if ft.is_symlink() {
                std::fs::metadata(&path).ok().map(|m| m.file_type())
            } else {
                Some(ft)
            };
            if target.is_some_and(|t| t.is_dir()) {
                stack.push(path);
                continue;
            }
            // A sub-agent log is read with its session file when that is in the directory.
            if !is_trace_file_name(&name) || crate::formats::claude_subagents::is_companion(&path) {
                continue;
            }
            match target {
                Some(t) if t.is_file() => {
                    found += 1;
                    if found > MAX_DIRECTORY_FILES {
                        return Err(TraceError::new(
                            &source,
                            None,
                            "(file)",
                            format!("more than {MAX_DIRECTORY_FILES} trace files"),
                        )
                        .with_hint("point veer at a smaller directory")
                        .into());
                    }
                    visit(path)?;
                }
                Some(t) if ft.is_symlink() => skipped.push(SkippedEntry {
                    path,
                    kind: format!("symlink to a {}", kind_name(t)),
                }),
                Some(t) => skipped.push(SkippedEntry {
                    path,
                    kind: kind_name(t).to_string(),
                }),
                None => skipped.push(SkippedEntry {
                    path,
                    kind: "dangling symlink".to_string(),
                }),
            }
        }
    }
    skipped.sort_by_cached_key(|s: &SkippedEntry| {
        s.path
            .strip_prefix(dir)
            .unwrap_or(&s.path)
            .as_os_str()
            .as_encoded_bytes()
            .to_vec()
    });
    if found == 0 {
        let hint = if skipped.is_empty() {
            "veer reads *.agentlog, *.agentlog.gz, *.jsonl and *.json files".to_string()
        } else {
            format!(
                "veer reads regular *.agentlog, *.agentlog.gz, *.jsonl and *.json files; {} entr{} skipped, not being regular files (first: {})",
                skipped.len(),
                if skipped.len() == 1 { "y was" } else { "ies were" },
                skipped[0].path.display()
            )
        };
        return Err(
            TraceError::new(&source, None, "(file)", "directory holds no traces")
                .with_hint(hint)
                .into(),
        );
    }
    Ok(skipped)
}

/// One file of a directory read: its path relative to the directory and what came of it.
#[derive(Debug)]
pub struct DirectoryEntry {
    /// Path relative to the directory, `/`-separated.
    pub relative: String,
    /// The full path.
    pub path: PathBuf,
    /// The trace, or why it could not be read.
    pub trace: Result<Trace, TraceError>,
}

/// Reads every trace under `dir` (sorted, recursive). Files that fail are returned with their
/// error, never skipped silently; entries that are not regular files are never opened and come
/// back as the second list (for the caller to name in a warning).
pub fn load_directory(
    dir: &Path,
    options: &ReadOptions,
) -> Result<(Vec<DirectoryEntry>, Vec<SkippedEntry>), TraceError> {
    let TraceFiles { files, skipped } = list_trace_files(dir)?;
    // Files are read on all cores, listed in path order.
    let entries = files
        .into_par_iter()
        .map(|path| {
            let relative = relative_name(dir, &path);
            let trace = load_trace(&path, options);
            DirectoryEntry {
                relative,
                path,
                trace,
            }
        })
        .collect();
    Ok((entries, skipped))
}

/// `path` relative to `dir`, with `/` separators.
pub fn relative_name(dir: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(dir).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}
