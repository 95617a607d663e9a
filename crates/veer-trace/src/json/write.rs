//! Writing a [`Json`]: serde `Serialize` (the bytes serde_json writes for the equal `Value`),
//! `Display` (compact; `{:#}` pretty, as `Value`'s) and `Debug` (as `Value`'s).

use super::{Json, Object};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use std::fmt;

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => s.serialize_unit(),
            Json::Bool(b) => s.serialize_bool(*b),
            Json::Number(n) => n.serialize(s),
            Json::String(v) => s.serialize_str(v),
            Json::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items.iter() {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Json::Object(o) => o.serialize(s),
        }
    }
}

impl Serialize for Object {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.len()))?;
        for (k, v) in self.iter() {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// Adapts a `fmt::Formatter` to `io::Write` for serde_json's writer.
struct FmtWriter<'a, 'b>(&'a mut fmt::Formatter<'b>);

impl std::io::Write for FmtWriter<'_, '_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // serde_json writes whole UTF-8 sequences per call.
        let s = std::str::from_utf8(buf).map_err(std::io::Error::other)?;
        self.0.write_str(s).map_err(std::io::Error::other)?;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl fmt::Display for Json {
    /// Compact JSON text; `{:#}` pretty-prints, as `serde_json::Value`'s `Display` does.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let alternate = f.alternate();
        let mut w = FmtWriter(f);
        let written = if alternate {
            serde_json::to_writer_pretty(&mut w, self)
        } else {
            serde_json::to_writer(&mut w, self)
        };
        written.map_err(|_| fmt::Error)
    }
}

impl fmt::Debug for Json {
    /// The same text as the equal `serde_json::Value`'s `Debug`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.to_value(), f)
    }
}

impl fmt::Debug for Object {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.to_map(), f)
    }
}
