//! Memory flat in the number of cases: past
//! [`super::TrialsOptions::spill_after`] cases, each case's raw results and then its entry in the
//! report go to a temporary file, one compact JSON line a case, and are read back case by case
//! — after the suite-wide Benjamini–Hochberg adjustment to build the entries, then by the gate
//! and the printers. What stays in memory per case is its [`SuiteRow`] (the suite tests need
//! every case's trial values at once) and the p-values of its case tests (24 bytes a test).
//!
//! The files are [`tempfile::NamedTempFile`]s in the system's temporary directory: each is
//! deleted when the last handle to it is dropped, on success and on every error path (a killed
//! process leaves it to the OS's temporary-directory cleaning). Floats round-trip exactly
//! (`serde_json`'s `float_roundtrip`), so a spilled report prints the same bytes as one held in
//! memory.

use super::raw::{CaseRaw, SuiteRow};
use crate::error::{Error, ErrorKind};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::sync::Arc;
use veer_contract::trials::{CaseBlock, CaseList, CaseSource};

/// The error of a temporary file that cannot be written or read back.
fn spill_error(what: &str, e: impl std::fmt::Display) -> Error {
    Error::new(
        ErrorKind::Output,
        format!("cannot {what} the temporary file of case results: {e}"),
    )
    .hint("veer keeps the results of large suites in the system's temporary directory (TMPDIR): check that it exists, is writable and has free space")
}

/// A temporary file of JSON lines, written once then read any number of times.
#[derive(Debug)]
pub(super) struct LineFile {
    file: tempfile::NamedTempFile,
    writer: Option<BufWriter<std::fs::File>>,
}

impl LineFile {
    pub(super) fn new() -> Result<LineFile, Error> {
        let file = tempfile::Builder::new()
            .prefix("veer-trials-")
            .suffix(".jsonl")
            .tempfile()
            .map_err(|e| spill_error("create", e))?;
        let writer = file
            .as_file()
            .try_clone()
            .map_err(|e| spill_error("write", e))?;
        Ok(LineFile {
            file,
            writer: Some(BufWriter::new(writer)),
        })
    }

    pub(super) fn push<T: Serialize>(&mut self, value: &T) -> Result<(), Error> {
        let Some(w) = self.writer.as_mut() else {
            return Err(spill_error("write", "it is already closed"));
        };
        serde_json::to_writer(&mut *w, value).map_err(|e| spill_error("write", e))?;
        w.write_all(b"\n").map_err(|e| spill_error("write", e))
    }

    /// Flushes and closes the writer; the file can be read from now on.
    pub(super) fn close(&mut self) -> Result<(), Error> {
        if let Some(mut w) = self.writer.take() {
            w.flush().map_err(|e| spill_error("write", e))?;
        }
        Ok(())
    }

    /// Where the file is (for tests that corrupt it).
    #[cfg(test)]
    pub(super) fn path(&self) -> &std::path::Path {
        self.file.path()
    }

    /// The lines in order, each parsed; a handle of its own, so readings are independent.
    pub(super) fn read<T: DeserializeOwned>(&self) -> Result<Lines<T>, Error> {
        let file = self.file.reopen().map_err(|e| spill_error("read", e))?;
        Ok(Lines {
            reader: BufReader::new(file),
            line: String::new(),
            _value: std::marker::PhantomData,
        })
    }
}

/// The parsed lines of a [`LineFile`].
pub(super) struct Lines<T> {
    reader: BufReader<std::fs::File>,
    line: String,
    _value: std::marker::PhantomData<T>,
}

impl<T: DeserializeOwned> Iterator for Lines<T> {
    type Item = Result<T, Error>;

    fn next(&mut self) -> Option<Result<T, Error>> {
        self.line.clear();
        match self.reader.read_line(&mut self.line) {
            Ok(0) => None,
            Ok(_) => Some(serde_json::from_str(&self.line).map_err(|e| spill_error("read", e))),
            Err(e) => Some(Err(spill_error("read", e))),
        }
    }
}

/// Every case's raw results as they are measured: each case's [`SuiteRow`] in memory, the full
/// [`CaseRaw`] in memory for the first `spill_after` cases and in a temporary file for all
/// of them past that.
#[derive(Debug)]
pub struct RawStore {
    spill_after: usize,
    rows: Vec<SuiteRow>,
    held: Vec<CaseRaw>,
    file: Option<LineFile>,
}

impl RawStore {
    /// An empty store that spills past `spill_after` cases (0: from the first).
    pub fn new(spill_after: usize) -> RawStore {
        RawStore {
            spill_after,
            rows: Vec::new(),
            held: Vec::new(),
            file: None,
        }
    }

    /// Adds the next case (in case-key order).
    pub fn push(&mut self, raw: CaseRaw) -> Result<(), Error> {
        self.rows.push(raw.row());
        if let Some(file) = &mut self.file {
            return file.push(&raw);
        }
        if self.held.len() < self.spill_after {
            self.held.push(raw);
            return Ok(());
        }
        let mut file = LineFile::new()?;
        for held in self.held.drain(..) {
            file.push(&held)?;
        }
        file.push(&raw)?;
        self.held = Vec::new();
        self.file = Some(file);
        Ok(())
    }

    /// Whether the cases went to a temporary file.
    pub fn spilled(&self) -> bool {
        self.file.is_some()
    }

    /// The suite rows (in memory) and the raw results, read back in order.
    pub(super) fn into_parts(self) -> Result<(Vec<SuiteRow>, RawIter), Error> {
        let raws = match self.file {
            Some(mut file) => {
                file.close()?;
                let lines = file.read()?;
                RawIter::Spilled { _file: file, lines }
            }
            None => RawIter::Held(self.held.into_iter()),
        };
        Ok((self.rows, raws))
    }
}

/// The raw results of a [`RawStore`] in case order (the file is deleted when this is dropped).
pub(super) enum RawIter {
    Held(std::vec::IntoIter<CaseRaw>),
    Spilled {
        /// Kept open so the file lives until the last case is read.
        _file: LineFile,
        lines: Lines<CaseRaw>,
    },
}

impl Iterator for RawIter {
    type Item = Result<CaseRaw, Error>;

    fn next(&mut self) -> Option<Result<CaseRaw, Error>> {
        match self {
            RawIter::Held(it) => it.next().map(Ok),
            RawIter::Spilled { lines, .. } => lines.next(),
        }
    }
}

/// A spilled list's cases: the temporary file of JSON lines they were written to.
#[derive(Debug)]
struct SpilledCases {
    file: LineFile,
    len: usize,
}

impl CaseSource for SpilledCases {
    fn len(&self) -> usize {
        self.len
    }

    fn cases(&self) -> Box<dyn Iterator<Item = Result<CaseBlock, String>> + '_> {
        match self.file.read::<CaseBlock>() {
            Ok(lines) => Box::new(lines.map(|r| r.map_err(|e| e.message))),
            Err(e) => Box::new(std::iter::once(Err(e.message))),
        }
    }

    fn path(&self) -> Option<&std::path::Path> {
        Some(self.file.file.path())
    }
}

/// The first error met reading a spilled case list back, as the engine's error (exit 2 with
/// a hint): a report printed while it happened is incomplete and must not be written as if
/// complete.
pub fn case_read_error(cases: &CaseList) -> Option<Error> {
    cases.read_error().map(|message| {
        Error::new(ErrorKind::Output, message)
            .hint("veer keeps the results of large suites in the system's temporary directory (TMPDIR): check that it exists, is writable and has free space")
    })
}

/// Builds a [`CaseList`] case by case: in memory for the first `spill_after` cases, in a
/// temporary file for all of them past that.
#[derive(Debug)]
pub(super) struct CaseListBuilder {
    spill_after: usize,
    held: Vec<CaseBlock>,
    file: Option<(LineFile, usize)>,
}

impl CaseListBuilder {
    pub(super) fn new(spill_after: usize) -> CaseListBuilder {
        CaseListBuilder {
            spill_after,
            held: Vec::new(),
            file: None,
        }
    }

    pub(super) fn push(&mut self, case: CaseBlock) -> Result<(), Error> {
        if let Some((file, len)) = &mut self.file {
            *len += 1;
            return file.push(&case);
        }
        if self.held.len() < self.spill_after {
            self.held.push(case);
            return Ok(());
        }
        let len = self.held.len() + 1;
        let mut file = LineFile::new()?;
        for held in self.held.drain(..) {
            file.push(&held)?;
        }
        file.push(&case)?;
        self.held = Vec::new();
        self.file = Some((file, len));
        Ok(())
    }

    pub(super) fn finish(self) -> Result<CaseList, Error> {
        Ok(match self.file {
            None => CaseList::from(self.held),
            Some((mut file, len)) => {
                file.close()?;
                CaseList::from_source(Arc::new(SpilledCases { file, len }))
            }
        })
    }
}
