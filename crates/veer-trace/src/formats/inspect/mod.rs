//! Inspect AI eval logs: a `.eval` zip archive (members compressed with zstd or deflate:
//! `header.json`, `samples/{id}_epoch_{n}.json`, …) or one `.json` log with the same content
//! inline. Unlike every other format a log holds many runs — one per sample and epoch — so this
//! module reads it as an iterator of [`InspectSample`]s (case id, trial, trace), one member
//! decompressed at a time; the single-trace entry points of [`crate::load`] accept a log of
//! exactly one sample-epoch (docs/formats.md §Inspect AI).

mod archive;
mod sample;

use crate::error::TraceError;
use crate::model::Trace;
use crate::options::ReadOptions;
use serde_json::Value;
use std::fs::File;
use std::io::{BufRead, BufReader, Cursor, Read, Seek};
use std::path::Path;

/// Largest member of a `.eval` archive read (decompressed bytes, counted as they stream): a
/// member past this is an error, so a zstd bomb costs at most this much memory and time.
pub(crate) const MAX_MEMBER_BYTES: u64 = 256 << 20;

/// Most sample-epochs read from one log.
pub(crate) const MAX_SAMPLES: usize = 1_000_000;

/// The `metadata` payload key holding the sample id as a string (the case of a repeated-trials
/// comparison).
pub(crate) const CASE_KEY: &str = "case";
/// The `metadata` payload key holding the epoch (1-based integer; the trial).
pub(crate) const TRIAL_KEY: &str = "trial";
/// The `metadata` payload key holding `"pass"`, `"fail"` or `"error"` (absent when the sample
/// has no score that reads as one).
pub const OUTCOME_KEY: &str = "outcome";
/// The `metadata` payload key holding every scorer's value, by scorer name, as logged.
pub(crate) const SCORES_KEY: &str = "scores";
/// The `metadata` payload key holding the first scorer's value as a number (Inspect's
/// `value_to_float`: `C` 1, `P` 0.5, `I` and `N` 0, booleans, numbers).
pub(crate) const SCORE_KEY: &str = "score";

/// What the log says about the whole eval (from `header.json`, or the JSON log's top level).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LogInfo {
    /// `eval.task`.
    pub task: String,
    /// `eval.model`, e.g. `openai/gpt-4o`.
    pub model: String,
    /// `status`: `success`, `error`, `cancelled`, `started`.
    pub status: String,
    /// `eval.eval_id`.
    pub eval_id: String,
    /// `eval.run_id`.
    pub run_id: String,
    /// `eval.config.epochs` (1 when absent).
    pub epochs: u64,
}

/// One sample-epoch of a log, read as a trace.
#[derive(Debug, Clone, PartialEq)]
pub struct InspectSample {
    /// The sample id, as text (an integer id is written in decimal).
    pub case: String,
    /// The epoch, 1-based.
    pub trial: u64,
    /// The run: its `metadata` record carries `case`, `trial`, `outcome`, `score` and `scores`
    /// (the `*_KEY` constants of this module).
    pub trace: Trace,
}

/// An open Inspect log: [`LogInfo`] and an iterator over its sample-epochs, ordered by sample
/// id (numbers numerically, before text) then epoch. A `.eval` member is decompressed only
/// when the iterator reaches it.
pub struct InspectLog<R> {
    source: String,
    info: LogInfo,
    options: ReadOptions,
    inner: Inner<R>,
}

enum Inner<R> {
    Zip(Box<archive::Members<R>>),
    Json(std::vec::IntoIter<(usize, Value)>),
}

impl<R> std::fmt::Debug for InspectLog<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InspectLog")
            .field("source", &self.source)
            .field("info", &self.info)
            .field("samples", &self.len())
            .finish()
    }
}

impl<R> InspectLog<R> {
    /// What the log says about the eval.
    pub fn info(&self) -> &LogInfo {
        &self.info
    }

    /// The file the log was read from, as the user named it.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Number of sample-epochs not yet read.
    pub fn len(&self) -> usize {
        match &self.inner {
            Inner::Zip(m) => m.remaining(),
            Inner::Json(s) => s.len(),
        }
    }

    /// Whether no sample-epoch is left.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<R: Read + Seek> InspectLog<R> {
    /// The log's one trace; an error with a hint when it holds none or several.
    pub fn into_single_trace(mut self) -> Result<Trace, TraceError> {
        let n = self.len();
        if n != 1 {
            let what = if n == 0 {
                "this Inspect AI log holds no samples".to_string()
            } else {
                format!("this Inspect AI log holds {n} sample-epochs, not a single trace")
            };
            let hint = if n == 0 {
                "run the eval with samples logged (log_samples is on by default)"
            } else {
                "write one trace per sample-epoch with `veer convert LOG -o DIR/`, then diff the directories (`veer diff A.eval B.eval` compares two logs case by case)"
            };
            return Err(TraceError::new(&self.source, None, "(file)", what).with_hint(hint));
        }
        match self.next() {
            Some(s) => s.map(|s| s.trace),
            None => Err(TraceError::new(
                &self.source,
                None,
                "(file)",
                "this Inspect AI log holds no samples",
            )),
        }
    }
}

impl<R: Read + Seek> Iterator for InspectLog<R> {
    type Item = Result<InspectSample, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        let (at, value) = match &mut self.inner {
            Inner::Zip(m) => {
                let (name, read) = m.next_sample(&self.source)?;
                (sample::Place::Member(name), read)
            }
            Inner::Json(s) => {
                let (i, v) = s.next()?;
                (sample::Place::Index(i), Ok(v))
            }
        };
        Some(value.and_then(|v| sample::read(&self.source, &at, &self.info, &v, &self.options)))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.len(), Some(self.len()))
    }
}

/// Whether the first bytes of a file are a zip archive (local file header, or the end record
/// of an empty archive): read as an Inspect `.eval` log.
pub(crate) fn sniff_zip(head: &[u8]) -> bool {
    head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06")
}

/// Whether the first bytes of a file could be an Inspect JSON log (cheap: the key names of its
/// top level within the first 64 KiB). [`is_json_log`] decides.
pub(crate) fn sniff_json_head(head: &[u8]) -> bool {
    let head = &head[..head.len().min(1 << 16)];
    let has = |needle: &[u8]| head.windows(needle.len()).any(|w| w == needle);
    head.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
        && has(b"\"eval\"")
        && has(b"\"task\"")
        && has(b"\"version\"")
}

/// Whether a JSON document is an Inspect log: an object with a numeric `version` and an `eval`
/// object naming its `task` and `model`.
pub(crate) fn is_json_log(v: &Value) -> bool {
    let Some(eval) = v.get("eval").and_then(Value::as_object) else {
        return false;
    };
    v.get("version").is_some_and(Value::is_u64)
        && eval.get("task").is_some_and(Value::is_string)
        && eval.get("model").is_some_and(Value::is_string)
}

/// Opens the Inspect log at `path`: `None` when the file is neither a zip archive nor an
/// Inspect JSON log (the caller reads it as any other trace), and for anything but a regular
/// file: a FIFO or device can be read only once, so it goes to format detection alone (which
/// reads a log of one sample-epoch).
pub fn open_inspect_log(
    path: &Path,
    options: &ReadOptions,
) -> Result<Option<InspectLog<BufReader<File>>>, TraceError> {
    let source = path.display().to_string();
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return Ok(None);
    }
    let file = File::open(path).map_err(|e| crate::load::open_error(&source, &e))?;
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let head = reader
        .fill_buf()
        .map_err(|e| crate::load::open_error(&source, &e))?;
    if sniff_zip(head) {
        return archive::open(&source, reader, options).map(Some);
    }
    if !sniff_json_head(head) {
        return Ok(None);
    }
    let size = std::fs::metadata(path)
        .ok()
        .map(|m| m.len().min(options.max_trace_bytes));
    let reader = crate::limits::Counting::new(reader, options.max_trace_bytes);
    let bytes = crate::formats::read_all(&source, reader, size)?;
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(v) if is_json_log(&v) => {
            drop(bytes);
            from_json(&source, v, options).map(Some)
        }
        _ => Ok(None),
    }
}

#[cfg(test)]
/// Reads the Inspect log at `path` (`.eval` or `.json`), one sample-epoch at a time; an error
/// naming the formats veer reads when it is not one.
pub(crate) fn read_inspect_log(
    path: &Path,
    options: &ReadOptions,
) -> Result<InspectLog<BufReader<File>>, TraceError> {
    open_inspect_log(path, options)?.ok_or_else(|| {
        TraceError::new(
            path.display().to_string(),
            None,
            "(file)",
            "not an Inspect AI eval log (neither a .eval zip archive nor a JSON log with an `eval` object)",
        )
        .with_hint("pass the .eval or .json file Inspect wrote into its log directory")
    })
}

#[cfg(test)]
/// Reads an Inspect log held in memory (`.eval` bytes, or a JSON log's text).
pub(crate) fn read_inspect_bytes(
    source: &str,
    bytes: Vec<u8>,
    options: &ReadOptions,
) -> Result<InspectLog<Cursor<Vec<u8>>>, TraceError> {
    read_inspect_bytes_capped(source, bytes, options, MAX_MEMBER_BYTES)
}

/// [`read_inspect_bytes`] with a chosen per-member cap (the fuzz target uses a small one).
#[doc(hidden)]
pub(crate) fn read_inspect_bytes_capped(
    source: &str,
    bytes: Vec<u8>,
    options: &ReadOptions,
    member_cap: u64,
) -> Result<InspectLog<Cursor<Vec<u8>>>, TraceError> {
    if sniff_zip(&bytes) {
        return archive::open_capped(source, Cursor::new(bytes), options, member_cap);
    }
    let v: Value = serde_json::from_slice(&bytes).map_err(|e| {
        TraceError::new(
            source,
            Some(e.line() as u64),
            "(file)",
            format!("not valid JSON (read as an Inspect AI log): {e}"),
        )
        .with_hint("an Inspect AI log is a .eval zip archive or one JSON document")
    })?;
    drop(bytes);
    from_json(source, v, options)
}

/// The trace of a log read by format detection ([`crate::load`]): zip bytes or a parsed JSON
/// log; an error with a hint when it holds more than one sample-epoch.
pub(crate) fn single_from_zip(
    source: &str,
    bytes: Vec<u8>,
    options: &ReadOptions,
) -> Result<Trace, TraceError> {
    archive::open(source, Cursor::new(bytes), options)?.into_single_trace()
}

/// As [`single_from_zip`], for a parsed JSON log.
pub(crate) fn single_from_json(
    source: &str,
    v: Value,
    options: &ReadOptions,
) -> Result<Trace, TraceError> {
    from_json::<Cursor<Vec<u8>>>(source, v, options)?.into_single_trace()
}

fn from_json<R>(
    source: &str,
    mut v: Value,
    options: &ReadOptions,
) -> Result<InspectLog<R>, TraceError> {
    let info = info_of(source, "", &v)?;
    let samples = match v.get_mut("samples").map(Value::take) {
        Some(Value::Array(a)) => a,
        None | Some(Value::Null) => Vec::new(),
        Some(other) => {
            return Err(TraceError::new(
                source,
                None,
                "samples",
                format!(
                    "must be an array of samples, found {}",
                    crate::formats::type_name(&other)
                ),
            ))
        }
    };
    if samples.len() > MAX_SAMPLES {
        return Err(too_many(source, samples.len()));
    }
    let mut samples: Vec<(usize, Value)> = samples.into_iter().enumerate().collect();
    samples.sort_by(|(ia, a), (ib, b)| {
        sample::order_key(a.get("id"), a.get("epoch"))
            .cmp(&sample::order_key(b.get("id"), b.get("epoch")))
            .then(ia.cmp(ib))
    });
    Ok(InspectLog {
        source: source.to_string(),
        info,
        options: *options,
        inner: Inner::Json(samples.into_iter()),
    })
}

fn too_many(source: &str, n: usize) -> TraceError {
    TraceError::new(
        source,
        None,
        "samples",
        format!("{n} sample-epochs, more than the {MAX_SAMPLES} veer reads from one log"),
    )
    .with_hint("split the eval into several logs")
}

/// [`LogInfo`] from a log header (`header.json`, named by `member`, or the JSON log itself).
fn info_of(source: &str, member: &str, v: &Value) -> Result<LogInfo, TraceError> {
    let at = |f: &str| {
        if member.is_empty() {
            f.to_string()
        } else {
            format!("{member}#{f}")
        }
    };
    let Some(eval) = v.get("eval").and_then(Value::as_object) else {
        return Err(
            TraceError::new(source, None, at("eval"), "missing the eval object")
                .with_hint("this does not look like an Inspect AI log header"),
        );
    };
    let text = |k: &str| {
        eval.get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let model = match eval.get("model") {
        Some(Value::String(s)) => s.clone(),
        Some(other) => {
            return Err(TraceError::new(
                source,
                None,
                at("eval.model"),
                format!(
                    "must be a string, found {}",
                    crate::formats::type_name(other)
                ),
            ))
        }
        None => String::new(),
    };
    Ok(LogInfo {
        task: text("task"),
        model,
        status: v
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        eval_id: text("eval_id"),
        run_id: text("run_id"),
        epochs: eval
            .get("config")
            .and_then(|c| c.get("epochs"))
            .and_then(Value::as_u64)
            .unwrap_or(1),
    })
}

/// A safe file name for a case id (`veer convert LOG -o DIR/` writes `DIR/CASE/trial-N.agentlog`):
/// ASCII letters, digits, `-`, `_` and `.` are kept, anything else becomes `_`, a leading `.`
/// becomes `_`, and the name is cut at 64 bytes. When the name is not the id itself, `-` and the
/// first 8 hex digits of the id's SHA-256 follow, so two ids never share a name
/// (`orders/ORD-7` → `orders_ORD-7-fc32bc3f`). Never empty, never `.` or `..`, never a path.
pub fn case_file_name(case: &str) -> String {
    let mut name: String = case
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if name.starts_with('.') {
        name.replace_range(..1, "_");
    }
    if name != case || name.is_empty() {
        use sha2::Digest;
        let digest = sha2::Sha256::digest(case.as_bytes());
        let hex: String = digest[..4].iter().map(|b| format!("{b:02x}")).collect();
        if !name.is_empty() {
            name.push('-');
        }
        name.push_str(&hex);
    }
    name
}

#[cfg(test)]
mod tests;
