//! Canonical JSON bytes and content ids, exactly as Shadow's writer computes them.
//!
//! The same canonical bytes feed three things: `.agentlog` record ids (`sha256:` + 64 hex), the
//! trajectory argument digest (first 16 hex digits) and argument-value comparison in the
//! alignment. Rules (spec `trace-formats.md` §1.6): keys and strings NFC-normalised, object
//! entries stably sorted by the UTF-8 bytes of the normalised key (duplicates after NFC kept, in
//! input order), short escapes for `" \ \n \r \t \b \f`, `\u00xx` (lowercase) for other control
//! characters, integers exact, floats in shortest round-trip digits without an exponent.

use crate::json::Json;
use serde_json::{Number, Value};
use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use unicode_normalization::{is_nfc_quick, IsNormalized, UnicodeNormalization};
use veer_base::hex::push_hex;

/// A JSON tree that has canonical bytes: a `serde_json::Value` or a compact [`Json`].
pub trait CanonicalJson {
    /// Appends the canonical serialisation of `self` to `out`.
    fn write_canonical_to(&self, out: &mut String);
}

impl CanonicalJson for Value {
    fn write_canonical_to(&self, out: &mut String) {
        write_value(out, self);
    }
}

impl CanonicalJson for Json {
    fn write_canonical_to(&self, out: &mut String) {
        write_json(out, self);
    }
}

/// The canonical serialisation of `value` as UTF-8 bytes.
pub fn canonical_bytes<T: CanonicalJson + ?Sized>(value: &T) -> Vec<u8> {
    let mut out = String::with_capacity(64);
    value.write_canonical_to(&mut out);
    out.into_bytes()
}

/// `"sha256:" + lowercase hex(SHA-256(canonical_bytes(payload)))`: 71 characters.
pub fn content_id<T: CanonicalJson + ?Sized>(payload: &T) -> String {
    let digest = content_digest(payload);
    let mut id = String::with_capacity(71);
    id.push_str("sha256:");
    push_hex(&mut id, &digest);
    id
}

/// SHA-256 of `canonical_bytes(payload)`: the 32 bytes [`content_id`] spells in hex. The
/// canonical text is written into a buffer reused by the calling thread.
pub(crate) fn content_digest<T: CanonicalJson + ?Sized>(payload: &T) -> [u8; 32] {
    thread_local! {
        static BUF: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    }
    let digest_of = |out: &mut String| {
        out.clear();
        payload.write_canonical_to(out);
        let digest: [u8; 32] = Sha256::digest(out.as_bytes()).into();
        // A buffer grown by one huge payload is not kept.
        if out.capacity() > 1 << 16 {
            *out = String::new();
        }
        digest
    };
    BUF.with(|buf| match buf.try_borrow_mut() {
        Ok(mut out) => digest_of(&mut out),
        // Never re-entered; a fresh buffer keeps it correct if it were.
        Err(_) => digest_of(&mut String::new()),
    })
}

#[cfg(test)]
/// The first 16 lowercase hex digits (8 bytes) of SHA-256 over the canonical bytes of `value`.
pub(crate) fn digest16<T: CanonicalJson + ?Sized>(value: &T) -> String {
    hex16_of(&canonical_bytes(value))
}

/// The first 16 lowercase hex digits of SHA-256 over `bytes`.
pub fn hex16_of(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut s = String::with_capacity(16);
    push_hex(&mut s, &digest[..8]);
    s
}

#[cfg(test)]
/// Whether `id` has the content-id shape: `sha256:` followed by 64 lowercase hex digits.
pub(crate) fn is_content_id_shape(id: &str) -> bool {
    id.len() == 71
        && id.starts_with("sha256:")
        && id[7..]
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => write_number(out, n),
        Value::String(s) => write_string(out, &nfc(s)),
        Value::Array(items) => write_array(out, items),
        Value::Object(map) => write_object(out, map.iter().map(|(k, v)| (k.as_str(), v))),
    }
}

/// [`write_value`] for the compact tree: the same rules, node for node.
fn write_json(out: &mut String, value: &Json) {
    match value {
        Json::Null => out.push_str("null"),
        Json::Bool(true) => out.push_str("true"),
        Json::Bool(false) => out.push_str("false"),
        Json::Number(n) => write_number(out, n),
        Json::String(s) => write_string(out, &nfc(s)),
        Json::Array(items) => write_array(out, items.iter()),
        Json::Object(map) => write_object(out, map.entries().iter().map(|(k, v)| (&**k, v))),
    }
}

/// `[a,b,…]`, each item canonical.
fn write_array<'a, T: CanonicalJson + 'a>(
    out: &mut String,
    items: impl IntoIterator<Item = &'a T>,
) {
    out.push('[');
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        item.write_canonical_to(out);
    }
    out.push(']');
}

/// `{k:v,…}` with NFC keys stably sorted by their UTF-8 bytes (keys equal after NFC keep their
/// input order).
fn write_object<'a, T: CanonicalJson + 'a>(
    out: &mut String,
    entries: impl Iterator<Item = (&'a str, &'a T)> + Clone,
) {
    // Usually the keys are ASCII (their own NFC form) and already in order: written as they come.
    if is_ascii_and_sorted(entries.clone().map(|(k, _)| k)) {
        write_entries(out, entries);
    } else {
        write_object_sorting(out, entries);
    }
}

/// [`write_object`] by its definition: every key normalised, the entries sorted.
fn write_object_sorting<'a, T: CanonicalJson + 'a>(
    out: &mut String,
    entries: impl Iterator<Item = (&'a str, &'a T)>,
) {
    let mut entries: Vec<(std::borrow::Cow<'a, str>, &T)> =
        entries.map(|(k, v)| (nfc(k), v)).collect();
    entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    write_entries(out, entries.iter().map(|(k, v)| (&**k, *v)));
}

/// `{k:v,…}` in the order given, keys as they are.
fn write_entries<'k, 'a, T: CanonicalJson + 'a>(
    out: &mut String,
    entries: impl Iterator<Item = (&'k str, &'a T)>,
) {
    out.push('{');
    for (i, (k, v)) in entries.enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_string(out, k);
        out.push(':');
        v.write_canonical_to(out);
    }
    out.push('}');
}

/// Whether every key is ASCII and each is byte-wise no greater than the next (then the sorted
/// NFC order of [`write_object`] is the order given: a stable sort keeps equal keys in place).
fn is_ascii_and_sorted<'a>(mut keys: impl Iterator<Item = &'a str>) -> bool {
    let Some(mut previous) = keys.next() else {
        return true;
    };
    if !previous.is_ascii() {
        return false;
    }
    for k in keys {
        if !k.is_ascii() || k.as_bytes() < previous.as_bytes() {
            return false;
        }
        previous = k;
    }
    true
}

/// NFC form of `s`, borrowing when it is already normalised (always for ASCII).
pub fn nfc(s: &str) -> std::borrow::Cow<'_, str> {
    if s.is_ascii() || is_nfc_quick(s.chars()) == IsNormalized::Yes {
        std::borrow::Cow::Borrowed(s)
    } else {
        std::borrow::Cow::Owned(s.nfc().collect())
    }
}

fn write_number(out: &mut String, n: &Number) {
    if let Some(i) = n.as_i64() {
        let _ = write!(out, "{i}");
    } else if let Some(u) = n.as_u64() {
        let _ = write!(out, "{u}");
    } else if let Some(f) = n.as_f64() {
        write_f64(out, f);
    }
}

/// Shortest round-trip digits without exponent; `0` for ±0.0; `1` for `1.0`.
pub(crate) fn write_f64(out: &mut String, f: f64) {
    if f == 0.0 {
        out.push('0');
    } else {
        // Rust's Display for f64 never uses an exponent and drops a trailing `.0`.
        let _ = write!(out, "{f}");
    }
}

fn write_string(out: &mut String, s: &str) {
    out.push('"');
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        let esc: Option<&str> = match b {
            b'"' => Some("\\\""),
            b'\\' => Some("\\\\"),
            b'\n' => Some("\\n"),
            b'\r' => Some("\\r"),
            b'\t' => Some("\\t"),
            0x08 => Some("\\b"),
            0x0c => Some("\\f"),
            0x00..=0x1f => None,
            _ => continue,
        };
        out.push_str(&s[start..i]);
        match esc {
            Some(e) => out.push_str(e),
            None => {
                let _ = write!(out, "\\u{:04x}", b);
            }
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id_of(json: &str) -> (String, String) {
        let v: Value = serde_json::from_str(json).unwrap();
        (
            String::from_utf8(canonical_bytes(&v)).unwrap(),
            content_id(&v),
        )
    }

    /// The normative vectors of trace-formats.md §1.6.
    #[test]
    fn spec_vectors() {
        let zeros = |n: usize| "0".repeat(n);
        let cases: Vec<(&str, String, &str)> = vec![
            (
                r#"{"hello":"world"}"#,
                r#"{"hello":"world"}"#.into(),
                "93a23971a914e5eacbf0a8d25154cda309c3c1c72fbb9914d47c60f3cb681588",
            ),
            (
                "null",
                "null".into(),
                "74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b",
            ),
            (
                "{}",
                "{}".into(),
                "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a",
            ),
            (
                "[]",
                "[]".into(),
                "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945",
            ),
            (
                "true",
                "true".into(),
                "b5bea41b6c623f7c09f1bf24dcae58ebab3c0cdd90ad966bc43a45b44867e12b",
            ),
            (
                "false",
                "false".into(),
                "fcbcf165908dd18a9e49f7ff27810176db8e9f63b4352213741664245224f8aa",
            ),
            (
                "0",
                "0".into(),
                "5feceb66ffc86f38d952786c6d696c79c2dbc239dd4e91b46729d73a27fb57e9",
            ),
            (
                "-0",
                "0".into(),
                "5feceb66ffc86f38d952786c6d696c79c2dbc239dd4e91b46729d73a27fb57e9",
            ),
            (
                "-0.0",
                "0".into(),
                "5feceb66ffc86f38d952786c6d696c79c2dbc239dd4e91b46729d73a27fb57e9",
            ),
            (
                "1.00",
                "1".into(),
                "6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b",
            ),
            (
                "1.0",
                "1".into(),
                "6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b",
            ),
            (
                "100",
                "100".into(),
                "ad57366865126e55649ecb23ae1d48887544976efea46a48eb5d85a6eeb4d306",
            ),
            (
                "3.0e2",
                "300".into(),
                "983bd614bb5afece5ab3b6023f71147cd7b6bc2314f9d27af7422541c6558389",
            ),
            (
                "-1.5",
                "-1.5".into(),
                "37c2b212b94e5372b33df924ea2a91182d90c237d0bf942c1768e794ebef2376",
            ),
            (
                "0.1",
                "0.1".into(),
                "14be4b45f18e0d8c67b4f719b5144eee88497e413709d11d85b096d8e2346310",
            ),
            (
                "2.5E-3",
                "0.0025".into(),
                "03631d4380d280e3793f9f1b51e5757798c9cc28c719f151ecc4fce19a67559e",
            ),
            (
                "0.000001",
                "0.000001".into(),
                "159fb29a827ad04b260aa6c8ab6d8637f8f2b38af5c4f3cb49d6a21205e040f8",
            ),
            (
                "1e-6",
                "0.000001".into(),
                "159fb29a827ad04b260aa6c8ab6d8637f8f2b38af5c4f3cb49d6a21205e040f8",
            ),
            (
                "1e-7",
                "0.0000001".into(),
                "4035c4eedb2f0cf061cb4aedac998085c68fc1a1f5a3cc5de86c5086ba770324",
            ),
            (
                "1e20",
                "100000000000000000000".into(),
                "c344e9487bfbd5c4e03c9fb90d62a5dde5e00b54d55c46e9f4a803aea162b80c",
            ),
            (
                "1e21",
                "1000000000000000000000".into(),
                "b3c4d9d40b4c90b3995fea02caaf40503883e2b8b9aa1420063f090f42186f21",
            ),
            (
                "1.5e300",
                format!("15{}", zeros(299)),
                "87d30f44217769de5f2bda34473ea90c4049bad70a3df639db26d7409a9c3df5",
            ),
            (
                "1.7976931348623157e308",
                format!("17976931348623157{}", zeros(292)),
                "9a8a48349f1f23a94cc13b2f7dd1a5cb791c6cb8912f77cb425eca0f4f9b5a73",
            ),
            (
                "5e-324",
                format!("0.{}5", zeros(323)),
                "90620a380b105dc799edca0bcb5c167ec1a00ff0fd1cd5f577593725fafb476d",
            ),
            (
                "123456789012345678901234567890",
                "123456789012345680000000000000".into(),
                "0b251bf992915ab1ff80cf72c09181ea2b81395dcd031e074b19db8ede622879",
            ),
            (
                "9007199254740993",
                "9007199254740993".into(),
                "a1c367c29158357e62a3ff5d3e800fb7698a22396439dbc0a9d4929322afd35d",
            ),
            (
                "-9223372036854775808",
                "-9223372036854775808".into(),
                "85386477f3af47e4a0b308ee3b3a688df16e8b2228105dd7d4dcd42a9807cb78",
            ),
            (
                "18446744073709551615",
                "18446744073709551615".into(),
                "2cdb26265b4dc65e3b44d694f121fd6de99b9e4b8ae7f08d84bfa9537635ae43",
            ),
            (
                "18446744073709551616",
                "18446744073709552000".into(),
                "edacbbb2252b28815fa8983aad4682ab7718badd58a7e92c6b65b4292f308225",
            ),
            (
                r#"{"b":1,"a":2,"B":3,"é":4,"z":5}"#,
                r#"{"B":3,"a":2,"b":1,"z":5,"é":4}"#.into(),
                "70fb75684688138279235f8ef24f07ca1b1071e0327fff3649e3bfd2b80be5aa",
            ),
            (
                r#"{"\uffff":2,"\ud83d\ude00":1}"#,
                "{\"\u{ffff}\":2,\"\u{1F600}\":1}".into(),
                "92db27167c6f89fc43ff6c1997a7954a2e5bec81936fbe5ee12b4b6615b09596",
            ),
            (
                r#"{"a":{"b":{}},"A":[]}"#,
                r#"{"A":[],"a":{"b":{}}}"#.into(),
                "e7936788d904d058d2a61a28613b3ba0ec545e385d871f46ea6b098d50fd9ae1",
            ),
            (
                r#"{"a":[1,{"d":null,"c":true}],"b":"x"}"#,
                r#"{"a":[1,{"c":true,"d":null}],"b":"x"}"#.into(),
                "2f88850efa5cad4a9066bf4cbe18b24565744884bd180c2df847df26d4253ce1",
            ),
            (
                r#"[1,2.0,"3"]"#,
                r#"[1,2,"3"]"#.into(),
                "15c2b76d0c653102f91ffd8695edd507e8c46e47d3d2f27570ac1c1dde0373a7",
            ),
            (
                r#""e\u0301""#,
                "\"é\"".into(),
                "f2886017e9c7abacf804b54d64787dce2b611c9544ba21f3affdd126a6e50086",
            ),
            (
                r#""\u00e9""#,
                "\"é\"".into(),
                "f2886017e9c7abacf804b54d64787dce2b611c9544ba21f3affdd126a6e50086",
            ),
            (
                r#""\u00c5""#,
                "\"Å\"".into(),
                "20d8dab8ec900ac4fb89517b03abf6cf0c88fb9488ad3530519d98e9b6a6046c",
            ),
            (
                r#""A\u030a""#,
                "\"Å\"".into(),
                "20d8dab8ec900ac4fb89517b03abf6cf0c88fb9488ad3530519d98e9b6a6046c",
            ),
            (
                r#""\u212b""#,
                "\"Å\"".into(),
                "20d8dab8ec900ac4fb89517b03abf6cf0c88fb9488ad3530519d98e9b6a6046c",
            ),
            (
                r#"{"e\u0301":1}"#,
                "{\"é\":1}".into(),
                "ddcfcf4765da163969972bb20660092ca2787782d9352d1d8a38e93f70acf3bf",
            ),
            (
                r#"{"e\u0301":1,"\u00e9":2}"#,
                "{\"é\":1,\"é\":2}".into(),
                "6cb32a4e5b0ea8a2aea60872e33037e3852d0d4641bee7ff9e08a5aeb907853d",
            ),
            (
                r#"{"\u00e9":2,"e\u0301":1}"#,
                "{\"é\":2,\"é\":1}".into(),
                "b0e2f8b66da866e6cc2a65a7c37848f8ec79f746beca0812769102e75295f83b",
            ),
            (
                r#"{"a":1,"a":2}"#,
                r#"{"a":2}"#.into(),
                "7e8059f495589fcd981232cc11d00b00da3802c01d688fa1cf1f6bed6e5bb33c",
            ),
            (
                r#""a\"b\\c""#,
                r#""a\"b\\c""#.into(),
                "29e409e74462be098277d1428e52e22cd782e73a9f50b4f4f26e6527ab583eca",
            ),
            (
                r#""\n\r\t\b\f""#,
                r#""\n\r\t\b\f""#.into(),
                "9238ce80d35d301c4411072a8f184960a77840aee9f8c6bbc89116dd5471bf24",
            ),
            (
                r#""\u0001\u001f\u007f""#,
                "\"\\u0001\\u001f\u{7f}\"".into(),
                "ed9097a4ae751ddfbe4238513512e27a0136cffe70fe966b1bda13450c2bb455",
            ),
            (
                r#""\u000b""#,
                r#""\u000b""#.into(),
                "0b3c45b45a3ea9ac8dec30a87e230862c3e7e6e2e6f83f4dca0009aee5bc71f8",
            ),
            (
                r#"{"k":"x\u0000y"}"#,
                r#"{"k":"x\u0000y"}"#.into(),
                "5bf18d2320de906b8ced8de89df6b1e2d25cb4a100537b756c7d4fad5f10c6dc",
            ),
            (
                r#"{"\u0000":1}"#,
                r#"{"\u0000":1}"#.into(),
                "d3ddd6e6adad292e4ae7970d59263e1187efc81ea972408769fb3adf5f13c207",
            ),
            (
                r#""\u2028/<>""#,
                "\"\u{2028}/<>\"".into(),
                "15fd3f5202403083713608bdf32f84853ee75fb87b255baac6e2bae447f7e071",
            ),
            (
                r#"{"query":"*.rs"}"#,
                r#"{"query":"*.rs"}"#.into(),
                "e59f93a0d3d9186d8752928acba08fc478608dc16958bc278af514d6bca1dfbc",
            ),
            (
                r#"{"b":1.0,"a":[1,2]}"#,
                r#"{"a":[1,2],"b":1}"#.into(),
                "94a786c3662bc7beeb598efa7d8cb58d7bea25d6c275ea9785a0230ff1f8c2ba",
            ),
        ];
        for (input, bytes, hex) in cases {
            let (got_bytes, got_id) = id_of(input);
            assert_eq!(got_bytes, bytes, "canonical bytes of {input}");
            assert_eq!(got_id, format!("sha256:{hex}"), "content id of {input}");
        }
    }

    #[test]
    fn lone_surrogate_is_a_parse_error() {
        assert!(serde_json::from_str::<Value>(r#""\ud800""#).is_err());
    }

    #[test]
    fn digest16_is_prefix_of_content_id() {
        let v: Value = serde_json::from_str(r#"{"query":"*.rs"}"#).unwrap();
        assert_eq!(digest16(&v), "e59f93a0d3d9186d");
        assert!(content_id(&v)[7..].starts_with(&digest16(&v)));
    }

    #[test]
    fn content_id_shape() {
        assert!(is_content_id_shape(&content_id(&Value::Null)));
        assert!(!is_content_id_shape("sha256:ABC"));
        assert!(!is_content_id_shape(
            &content_id(&Value::Null).to_uppercase()
        ));
    }

    proptest::proptest! {
        /// Objects whose keys are ASCII and in order (written as they come) and any others are
        /// written as sorting every object's entries writes them.
        #[test]
        fn objects_in_order_are_written_as_sorted(
            keys in proptest::collection::vec("[a-c]{0,2}|[A-Z_]|\\PC{1,2}", 0..8),
            sort in proptest::bool::ANY,
            values in proptest::collection::vec(crate::proptests::json_value(), 8),
        ) {
            let mut keys = keys;
            if sort {
                keys.sort();
            }
            let entries: Vec<(&str, &Value)> =
                keys.iter().map(String::as_str).zip(values.iter()).collect();
            let (mut fast, mut slow) = (String::new(), String::new());
            write_object(&mut fast, entries.iter().copied());
            write_object_sorting(&mut slow, entries.iter().copied());
            proptest::prop_assert_eq!(fast, slow);
        }
    }
}
