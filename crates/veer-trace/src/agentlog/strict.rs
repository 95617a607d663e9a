//! `--strict` checks for `.agentlog`: content ids, timestamps, parent links, versions and
//! duplicate keys (spec `trace-formats.md` §1.9). Every failure is collected and named.

use crate::canonical::content_id;
use crate::envelope_fields::{RecordId, Timestamp};
use crate::error::TraceError;
use crate::model::{Kind, Record};
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use std::collections::HashSet;
use std::fmt;

/// At most this many strict failures are reported per file.
const MAX_FAILURES: usize = 100;

/// Accumulates strict-mode failures while records stream past.
#[derive(Default)]
pub(crate) struct StrictChecker {
    ids: HashSet<RecordId>,
    previous_id: Option<RecordId>,
    previous_ts: Option<(Timestamp, u64)>,
    records: usize,
    failures: Vec<TraceError>,
}

impl StrictChecker {
    /// Records one failure (at most [`MAX_FAILURES`] are kept).
    pub fn fail(&mut self, error: TraceError) {
        if self.failures.len() < MAX_FAILURES {
            self.failures.push(error);
        }
    }

    /// Checks one record against the strict rules.
    pub fn check(&mut self, source: &str, line: u64, record: &Record) {
        let err = |field: &str, msg: String| TraceError::new(source, Some(line), field, msg);
        if !version_ok(record.version.as_str()) {
            self.fail(
                err(
                    "version",
                    format!("unsupported format version \"{}\"", record.version),
                )
                .with_hint("veer reads format versions 0.x"),
            );
        }
        if !record.id.is_content_id() {
            self.fail(err(
                "id",
                format!(
                    "not a content id (expected sha256: + 64 lowercase hex digits): \"{}\"",
                    record.id
                ),
            ));
        } else {
            let computed = content_id(&record.payload);
            if computed != record.id {
                self.fail(
                    err(
                        "id",
                        format!(
                            "content id mismatch (stored {}, computed {computed})",
                            record.id
                        ),
                    )
                    .with_hint("the payload was edited after recording, or the id is a placeholder; drop --strict to read it anyway"),
                );
            }
        }
        if !ts_ok(&record.ts.as_str()) {
            self.fail(err(
                "ts",
                format!(
                    "not a UTC timestamp of the form YYYY-MM-DDTHH:MM:SS.sssZ: \"{}\"",
                    record.ts
                ),
            ));
        } else {
            if let Some((prev, prev_line)) = &self.previous_ts {
                if record.ts < *prev {
                    let msg = format!(
                        "timestamp goes backwards ({} after {prev} on line {prev_line})",
                        record.ts
                    );
                    self.fail(err("ts", msg));
                }
            }
            self.previous_ts = Some((record.ts.clone(), line));
        }
        if self.records == 0 {
            if record.kind != Kind::Metadata {
                self.fail(err(
                    "kind",
                    format!(
                        "the first record must be metadata, found {}",
                        record.kind.wire_name()
                    ),
                ));
            }
            if record.parent.is_some() {
                self.fail(err(
                    "parent",
                    "the root record's parent must be null".into(),
                ));
            }
        } else {
            match &record.parent {
                None => self.fail(err(
                    "parent",
                    "must reference an earlier record (only the root has parent null)".into(),
                )),
                Some(p) if record.kind == Kind::Metadata => {
                    if self.previous_id.as_ref() != Some(p) {
                        self.fail(err(
                            "parent",
                            format!("a session-boundary metadata record's parent must be the record just before it, found {p}"),
                        ));
                    }
                }
                Some(p) => {
                    if !self.ids.contains(p) {
                        self.fail(err(
                            "parent",
                            format!("references {p}, which is not an earlier record"),
                        ));
                    }
                }
            }
        }
        self.ids.insert(record.id.clone());
        self.previous_id = Some(record.id.clone());
        self.records += 1;
    }

    /// The first failure with the others attached, or `Ok` when there was none.
    pub fn finish(mut self, _source: &str) -> Result<(), TraceError> {
        if self.failures.is_empty() {
            return Ok(());
        }
        let mut first = self.failures.remove(0);
        first.related = self.failures;
        Err(first)
    }
}

/// The strict failure for a line whose JSON repeats a key inside any object, if it does.
/// Depends on the line alone, so lines can be checked in parallel.
pub fn duplicate_keys(source: &str, line: u64, text: &str) -> Option<TraceError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let e = de.deserialize_any(DupVisitor).err()?;
    let msg = e.to_string();
    let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
    Some(
        TraceError::new(source, Some(line), "(line)", msg)
            .with_hint("content ids are ambiguous when an object repeats a key"),
    )
}

fn version_ok(v: &str) -> bool {
    let Some(rest) = v.strip_prefix("0.") else {
        return false;
    };
    let parts: Vec<&str> = rest.split('.').collect();
    parts.len() <= 2
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

/// `YYYY-MM-DDTHH:MM:SS.sssZ` and a real UTC instant.
pub(crate) fn ts_ok(ts: &str) -> bool {
    let b = ts.as_bytes();
    if b.len() != 24 {
        return false;
    }
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    let num = |r: std::ops::Range<usize>| -> u32 {
        b[r].iter()
            .fold(0u32, |acc, d| acc * 10 + u32::from(d - b'0'))
    };
    let shape = digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && b[10] == b'T'
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16] == b':'
        && digits(17..19)
        && b[19] == b'.'
        && digits(20..23)
        && b[23] == b'Z';
    if !shape {
        return false;
    }
    let (y, mo, d) = (num(0..4), num(5..7), num(8..10));
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match mo {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    d >= 1 && d <= days && num(11..13) < 24 && num(14..16) < 60 && num(17..19) < 60
}

/// Walks any JSON value and fails on the first object that repeats a key.
struct DupVisitor;

impl<'de> de::DeserializeSeed<'de> for DupVisitor {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(DupVisitor)
    }
}

impl<'de> Visitor<'de> for DupVisitor {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(DupVisitor)?.is_some() {}
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut keys: HashSet<String> = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !keys.insert(key.clone()) {
                return Err(de::Error::custom(format!(
                    "duplicate key \"{key}\" in one object"
                )));
            }
            map.next_value_seed(DupVisitor)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps() {
        assert!(ts_ok("2026-04-22T06:16:14.760Z"));
        assert!(ts_ok("2024-02-29T23:59:59.999Z"));
        assert!(!ts_ok("2023-02-29T00:00:00.000Z"));
        assert!(!ts_ok("2026-04-22T06:16:14Z"));
        assert!(!ts_ok("2026-04-22T24:00:00.000Z"));
        assert!(!ts_ok("2026-13-01T00:00:00.000Z"));
        assert!(!ts_ok("2026-04-22T06:16:14.760+00:00"));
    }

    #[test]
    fn versions() {
        assert!(version_ok("0.1"));
        assert!(version_ok("0.2.3"));
        assert!(!version_ok("1.0"));
        assert!(!version_ok("0."));
        assert!(!version_ok("0.1.2.3"));
    }

    #[test]
    fn duplicate_keys_found_at_depth() {
        let e = duplicate_keys("f", 1, r#"{"a":{"b":[{"c":1,"c":2}]}}"#).unwrap();
        assert!(e.message.contains("duplicate key \"c\""));
        assert!(duplicate_keys("f", 1, r#"{"a":{"c":1},"b":{"c":2}}"#).is_none());
    }
}
