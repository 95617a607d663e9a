//! Lines gathered into batches for the `.agentlog` reader: a batch of about 1 MiB of non-blank
//! lines is parsed on all cores while the next is read; blank lines are skipped in bulk, and
//! room for a line is reserved fallibly (split from `reader.rs`).

use super::lines::{Line, LineReader};
use std::io::BufRead;

/// How lines are grouped for parsing. The lines of a batch are parsed in parallel (a line's
/// record depends on that line alone), then taken in line order, so the trace, its warnings and
/// the first error are exactly those of reading line by line, while memory stays bounded by one
/// batch beyond the trace itself.
#[derive(Clone, Copy)]
pub(crate) struct Batching {
    /// A batch is parsed once it holds at least this many bytes.
    pub bytes: usize,
    /// A batch of fewer lines is parsed on the calling thread (no task overhead).
    pub parallel_min_lines: usize,
}

impl Batching {
    /// 1 MiB batches (a few milliseconds of parsing each), parallel from 64 lines.
    pub(crate) const DEFAULT: Batching = Batching {
        bytes: 1 << 20,
        parallel_min_lines: 64,
    };
}

/// The non-empty lines waiting to be parsed, copied out of the reader's buffer.
#[derive(Default)]
pub(crate) struct Batch {
    pub(crate) bytes: Vec<u8>,
    /// `(line number, start, end)` into `bytes`.
    pub(crate) lines: Vec<(u64, usize, usize)>,
}

impl Batch {
    /// Adds line `n`; `Err(bytes)` when room for it could not be allocated.
    pub(crate) fn push(&mut self, n: u64, line: &[u8]) -> Result<(), usize> {
        let start = self.bytes.len();
        veer_base::fallible::fallibly(|| {
            self.bytes.try_reserve(line.len())?;
            self.lines.try_reserve(1)
        })
        .map_err(|_| start + line.len())?;
        self.bytes.extend_from_slice(line);
        self.lines.push((n, start, self.bytes.len()));
        Ok(())
    }

    pub(crate) fn clear(&mut self) {
        self.bytes.clear();
        self.lines.clear();
    }
}

/// How many records a file of `total` bytes is expected to hold, from the mean line length of
/// its first `batch`, with a quarter to spare. Capacity never touched costs address space, not
/// memory; too little means one more doubling of the list later.
pub(crate) fn expected_records(total: u64, batch: &Batch) -> usize {
    let lines = batch.lines.len().max(1) as u64;
    let mean = (batch.bytes.len() as u64 / lines).max(1);
    let expected = total / mean;
    usize::try_from(expected + expected / 4 + 16).unwrap_or(usize::MAX / 2)
}

/// Why a batch stopped short of full: the input ended, or the line after its last one could
/// not be read.
pub(crate) enum Stop {
    End,
    TooLong(u64),
    /// The read failed (a read error, or past the byte limit).
    Failed(std::io::Error),
    /// Line `.0` needs `.1` bytes the machine could not give.
    OutOfMemory(u64, usize),
}

/// Gathers the next non-blank lines into the empty `batch` until it holds `bytes` bytes
/// (`None`: full, more may follow) or the input stops. Sets `bom` when line 1 began with a
/// UTF-8 byte-order mark, which is dropped.
pub(crate) fn fill<R: BufRead>(
    lines: &mut LineReader<R>,
    batch: &mut Batch,
    bytes: usize,
    bom: &mut bool,
) -> Option<Stop> {
    loop {
        let line = match lines.next_line() {
            Ok(Some(Line::Bytes(n, line))) => (n, line),
            Ok(Some(Line::TooLong(n))) => return Some(Stop::TooLong(n)),
            Ok(Some(Line::OutOfMemory(n, bytes))) => return Some(Stop::OutOfMemory(n, bytes)),
            Ok(None) => return Some(Stop::End),
            Err(e) => return Some(Stop::Failed(e)),
        };
        let (n, mut line) = line;
        if n == 1 && line.starts_with(&[0xef, 0xbb, 0xbf]) {
            line = &line[3..];
            *bom = true;
        }
        if line.iter().all(|b| b.is_ascii_whitespace()) {
            // A blank line: the ones that follow it are skipped in bulk.
            if let Err(e) = lines.skip_blank_lines() {
                return Some(Stop::Failed(e));
            }
            continue;
        }
        if let Err(bytes) = batch.push(n, line) {
            return Some(Stop::OutOfMemory(n, bytes));
        }
        if batch.bytes.len() >= bytes {
            return None;
        }
    }
}
