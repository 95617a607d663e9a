//! Reading traces within bounds: the byte and record limits every trace reader applies, the
//! counting reader that enforces the byte limit on bytes as they stream (decompressed bytes
//! included), and fallible reservation for sizes that come from the input. Files that are not
//! traces are read through `veer_base::capped::read_capped`.
//!
//! A limit that is hit ends the read with one error naming the file, the limit and the flag
//! that raises it; an allocation the machine refuses is an error too, never an abort
//! (docs/limits.md).

use crate::error::TraceError;
use std::io::{self, BufRead, Read};
use veer_base::fallible::fallibly;

/// Default maximum bytes of one trace, counted as they are read: after decompression, blank
/// lines included (`--max-trace-bytes`): 1 GiB.
pub const DEFAULT_MAX_TRACE_BYTES: u64 = 1 << 30;

/// Default maximum records of one trace file (`.agentlog` records, traxr events of every run
/// of a results file or analyzer case, spans' records) (`--max-records`): 1,000,000.
pub const DEFAULT_MAX_RECORDS: u64 = 1_000_000;

/// The io error payload of a [`Counting`] reader past its limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("more than {limit} bytes")]
pub(crate) struct BytesExceeded {
    /// The limit that was passed.
    pub limit: u64,
}

/// Counts the bytes taken from `inner` and fails (with `BytesExceeded`) once more than
/// `limit` have been taken. Counting is one addition per `read` or `consume`.
#[derive(Debug)]
pub struct Counting<R> {
    inner: R,
    taken: u64,
    limit: u64,
}

impl<R> Counting<R> {
    /// `inner`, failing after `limit` bytes.
    pub fn new(inner: R, limit: u64) -> Self {
        Counting {
            inner,
            taken: 0,
            limit,
        }
    }

    /// Bytes taken so far.
    pub fn taken(&self) -> u64 {
        self.taken
    }

    fn check(&self) -> io::Result<()> {
        if self.taken > self.limit {
            Err(io::Error::other(BytesExceeded { limit: self.limit }))
        } else {
            Ok(())
        }
    }
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.check()?;
        // Never more than one byte past the limit.
        let room = usize::try_from(self.limit - self.taken)
            .unwrap_or(usize::MAX)
            .saturating_add(1);
        let n = buf.len().min(room);
        let got = self.inner.read(&mut buf[..n])?;
        self.taken += got as u64;
        self.check()?;
        Ok(got)
    }
}

impl<R: BufRead> BufRead for Counting<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.check()?;
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        self.taken += amt as u64;
        self.inner.consume(amt);
    }
}

/// The limit of a [`Counting`] reader, when `e` is its error.
pub fn bytes_exceeded(e: &io::Error) -> Option<u64> {
    e.get_ref()
        .and_then(|inner| inner.downcast_ref::<BytesExceeded>())
        .map(|b| b.limit)
}

/// The error of a trace past `--max-trace-bytes`.
pub fn trace_too_large(source: &str, limit: u64) -> TraceError {
    TraceError::new(
        source,
        None,
        "(file)",
        format!("trace is larger than the limit of {limit} bytes (counted after decompression, blank lines included)"),
    )
    .with_hint("raise the limit with --max-trace-bytes N, or check for a runaway or corrupt input")
}

/// The error of a trace past `--max-records`; `line` is where the first record over the
/// limit is, when the format has lines.
pub(crate) fn too_many_records(source: &str, line: Option<u64>, limit: u64) -> TraceError {
    TraceError::new(
        source,
        line,
        "(file)",
        format!("more than the limit of {limit} records"),
    )
    .with_hint("raise the limit with --max-records N, or split the trace")
}

/// The error of an allocation of `bytes` bytes for `what` that the machine refused.
pub fn out_of_memory(source: &str, line: Option<u64>, what: &str, bytes: usize) -> TraceError {
    TraceError::new(
        source,
        line,
        "(file)",
        format!("cannot allocate {bytes} bytes for {what}: out of memory"),
    )
    .with_hint("the input needs more memory than veer can get; lower --max-line-bytes, --max-trace-bytes or --max-records, or split the input")
}

/// Reserves room for `additional` more items in `v`, or an out-of-memory error naming `what`.
pub fn try_reserve<T>(
    v: &mut Vec<T>,
    additional: usize,
    source: &str,
    line: Option<u64>,
    what: &str,
) -> Result<(), TraceError> {
    fallibly(|| v.try_reserve(additional)).map_err(|_| {
        let bytes = additional.saturating_mul(std::mem::size_of::<T>().max(1));
        out_of_memory(source, line, what, bytes)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counting_fails_one_byte_past_the_limit() {
        let data = [b'x'; 100];
        let mut r = Counting::new(&data[..], 100);
        let mut out = Vec::new();
        assert_eq!(r.read_to_end(&mut out).unwrap(), 100);
        let mut r = Counting::new(&data[..], 99);
        let mut out = Vec::new();
        let e = r.read_to_end(&mut out).unwrap_err();
        assert_eq!(bytes_exceeded(&e), Some(99));
        assert!(out.len() <= 100);
    }

    #[test]
    fn counting_counts_consumed_bytes_of_a_bufread() {
        let data = b"a\nb\nc\n".repeat(10);
        let mut r = Counting::new(&data[..], 10);
        let mut line = Vec::new();
        let mut lines = 0;
        let err = loop {
            line.clear();
            match r.read_until(b'\n', &mut line) {
                Ok(0) => break None,
                Ok(_) => lines += 1,
                Err(e) => break Some(e),
            }
        };
        assert_eq!(bytes_exceeded(&err.unwrap()), Some(10));
        assert_eq!(lines, 6, "11 bytes taken: five lines and the sixth");
        assert_eq!(r.taken(), 12);
    }

    #[test]
    fn counting_stops_a_gzip_bomb() {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(&vec![b'\n'; 8 << 20]).unwrap();
        let member = gz.finish().unwrap();
        let bomb = member.repeat(16); // 128 MiB decompressed from a few KiB
        assert!(bomb.len() < 1 << 20);
        let decoder = flate2::read::MultiGzDecoder::new(&bomb[..]);
        let mut r = Counting::new(decoder, 1 << 20);
        let e = io::copy(&mut r, &mut io::sink()).unwrap_err();
        assert_eq!(bytes_exceeded(&e), Some(1 << 20));
        assert!(r.taken() <= (1 << 20) + 1);
    }

    #[test]
    fn try_reserve_refuses_what_the_machine_cannot_give() {
        let mut v: Vec<u64> = Vec::new();
        let e = try_reserve(&mut v, usize::MAX / 4, "f", Some(3), "records").unwrap_err();
        assert_eq!(e.file, "f");
        assert_eq!(e.line, Some(3));
        assert!(e.message.contains("out of memory"), "{}", e.message);
        try_reserve(&mut v, 10, "f", None, "records").unwrap();
        assert!(v.capacity() >= 10);
    }
}

#[cfg(test)]
mod reader_tests {
    use crate::options::ReadOptions;
    use crate::Document;
    use std::io::Write;

    const RECORD: &str = r#"{"version":"0.1","id":"x","kind":"tool_result","ts":"2026-11-20T10:00:00.137Z","parent":null,"payload":{}}"#;

    fn options(max_trace_bytes: u64, max_records: u64) -> ReadOptions {
        ReadOptions {
            max_trace_bytes,
            max_records,
            ..ReadOptions::default()
        }
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(bytes).unwrap();
        gz.finish().unwrap()
    }

    #[test]
    fn agentlog_records_past_the_limit_name_the_line() {
        let text = format!("{RECORD}\n\n{RECORD}\n{RECORD}\n");
        let ok = crate::load_bytes("t.agentlog", text.as_bytes(), &options(1 << 20, 3)).unwrap();
        assert!(matches!(ok, Document::Trace(t) if t.records.len() == 3));
        let e = crate::load_bytes("t.agentlog", text.as_bytes(), &options(1 << 20, 2)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.agentlog:4: (file): more than the limit of 2 records"
        );
        assert_eq!(
            e.hint.as_deref(),
            Some("raise the limit with --max-records N, or split the trace")
        );
    }

    #[test]
    fn blank_lines_count_toward_the_byte_limit() {
        let mut text = format!("{RECORD}\n").into_bytes();
        text.extend(std::iter::repeat_n(b'\n', 1 << 20));
        let e = crate::load_bytes("b.agentlog", &text, &options(1 << 20, 10)).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("b.agentlog: (file): trace is larger than the limit of 1048576 bytes"),
            "{e}"
        );
        assert!(e.hint.unwrap().contains("--max-trace-bytes"));
        assert!(crate::load_bytes("b.agentlog", &text, &options(2 << 20, 10)).is_ok());
    }

    #[test]
    fn a_gzip_bomb_stops_at_the_limit_after_decompression() {
        // 8 members of 8 MiB of newlines, then a record: 64 MiB from a few KiB.
        let member = gzip(&vec![b'\n'; 8 << 20]);
        let mut bomb = member.repeat(8);
        bomb.extend(gzip(format!("{RECORD}\n").as_bytes()));
        assert!(bomb.len() < 1 << 20);
        let e = crate::load_bytes("bomb.agentlog.gz", &bomb, &options(4 << 20, 10)).unwrap_err();
        assert!(
            e.message
                .starts_with("trace is larger than the limit of 4194304 bytes"),
            "{e}"
        );
        let Document::Trace(t) =
            crate::load_bytes("bomb.agentlog.gz", &bomb, &options(1 << 30, 10)).unwrap()
        else {
            panic!("a trace")
        };
        assert_eq!(t.records.len(), 1);
        assert_eq!(t.records[0].line, Some((8 << 23) + 1));
    }

    #[test]
    fn a_gzip_bomb_of_records_stops_at_the_record_limit() {
        let member = gzip(format!("{RECORD}\n").repeat(10_000).as_bytes());
        let bomb = member.repeat(10);
        let e = crate::load_bytes("r.agentlog.gz", &bomb, &options(1 << 30, 25_000)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "r.agentlog.gz:25001: (file): more than the limit of 25000 records"
        );
    }

    #[test]
    fn traxr_events_count_toward_the_record_limit() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/traxr/goldens/external_mock.json"
        );
        let results = std::fs::read(path).unwrap();
        let doc: serde_json::Value = serde_json::from_slice(&results).unwrap();
        let traces = doc["traces"].as_object().unwrap();
        let all: usize = traces
            .values()
            .map(|t| t["events"].as_array().unwrap().len())
            .sum();
        let limit = all as u64 - 1;
        assert!(crate::load_bytes("r.json", &results, &options(1 << 30, all as u64)).is_ok());
        let e = crate::load_bytes("r.json", &results, &options(1 << 30, limit)).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("r.json: (file): more than the limit of {limit} records")
        );
        // A bare trace, read from its text, and the same trace pretty-printed.
        let bare = serde_json::json!({"run_label": "b", "events": traces["baseline"]["events"]});
        let n = bare["events"].as_array().unwrap().len() as u64;
        for text in [
            serde_json::to_vec(&bare).unwrap(),
            serde_json::to_vec_pretty(&bare).unwrap(),
        ] {
            assert!(crate::load_bytes("b.json", &text, &options(1 << 30, n)).is_ok());
            let e = crate::load_bytes("b.json", &text, &options(1 << 30, n - 1)).unwrap_err();
            assert!(e.message.contains("more than the limit of"), "{e}");
        }
    }

    #[test]
    fn documents_read_whole_stop_at_the_byte_limit() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/traxr/goldens/external_mock.json"
        );
        let results = std::fs::read(path).unwrap();
        let limit = results.len() as u64 - 1;
        let e = crate::load_bytes("r.json", &results, &options(limit, 1000)).unwrap_err();
        assert_eq!(
            e.message,
            format!("trace is larger than the limit of {limit} bytes (counted after decompression, blank lines included)")
        );
    }
}
