//! Streaming physical lines of an `.agentlog` file with a per-line byte limit.
//!
//! A line that lies whole in the reader's buffer is handed out where it lies; one that spans
//! buffer refills is gathered into a reused buffer. A line longer than the limit is an error
//! naming it, without reading the rest of it into memory. Runs of blank lines are skipped in
//! bulk ([`LineReader::skip_blank_lines`]), so a file of billions of them ends as fast as its
//! bytes can be read. Room for a gathered line is reserved fallibly: a line the machine has no
//! memory for is [`Line::OutOfMemory`], not an abort.

use std::io::{self, BufRead};

/// One physical line (terminator stripped) or the reason it could not be read.
pub enum Line<'a> {
    /// The bytes of line `number` (1-based), without `\n` / `\r\n`.
    Bytes(u64, &'a [u8]),
    /// Line `number` is longer than the limit.
    TooLong(u64),
    /// Line `number` needs more memory (this many bytes) than could be allocated.
    OutOfMemory(u64, usize),
}

/// Reads lines from `inner`, never buffering more than `limit + 1` bytes of one line.
pub struct LineReader<R> {
    inner: R,
    limit: u64,
    buf: Vec<u8>,
    number: u64,
    /// Bytes of the inner buffer handed out by the last call, consumed at the next.
    pending: usize,
}

impl<R: BufRead> LineReader<R> {
    /// A reader over `inner` with a per-line limit of `limit` bytes (newline included).
    pub fn new(inner: R, limit: u64) -> Self {
        LineReader {
            inner,
            limit,
            buf: Vec::new(),
            number: 0,
            pending: 0,
        }
    }

    /// The next line, `Ok(None)` at end of input.
    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        self.inner.consume(std::mem::take(&mut self.pending));
        if let Some(len) = self.whole_line_in_buffer()? {
            self.number += 1;
            self.pending = len + 1;
            let line = &self.inner.fill_buf()?[..len];
            return Ok(Some(Line::Bytes(self.number, strip_cr(line))));
        }
        self.buf.clear();
        let mut saw_any = false;
        let mut ended = false;
        loop {
            let available = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                break;
            }
            saw_any = true;
            let (chunk, found) = match memchr_newline(available) {
                Some(i) => (&available[..=i], true),
                None => (available, false),
            };
            let take = chunk.len();
            if (self.buf.len() + take) as u64 > self.limit {
                self.number += 1;
                return Ok(Some(Line::TooLong(self.number)));
            }
            if veer_base::fallible::fallibly(|| self.buf.try_reserve(take)).is_err() {
                self.number += 1;
                return Ok(Some(Line::OutOfMemory(self.number, self.buf.len() + take)));
            }
            self.buf.extend_from_slice(chunk);
            self.inner.consume(take);
            if found {
                ended = true;
                break;
            }
        }
        if !saw_any {
            return Ok(None);
        }
        let _ = ended;
        self.number += 1;
        let line = self.buf.strip_suffix(b"\n").unwrap_or(&self.buf);
        Ok(Some(Line::Bytes(self.number, strip_cr(line))))
    }

    /// Skips the blank lines (ASCII whitespace only, each within the limit) that come next,
    /// numbering them as read, a buffer at a time: a byte loop instead of a call per line.
    /// Stops before the first line that is not blank or does not lie whole in the buffer.
    pub fn skip_blank_lines(&mut self) -> io::Result<()> {
        self.inner.consume(std::mem::take(&mut self.pending));
        loop {
            let available = loop {
                match self.inner.fill_buf() {
                    Ok(b) => break b,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                }
            };
            let (end, lines) = blank_prefix(available, self.limit);
            let whole = end == available.len() && end > 0;
            self.inner.consume(end);
            self.number += lines;
            if !whole {
                return Ok(());
            }
        }
    }

    /// The length (newline excluded) of the next line when it lies whole, within the limit, in
    /// the inner buffer (refilled first if empty).
    fn whole_line_in_buffer(&mut self) -> io::Result<Option<usize>> {
        let available = loop {
            match self.inner.fill_buf() {
                Ok(b) => break b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        Ok(memchr::memchr(b'\n', available).filter(|&i| (i as u64) < self.limit))
    }
}

/// The bytes and the count of the whole blank lines (each at most `limit` bytes, newline
/// included) at the start of `bytes`.
fn blank_prefix(bytes: &[u8], limit: u64) -> (usize, u64) {
    let mut end = 0;
    let mut lines = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\n' {
            if (i + 1 - end) as u64 > limit {
                break;
            }
            end = i + 1;
            lines += 1;
        } else if !b.is_ascii_whitespace() {
            break;
        }
    }
    (end, lines)
}

fn strip_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    memchr::memchr(b'\n', bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(input: &[u8], limit: u64) -> Vec<String> {
        let mut r = LineReader::new(input, limit);
        let mut out = Vec::new();
        while let Some(line) = r.next_line().unwrap() {
            match line {
                Line::Bytes(n, b) => out.push(format!("{n}:{}", String::from_utf8_lossy(b))),
                Line::TooLong(n) => {
                    out.push(format!("{n}:too long"));
                    break;
                }
                Line::OutOfMemory(n, _) => {
                    out.push(format!("{n}:out of memory"));
                    break;
                }
            }
        }
        out
    }

    #[test]
    fn blank_runs_are_skipped_in_bulk_and_numbered() {
        let input: &[u8] = b"\n\n \r\n\t\nx\n\n\ny\n   ";
        for capacity in 1..=input.len() + 1 {
            let mut r = LineReader::new(std::io::BufReader::with_capacity(capacity, input), 100);
            let (mut out, mut blank_lines_read) = (Vec::new(), 0);
            loop {
                r.skip_blank_lines().unwrap();
                match r.next_line().unwrap() {
                    Some(Line::Bytes(n, b)) if b.iter().all(u8::is_ascii_whitespace) && n < 9 => {
                        blank_lines_read += 1;
                    }
                    Some(Line::Bytes(n, b)) => {
                        out.push(format!("{n}:{}", String::from_utf8_lossy(b)))
                    }
                    Some(_) => unreachable!(),
                    None => break,
                }
            }
            assert_eq!(out, ["5:x", "8:y", "9:   "], "capacity {capacity}");
            // Lines that lie whole in the buffer are skipped, not read one by one.
            if capacity > input.len() {
                assert_eq!(blank_lines_read, 0);
            }
        }
        // A blank line over the limit is not skipped: it is reported as too long.
        let mut r = LineReader::new(&b"\n      \nx\n"[..], 4);
        r.skip_blank_lines().unwrap();
        assert!(matches!(r.next_line().unwrap(), Some(Line::TooLong(2))));
        assert_eq!(blank_prefix(b"\n\n\n", 1), (3, 3));
        assert_eq!(blank_prefix(b" \n", 1), (0, 0));
        assert_eq!(blank_prefix(b"", 1), (0, 0));
    }

    #[test]
    fn splits_lines_and_strips_crlf() {
        assert_eq!(collect(b"a\r\nbb\n\nc", 100), ["1:a", "2:bb", "3:", "4:c"]);
        assert_eq!(collect(b"", 100), Vec::<String>::new());
        assert_eq!(collect(b"x\n", 100), ["1:x"]);
    }

    #[test]
    fn lines_spanning_buffer_refills_are_gathered() {
        let input: &[u8] = b"first line\r\nsecond, longer line\n\nlast";
        for capacity in 1..=input.len() + 1 {
            let mut r = LineReader::new(std::io::BufReader::with_capacity(capacity, input), 100);
            let mut out = Vec::new();
            while let Some(Line::Bytes(n, b)) = r.next_line().unwrap() {
                out.push(format!("{n}:{}", String::from_utf8_lossy(b)));
            }
            assert_eq!(
                out,
                ["1:first line", "2:second, longer line", "3:", "4:last"],
                "capacity {capacity}"
            );
            let mut r = LineReader::new(std::io::BufReader::with_capacity(capacity, input), 12);
            let mut lines = Vec::new();
            while let Some(line) = r.next_line().unwrap() {
                match line {
                    Line::Bytes(n, _) => lines.push(n),
                    Line::TooLong(n) => {
                        lines.push(100 + n);
                        break;
                    }
                    Line::OutOfMemory(..) => unreachable!(),
                }
            }
            assert_eq!(lines, [1, 102], "capacity {capacity}");
        }
    }

    #[test]
    fn limit_counts_the_newline() {
        assert_eq!(collect(b"abc\n", 4), ["1:abc"]);
        assert_eq!(collect(b"ok\nabcd\n", 4), ["1:ok", "2:too long"]);
    }
}
