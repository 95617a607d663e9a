//! Writing an output file without ever destroying what is there (`-o`, `--out`).
//!
//! - A regular file (or a path that does not exist yet) is replaced atomically: the bytes go to a
//!   hidden temporary file beside it, are synced, then renamed over it. A failure at any step
//!   (no space, a read-only or missing directory, an interrupt) leaves the old file as it was and
//!   no temporary file behind.
//! - A symlink to a regular file is followed: the file it points to is replaced atomically in
//!   *that* file's directory, and the link itself stays.
//! - Anything else that exists — a character or block device, a FIFO, a socket, or a path that
//!   reaches `/proc` (`/dev/stdout`, `/dev/fd/N`) — is opened and written through, never
//!   replaced, like a shell's `>` redirection.

use super::interrupt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Longest chain of symlinks followed before giving up (the kernel's own limit).
const MAX_LINK_HOPS: usize = 40;

/// How a target path is written.
#[derive(Debug, PartialEq, Eq)]
enum Target {
    /// Replace this regular file (or create it) atomically.
    Replace(PathBuf),
    /// Open this existing non-regular file and write through it.
    WriteThrough(PathBuf),
}

/// Writes `bytes` to `path` by the rules of this module. The error is the operating system's,
/// for the caller to name the path.
pub fn write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_with(path, |f| f.write_all(bytes))
}

/// Calls `fill` with a writer on the destination of `path` (a temporary file to be renamed
/// over it, or the device / FIFO itself), then finishes the write by this module's rules.
pub fn write_with(path: &Path, fill: impl FnOnce(&mut File) -> io::Result<()>) -> io::Result<()> {
    write_staged_with(path, |f, _| fill(f))
}

/// [`write_with`], also telling `fill` whether its writer is *staged*: a temporary file that
/// reaches `path` only if `fill` succeeds (`true`), or the device / FIFO itself, where every
/// byte is seen at once (`false`). Decided once, by the same look at `path` that picks the
/// writer, so the answer is the writer's.
pub fn write_staged_with(
    path: &Path,
    fill: impl FnOnce(&mut File, bool) -> io::Result<()>,
) -> io::Result<()> {
    match classify(path)? {
        Target::WriteThrough(p) => {
            let regular = fs::metadata(&p).map(|m| m.is_file()).unwrap_or(false);
            let mut f = OpenOptions::new().write(true).truncate(regular).open(&p)?;
            fill(&mut f, false)?;
            f.flush()
        }
        Target::Replace(p) => replace_atomically(&p, |f| fill(f, true)),
    }
}

/// Decides how `path` is written, following symlinks to their final target.
fn classify(path: &Path) -> io::Result<Target> {
    // What the path finally names, following every link (the OS resolves `/proc` magic links).
    if let Ok(meta) = fs::metadata(path) {
        if meta.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                "is a directory",
            ));
        }
        if !meta.is_file() {
            return Ok(Target::WriteThrough(path.to_path_buf()));
        }
    }
    // A regular file or nothing: follow the links ourselves to find the real file's directory.
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINK_HOPS {
        let Ok(meta) = fs::symlink_metadata(&current) else {
            return Ok(Target::Replace(current));
        };
        if !meta.file_type().is_symlink() {
            return Ok(Target::Replace(current));
        }
        let link = fs::read_link(&current)?;
        if link.starts_with("/proc") {
            // `/dev/stdout` and friends: the file descriptor's own file, written through.
            return Ok(Target::WriteThrough(path.to_path_buf()));
        }
        current = match current.parent() {
            Some(dir) if link.is_relative() => dir.join(link),
            _ => link,
        };
    }
    Err(io::Error::other("too many levels of symbolic links"))
}

/// The hidden temporary file beside `path`: `.<name>.<pid>.tmp`, or `.<name>.<pid>-<n>.tmp` for
/// the `n`-th try when that name is taken.
fn temporary_beside(path: &Path, n: u32) -> io::Result<PathBuf> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file path"))?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    match n {
        0 => tmp_name.push(format!(".{}.tmp", std::process::id())),
        _ => tmp_name.push(format!(".{}-{n}.tmp", std::process::id())),
    }
    Ok(dir.join(tmp_name))
}

/// Temp file beside `path`, filled, synced, renamed over `path`; removed on any failure. The
/// temp file is registered with [`interrupt`] while it exists, so a signal removes it too.
fn replace_atomically(
    path: &Path,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<()> {
    let (tmp, mut file) = create_beside(path)?;
    let result = fill(&mut file)
        .and_then(|()| file.flush())
        .and_then(|()| file.sync_all())
        .and_then(|()| {
            hold_for_tests();
            interrupt::rename_temporary(&tmp, path)
        });
    drop(file);
    if result.is_err() {
        interrupt::remove_temporary(&tmp);
    }
    result
}

/// A new temporary file beside `path`, never one that already exists.
fn create_beside(path: &Path) -> io::Result<(PathBuf, File)> {
    let mut n = 0;
    loop {
        let tmp = temporary_beside(path, n)?;
        match interrupt::create_temporary(&tmp) {
            Ok(file) => return Ok((tmp, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && n < 100 => n += 1,
            Err(e) => return Err(e),
        }
    }
}

/// Debug builds only: pause between writing the temporary file and renaming it for
/// `VEER_TEST_HOLD_OUTPUT_MS` milliseconds, so the CLI tests can interrupt a write mid-way.
fn hold_for_tests() {
    #[cfg(debug_assertions)]
    if let Some(ms) = std::env::var("VEER_TEST_HOLD_OUTPUT_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn replaces_content_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.json");
        fs::write(&p, "old").unwrap();
        write(&p, b"new").unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "new");
        assert_eq!(names(dir.path()), ["out.json"]);
    }

    #[test]
    fn failure_keeps_the_old_file_and_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.json");
        fs::write(&p, "old").unwrap();
        let r = write_with(&p, |_| Err(io::Error::other("boom")));
        assert!(r.is_err());
        assert_eq!(fs::read_to_string(&p).unwrap(), "old");
        assert_eq!(names(dir.path()), ["out.json"]);
    }

    #[test]
    fn a_symlink_is_followed_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let real_dir = dir.path().join("real");
        fs::create_dir(&real_dir).unwrap();
        let real = real_dir.join("report.json");
        fs::write(&real, "old").unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink("real/report.json", &link).unwrap();
        assert_eq!(classify(&link).unwrap(), Target::Replace(real.clone()));
        write(&link, b"new").unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
        assert_eq!(names(&real_dir), ["report.json"]);
    }

    #[test]
    fn a_dangling_symlink_creates_its_target() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink("made.json", &link).unwrap();
        write(&link, b"new").unwrap();
        assert_eq!(
            fs::read_to_string(dir.path().join("made.json")).unwrap(),
            "new"
        );
    }

    #[test]
    fn symlink_loops_are_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        std::os::unix::fs::symlink(&b, &a).unwrap();
        std::os::unix::fs::symlink(&a, &b).unwrap();
        assert!(write(&a, b"x").is_err());
    }

    #[test]
    fn a_regular_file_is_staged_and_a_device_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let mut seen = Vec::new();
        write_staged_with(&dir.path().join("new.json"), |_, staged| {
            seen.push(staged);
            Ok(())
        })
        .unwrap();
        write_staged_with(Path::new("/dev/null"), |_, staged| {
            seen.push(staged);
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, vec![true, false]);
    }

    #[test]
    fn a_fifo_is_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(status.success());
        assert_eq!(classify(&fifo).unwrap(), Target::WriteThrough(fifo.clone()));
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || fs::read_to_string(fifo).unwrap())
        };
        write(&fifo, b"through the pipe").unwrap();
        assert_eq!(reader.join().unwrap(), "through the pipe");
        assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    }

    #[test]
    fn dev_stdout_is_written_through() {
        assert_eq!(
            classify(Path::new("/dev/stdout")).unwrap(),
            Target::WriteThrough(PathBuf::from("/dev/stdout"))
        );
    }

    use std::os::unix::fs::FileTypeExt;
}
