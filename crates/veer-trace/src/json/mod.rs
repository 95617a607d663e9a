//! A compact, immutable JSON tree for record payloads.
//!
//! A read trace is nearly all payload, and `serde_json::Value` spends 104 bytes on every object
//! entry plus a hash index per object. [`Json`] holds the same data in 24-byte nodes: strings as
//! exact-size `Box<str>`, arrays as exact-size boxed slices, objects as a boxed slice of
//! `(key, value)` pairs in input order (looked up by a linear scan: payload objects are
//! small), each distinct key allocated once per reader thread and shared (a thin [`Key`], so an
//! entry is 32 bytes).
//! It is built once (by the readers, or from a `serde_json::Value`) and then only read.
//!
//! It behaves like the `Value` it replaces, so that every report stays byte-identical:
//! numbers are `serde_json::Number`s (integers exact as `i64`/`u64`, floats as `f64`, written
//! the same way); objects keep input order, and a repeated key keeps its first place and its
//! last value (serde_json's `preserve_order` rule); serialising gives serde_json's bytes; the
//! read-only API is named like `Value`'s (`get`, `as_str`, `pointer`, `[..]` giving `Null`
//! when missing, …). To change a payload, convert it to a `Value` ([`Json::to_value`]) and back.

mod compare;
mod key;
mod parse;
mod py;
#[cfg(test)]
mod tests;
mod write;

pub(crate) use parse::{json_from_slice, json_from_str, JsonScratch, JsonSeed};

use serde_json::{Number, Value};

/// One JSON value, immutable once built. 24 bytes.
#[derive(Clone, Default)]
pub enum Json {
    /// `null`.
    #[default]
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A number exactly as serde_json holds it (`i64`, `u64` or finite `f64`).
    Number(Number),
    /// A string.
    String(Box<str>),
    /// An array.
    Array(Box<[Json]>),
    /// An object.
    Object(Object),
}

/// A JSON object: its entries in input order, keys unique.
#[derive(Clone, Default)]
pub struct Object(Box<[(Key, Json)]>);

// An object key. Shared: the reader hands out one allocation per distinct key and thread, so
// the many repeats of `"role"`, `"content"`, `"type"` … of a trace cost a pointer each.
pub use key::Key;

/// The `Null` that indexing returns for a missing key or index.
pub(crate) static NULL: Json = Json::Null;

impl Object {
    /// An object of `entries`, which must have unique keys (see [`Object::from_entries`]
    /// for entries that may repeat a key).
    pub(crate) fn from_unique(entries: Box<[(Key, Json)]>) -> Object {
        Object(entries)
    }

    /// An object of `entries` in order; a repeated key keeps its first place and its last
    /// value, as serde_json's `Map` does.
    pub fn from_entries(mut entries: Vec<(Key, Json)>) -> Object {
        dedup_keys(&mut entries);
        Object(entries.into_boxed_slice())
    }

    /// The value of `key`, if present.
    pub fn get(&self, key: &str) -> Option<&Json> {
        self.0.iter().find(|(k, _)| &**k == key).map(|(_, v)| v)
    }

    /// Whether `key` is present.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The entries in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &Json)> + DoubleEndedIterator {
        self.0.iter().map(|(k, v)| (&**k, v))
    }

    /// The keys in order.
    pub fn keys(&self) -> impl ExactSizeIterator<Item = &str> + DoubleEndedIterator {
        self.0.iter().map(|(k, _)| &**k)
    }

    /// The values in order.
    pub fn values(&self) -> impl ExactSizeIterator<Item = &Json> + DoubleEndedIterator {
        self.0.iter().map(|(_, v)| v)
    }

    /// The entries as a slice, in order.
    pub fn entries(&self) -> &[(Key, Json)] {
        &self.0
    }

    /// The entries, moved out, in order.
    pub(crate) fn into_entries(self) -> impl ExactSizeIterator<Item = (Key, Json)> {
        self.0.into_vec().into_iter()
    }

    /// The object as a `serde_json::Map` (allocates).
    pub fn to_map(&self) -> serde_json::Map<String, Value> {
        self.iter()
            .map(|(k, v)| (k.to_owned(), v.to_value()))
            .collect()
    }
}

impl<'a> IntoIterator for &'a Object {
    type Item = (&'a str, &'a Json);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (Key, Json)>,
        fn(&'a (Key, Json)) -> (&'a str, &'a Json),
    >;

    fn into_iter(self) -> Self::IntoIter {
        fn pair(e: &(Key, Json)) -> (&str, &Json) {
            (&*e.0, &e.1)
        }
        self.0.iter().map(pair)
    }
}

/// Makes keys unique in place: a repeated key keeps its first place and its last value.
fn dedup_keys(entries: &mut Vec<(Key, Json)>) {
    let n = entries.len();
    if n < 2 {
        return;
    }
    if !has_duplicate_key(entries) {
        return;
    }
    let mut out: Vec<(Key, Json)> = Vec::with_capacity(n);
    let mut place: std::collections::HashMap<Key, usize> =
        std::collections::HashMap::with_capacity(n);
    for (k, v) in entries.drain(..) {
        match place.get(&k) {
            Some(&i) => out[i].1 = v,
            None => {
                place.insert(k.clone(), out.len());
                out.push((k, v));
            }
        }
    }
    out.shrink_to_fit();
    *entries = out;
}

/// Whether two of `entries` share a key.
fn has_duplicate_key(entries: &[(Key, Json)]) -> bool {
    let n = entries.len();
    if n <= 16 {
        return (1..n).any(|i| entries[..i].iter().any(|(k, _)| *k == entries[i].0));
    }
    let mut keys: Vec<&str> = entries.iter().map(|(k, _)| &**k).collect();
    keys.sort_unstable();
    keys.windows(2).any(|w| w[0] == w[1])
}

/// What a [`Json`] can be indexed by: a `&str` key of an object or a `usize` index of an array.
pub trait JsonIndex {
    /// The element this index names in `v`, if any.
    fn index_into<'v>(&self, v: &'v Json) -> Option<&'v Json>;
}

impl JsonIndex for str {
    fn index_into<'v>(&self, v: &'v Json) -> Option<&'v Json> {
        v.as_object().and_then(|o| o.get(self))
    }
}

impl JsonIndex for String {
    fn index_into<'v>(&self, v: &'v Json) -> Option<&'v Json> {
        self.as_str().index_into(v)
    }
}

impl JsonIndex for usize {
    fn index_into<'v>(&self, v: &'v Json) -> Option<&'v Json> {
        v.as_array().and_then(|a| a.get(*self))
    }
}

impl<T: JsonIndex + ?Sized> JsonIndex for &T {
    fn index_into<'v>(&self, v: &'v Json) -> Option<&'v Json> {
        (**self).index_into(v)
    }
}

impl<I: JsonIndex> std::ops::Index<I> for Json {
    type Output = Json;

    /// `self[key]` or `self[i]`; `Null` when missing or when `self` is not an object / array.
    fn index(&self, index: I) -> &Json {
        index.index_into(self).unwrap_or(&NULL)
    }
}

impl Json {
    /// `self[index]` when present (an object's key or an array's element).
    pub fn get<I: JsonIndex>(&self, index: I) -> Option<&Json> {
        index.index_into(self)
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    /// The boolean, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The number as `f64`, if this is a number (integers converted, possibly rounded).
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Number(n) => n.as_f64(),
            _ => None,
        }
    }

    /// The number as `i64`, if it is an integer in `i64`'s range.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Json::Number(n) => n.as_i64(),
            _ => None,
        }
    }

    /// The number as `u64`, if it is a non-negative integer in `u64`'s range.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Json::Number(n) => n.as_u64(),
            _ => None,
        }
    }

    /// The elements, if this is an array.
    pub fn as_array(&self) -> Option<&[Json]> {
        match self {
            Json::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The object, if this is one.
    pub fn as_object(&self) -> Option<&Object> {
        match self {
            Json::Object(o) => Some(o),
            _ => None,
        }
    }

    /// Whether this is `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Json::Null)
    }

    /// Whether this is a string.
    pub fn is_string(&self) -> bool {
        matches!(self, Json::String(_))
    }

    /// Whether this is a boolean.
    pub(crate) fn is_boolean(&self) -> bool {
        matches!(self, Json::Bool(_))
    }

    /// Whether this is a number.
    pub fn is_number(&self) -> bool {
        matches!(self, Json::Number(_))
    }

    /// Whether this is an integer in `i64`'s range.
    pub fn is_i64(&self) -> bool {
        matches!(self, Json::Number(n) if n.is_i64())
    }

    /// Whether this is a non-negative integer in `u64`'s range.
    pub fn is_u64(&self) -> bool {
        matches!(self, Json::Number(n) if n.is_u64())
    }

    /// Whether this is a float.
    pub fn is_f64(&self) -> bool {
        matches!(self, Json::Number(n) if n.is_f64())
    }

    /// Whether this is an array.
    pub fn is_array(&self) -> bool {
        matches!(self, Json::Array(_))
    }

    /// Whether this is an object.
    pub fn is_object(&self) -> bool {
        matches!(self, Json::Object(_))
    }

    /// The value at a JSON Pointer (RFC 6901: `""` is the whole value, `/a/0/b~1c`), as
    /// `serde_json::Value::pointer` resolves it.
    pub fn pointer(&self, pointer: &str) -> Option<&Json> {
        if pointer.is_empty() {
            return Some(self);
        }
        let rest = pointer.strip_prefix('/')?;
        let mut target = self;
        for token in rest.split('/') {
            let token = token.replace("~1", "/").replace("~0", "~");
            target = match target {
                Json::Object(o) => o.get(&token)?,
                Json::Array(a) => a.get(parse_array_index(&token)?)?,
                _ => return None,
            };
        }
        Some(target)
    }

    /// A `serde_json::Value` with the same content (allocates).
    pub fn to_value(&self) -> Value {
        match self {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(n) => Value::Number(n.clone()),
            Json::String(s) => Value::String(s.to_string()),
            Json::Array(a) => Value::Array(a.iter().map(Json::to_value).collect()),
            Json::Object(o) => Value::Object(o.to_map()),
        }
    }

    /// "a string", "an array", … for messages (as `agentlog::reader::json_type` names them).
    pub(crate) fn type_phrase(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "a boolean",
            Json::Number(_) => "a number",
            Json::String(_) => "a string",
            Json::Array(_) => "an array",
            Json::Object(_) => "an object",
        }
    }

    /// An empty object.
    pub fn empty_object() -> Json {
        Json::Object(Object::default())
    }
}

/// An array index as serde_json's `pointer` accepts it: digits, no leading `+` or zero.
fn parse_array_index(s: &str) -> Option<usize> {
    if s.starts_with('+') || (s.starts_with('0') && s.len() != 1) {
        return None;
    }
    s.parse().ok()
}

impl From<Value> for Json {
    /// `v` as a tree, its strings moved and its object keys shared with the keys this thread
    /// converted before (one allocation per distinct key and thread, as the reader shares
    /// them), so payloads built as `Value`s cost no more than parsed ones.
    fn from(v: Value) -> Json {
        thread_local! {
            static KEYS: std::cell::RefCell<JsonScratch> = std::cell::RefCell::default();
        }
        KEYS.with(|keys| match keys.try_borrow_mut() {
            Ok(mut scratch) => scratch.adopt(v),
            // Never re-entered; a fresh scratch keeps it correct if it were.
            Err(_) => JsonScratch::default().adopt(v),
        })
    }
}

impl From<&Value> for Json {
    fn from(v: &Value) -> Json {
        Json::from(v.clone())
    }
}

impl From<serde_json::Map<String, Value>> for Json {
    fn from(m: serde_json::Map<String, Value>) -> Json {
        Json::from(Value::Object(m))
    }
}

impl From<&str> for Json {
    fn from(s: &str) -> Json {
        Json::String(s.into())
    }
}

impl From<String> for Json {
    fn from(s: String) -> Json {
        Json::String(s.into_boxed_str())
    }
}

impl From<bool> for Json {
    fn from(b: bool) -> Json {
        Json::Bool(b)
    }
}

impl From<Json> for Value {
    fn from(j: Json) -> Value {
        j.to_value()
    }
}

impl From<&Json> for Value {
    fn from(j: &Json) -> Value {
        j.to_value()
    }
}
