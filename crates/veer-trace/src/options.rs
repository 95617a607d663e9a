//! How traces are read: permissive (default) or strict, and the size limits.

/// Default maximum bytes of one `.agentlog` line, newline included: 64 MiB.
pub const DEFAULT_MAX_LINE_BYTES: u64 = 64 * 1024 * 1024;

/// Options shared by every reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    /// Verify content ids, timestamps, parent links, versions and duplicate keys; unknown kinds
    /// and traxr keys become errors.
    pub strict: bool,
    /// Maximum bytes of one line, newline included (`--max-line-bytes`).
    pub max_line_bytes: u64,
    /// Maximum bytes of one trace, counted as read: decompressed, blank lines included
    /// (`--max-trace-bytes`).
    pub max_trace_bytes: u64,
    /// Maximum records of one trace file (`--max-records`).
    pub max_records: u64,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            strict: false,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            max_trace_bytes: crate::limits::DEFAULT_MAX_TRACE_BYTES,
            max_records: crate::limits::DEFAULT_MAX_RECORDS,
        }
    }
}
