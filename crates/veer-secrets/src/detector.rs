//! Finding and redacting secrets with the built-in and extra patterns.

use crate::patterns::{
    builtin_confirm, builtin_regex, has_secret_group, ExtraPattern, Pattern, BUILTIN_KINDS,
};
use regex::{Regex, RegexSet, RegexSetBuilder};
use serde_json::Value;
use std::borrow::Cow;
use std::collections::BTreeMap;

/// A secret found in a line of text. It never holds the secret itself.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct SecretFinding {
    /// 1-based line.
    pub line: u64,
    /// 1-based column, in characters.
    pub column: u64,
    /// The pattern kind (`openai_api_key`, `email`, …).
    pub kind: String,
}

/// A pattern file problem.
#[derive(Debug, thiserror::Error)]
pub enum PatternFileError {
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
    /// Every pattern in one automaton: one pass tells whether a text can hold a secret at all,
    /// which most report strings cannot (`None` if the set would exceed its size limit).
    any: Option<RegexSet>,
}

/// One automaton over `patterns`, for the clean-text fast path of [`Detector::spans`].
fn any_of(patterns: &[Pattern]) -> Option<RegexSet> {
    RegexSetBuilder::new(patterns.iter().map(|p| p.regex.as_str()))
        .size_limit(REGEX_SIZE_LIMIT * (patterns.len() + 1))
        .build()
        .ok()
}

/// Maximum compiled size of one user regex (bounds memory and time).
const REGEX_SIZE_LIMIT: usize = 1 << 20;

impl Detector {
    /// The built-in patterns only.
    pub fn builtin() -> Detector {
        let patterns: Vec<Pattern> = BUILTIN_KINDS
            .iter()
            .filter_map(|kind| {
                Regex::new(builtin_regex(kind)).ok().map(|regex| Pattern {
                    kind: (*kind).to_string(),
                    grouped: has_secret_group(&regex),
                    regex,
                    confirm: builtin_confirm(kind),
                })
            })
            .collect();
        let any = any_of(&patterns);
        Detector { patterns, any }
    }

    /// The built-in patterns followed by `extra`.
    pub fn with_extra(extra: &[ExtraPattern]) -> Result<Detector, PatternFileError> {
        let mut d = Detector::builtin();
        for (index, p) in extra.iter().enumerate() {
            if p.name.is_empty()
                || !p
                    .name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_')
            {
                return Err(PatternFileError::BadName {
                    index,
                    name: p.name.clone(),
                });
            }
            let regex = regex::RegexBuilder::new(&p.regex)
                .size_limit(REGEX_SIZE_LIMIT)
                .build()
                .map_err(|e| PatternFileError::BadRegex {
                    index,
                    name: p.name.clone(),
                    message: e.to_string(),
                })?;
            d.patterns.push(Pattern {
                kind: p.name.clone(),
                grouped: has_secret_group(&regex),
                regex,
                confirm: None,
            });
        }
        d.any = any_of(&d.patterns);
        Ok(d)
    }

    /// This detector without the patterns of `kinds` (e.g. `email` for a user's own metadata,
    /// where an address is who approved a baseline, not a leaked secret).
    pub fn without_kinds(&self, kinds: &[&str]) -> Detector {
        let patterns: Vec<Pattern> = self
            .patterns
            .iter()
            .filter(|p| !kinds.contains(&p.kind.as_str()))
            .cloned()
            .collect();
        let any = any_of(&patterns);
        Detector { patterns, any }
    }

    /// Non-overlapping secret spans of `text` as (byte start, byte end, kind), sorted by start.
    /// Earlier patterns win overlaps.
    pub fn spans<'a>(&'a self, text: &str) -> Vec<(usize, usize, &'a str)> {
        if self.any.as_ref().is_some_and(|set| !set.is_match(text)) {
            return Vec::new();
        }
        // Kept spans by start. They are disjoint, so a new span overlaps one of them exactly
        // when it overlaps the last one starting before its end: O(log n) a match, not O(n).
        let mut kept: BTreeMap<usize, (usize, &'a str)> = BTreeMap::new();
        let mut push = |p: &'a Pattern, start: usize, end: usize| {
            let confirmed = p.confirm.is_none_or(|c| c(text, start, end));
            if start == end || !confirmed {
                return;
            }
            let overlaps = kept
                .range(..end)
                .next_back()
                .is_some_and(|(_, &(e, _))| e > start);
            if !overlaps {
                kept.insert(start, (end, &p.kind));
            }
        };
        for p in &self.patterns {
            if p.grouped {
                for caps in p.regex.captures_iter(text) {
                    let secret = p
                        .regex
                        .capture_names()
                        .enumerate()
                        .filter(|(_, n)| n.is_some_and(|n| n.starts_with("secret")))
                        .find_map(|(i, _)| caps.get(i));
                    if let Some(m) = secret {
                        push(p, m.start(), m.end());
                    }
                }
            } else {
                for m in p.regex.find_iter(text) {
                    push(p, m.start(), m.end());
                }
            }
        }
        kept.into_iter()
            .map(|(s, (e, kind))| (s, e, kind))
            .collect()
    }

    /// Findings in one line of text (line number `line`).
    pub fn scan_line(&self, line: u64, text: &str) -> Vec<SecretFinding> {
        self.spans(text)
            .into_iter()
            .map(|(start, _, kind)| SecretFinding {
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

    /// Each of the four kinds `scan` missed, in the places they turn up: config files,
    /// environment lines, JSON (also escaped inside a JSON string), headers, CSV credentials.
    #[test]
    fn finds_aws_secrets_slack_stripe_and_bearer_tokens() {
        let aws = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
        let cases = [
            (format!("aws_secret_access_key = {aws}"), aws),
            (format!("AWS_SECRET_ACCESS_KEY={aws}"), aws),
            (format!(r#"{{"aws_secret_access_key": "{aws}"}}"#), aws),
            (format!(r#"{{\"SecretAccessKey\": \"{aws}\"}}"#), aws),
            (format!("AKIAIOSFODNN7EXAMPLE,{aws}"), aws),
            (
                "token xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy".into(),
                "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy",
            ),
            (
                "xoxp-4417-2861-1384-6a1b2c3d4e5f60718293a4b5c6d7e8f9".into(),
                "xoxp-4417-2861-1384-6a1b2c3d4e5f60718293a4b5c6d7e8f9",
            ),
            (
                "key sk_live_4eC39HqLyjWDarjtT1zdp7dc".into(),
                "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
            ),
            (
                "rk_live_51H8abcDEFghiJKLmnoPQRstu".into(),
                "rk_live_51H8abcDEFghiJKLmnoPQRstu",
            ),
            (
                "Authorization: Bearer ya29.a0AfH6SMBx3kq9Zr7T".into(),
                "ya29.a0AfH6SMBx3kq9Zr7T",
            ),
            (
                r#"{"headers": {"authorization": "Bearer 9f8e7d6c5b4a3f2e1d0c"}}"#.into(),
                "9f8e7d6c5b4a3f2e1d0c",
            ),
            (
                r#"\"Authorization\": \"Token abcdef0123456789abcd\""#.into(),
                "abcdef0123456789abcd",
            ),
        ];
        let d = Detector::builtin();
        for (text, secret) in &cases {
            let spans = d.spans(text);
            assert_eq!(
                spans.len(),
                1 + usize::from(text.contains("AKIA")),
                "{text}: {spans:?}"
            );
            let (s, e, _) = spans.last().copied().unwrap();
            assert_eq!(&text[s..e], *secret, "{text}");
            assert!(!d.redact(text).contains(secret), "{text}");
        }
        assert_eq!(
            d.redact("Authorization: Bearer 0123456789abcdefXYZ"),
            "Authorization: Bearer [REDACTED:bearer_token]"
        );
    }

    #[test]
    fn a_secret_glued_to_a_non_ascii_letter_is_found() {
        let d = Detector::builtin();
        assert_eq!(
            d.redact("clé:ésk-proj-abcdefghijklmnopqrstuvwxyz012345 → ok"),
            "clé:é[REDACTED:openai_api_key] → ok"
        );
        assert_eq!(d.redact("Grüße dana@example.com"), "Grüße [REDACTED:email]");
    }

    #[test]
    fn look_alikes_of_the_new_kinds_are_not_secrets() {
        for text in [
            // A 40-character hex digest (a git commit) named like a key, and base64 too long.
            "aws_secret_access_key: 3f786850e387550fdab836ed7e6dc881de23001b",
            "secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEYandmore",
            // 40 base64 characters with no key name or key id beside them.
            "checksum wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "xoxo-hugs-and-kisses-from-grandma",
            "xoxb-",
            "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
            "sk_live_short",
            "the bearer of bad news arrived",
            "Authorization: Bearer <token>",
            "Authorization: Bearer YOUR_ACCESS_TOKEN_HERE",
            "set the Authorization header to Bearer followed by your key",
        ] {
            assert!(kinds(text).is_empty(), "{text}: {:?}", kinds(text));
        }
    }

    #[test]
    fn a_user_pattern_may_name_its_secret_group() {
        let d = Detector::with_extra(&[ExtraPattern {
            name: "internal".into(),
            regex: r"x-internal-key: (?P<secret>[a-z0-9]{12})".into(),
        }])
        .unwrap();
        assert_eq!(
            d.redact("x-internal-key: abcdef012345"),
            "x-internal-key: [REDACTED:internal]"
        );
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

    /// The definition the fast paths must keep: every pattern's confirmed matches in order,
    /// each kept unless it overlaps one kept before, checked against all of them.
    fn spans_slow<'a>(d: &'a Detector, text: &str) -> Vec<(usize, usize, &'a str)> {
        let mut spans: Vec<(usize, usize, &str)> = Vec::new();
        for p in &d.patterns {
            let found: Vec<(usize, usize)> = if p.grouped {
                p.regex
                    .captures_iter(text)
                    .filter_map(|c| {
                        p.regex
                            .capture_names()
                            .enumerate()
                            .filter(|(_, n)| n.is_some_and(|n| n.starts_with("secret")))
                            .find_map(|(i, _)| c.get(i))
                    })
                    .map(|m| (m.start(), m.end()))
                    .collect()
            } else {
                p.regex
                    .find_iter(text)
                    .map(|m| (m.start(), m.end()))
                    .collect()
            };
            for (start, end) in found {
                if start == end || !p.confirm.is_none_or(|c| c(text, start, end)) {
                    continue;
                }
                if !spans.iter().any(|&(s, e, _)| start < e && s < end) {
                    spans.push((start, end, &p.kind));
                }
            }
        }
        spans.sort_unstable();
        spans
    }

    const FRAGMENTS: [&str; 16] = [
        "sk-proj-abcdefghijklmnopqrstuvwxyz012345",
        "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123",
        "dana@example.com",
        "+1 415 555 0134",
        "4111 1111 1111 1111",
        "AKIAIOSFODNN7EXAMPLE",
        ",wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "aws_secret_access_key=",
        "Authorization: Bearer ",
        "ya29.a0AfH6SMBx3kq9Zr7T",
        "xoxb-1765367-pdFZKVeTuE8sk",
        "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3",
        " ",
        "0.5",
        "é-",
    ];

    /// Compiled once for all cases (compiling the patterns dominates a debug-build case).
    static BUILTIN: std::sync::LazyLock<Detector> = std::sync::LazyLock::new(Detector::builtin);
    static NO_PREFILTER: std::sync::LazyLock<Detector> = std::sync::LazyLock::new(|| Detector {
        patterns: Detector::builtin().patterns,
        any: None,
    });

    proptest::proptest! {
        #[test]
        fn spans_equal_their_definition(parts in proptest::collection::vec(0..FRAGMENTS.len(), 0..24)) {
            let text: String = parts.iter().map(|&i| FRAGMENTS[i]).collect();
            let slow = spans_slow(&BUILTIN, &text);
            proptest::prop_assert_eq!(BUILTIN.spans(&text), slow.clone());
            proptest::prop_assert_eq!(NO_PREFILTER.spans(&text), slow);
        }

        #[test]
        fn any_text_gives_the_defined_spans(text in "\\PC{0,80}") {
            proptest::prop_assert_eq!(BUILTIN.spans(&text), spans_slow(&BUILTIN, &text));
        }
    }

    #[test]
    fn many_secrets_in_one_text_cost_linear_work() {
        // 20,000 secrets in one string: the overlap check must not compare each to all.
        let text = "k sk-proj-abcdefghijklmnopqrstuvwxyz012345 ".repeat(20_000);
        let d = Detector::builtin();
        assert_eq!(d.spans(&text).len(), 20_000);
    }

    #[test]
    fn columns_count_characters() {
        let f = Detector::builtin().scan_line(7, "é dana@example.com");
        assert_eq!(
            f,
            [SecretFinding {
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
}
