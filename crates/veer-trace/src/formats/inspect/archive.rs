//! The `.eval` zip archive: its central directory listed once, then one member decompressed at
//! a time, its decompressed bytes counted as they stream and capped at
//! [`MAX_MEMBER_BYTES`](super::MAX_MEMBER_BYTES), so a log of any number of samples — or a zstd
//! bomb — never sits decompressed in memory.

use super::{info_of, too_many, Inner, InspectLog, MAX_MEMBER_BYTES, MAX_SAMPLES};
use crate::error::TraceError;
use crate::options::ReadOptions;
use serde_json::Value;
use std::io::{Read, Seek};
use zip::ZipArchive;

/// The sample members of an open archive, in reading order.
pub(super) struct Members<R> {
    archive: ZipArchive<R>,
    /// (member index, member name), next last.
    todo: Vec<(usize, String)>,
    cap: u64,
    /// Decompressed bytes the whole log may still take (`--max-trace-bytes`, counted over
    /// every member read so far), so many members just under the per-member cap also stop.
    left: u64,
    /// `--max-trace-bytes`, for the message.
    limit: u64,
}

impl<R> Members<R> {
    /// Sample-epochs not yet read.
    pub(super) fn remaining(&self) -> usize {
        self.todo.len()
    }
}

impl<R: Read + Seek> Members<R> {
    /// The next sample member's name and JSON.
    pub(super) fn next_sample(
        &mut self,
        source: &str,
    ) -> Option<(String, Result<Value, TraceError>)> {
        let (index, name) = self.todo.pop()?;
        let cap = self.cap.min(self.left);
        let read = match member_json(&mut self.archive, source, index, &name, cap) {
            Ok((value, n)) => {
                self.left -= n.min(self.left);
                Ok(value)
            }
            Err(_) if cap < self.cap => Err(crate::limits::trace_too_large(source, self.limit)),
            Err(e) => Err(e),
        };
        Some((name, read))
    }
}

/// Opens a `.eval` archive: reads `header.json` and lists the `samples/*.json` members.
pub(super) fn open<R: Read + Seek>(
    source: &str,
    reader: R,
    options: &ReadOptions,
) -> Result<InspectLog<R>, TraceError> {
    open_capped(source, reader, options, MAX_MEMBER_BYTES)
}

/// [`open`] with a chosen per-member cap (tests use a small one).
pub(super) fn open_capped<R: Read + Seek>(
    source: &str,
    reader: R,
    options: &ReadOptions,
    cap: u64,
) -> Result<InspectLog<R>, TraceError> {
    let mut archive = ZipArchive::new(reader).map_err(|e| {
        TraceError::new(
            source,
            None,
            "(file)",
            format!("not a readable zip archive (read as an Inspect AI .eval log): {e}"),
        )
        .with_hint("the log looks truncated or damaged: copy it again, or have Inspect write it with --log-format json")
    })?;
    let Some(header) = archive.index_for_name("header.json") else {
        return Err(TraceError::new(
            source,
            None,
            "header.json",
            "missing member: a finished Inspect AI .eval log has a header.json",
        )
        .with_hint("the eval may still be running or have been killed before Inspect finalised the log (its samples are in samples/); or this zip is not an Inspect AI log"));
    };
    let (header, header_bytes) = member_json(&mut archive, source, header, "header.json", cap)?;
    let info = info_of(source, "header.json", &header)?;
    let mut todo: Vec<(usize, String)> = archive
        .file_names()
        .filter(|n| n.starts_with("samples/") && n.ends_with(".json"))
        .filter_map(|n| Some((archive.index_for_name(n)?, n.to_string())))
        .collect();
    if todo.len() > MAX_SAMPLES {
        return Err(too_many(source, todo.len()));
    }
    // Ordered by sample id then epoch (from the member name, `{id}_epoch_{n}.json`); popped
    // from the end.
    todo.sort_by(|(_, a), (_, b)| member_key(a).cmp(&member_key(b)).then(a.cmp(b)));
    todo.reverse();
    Ok(InspectLog {
        source: source.to_string(),
        info,
        options: *options,
        inner: Inner::Zip(Box::new(Members {
            archive,
            todo,
            cap,
            left: options.max_trace_bytes.saturating_sub(header_bytes),
            limit: options.max_trace_bytes,
        })),
    })
}

/// The sort key of a sample member name: its id and epoch as [`super::sample::order_key`]
/// orders them.
fn member_key(name: &str) -> (super::sample::IdKey, u64) {
    let stem = name
        .strip_prefix("samples/")
        .and_then(|n| n.strip_suffix(".json"))
        .unwrap_or(name);
    let (id, epoch) = match stem.rsplit_once("_epoch_") {
        Some((id, e)) => (id, e.parse().unwrap_or(u64::MAX)),
        None => (stem, u64::MAX),
    };
    let id = match id.parse::<i64>() {
        Ok(n) => Value::from(n),
        Err(_) => Value::from(id),
    };
    super::sample::order_key(Some(&id), Some(&Value::from(epoch)))
}

/// One member, decompressed (at most `cap` bytes) and parsed as JSON, with the number of bytes
/// it decompressed to; errors name the member.
fn member_json<R: Read + Seek>(
    archive: &mut ZipArchive<R>,
    source: &str,
    index: usize,
    name: &str,
    cap: u64,
) -> Result<(Value, u64), TraceError> {
    let err = |message: String| TraceError::new(source, None, name, message);
    let mut file = archive.by_index(index).map_err(|e| {
        err(format!("cannot open the member: {e}"))
            .with_hint("the log looks damaged, or uses a compression veer does not read (veer reads zstd and deflate, as Inspect writes)")
    })?;
    let too_big = || {
        err(format!(
            "the member decompresses to more than {cap} bytes, the limit for one member of an Inspect AI log"
        ))
        .with_hint("a sample this large is not read; this may be a zip bomb, or split the eval into smaller samples")
    };
    if file.size() > cap {
        return Err(too_big());
    }
    let mut bytes = Vec::with_capacity(file.size().min(cap) as usize);
    (&mut file)
        .take(cap + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| {
            err(format!("cannot decompress the member: {e}"))
                .with_hint("the log looks truncated or damaged: copy it again")
        })?;
    if bytes.len() as u64 > cap {
        return Err(too_big());
    }
    let n = bytes.len() as u64;
    let value = serde_json::from_slice(&bytes).map_err(|e| {
        TraceError::new(
            source,
            None,
            name,
            format!("the member is not valid JSON: {e}"),
        )
        .with_hint("Inspect writes every member as one JSON document: the log looks damaged")
    })?;
    Ok((value, n))
}
