//! Capped whole-file reads of the files that are not traces — policies and the schema files
//! they name, pricing and patterns files, saved reports, baselines, perturbation inputs and an
//! agent's answers — with the caps themselves. A larger file, or an endless stream such as
//! `/dev/zero`, fails once one byte past the cap is read, and the buffer is reserved fallibly,
//! so no input can make veer read without bound or abort (docs/limits.md). Trace readers have
//! their own limits (`veer_trace::limits`).

use crate::fallible::fallibly;
use std::io::{self, Read};
use std::path::Path;

/// Cap of a file that configures veer rather than holding data: a policy and the schema files
/// it names, a pricing file, a patterns file (16 MiB; fixed — none is near this size).
pub const MAX_CONFIG_FILE_BYTES: u64 = 16 << 20;

/// Default cap of a saved report read by `veer gate` (`--max-report-bytes`): 256 MiB.
pub const DEFAULT_MAX_REPORT_BYTES: u64 = 256 << 20;

/// Cap of one input of `veer experiment perturb` / `run` (a document an agent reads): 256 MiB.
pub const MAX_PERTURB_INPUT_BYTES: u64 = 256 << 20;

/// Why [`read_capped`] failed.
#[derive(Debug)]
pub enum CappedError {
    /// The file could not be opened or read.
    Io(io::Error),
    /// It holds more than the cap (the cap in bytes).
    TooLarge(u64),
    /// Room for the file could not be allocated (its size in bytes).
    OutOfMemory(u64),
}

impl CappedError {
    /// The message and hint for the caller's error, for `what` (`"policy file"`) and the flag
    /// that raises the cap (`None`: a fixed cap). Io errors keep the caller's own wording.
    pub fn too_large_message(&self, what: &str, flag: Option<&str>) -> Option<(String, String)> {
        match self {
            CappedError::Io(_) => None,
            CappedError::TooLarge(limit) => Some((
                format!("{what} is larger than the limit of {limit} bytes"),
                match flag {
                    Some(flag) => format!("raise the limit with {flag} N, or check that this is the file you meant (an endless stream such as /dev/zero never ends)"),
                    None => format!("no {what} is this large: check that this is the file you meant (an endless stream such as /dev/zero never ends)"),
                },
            )),
            CappedError::OutOfMemory(n) => Some((
                format!("cannot allocate {n} bytes to read this {what}: out of memory"),
                "the file is larger than the memory veer can get".to_string(),
            )),
        }
    }
}

/// Reads the whole file at `path`, at most `limit` bytes: a larger file, or an endless stream
/// (`/dev/zero`, a FIFO that never closes), fails once `limit + 1` bytes are read, with
/// [`CappedError::TooLarge`]. The buffer is sized from the file's length (when it has one)
/// with a fallible reservation, never beyond `limit + 1`.
pub fn read_capped(path: &Path, limit: u64) -> Result<Vec<u8>, CappedError> {
    let file = std::fs::File::open(path).map_err(CappedError::Io)?;
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    read_capped_from(file, len, limit)
}

/// [`read_capped`] of any reader; `len` (0 when unknown) sizes the buffer.
fn read_capped_from<R: Read>(reader: R, len: u64, limit: u64) -> Result<Vec<u8>, CappedError> {
    let mut bytes = Vec::new();
    let want = len.min(limit).saturating_add(1);
    let want = usize::try_from(want).unwrap_or(usize::MAX);
    fallibly(|| bytes.try_reserve_exact(want))
        .map_err(|_| CappedError::OutOfMemory(want as u64))?;
    let mut reader = reader.take(limit.saturating_add(1));
    let mut chunk = [0u8; 1 << 14];
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(CappedError::Io(e)),
        };
        if (bytes.len() + n) as u64 > limit {
            return Err(CappedError::TooLarge(limit));
        }
        fallibly(|| bytes.try_reserve(n))
            .map_err(|_| CappedError::OutOfMemory((bytes.len() + n) as u64))?;
        bytes.extend_from_slice(&chunk[..n]);
    }
    Ok(bytes)
}

#[cfg(test)]
/// [`read_capped`] as UTF-8 text; `Ok(Err(valid_up_to))` when the bytes are not UTF-8.
pub(crate) fn read_capped_string(
    path: &Path,
    limit: u64,
) -> Result<Result<String, usize>, CappedError> {
    let bytes = read_capped(path, limit)?;
    Ok(String::from_utf8(bytes).map_err(|e| e.utf8_error().valid_up_to()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_capped_reads_small_files_and_refuses_large_ones() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, b"hello").unwrap();
        assert_eq!(read_capped(&p, 5).unwrap(), b"hello");
        assert!(matches!(read_capped(&p, 4), Err(CappedError::TooLarge(4))));
        assert!(matches!(
            read_capped(&dir.path().join("missing"), 4),
            Err(CappedError::Io(_))
        ));
        let (message, hint) = CappedError::TooLarge(4)
            .too_large_message("policy file", Some("--max-x"))
            .unwrap();
        assert_eq!(message, "policy file is larger than the limit of 4 bytes");
        assert!(hint.starts_with("raise the limit with --max-x N"));
        assert_eq!(read_capped_string(&p, 10).unwrap(), Ok("hello".to_string()));
    }

    #[test]
    fn read_capped_stops_an_endless_stream() {
        let endless = io::repeat(0);
        assert!(matches!(
            read_capped_from(endless, 0, 1 << 16),
            Err(CappedError::TooLarge(65536))
        ));
        #[cfg(unix)]
        if Path::new("/dev/zero").exists() {
            assert!(matches!(
                read_capped(Path::new("/dev/zero"), 1 << 20),
                Err(CappedError::TooLarge(_))
            ));
        }
    }
}
