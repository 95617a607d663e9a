//! The built-in secret patterns, in the order they are applied, and user-supplied extras.

use regex::Regex;

/// Kinds of the built-in patterns, in application order (earlier kinds win overlaps).
pub const BUILTIN_KINDS: [&str; 14] = [
    "private_key",
    "jwt",
    "anthropic_api_key",
    "openai_api_key",
    "aws_access_key_id",
    "aws_secret_access_key",
    "github_token",
    "google_api_key",
    "slack_token",
    "stripe_live_key",
    "bearer_token",
    "email",
    "phone",
    "credit_card",
];

/// The regular expression of a built-in kind. Word boundaries are ASCII (`(?-u:\b)`): a
/// Unicode `\b` sends the regex engine to its slow path on any text with a non-ASCII
/// character (30× slower on such reports), and an ASCII boundary also finds a key glued to a
/// non-ASCII letter (`ésk-…`), which a Unicode one would leave in place.
pub(crate) fn builtin_regex(kind: &str) -> &'static str {
    match kind {
        // A whole PEM block (also with JSON-escaped newlines), or a lone header line.
        "private_key" => {
            r"-----BEGIN (?:[A-Z]+ )*PRIVATE KEY-----(?:(?s:.*?)-----END (?:[A-Z]+ )*PRIVATE KEY-----)?"
        }
        "jwt" => r"(?-u:\b)eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
        "anthropic_api_key" => r"(?-u:\b)sk-ant-[A-Za-z0-9_-]{20,}",
        "openai_api_key" => r"(?-u:\b)sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
        "aws_access_key_id" => {
            r"(?-u:\b)(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}(?-u:\b)"
        }
        "github_token" => r"(?-u:\b)(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
        // 40 characters of base64 named as a secret access key (ini, env, JSON, STS output) or
        // right after an access key id (a CSV row of credentials); the `secret` group is the
        // span. Confirmed: mixed case and not followed by more base64 (`confirm_aws_secret`).
        "aws_secret_access_key" => {
            r#"(?i:(?:aws_?)?secret_?access_?key)[\\"']*\s*[:=]\s*[\\"']*(?P<secret>[A-Za-z0-9/+]{40})|(?-u:\b)(?:AKIA|ASIA)[0-9A-Z]{16}[\\"']*\s*[,;:|=\t ]\s*[\\"']*(?P<secret2>[A-Za-z0-9/+]{40})"#
        }
        "google_api_key" => r"(?-u:\b)AIza[0-9A-Za-z_-]{35}",
        // Slack bot, user, app, refresh and config tokens: `xoxb-<digits>-…`.
        "slack_token" => r"(?-u:\b)xox[abeprs]-[0-9A-Za-z]+-[0-9A-Za-z-]{8,}",
        // Stripe live secret and restricted keys (test keys, `sk_test_`, are not secrets).
        "stripe_live_key" => r"(?-u:\b)[rs]k_live_[0-9A-Za-z]{20,}",
        // The credential of an `Authorization: Bearer …` header (also JSON-quoted or escaped,
        // and `Token`/`Basic` schemes); the `secret` group is the span, so the header name
        // stays readable. Confirmed: not a placeholder (`confirm_bearer`).
        "bearer_token" => {
            r#"(?i:(?-u:\b)authorization[\\"']*\s*[:=]\s*[\\"']*(?:bearer|token|basic)\s+)(?P<secret>[A-Za-z0-9._~+/-]{16,}=*)"#
        }
        "email" => {
            r"(?-u:\b)[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?-u:\b)"
        }
        // International numbers need a leading '+'; national ones need separators, so bare digit
        // runs (ids, timestamps, token counts) are never taken for phone numbers.
        "phone" => {
            r"(?:\+\d{1,3}[ -]?(?:\(\d{1,4}\)[ -]?)?\d{2,4}(?:[ -]\d{2,4}){1,4}(?-u:\b)|\+[1-9]\d{9,14}(?-u:\b)|(?:\(\d{3}\) ?|(?-u:\b)\d{3}[.-])\d{3}[.-]\d{4}(?-u:\b))"
        }
        // 13–19 digits, optionally grouped by single spaces or dashes; confirmed by Luhn.
        "credit_card" => r"(?-u:\b)\d(?:[ -]?\d){12,18}(?-u:\b)",
        _ => r"\A\z",
    }
}

/// Whether `regex` names a group `secret…`, which then is the secret's span (the rest of the
/// match is context, such as a header name, that stays readable).
pub(crate) fn has_secret_group(regex: &Regex) -> bool {
    regex
        .capture_names()
        .flatten()
        .any(|n| n.starts_with("secret"))
}

/// A user-supplied pattern (`--patterns FILE`).
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtraPattern {
    /// The kind reported and written in `[REDACTED:<name>]`; letters, digits and `_`.
    pub name: String,
    /// A regular expression (Rust `regex` syntax; no look-around, linear-time matching). When it
    /// names a group `secret`, only that group is reported and redacted.
    pub regex: String,
}

/// A compiled pattern.
#[derive(Clone)]
pub(crate) struct Pattern {
    pub kind: String,
    pub regex: Regex,
    /// Whether the secret is a named group (`secret`, `secret2`, …) of the match rather than the
    /// whole match: the first such group that took part in it.
    pub grouped: bool,
    /// Extra confirmation of a match at `text[start..end]` beyond the regex.
    pub confirm: Option<fn(&str, usize, usize) -> bool>,
}

/// The confirmation step of a built-in kind, if it has one.
pub(crate) fn builtin_confirm(kind: &str) -> Option<fn(&str, usize, usize) -> bool> {
    match kind {
        "credit_card" => Some(confirm_card),
        "phone" => Some(confirm_phone),
        "aws_secret_access_key" => Some(confirm_aws_secret),
        "slack_token" => Some(confirm_has_digit),
        "bearer_token" => Some(confirm_bearer),
        _ => None,
    }
}

/// A card number: Luhn-valid, issuer digit 2–6, and not part of a decimal number
/// (`0.4350095785786723` is a float, not a card).
fn confirm_card(text: &str, start: usize, end: usize) -> bool {
    let m = &text[start..end];
    let before = text[..start].chars().next_back();
    let after: Vec<char> = text[end..].chars().take(2).collect();
    let decimal_before = matches!(before, Some('.') | Some(','));
    let decimal_after = after.first().is_some_and(|c| *c == '.' || *c == ',')
        && after.get(1).is_some_and(char::is_ascii_digit);
    m.starts_with(['2', '3', '4', '5', '6'])
        && !decimal_before
        && !decimal_after
        && crate::luhn::is_card_number(m)
}

/// An AWS secret access key mixes upper and lower case (a 40-digit hex digest, such as a git
/// commit id, does not) and is not the start of a longer base64 run.
fn confirm_aws_secret(text: &str, start: usize, end: usize) -> bool {
    let m = &text[start..end];
    let longer = text[end..]
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '/' || c == '+');
    m.bytes().any(|b| b.is_ascii_uppercase())
        && m.bytes().any(|b| b.is_ascii_lowercase())
        && !longer
}

/// The match holds a digit (real tokens do; `xoxo-hugs-and-kisses` does not).
fn confirm_has_digit(text: &str, start: usize, end: usize) -> bool {
    text[start..end].bytes().any(|b| b.is_ascii_digit())
}

/// A bearer credential, not a placeholder such as `YOUR_ACCESS_TOKEN_HERE` or `<token>`: it
/// holds a digit, or mixes upper and lower case over at least 24 characters.
fn confirm_bearer(text: &str, start: usize, end: usize) -> bool {
    let m = &text[start..end];
    let mixed =
        m.bytes().any(|b| b.is_ascii_uppercase()) && m.bytes().any(|b| b.is_ascii_lowercase());
    confirm_has_digit(text, start, end) || (mixed && m.len() >= 24)
}

/// A phone number has 8 to 15 digits and is not part of a decimal number.
fn confirm_phone(text: &str, start: usize, end: usize) -> bool {
    let digits = text[start..end]
        .chars()
        .filter(char::is_ascii_digit)
        .count();
    let after: Vec<char> = text[end..].chars().take(2).collect();
    let decimal_after =
        after.first() == Some(&'.') && after.get(1).is_some_and(char::is_ascii_digit);
    (8..=15).contains(&digits) && !decimal_after
}
