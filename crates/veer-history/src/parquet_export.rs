//! `veer history export --format parquet`: the stored comparisons as one Parquet file in long
//! ("tidy") form — one row per comparison's gate, per axis, per rule and per case — so a
//! warehouse reads flat columns without nested types (columns in docs/history.md). Written
//! with the `parquet` crate's low-level column writers (no Arrow), uncompressed, one row
//! group; pure: entries in, bytes out.

use crate::store::Entry;
use parquet::basic::Compression;
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use std::sync::Arc;

/// The file's schema (Parquet message syntax); `kind` is `gate`, `axis`, `rule` or `case`.
pub(crate) const SCHEMA: &str = "message veer_history {
  REQUIRED INT64 comparison_id;
  REQUIRED INT64 recorded_at (TIMESTAMP(MILLIS,true));
  OPTIONAL BYTE_ARRAY commit (STRING);
  OPTIONAL BYTE_ARRAY branch (STRING);
  OPTIONAL BYTE_ARRAY ci_run (STRING);
  REQUIRED BYTE_ARRAY veer_version (STRING);
  REQUIRED BYTE_ARRAY report_kind (STRING);
  REQUIRED BYTE_ARRAY kind (STRING);
  REQUIRED BYTE_ARRAY name (STRING);
  OPTIONAL BYTE_ARRAY level (STRING);
  OPTIONAL DOUBLE delta;
  OPTIONAL BOOLEAN tripped;
  OPTIONAL INT64 regressions;
  OPTIONAL INT64 fixes;
  OPTIONAL INT64 baseline_violations;
  OPTIONAL INT64 candidate_violations;
}";

/// One row of the long table.
struct Row<'a> {
    e: &'a Entry,
    kind: &'static str,
    name: &'a str,
    level: Option<&'a str>,
    delta: Option<f64>,
    tripped: Option<bool>,
    counts: Option<[u64; 4]>,
}

fn rows(entries: &[Entry]) -> Vec<Row<'_>> {
    let mut out = Vec::new();
    for e in entries {
        let s = &e.summary;
        out.push(Row {
            e,
            kind: "gate",
            name: &s.gate.fail_on,
            level: Some(&s.gate.worst),
            delta: None,
            tripped: Some(s.gate.tripped),
            counts: None,
        });
        for a in &s.axes {
            out.push(Row {
                e,
                kind: "axis",
                name: a.axis.name(),
                level: Some(a.level.name()),
                delta: a.delta,
                tripped: None,
                counts: None,
            });
        }
        for r in &s.rules {
            out.push(Row {
                e,
                kind: "rule",
                name: &r.rule,
                level: None,
                delta: None,
                tripped: None,
                counts: Some([
                    r.regressions,
                    r.fixes,
                    r.baseline_violations,
                    r.candidate_violations,
                ]),
            });
        }
        for c in &s.cases {
            out.push(Row {
                e,
                kind: "case",
                name: &c.case,
                level: Some(&c.verdict),
                delta: None,
                tripped: None,
                counts: None,
            });
        }
    }
    out
}

/// Values and definition levels of an optional column.
fn optional<T: Clone>(values: impl Iterator<Item = Option<T>>) -> (Vec<T>, Vec<i16>) {
    let (mut v, mut d) = (Vec::new(), Vec::new());
    for x in values {
        match x {
            Some(x) => {
                v.push(x);
                d.push(1);
            }
            None => d.push(0),
        }
    }
    (v, d)
}

fn bytes(s: &str) -> ByteArray {
    ByteArray::from(s.as_bytes().to_vec())
}

fn n(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// The Parquet file of `entries` (oldest first), as bytes. The "gate" row's `name` is the
/// `--fail-on` level and its `level` the worst signal.
pub fn to_parquet(entries: &[Entry]) -> Result<Vec<u8>, parquet::errors::ParquetError> {
    let schema = Arc::new(parse_message_type(SCHEMA)?);
    let props = Arc::new(
        WriterProperties::builder()
            .set_compression(Compression::UNCOMPRESSED)
            .set_created_by(format!("veer {}", env!("CARGO_PKG_VERSION")))
            .build(),
    );
    let rows = rows(entries);
    let mut writer = SerializedFileWriter::new(Vec::new(), schema, props)?;
    let mut group = writer.next_row_group()?;
    let mut index = 0usize;
    while let Some(mut col) = group.next_column()? {
        let text = |f: for<'r> fn(&'r Row<'r>) -> &'r str| -> Vec<ByteArray> {
            rows.iter().map(|r| bytes(f(r))).collect()
        };
        let opt_text = |f: for<'r> fn(&'r Row<'r>) -> Option<&'r str>| {
            optional(rows.iter().map(|r| f(r).map(bytes)))
        };
        let count = |k: usize| optional(rows.iter().map(|r| r.counts.map(|c| n(c[k]))));
        match index {
            0 => {
                let v: Vec<i64> = rows.iter().map(|r| r.e.id).collect();
                col.typed::<Int64Type>().write_batch(&v, None, None)?;
            }
            1 => {
                let v: Vec<i64> = rows.iter().map(|r| r.e.provenance.recorded_at_ms).collect();
                col.typed::<Int64Type>().write_batch(&v, None, None)?;
            }
            2..=4 => {
                let (v, d) = match index {
                    2 => opt_text(|r| r.e.provenance.commit.as_deref()),
                    3 => opt_text(|r| r.e.provenance.branch.as_deref()),
                    _ => opt_text(|r| r.e.provenance.ci_run.as_deref()),
                };
                col.typed::<ByteArrayType>()
                    .write_batch(&v, Some(&d), None)?;
            }
            5..=8 => {
                let v = match index {
                    5 => text(|r| &r.e.provenance.veer_version),
                    6 => text(|r| &r.e.summary.report_kind),
                    7 => text(|r| r.kind),
                    _ => text(|r| r.name),
                };
                col.typed::<ByteArrayType>().write_batch(&v, None, None)?;
            }
            9 => {
                let (v, d) = opt_text(|r| r.level);
                col.typed::<ByteArrayType>()
                    .write_batch(&v, Some(&d), None)?;
            }
            10 => {
                let (v, d) = optional(rows.iter().map(|r| r.delta));
                col.typed::<DoubleType>().write_batch(&v, Some(&d), None)?;
            }
            11 => {
                let (v, d) = optional(rows.iter().map(|r| r.tripped));
                col.typed::<BoolType>().write_batch(&v, Some(&d), None)?;
            }
            k => {
                let (v, d) = count(k - 12);
                col.typed::<Int64Type>().write_batch(&v, Some(&d), None)?;
            }
        }
        col.close()?;
        index += 1;
    }
    group.close()?;
    writer.into_inner()
}

#[cfg(test)]
mod tests;
