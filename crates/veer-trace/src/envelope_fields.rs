//! Compact envelope fields: a record's `id`, `parent`, `ts` and `version`, held in a few bytes
//! when they have their usual form and as the original text otherwise.
//!
//! A read `.agentlog` is about half envelope text: every record carries a 71-character content
//! id, usually another as its parent, a 24-character timestamp and `"0.1"`. Held as `String`s
//! they cost ~200 heap bytes per record. Here a content id of the canonical form
//! `sha256:<64 lowercase hex>` is its 32-byte digest, a timestamp of the form
//! `YYYY-MM-DDTHH:MM:SS.sssZ` that formats back to the same text is its millisecond count, and
//! version `0.1` is a tag; anything else (an upper-case digest, a placeholder id, a
//! `+00:00` offset, version `"0.2"`) keeps its exact text. Either way the field reads, compares,
//! hashes, displays and serialises as the original string, so every written byte is unchanged.

use std::borrow::Cow;
use std::fmt;

const ID_PREFIX: &str = "sha256:";
const HEX: &[u8; 16] = b"0123456789abcdef";

/// A record's envelope `id` (or `parent`): a content id `sha256:<64 lowercase hex>` held as its
/// 32-byte digest, or any other string verbatim. 40 bytes inline, no heap for content ids.
///
/// Equality, hashing and ordering are those of the string it stands for (a canonical id is
/// always held as a digest, so the two variants never stand for the same string).
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum RecordId {
    /// `sha256:` followed by these bytes as 64 lowercase hex digits.
    Sha256([u8; 32]),
    /// Any other string, exactly as read.
    Text(Box<str>),
}

impl RecordId {
    /// The id for `s`: a digest when `s` has the canonical content-id form, else `s` itself.
    pub fn new(s: &str) -> RecordId {
        match parse_sha256(s) {
            Some(d) => RecordId::Sha256(d),
            None => RecordId::Text(s.into()),
        }
    }

    /// The id as text (borrowed when held as text; 71 bytes formatted for a digest).
    pub fn as_str(&self) -> Cow<'_, str> {
        match self {
            RecordId::Sha256(d) => Cow::Owned(String::from_utf8_lossy(&format_sha256(d)).into()),
            RecordId::Text(s) => Cow::Borrowed(s),
        }
    }

    /// Whether this is a content id of the canonical form (`sha256:` + 64 lowercase hex).
    pub(crate) fn is_content_id(&self) -> bool {
        matches!(self, RecordId::Sha256(_))
    }

    /// Calls `f` with the id's text, without allocating.
    fn with_str<R>(&self, f: impl FnOnce(&str) -> R) -> R {
        match self {
            RecordId::Sha256(d) => {
                let bytes = format_sha256(d);
                // The bytes are ASCII by construction.
                f(std::str::from_utf8(&bytes).unwrap_or_default())
            }
            RecordId::Text(s) => f(s),
        }
    }
}

/// `sha256:` + 64 hex digits of `d`.
fn format_sha256(d: &[u8; 32]) -> [u8; 71] {
    let mut out = [0u8; 71];
    out[..7].copy_from_slice(ID_PREFIX.as_bytes());
    for (i, b) in d.iter().enumerate() {
        out[7 + 2 * i] = HEX[usize::from(b >> 4)];
        out[8 + 2 * i] = HEX[usize::from(b & 15)];
    }
    out
}

/// The digest of a canonical content id; `None` for any other string (upper-case hex included).
fn parse_sha256(s: &str) -> Option<[u8; 32]> {
    let hex = s.strip_prefix(ID_PREFIX)?.as_bytes();
    if hex.len() != 64 {
        return None;
    }
    let nibble = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    let mut d = [0u8; 32];
    for (i, pair) in hex.chunks_exact(2).enumerate() {
        d[i] = (nibble(pair[0])? << 4) | nibble(pair[1])?;
    }
    Some(d)
}

impl PartialOrd for RecordId {
    fn partial_cmp(&self, other: &RecordId) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for RecordId {
    /// The order of the strings the ids stand for.
    fn cmp(&self, other: &RecordId) -> std::cmp::Ordering {
        self.with_str(|a| other.with_str(|b| a.cmp(b)))
    }
}

/// Timestamps, versions and ids share their string-like behaviour.
macro_rules! string_like {
    ($t:ty) => {
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.with_str(|s| f.write_str(s))
            }
        }
        impl fmt::Debug for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.with_str(|s| fmt::Debug::fmt(s, f))
            }
        }
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                self.with_str(|text| s.serialize_str(text))
            }
        }
        impl From<&str> for $t {
            fn from(s: &str) -> $t {
                <$t>::new(s)
            }
        }
        impl From<String> for $t {
            fn from(s: String) -> $t {
                <$t>::new(&s)
            }
        }
        impl From<&String> for $t {
            fn from(s: &String) -> $t {
                <$t>::new(s)
            }
        }
        impl From<&$t> for String {
            fn from(v: &$t) -> String {
                v.to_string()
            }
        }
        impl PartialEq<str> for $t {
            fn eq(&self, other: &str) -> bool {
                self.with_str(|s| s == other)
            }
        }
        impl PartialEq<&str> for $t {
            fn eq(&self, other: &&str) -> bool {
                self.with_str(|s| s == *other)
            }
        }
        impl PartialEq<String> for $t {
            fn eq(&self, other: &String) -> bool {
                self.with_str(|s| s == other.as_str())
            }
        }
        impl PartialEq<$t> for String {
            fn eq(&self, other: &$t) -> bool {
                other == self
            }
        }
        impl PartialEq<$t> for str {
            fn eq(&self, other: &$t) -> bool {
                other == self
            }
        }
    };
}

string_like!(RecordId);
string_like!(Timestamp);
string_like!(Version);

/// A record's envelope `ts`: milliseconds since the Unix epoch when the text is exactly
/// `YYYY-MM-DDTHH:MM:SS.sssZ` for them (years 0000–9999, a real calendar date), else the text
/// verbatim. 16 bytes inline, no heap for the usual form.
///
/// Equality, hashing and ordering are those of the string it stands for.
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum Timestamp {
    /// Milliseconds since 1970-01-01T00:00:00.000Z, formatted as `YYYY-MM-DDTHH:MM:SS.sssZ`.
    Millis(i64),
    /// Any other string, exactly as read.
    Text(Box<str>),
}

/// The smallest and largest instants of four-digit years (0000-01-01 and 9999-12-31, end of day).
const MIN_MS: i64 = -62_167_219_200_000;
const MAX_MS: i64 = 253_402_300_799_999;

impl Timestamp {
    /// The timestamp for `s`: compact when `s` is the canonical form of an instant, else `s`.
    pub fn new(s: &str) -> Timestamp {
        match parse_canonical_ms(s) {
            Some(ms) => Timestamp::Millis(ms),
            None => Timestamp::Text(s.into()),
        }
    }

    /// The timestamp of `ms` milliseconds since the epoch: the same as
    /// `Timestamp::from(timefmt::format_epoch_ms(ms))`, without formatting it.
    pub fn from_millis(ms: i64) -> Timestamp {
        if (MIN_MS..=MAX_MS).contains(&ms) {
            Timestamp::Millis(ms)
        } else {
            Timestamp::new(&crate::timefmt::format_epoch_ms(ms))
        }
    }

    /// The timestamp as text (borrowed when held as text).
    pub fn as_str(&self) -> Cow<'_, str> {
        match self {
            Timestamp::Millis(ms) => Cow::Owned(self.with_millis(*ms, str::to_owned)),
            Timestamp::Text(s) => Cow::Borrowed(s),
        }
    }

    #[cfg(test)]
    /// Milliseconds since the epoch when held compactly (the text was canonical).
    pub(crate) fn millis(&self) -> Option<i64> {
        match self {
            Timestamp::Millis(ms) => Some(*ms),
            Timestamp::Text(_) => None,
        }
    }

    fn with_millis<R>(&self, ms: i64, f: impl FnOnce(&str) -> R) -> R {
        let bytes = format_ms(ms);
        f(std::str::from_utf8(&bytes).unwrap_or_default())
    }

    fn with_str<R>(&self, f: impl FnOnce(&str) -> R) -> R {
        match self {
            Timestamp::Millis(ms) => self.with_millis(*ms, f),
            Timestamp::Text(s) => f(s),
        }
    }
}

impl PartialOrd for Timestamp {
    fn partial_cmp(&self, other: &Timestamp) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Timestamp {
    /// The order of the strings the timestamps stand for.
    fn cmp(&self, other: &Timestamp) -> std::cmp::Ordering {
        match (self, other) {
            // Same-width canonical texts sort as their instants (years 0000–9999).
            (Timestamp::Millis(a), Timestamp::Millis(b)) => a.cmp(b),
            _ => self.with_str(|a| other.with_str(|b| a.cmp(b))),
        }
    }
}

/// `YYYY-MM-DDTHH:MM:SS.sssZ` for `ms` in `MIN_MS..=MAX_MS`.
fn format_ms(ms: i64) -> [u8; 24] {
    let days = ms.div_euclid(86_400_000);
    let rem = ms.rem_euclid(86_400_000);
    let (y, m, d) = crate::timefmt::civil_from_days(days);
    let mut out = *b"0000-00-00T00:00:00.000Z";
    let mut put = |at: usize, width: usize, mut v: i64| {
        for i in (0..width).rev() {
            out[at + i] = b'0' + (v % 10) as u8;
            v /= 10;
        }
    };
    put(0, 4, y);
    put(5, 2, m);
    put(8, 2, d);
    put(11, 2, rem / 3_600_000);
    put(14, 2, rem / 60_000 % 60);
    put(17, 2, rem / 1000 % 60);
    put(20, 3, rem % 1000);
    out
}

/// The instant of a canonical `YYYY-MM-DDTHH:MM:SS.sssZ` text: `None` unless formatting the
/// instant gives back exactly `s` (so `02-30`, `24:00` and the like stay text).
fn parse_canonical_ms(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() != 24 {
        return None;
    }
    let num = |from: usize, width: usize| -> Option<i64> {
        b[from..from + width].iter().try_fold(0i64, |acc, &c| {
            c.is_ascii_digit().then(|| acc * 10 + i64::from(c - b'0'))
        })
    };
    let (y, mo, d) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    let (h, mi, sec, milli) = (num(11, 2)?, num(14, 2)?, num(17, 2)?, num(20, 3)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 59 {
        return None;
    }
    let days = crate::timefmt::days_from_civil(y, mo, d);
    let ms = days * 86_400_000 + h * 3_600_000 + mi * 60_000 + sec * 1000 + milli;
    ((MIN_MS..=MAX_MS).contains(&ms) && format_ms(ms) == b[..]).then_some(ms)
}

/// A record's envelope `version`: `"0.1"` as a tag, any other string verbatim.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Version {
    /// `"0.1"`, the only version Shadow writes.
    V0_1,
    /// Any other string, exactly as read.
    Text(Box<str>),
}

impl Version {
    /// The version for `s`.
    pub fn new(s: &str) -> Version {
        if s == "0.1" {
            Version::V0_1
        } else {
            Version::Text(s.into())
        }
    }

    /// The version as text.
    pub fn as_str(&self) -> &str {
        match self {
            Version::V0_1 => "0.1",
            Version::Text(s) => s,
        }
    }

    fn with_str<R>(&self, f: impl FnOnce(&str) -> R) -> R {
        f(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn canonical_id() -> impl Strategy<Value = String> {
        "[0-9a-f]{64}".prop_map(|h| format!("sha256:{h}"))
    }

    fn odd_id() -> impl Strategy<Value = String> {
        prop_oneof![
            "[0-9a-fA-F]{64}".prop_map(|h| format!("sha256:{h}")),
            "[0-9a-f]{63,65}".prop_map(|h| format!("sha256:{h}")),
            "[0-9a-f]{64}".prop_map(|h| format!("SHA256:{h}")),
            "\\PC{0,80}",
        ]
    }

    fn canonical_ts() -> impl Strategy<Value = String> {
        (MIN_MS..=MAX_MS).prop_map(crate::timefmt::format_epoch_ms)
    }

    fn odd_ts() -> impl Strategy<Value = String> {
        prop_oneof![
            "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z",
            "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{0,9})?(Z|[+-][0-9]{2}:[0-9]{2})?",
            "[0-9 :TZ.+-]{0,30}",
            "\\PC{0,30}",
        ]
    }

    proptest! {
        #[test]
        fn ids_read_back_as_their_text(s in prop_oneof![canonical_id(), odd_id()]) {
            let id = RecordId::from(s.as_str());
            prop_assert_eq!(id.as_str(), s.as_str());
            prop_assert_eq!(id.to_string(), s.clone());
            prop_assert_eq!(serde_json::to_string(&id).unwrap(), serde_json::to_string(&s).unwrap());
            prop_assert_eq!(format!("{id:?}"), format!("{s:?}"));
            prop_assert!(id == s);
            let canonical = s.len() == 71 && s.starts_with("sha256:")
                && s[7..].bytes().all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c));
            prop_assert_eq!(id.is_content_id(), canonical);
        }

        #[test]
        fn ids_compare_as_their_text(a in prop_oneof![canonical_id(), odd_id()], b in prop_oneof![canonical_id(), odd_id()]) {
            let (x, y) = (RecordId::from(a.as_str()), RecordId::from(b.as_str()));
            prop_assert_eq!(x == y, a == b);
            prop_assert_eq!(x.cmp(&y), a.cmp(&b));
            prop_assert!(x == *a.as_str());
        }

        #[test]
        fn timestamps_read_back_as_their_text(s in prop_oneof![canonical_ts(), odd_ts()]) {
            let ts = Timestamp::from(s.as_str());
            prop_assert_eq!(ts.as_str(), s.as_str());
            prop_assert_eq!(ts.to_string(), s.clone());
            prop_assert_eq!(serde_json::to_string(&ts).unwrap(), serde_json::to_string(&s).unwrap());
            // Compact exactly when the slow formatter gives the text back.
            let slow = crate::timefmt::parse_iso_ms(&s)
                .filter(|ms| (MIN_MS..=MAX_MS).contains(ms) && crate::timefmt::format_epoch_ms(*ms) == s);
            prop_assert_eq!(ts.millis(), slow);
        }

        #[test]
        fn millis_give_the_timestamp_of_their_text(ms in prop_oneof![MIN_MS - 10_000..=MIN_MS + 10_000, any::<i64>().prop_map(|m| m / 4), MAX_MS - 10_000..=MAX_MS + 10_000]) {
            let text = crate::timefmt::format_epoch_ms(ms);
            prop_assert_eq!(Timestamp::from_millis(ms), Timestamp::from(text.as_str()));
            prop_assert_eq!(Timestamp::from_millis(ms).to_string(), text);
        }

        #[test]
        fn timestamps_compare_as_their_text(a in prop_oneof![canonical_ts(), odd_ts()], b in prop_oneof![canonical_ts(), odd_ts()]) {
            let (x, y) = (Timestamp::from(a.as_str()), Timestamp::from(b.as_str()));
            prop_assert_eq!(x == y, a == b);
            prop_assert_eq!(x.cmp(&y), a.cmp(&b));
        }

        #[test]
        fn versions_read_back_as_their_text(s in prop_oneof![Just("0.1".to_string()), "\\PC{0,6}"]) {
            let v = Version::from(s.as_str());
            prop_assert_eq!(v.as_str(), s.as_str());
            prop_assert_eq!(serde_json::to_string(&v).unwrap(), serde_json::to_string(&s).unwrap());
            prop_assert_eq!(v == Version::V0_1, s == "0.1");
        }
    }

    #[test]
    fn usual_fields_take_no_heap() {
        let id = RecordId::from(
            "sha256:4f8f0ebf8bd993288bd4d57ffab1ab3aab86bca8d945d47b923e4ecc6cd81b62",
        );
        assert!(matches!(id, RecordId::Sha256(_)));
        assert!(matches!(
            Timestamp::from("2026-01-01T00:00:01.289Z"),
            Timestamp::Millis(_)
        ));
        assert!(matches!(
            Timestamp::from("2026-02-30T00:00:00.000Z"),
            Timestamp::Text(_)
        ));
        assert!(matches!(
            Timestamp::from("2026-01-01T00:00:00.000+00:00"),
            Timestamp::Text(_)
        ));
        assert!(matches!(
            Timestamp::from("0000-01-01T00:00:00.000Z"),
            Timestamp::Millis(_)
        ));
        assert!(matches!(
            Timestamp::from("9999-12-31T23:59:59.999Z"),
            Timestamp::Millis(_)
        ));
        assert_eq!(std::mem::size_of::<RecordId>(), 40);
        assert_eq!(std::mem::size_of::<Option<RecordId>>(), 40);
        assert_eq!(std::mem::size_of::<Timestamp>(), 16);
        assert_eq!(std::mem::size_of::<Version>(), 16);
    }
}
