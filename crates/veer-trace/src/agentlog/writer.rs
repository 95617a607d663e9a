//! The `.agentlog` writer: one compact JSON object per line in Shadow's envelope order
//! (`version, id, kind, ts, parent, meta?, payload`), unknown envelope keys after `payload`,
//! exactly one `\n` after every record (spec `trace-formats.md` §1.10, §4.4).

use crate::canonical::content_id;
use crate::envelope_fields::{RecordId, Timestamp};
use crate::model::{Kind, Record, Trace};
use crate::traxr::root_payload;
use crate::traxr_origin::origin_to_meta;
use serde_json::{json, Value};
use std::io::{self, Write};
use veer_base::format::Format;

/// Writes `trace` as `.agentlog`. Records read from an `.agentlog` are written as read (ids
/// kept byte for byte); traxr-origin traces get a root `metadata` record, `meta.traxr` on every
/// record, `Event` records as `harness_event`, a parent chain and fresh content ids.
pub fn write_agentlog<W: Write>(trace: &Trace, out: W) -> io::Result<()> {
    let mut out = io::BufWriter::new(out);
    let mut line = Vec::with_capacity(512);
    if trace.format == Format::Traxr {
        for r in traxr_records_for_agentlog(trace) {
            write_record(&mut out, &mut line, &r)?;
        }
    } else {
        for r in &trace.records {
            write_record(&mut out, &mut line, r)?;
        }
    }
    out.flush()
}

/// The records of several traces as one `.agentlog`, in order: each trace as
/// [`write_agentlog`] would write it (traxr traces get their root record and chain), and the
/// first record of every trace after the first links to the record before it, so each trace
/// is a recorded session (spec `trace-formats.md` §1.5 rule 4, §2.1).
///
/// A file's timestamps never go backwards, so the output reads back under `--strict`: a trace
/// whose first timestamp is earlier than the last one written before it (a traxr results file's
/// runs each start their synthetic clock at the epoch; sessions recorded in another order) is
/// moved later as a whole by the smallest number of milliseconds that keeps the order — the
/// intervals inside each trace stay exactly as read.
pub fn records_for_agentlog(traces: &[Trace]) -> Vec<Record> {
    let mut out: Vec<Record> = Vec::new();
    for trace in traces {
        let records = if trace.format == Format::Traxr {
            traxr_records_for_agentlog(trace)
        } else {
            trace.records.clone()
        };
        let first = out.len();
        out.extend(records.into_iter().map(|mut r| {
            r.line = None;
            r
        }));
        if first > 0 && first < out.len() {
            let before = out[first - 1].id.clone();
            out[first].parent = Some(before);
            let shift = match (&out[first - 1].ts, &out[first].ts) {
                (Timestamp::Millis(last), Timestamp::Millis(start)) => last.saturating_sub(*start),
                _ => 0,
            };
            if shift > 0 {
                for r in &mut out[first..] {
                    if let Timestamp::Millis(ms) = r.ts {
                        r.ts = Timestamp::from_millis(ms.saturating_add(shift));
                    }
                }
            }
        }
    }
    out
}

/// `records` with every id that is not its payload's content id (a placeholder such as
/// `sha256:ba00…`, an id of an edited payload) replaced by the content id, and every later
/// `parent` naming a replaced id renamed to follow, so the written file reads back under
/// `--strict`. Records whose id is their content id are kept byte for byte. Records must come
/// parents first (as a trace's records do).
pub fn with_content_ids(mut records: Vec<Record>) -> Vec<Record> {
    let mut renamed: std::collections::HashMap<RecordId, RecordId> =
        std::collections::HashMap::new();
    for r in &mut records {
        if let Some(p) = r.parent.as_ref().and_then(|p| renamed.get(p)) {
            r.parent = Some(p.clone());
        }
        let computed = RecordId::from(content_id(&r.payload));
        if computed != r.id {
            renamed.insert(std::mem::replace(&mut r.id, computed.clone()), computed);
        }
    }
    records
}

/// Serialises one record (compact, envelope order) followed by `\n`.
pub fn write_record<W: Write>(out: &mut W, line: &mut Vec<u8>, r: &Record) -> io::Result<()> {
    line.clear();
    line.extend_from_slice(b"{\"version\":");
    serde_json::to_writer(&mut *line, &r.version)?;
    line.extend_from_slice(b",\"id\":");
    serde_json::to_writer(&mut *line, &r.id)?;
    line.extend_from_slice(b",\"kind\":");
    serde_json::to_writer(&mut *line, r.kind.wire_name())?;
    line.extend_from_slice(b",\"ts\":");
    serde_json::to_writer(&mut *line, &r.ts)?;
    line.extend_from_slice(b",\"parent\":");
    serde_json::to_writer(&mut *line, &r.parent)?;
    if let Some(meta) = &r.meta {
        line.extend_from_slice(b",\"meta\":");
        serde_json::to_writer(&mut *line, meta)?;
    }
    line.extend_from_slice(b",\"payload\":");
    serde_json::to_writer(&mut *line, &r.payload)?;
    for (k, v) in r.extra_envelope.iter().flat_map(|m| m.iter()) {
        line.push(b',');
        serde_json::to_writer(&mut *line, k)?;
        line.push(b':');
        serde_json::to_writer(&mut *line, v)?;
    }
    line.extend_from_slice(b"}\n");
    out.write_all(line)
}

/// The records written for a traxr-origin trace (spec `trace-formats.md` §4.4).
pub(crate) fn traxr_records_for_agentlog(trace: &Trace) -> Vec<Record> {
    let label = trace.run_label.as_deref().unwrap_or("");
    let root_payload = root_payload(label);
    let root_id = RecordId::from(content_id(&root_payload));
    let first_ts = trace
        .records
        .first()
        .map(|r| r.ts.clone())
        .unwrap_or_else(|| "1970-01-01T00:00:00.000Z".into());
    let mut out = Vec::with_capacity(trace.records.len() + 1);
    out.push(Record {
        line: None,
        kind: Kind::Metadata,
        version: "0.1".into(),
        id: root_id.clone(),
        ts: first_ts,
        parent: None,
        meta: None,
        payload: root_payload.into(),
        extra_envelope: None,
        origin: None,
    });
    let mut parent = root_id;
    for r in &trace.records {
        let mut w = r.clone();
        w.line = None;
        if let Some(origin) = &r.origin {
            let is_event = r.kind == Kind::Event;
            let mut meta = r.meta.clone().unwrap_or_default();
            meta.insert(
                "traxr".into(),
                Value::Object(origin_to_meta(origin, !is_event)),
            );
            w.meta = Some(meta);
            if is_event {
                w.payload = json!({
                    "category": "traxr",
                    "name": origin.event_type,
                    "severity": "info",
                    "attributes": Value::Object(origin.payload.to_map()),
                })
                .into();
            }
        }
        w.id = content_id(&w.payload).into();
        w.parent = Some(std::mem::replace(&mut parent, w.id.clone()));
        out.push(w);
    }
    out
}
