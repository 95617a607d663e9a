//! Finding and redacting secrets with the built-in and extra patterns.

use crate::patterns::{builtin_confirm, builtin_regex, ExtraPattern, Pattern, BUILTIN_KINDS};
use regex::Regex;
use serde_json::Value;
use std::borrow::Cow;

/// A secret found in a line of text. It never holds the secret itself.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Finding {
    /// 1-based line.
    pub line: u64,
    /// 1-based column, in characters.
    pub column: u64,
    /// The pattern kind (`openai_api_key`, `email`, …).
    pub kind: String,
}

/// A pattern file problem.
#[derive(Debug, thiserror::Error)]
pub enum PatternError {
    /// The pattern name is empty or has characters other than letters, digits and `_`.
    #[error("pattern {index}: name {name:?} must be letters, digits and '_'")]
    BadName {
        /// 0-based position in the file.
        index: usize,
        /// The name given.
        name: String,
    },
    /// The regular expression does not compile.
    #[error("pattern {index} ({name}): invalid regex: {message}")]
    BadRegex {
        /// 0-based position in the file.
        index: usize,
        /// The pattern name.
        name: String,
        /// What the regex compiler said.
        message: String,
    },
}

/// Compiled secret patterns.
pub struct Detector {
    patterns: Vec<Pattern>,
}

/// Maximum compiled size of one user regex (bounds memory and time).
const REGEX_SIZE_LIMIT: usize = 1 << 20;

impl Detector {
    /// The built-in patterns only.
    pub fn builtin() -> Detector {
        let patterns = BUILTIN_KINDS
            .iter()
            .filter_map(|kind| {
                Regex::new(builtin_regex(kind)).ok().map(|regex| Pattern {
                    kind: (*kind).to_string(),
                    regex,
                    confirm: builtin_confirm(kind),
                })
            })
            .collect();
        Detector { patterns }
    }

    /// The built-in patterns followed by `extra`.
    pub fn with_extra(extra: &[ExtraPattern]) -> Result<Detector, PatternError> {
        let mut d = Detector::builtin();
        for (index, p) in extra.iter().enumerate() {
            if p.name.is_empty()
                || !p
                    .name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_')
            {
                return Err(PatternError::BadName {
                    index,
                    name: p.name.clone(),
                });
            }
            let regex = regex::RegexBuilder::new(&p.regex)
                .size_limit(REGEX_SIZE_LIMIT)
                .build()
                .map_err(|e| PatternError::BadRegex {
                    index,
                    name: p.name.clone(),
                    message: e.to_string(),
                })?;
            d.patterns.push(Pattern {
                kind: p.name.clone(),
                regex,
                confirm: None,
            });
        }
        Ok(d)
    }

    /// Non-overlapping secret spans of `text` as (byte start, byte end, kind), sorted by start.
    /// Earlier patterns win overlaps.
    pub fn spans<'a>(&'a self, text: &str) -> Vec<(usize, usize, &'a str)> {
        // Kept spans by start. They never overlap (and are never empty), so their ends rise
        // with their starts and a match [s, e) overlaps a kept span iff the last one starting
        // before e ends after s: one lookup per match, O(k log k) for k matches, where testing
        // every kept span was O(k²) on a text with a million e-mail addresses.
        let mut kept: std::collections::BTreeMap<usize, (usize, &str)> =
            std::collections::BTreeMap::new();
        for p in &self.patterns {
            for m in p.regex.find_iter(text) {
                let confirmed = p.confirm.is_none_or(|c| c(text, m.start(), m.end()));
                if m.start() == m.end() || !confirmed {
                    continue;
                }
                let overlaps = kept
                    .range(..m.end())
                    .next_back()
                    .is_some_and(|(_, &(e, _))| m.start() < e);
                if !overlaps {
                    kept.insert(m.start(), (m.end(), &p.kind));
                }
            }
        }
        kept.into_iter().map(|(s, (e, k))| (s, e, k)).collect()
    }

    /// Findings in one line of text (line number `line`).
    pub fn scan_line(&self, line: u64, text: &str) -> Vec<Finding> {
        self.spans(text)
            .into_iter()
            .map(|(start, _, kind)| Finding {
                line,
                column: text[..start].chars().count() as u64 + 1,
                kind: kind.to_string(),
            })
            .collect()
    }

    /// `text` with every secret replaced by `[REDACTED:<kind>]`.
    pub fn redact<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let spans = self.spans(text);
        if spans.is_empty() {
            return Cow::Borrowed(text);
        }
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for (s, e, kind) in spans {
            out.push_str(&text[at..s]);
            out.push_str("[REDACTED:");
            out.push_str(kind);
            out.push(']');
            at = e;
        }
        out.push_str(&text[at..]);
        Cow::Owned(out)
    }

    /// Redacts every string (keys included) of a JSON value in place.
    pub fn redact_json(&self, value: &mut Value) {
        match value {
            Value::String(s) => {
                if let Cow::Owned(r) = self.redact(s) {
                    *s = r;
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|v| self.redact_json(v)),
            Value::Object(m) => {
                let needs_key_change = m.keys().any(|k| !self.spans(k).is_empty());
                if needs_key_change {
                    let old = std::mem::take(m);
                    for (k, mut v) in old {
                        self.redact_json(&mut v);
                        m.insert(self.redact(&k).into_owned(), v);
                    }
                } else {
                    m.values_mut().for_each(|v| self.redact_json(v));
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<String> {
        Detector::builtin()
            .scan_line(1, text)
            .into_iter()
            .map(|f| f.kind)
            .collect()
    }

    #[test]
    fn finds_each_builtin_kind() {
        let cases = [
            ("key sk-proj-abcdefghijklmnopqrstuvwxyz012345 here", "openai_api_key"),
            ("sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123", "anthropic_api_key"),
            ("token ghp_abcdefghijklmnopqrstuvwxyz0123456789", "github_token"),
            ("github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "github_token"),
            ("AKIAIOSFODNN7EXAMPLE", "aws_access_key_id"),
            ("AIzaSyA-1234567890abcdefghijklmnopqrstu", "google_api_key"),
            ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "jwt"),
            ("-----BEGIN RSA PRIVATE KEY-----\\nMIIE\\n-----END RSA PRIVATE KEY-----", "private_key"),
            ("-----BEGIN PRIVATE KEY-----", "private_key"),
            ("write to dana.lee@example.co.uk please", "email"),
            ("call +1 415 555 0134 now", "phone"),
            ("call (415) 555-0134 now", "phone"),
            ("call 415-555-0134 now", "phone"),
            ("call +14155550134 now", "phone"),
            ("call +44 20 7946 0958 now", "phone"),
            ("card 4111 1111 1111 1111 exp", "credit_card"),
            ("card 4111111111111111", "credit_card"),
        ];
        for (text, kind) in cases {
            assert_eq!(kinds(text), [kind], "{text}");
        }
    }

    #[test]
    fn ordinary_trace_content_is_not_a_secret() {
        for text in [
            "2026-04-22T04:03:27.228Z",
            r#"{"latency_ms":1234567890,"input_tokens":812}"#,
            "sha256:66cac08a874b806aa83d083fd04584c653eba80f1c533306d2126a618d45c03d",
            "order 4111111111111112 (fails Luhn)",
            "version 3.2.5, build 20261122",
            "toolu_01ABCDEFGHIJKLMNOPQRSTUV",
            "be7aaf281fd97ce20114aeab8d5a114a",
            "[REDACTED:email]",
            "candidate_median: 0.435009578578672, confidence 0.31818181818181823",
            "latency Δ +640.000, CI [+1400.000, +1400.000]",
            "ratio 4111111111111111.5",
        ] {
            assert!(kinds(text).is_empty(), "{text}: {:?}", kinds(text));
        }
    }

    #[test]
    fn redaction_replaces_the_secret_only() {
        let d = Detector::builtin();
        assert_eq!(
            d.redact("mail dana@example.com, key sk-abcdefghijklmnopqrstuvwx1234."),
            "mail [REDACTED:email], key [REDACTED:openai_api_key]."
        );
        let mut v = serde_json::json!({"a": ["x dana@example.com"], "n": 4111111111111111u64, "dana@example.com": 1});
        d.redact_json(&mut v);
        assert_eq!(
            v,
            serde_json::json!({"a": ["x [REDACTED:email]"], "n": 4111111111111111u64, "[REDACTED:email]": 1})
        );
    }

    #[test]
    fn columns_count_characters() {
        let f = Detector::builtin().scan_line(7, "é dana@example.com");
        assert_eq!(
            f,
            [Finding {
                line: 7,
                column: 3,
                kind: "email".into()
            }]
        );
    }

    #[test]
    fn extra_patterns() {
        let d = Detector::with_extra(&[ExtraPattern {
            name: "internal".into(),
            regex: r"itk_[a-z0-9]{8}".into(),
        }])
        .unwrap();
        assert_eq!(d.redact("t itk_abcd1234"), "t [REDACTED:internal]");
        assert!(Detector::with_extra(&[ExtraPattern {
            name: "x y".into(),
            regex: "a".into()
        }])
        .is_err());
        assert!(Detector::with_extra(&[ExtraPattern {
            name: "x".into(),
            regex: "(".into()
        }])
        .is_err());
    }

    /// The definition the kept-span index replaced: every kept span tested, then sorted.
    fn spans_by_scan<'a>(d: &'a Detector, text: &str) -> Vec<(usize, usize, &'a str)> {
        let mut spans: Vec<(usize, usize, &str)> = Vec::new();
        for p in &d.patterns {
            for m in p.regex.find_iter(text) {
                let confirmed = p.confirm.is_none_or(|c| c(text, m.start(), m.end()));
                if m.start() == m.end() || !confirmed {
                    continue;
                }
                if !spans.iter().any(|&(s, e, _)| m.start() < e && s < m.end()) {
                    spans.push((m.start(), m.end(), &p.kind));
                }
            }
        }
        spans.sort_unstable();
        spans
    }

    proptest::proptest! {
        /// Overlapping patterns (extra ones that cut across the built-in kinds) pick the same
        /// spans as the scan over every kept span.
        #[test]
        fn spans_equal_the_scan_over_every_kept_span(
            parts in proptest::collection::vec(proptest::prop_oneof![
                proptest::strategy::Just("dana@example.com"),
                proptest::strategy::Just("a.b@c.io"),
                proptest::strategy::Just("4111 1111 1111 1111"),
                proptest::strategy::Just("+1 415 555 0134"),
                proptest::strategy::Just("sk-ant-abcdefghijklmnopqrstuvwxyz"),
                proptest::strategy::Just(" "),
                proptest::strategy::Just("x@"),
                proptest::strategy::Just("ample"),
                proptest::strategy::Just("55"),
            ], 0..40),
        ) {
            let text: String = parts.concat();
            let extra = [
                ExtraPattern { name: "ample".into(), regex: "[a-z]+ample[a-z.]*".into() },
                ExtraPattern { name: "fives".into(), regex: "5+ ?[0-9]*".into() },
                ExtraPattern { name: "at".into(), regex: "[a-z]@[a-z]".into() },
            ];
            let d = Detector::with_extra(&extra).unwrap();
            proptest::prop_assert_eq!(d.spans(&text), spans_by_scan(&d, &text));
        }
    }

    #[test]
    fn many_secrets_in_one_text() {
        let text = "mail dana@example.com now ".repeat(50_000);
        assert_eq!(Detector::builtin().spans(&text).len(), 50_000);
    }
}
