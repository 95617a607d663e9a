//! Per-turn features, computed once per response and shared by every measure (the diff axes,
//! the trajectory axis, the alignment): tool-shape strings, trajectory tokens with argument
//! digests over canonical JSON, whitespace-normalised text, stop reason, usage and latency
//! (spec `diff.md` §6, §9.2); [`shingles`] gives the text's character 4-gram hashes.
//!
//! Features borrow what the trace already holds (a single text part, tool names and inputs,
//! model, stop reason): a long diff keeps them for every turn of both traces, so only what is
//! derived (tokens, shapes, canonical bytes, joined or normalised text) is allocated.

use crate::canonical::{canonical_bytes, hex16_of};
use crate::json::Json;
use crate::model::Trace;
use crate::views::Response;
use serde_json::Value;
use std::borrow::Cow;

/// The first tool-use block's input for one tool name.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolInput<'t> {
    /// The input as recorded in the trace (`None` when absent, read as JSON null).
    pub input: Option<&'t Json>,
    /// Its canonical bytes (trace-formats.md §1.6), used for equality.
    pub canonical: Box<[u8]>,
}

impl ToolInput<'_> {
    /// The input as a `serde_json::Value` (`Value::Null` when absent; allocates).
    pub fn value(&self) -> Value {
        self.input.map_or(Value::Null, Json::to_value)
    }
}

/// Everything the measures need from one response, computed once; borrows the trace.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnFeatures<'t> {
    /// 0-based turn index.
    pub turn: usize,
    /// Trajectory tokens `name(k1,k2|hex16)`, one per tool-use block, in content order.
    pub tool_tokens: Vec<String>,
    /// The set of `name(k1,k2)` shape strings, sorted by bytes, without duplicates.
    pub shape: Vec<String>,
    /// Number of tool-use blocks (duplicates counted).
    pub tool_count: usize,
    /// Tool name and the input of the first block with that name, sorted by name bytes, each
    /// name once (a sorted list, not a map: most turns call one or two tools, and a map's node
    /// would cost over a kilobyte per turn). Look a name up with [`TurnFeatures::input`].
    pub inputs: Vec<(&'t str, ToolInput<'t>)>,
    /// Text parts joined with one space, as recorded (borrowed when there is at most one).
    pub text: Cow<'t, str>,
    /// `text` with every run of Unicode whitespace collapsed to one space, trimmed; `None`
    /// when that is `text` itself (read it with [`TurnFeatures::normalized_text`]).
    pub normalized: Option<Box<str>>,
    /// `stop_reason`, `""` when missing or not a string.
    pub stop_reason: &'t str,
    /// `model`, when a string.
    pub model: Option<&'t str>,
    /// `usage.input_tokens`, when a number.
    pub input_tokens: Option<f64>,
    /// `usage.output_tokens`, when a number.
    pub output_tokens: Option<f64>,
    /// `usage.thinking_tokens`, when a number.
    pub thinking_tokens: Option<f64>,
    /// `latency_ms`, when a number (milliseconds).
    pub latency_ms: Option<f64>,
}

/// The sorted top-level keys of an object input (none for any other input).
fn sorted_keys(input: Option<&Json>) -> Vec<&str> {
    let mut keys: Vec<&str> = match input {
        Some(Json::Object(m)) => m.keys().collect(),
        _ => Vec::new(),
    };
    keys.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    keys
}

/// `name(k1,k2)` for a tool-use block: keys are the sorted top-level keys of an object input.
pub fn shape_string(name: &str, input: Option<&Json>) -> String {
    let keys = sorted_keys(input);
    let len = name.len() + 2 + keys.iter().map(|k| k.len() + 1).sum::<usize>();
    let mut s = String::with_capacity(len);
    s.push_str(name);
    s.push('(');
    for (i, k) in keys.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(k);
    }
    s.push(')');
    s
}

#[cfg(test)]
/// The trajectory token `name(k1,k2|hex16)` (spec `diff.md` §6): `hex16` over canonical bytes.
pub(crate) fn trajectory_token(name: &str, input: Option<&Json>) -> String {
    let v = input.unwrap_or(&crate::json::NULL);
    token_of_shape(&shape_string(name, input), &canonical_bytes(v))
}

/// The trajectory token of a block from its shape string `name(k1,k2)` and the canonical
/// bytes of its input: the shape without its `)`, then `|hex16)`.
fn token_of_shape(shape: &str, canonical: &[u8]) -> String {
    let head = shape.strip_suffix(')').unwrap_or(shape);
    let mut s = String::with_capacity(head.len() + 18);
    s.push_str(head);
    s.push('|');
    s.push_str(&hex16_of(canonical));
    s.push(')');
    s
}

/// Collapses runs of Unicode whitespace to one space and trims.
pub(crate) fn normalize_whitespace(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Whether [`normalize_whitespace`] would return `text` unchanged: no whitespace but single
/// spaces between non-whitespace characters. Checked without allocating.
pub(crate) fn is_whitespace_normalized(text: &str) -> bool {
    // `true` at the start, so leading whitespace fails like a second space would.
    let mut after_space = true;
    for c in text.chars() {
        if c.is_whitespace() {
            if c != ' ' || after_space {
                return false;
            }
            after_space = true;
        } else {
            after_space = false;
        }
    }
    text.is_empty() || !after_space
}

/// A fixed, well-mixed 64-bit hash (FNV-1a then a SplitMix64 finaliser): deterministic across
/// runs, platforms and thread counts.
pub(crate) fn hash64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h ^= h >> 30;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

/// Sorted, deduplicated hashes of the 4-character windows of `text`; a non-empty text shorter
/// than 4 characters is one shingle; empty text has none.
pub fn shingles(text: &str) -> Vec<u64> {
    if text.is_empty() {
        return Vec::new();
    }
    let mut out: Vec<u64> = if text.is_ascii() {
        // One byte per character: the windows are the 4-byte slices.
        let bytes = text.as_bytes();
        if bytes.len() < 4 {
            vec![hash64(bytes)]
        } else {
            bytes.windows(4).map(hash64).collect()
        }
    } else {
        let bounds: Vec<usize> = text
            .char_indices()
            .map(|(i, _)| i)
            .chain(std::iter::once(text.len()))
            .collect();
        let chars = bounds.len() - 1;
        if chars < 4 {
            vec![hash64(text.as_bytes())]
        } else {
            (0..=chars - 4)
                .map(|i| hash64(&text.as_bytes()[bounds[i]..bounds[i + 4]]))
                .collect()
        }
    };
    out.sort_unstable();
    out.dedup();
    out
}

/// Features of one response.
pub fn turn_features<'t>(r: &Response<'t>) -> TurnFeatures<'t> {
    let mut tool_tokens = Vec::new();
    let mut shape = Vec::new();
    let mut blocks: Vec<(&'t str, Option<&'t Json>, Vec<u8>)> = Vec::new();
    for b in r.tool_uses() {
        let name = b.name.unwrap_or("_");
        // Canonical bytes once per block: the token's digest and the input's equality key.
        let canonical = canonical_bytes(b.input.unwrap_or(&crate::json::NULL));
        let s = shape_string(name, b.input);
        tool_tokens.push(token_of_shape(&s, &canonical));
        shape.push(s);
        blocks.push((name, b.input, canonical));
    }
    let tool_count = blocks.len();
    // The first block of each name: a stable sort keeps blocks of one name in content order.
    blocks.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    blocks.dedup_by(|later, first| later.0 == first.0);
    let inputs: Vec<(&'t str, ToolInput<'t>)> = blocks
        .into_iter()
        .map(|(name, input, canonical)| {
            let canonical = canonical.into_boxed_slice();
            (name, ToolInput { input, canonical })
        })
        .collect();
    let inputs = inputs.into_boxed_slice().into_vec();
    shape.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    shape.dedup();
    // Kept for the whole run, one per turn: no spare capacity.
    tool_tokens.shrink_to_fit();
    shape.shrink_to_fit();
    let text = r.joined_text(" ");
    let normalized =
        (!is_whitespace_normalized(&text)).then(|| normalize_whitespace(&text).into_boxed_str());
    TurnFeatures {
        turn: r.turn,
        tool_tokens,
        shape,
        tool_count,
        inputs,
        text,
        normalized,
        stop_reason: r.stop_reason().unwrap_or(""),
        model: r.model(),
        input_tokens: r.usage("input_tokens"),
        output_tokens: r.usage("output_tokens"),
        thinking_tokens: r.usage("thinking_tokens"),
        latency_ms: r.latency_ms(),
    }
}

impl<'t> TurnFeatures<'t> {
    /// `text` with every run of Unicode whitespace collapsed to one space, trimmed.
    pub fn normalized_text(&self) -> &str {
        self.normalized.as_deref().unwrap_or(&self.text)
    }

    /// The input of the first tool-use block named `name`, if any.
    pub fn input(&self, name: &str) -> Option<&ToolInput<'t>> {
        self.inputs
            .binary_search_by(|(n, _)| n.as_bytes().cmp(name.as_bytes()))
            .ok()
            .map(|i| &self.inputs[i].1)
    }
}

impl Trace {
    /// Features of every response, in turn order.
    pub fn features(&self) -> Vec<TurnFeatures<'_>> {
        self.responses().iter().map(turn_features).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    proptest::proptest! {
        /// The ASCII byte-window path gives the hashes of the character windows.
        #[test]
        fn shingles_equal_character_windows(text in "[a-c \\.é😀]{0,12}|[a-d ]{0,12}") {
            let chars: Vec<char> = text.chars().collect();
            let mut expected: Vec<u64> = if text.is_empty() {
                Vec::new()
            } else if chars.len() < 4 {
                vec![hash64(text.as_bytes())]
            } else {
                chars
                    .windows(4)
                    .map(|w| hash64(w.iter().collect::<String>().as_bytes()))
                    .collect()
            };
            expected.sort_unstable();
            expected.dedup();
            proptest::prop_assert_eq!(shingles(&text), expected);
        }

        /// The allocation-free check agrees with normalising and comparing.
        #[test]
        fn normalized_check_equals_normalising(text in "[a-b \t\n\u{2003}\u{a0}é]{0,10}") {
            proptest::prop_assert_eq!(
                is_whitespace_normalized(&text),
                normalize_whitespace(&text) == text
            );
        }

        /// Joining without copying gives `text(sep)`, borrowed when at most one part.
        #[test]
        fn joined_text_equals_text(
            parts in proptest::collection::vec("[a-c ]{0,4}", 0..4),
            string_content in proptest::bool::ANY,
        ) {
            let content = if string_content {
                json!(parts.concat())
            } else {
                json!(parts.iter().map(|p| json!({"type": "text", "text": p})).collect::<Vec<_>>())
            };
            let line = json!({"version": "0.1", "id": "sha256:x", "kind": "chat_response",
                "ts": "2026-01-01T00:00:00.000Z", "parent": null,
                "payload": {"content": content}});
            let trace = crate::agentlog::reader::read_agentlog_bytes(
                "t.agentlog",
                format!("{line}\n").as_bytes(),
                &crate::options::ReadOptions::default(),
            )
            .unwrap();
            let r = trace.responses()[0];
            for sep in [" ", "\n"] {
                let joined = r.joined_text(sep);
                let plain = r.text(sep);
                proptest::prop_assert_eq!(&*joined, plain.as_str());
                proptest::prop_assert_eq!(
                    matches!(joined, Cow::Borrowed(_)),
                    r.text_parts().count() <= 1
                );
            }
        }
    }

    /// The vectors of diff.md §6.
    #[test]
    fn trajectory_token_vectors() {
        assert_eq!(
            trajectory_token("search_files", Some(&json!({"query": "*.rs"}).into())),
            "search_files(query|e59f93a0d3d9186d)"
        );
        let v: Json = serde_json::from_str(r#"{"b":1.0,"a":[1,2]}"#).unwrap();
        assert_eq!(trajectory_token("t", Some(&v)), "t(a,b|94a786c3662bc7be)");
        let v: Json = serde_json::from_str(r#"{"b":1,"a":[1,2]}"#).unwrap();
        assert_eq!(trajectory_token("t", Some(&v)), "t(a,b|94a786c3662bc7be)");
        assert_eq!(trajectory_token("t", None), "t(|74234e98afe7498f)");
        assert_eq!(
            trajectory_token("t", Some(&Json::Null)),
            "t(|74234e98afe7498f)"
        );
    }

    #[test]
    fn shingle_rules() {
        assert!(shingles("").is_empty());
        assert_eq!(shingles("abc").len(), 1);
        assert_eq!(shingles("abcd").len(), 1);
        assert_eq!(shingles("abcde").len(), 2);
        assert_eq!(shingles("aaaaaa").len(), 1);
        // Windows are over Unicode scalar values, not bytes.
        assert_eq!(shingles("éééé").len(), 1);
        assert_eq!(shingles("ééééx").len(), 2);
        let s = shingles("the quick brown fox");
        assert!(s.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn first_input_per_tool_name_sorted_by_name() {
        let ts = "2026-01-01T00:00:00.000Z";
        let payload = json!({"model": "m", "stop_reason": "tool_use", "content": [
            {"type": "tool_use", "id": "1", "name": "search", "input": {"q": "first"}},
            {"type": "tool_use", "id": "2", "name": "Zebra", "input": {"z": 1}},
            {"type": "tool_use", "id": "3", "name": "search", "input": {"q": "second"}},
            {"type": "tool_use", "id": "4", "name": "apply"},
        ]});
        let line = json!({"version": "0.1", "id": "sha256:x", "kind": "chat_response", "ts": ts,
            "parent": null, "payload": payload});
        let trace = crate::agentlog::reader::read_agentlog_bytes(
            "t.agentlog",
            format!("{line}\n").as_bytes(),
            &crate::options::ReadOptions::default(),
        )
        .unwrap();
        let f = &trace.features()[0];
        let names: Vec<&str> = f.inputs.iter().map(|(n, _)| *n).collect();
        assert_eq!(
            names,
            ["Zebra", "apply", "search"],
            "byte order, each name once"
        );
        assert_eq!(f.tool_count, 4);
        assert_eq!(f.input("search").unwrap().value(), json!({"q": "first"}));
        assert_eq!(f.input("apply").unwrap().value(), Value::Null);
        let search = f.input("search").unwrap();
        assert_eq!(
            &*search.canonical,
            canonical_bytes(&search.value()).as_slice()
        );
        assert!(f.input("missing").is_none());
        assert_eq!((&*f.text, f.normalized_text()), ("", ""));
    }

    #[test]
    fn normalized_text_is_stored_only_when_it_differs() {
        let read = |text: &str| {
            let line = json!({"version": "0.1", "id": "sha256:x", "kind": "chat_response",
                "ts": "2026-01-01T00:00:00.000Z", "parent": null,
                "payload": {"content": [{"type": "text", "text": text}]}});
            crate::agentlog::reader::read_agentlog_bytes(
                "t.agentlog",
                format!("{line}\n").as_bytes(),
                &crate::options::ReadOptions::default(),
            )
            .unwrap()
        };
        let same = read("one two three");
        let same = &same.features()[0];
        assert!(same.normalized.is_none());
        assert_eq!(same.normalized_text(), "one two three");
        let spaced = read("  one\n two  ");
        let spaced = &spaced.features()[0];
        assert_eq!(spaced.normalized_text(), "one two");
        assert_eq!(spaced.text, "  one\n two  ");
        assert!(
            matches!(spaced.text, Cow::Borrowed(_)),
            "one part is borrowed"
        );
    }

    #[test]
    fn whitespace_normalisation() {
        assert_eq!(normalize_whitespace("  a \n\t b\u{2003}c  "), "a b c");
        assert_eq!(normalize_whitespace(" \n "), "");
    }
}
