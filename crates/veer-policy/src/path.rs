//! Dotted paths into a pair's context (spec `policy.md` §2.4, §3.2): `request.params.amount`,
//! `request.messages.0.role`, `stop_reason`, `text`, `tool_names.1`.
//!
//! A path resolves to a present value (a JSON `null` included) or to *missing* (a key or index
//! that does not exist, or descending into a scalar). The two are kept apart.

use crate::context::PairContext;
use veer_trace::Json;

/// The roots a path may start with.
pub(crate) const ROOTS: [&str; 6] = [
    "request",
    "response",
    "model",
    "stop_reason",
    "text",
    "tool_names",
];

/// A validated dotted path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Path {
    /// The path as written.
    pub text: String,
    /// Its segments (the first is one of `ROOTS`).
    pub segments: Vec<String>,
}

/// Why a path is not valid: the message and a hint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathError {
    /// What is wrong.
    pub message: String,
    /// What to write instead.
    pub hint: String,
}

impl Path {
    /// Parses and validates `text`: non-empty segments, a known root.
    pub fn parse(text: &str) -> Result<Path, PathError> {
        let segments: Vec<String> = text.split('.').map(str::to_string).collect();
        if segments.iter().any(String::is_empty) {
            return Err(PathError {
                message: format!("path '{text}' has an empty segment"),
                hint: "write segments separated by single dots, e.g. request.params.amount".into(),
            });
        }
        let root = segments[0].as_str();
        if !ROOTS.contains(&root) {
            let hint = match crate::hint::closest(root, &ROOTS) {
                Some(k) => format!("did you mean '{k}'?"),
                None => format!(
                    "did you mean 'request.{text}'? paths start with one of: {}",
                    ROOTS.join(", ")
                ),
            };
            return Err(PathError {
                message: format!("path '{text}' starts with unknown root '{root}'"),
                hint,
            });
        }
        Ok(Path {
            text: text.to_string(),
            segments,
        })
    }

    /// Resolves the path in `ctx`: `Some(value)` when present (null included), `None` when
    /// missing.
    pub fn resolve<'a>(&self, ctx: &'a PairContext<'_>) -> Option<&'a Json> {
        let mut cur: &Json = ctx.root(&self.segments[0])?;
        for seg in &self.segments[1..] {
            cur = step(cur, seg)?;
        }
        Some(cur)
    }
}

/// One step down: an object key, or a canonical decimal index into an array.
fn step<'a>(v: &'a Json, seg: &str) -> Option<&'a Json> {
    match v {
        Json::Object(m) => m.get(seg),
        Json::Array(a) => {
            let canonical = !seg.is_empty()
                && seg.bytes().all(|b| b.is_ascii_digit())
                && (seg == "0" || !seg.starts_with('0'));
            if !canonical {
                return None;
            }
            a.get(seg.parse::<usize>().ok()?)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_rejects_bad_paths() {
        assert!(Path::parse("a..b").is_err());
        assert!(Path::parse(".a").is_err());
        assert!(Path::parse("request.").is_err());
        let e = Path::parse("metadata.foo").unwrap_err();
        assert!(e.hint.contains("request.metadata.foo"), "{e:?}");
        assert!(Path::parse("request.params.amount").is_ok());
    }

    #[test]
    fn canonical_indices_only() {
        let v = Json::from(serde_json::json!([10, 20]));
        assert_eq!(
            step(&v, "1").map(Json::to_value),
            Some(serde_json::json!(20))
        );
        assert_eq!(step(&v, "01"), None);
        assert_eq!(step(&v, "+1"), None);
        assert_eq!(step(&v, " 1"), None);
        assert_eq!(step(&v, "-1"), None);
        assert_eq!(step(&v, "9"), None);
        assert_eq!(step(&Json::from("s"), "0"), None);
    }
}
