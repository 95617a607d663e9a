//! Text needles of `must_include_text`, `must_include_text_each`, `forbidden_text` and
//! `must_followup`'s `text_includes` (spec `policy.md` §5.7): a plain substring, optionally
//! case-insensitive (Unicode full lowercase) and/or whitespace-collapsed.

/// A prepared needle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Needle {
    /// The text as written in the policy.
    pub text: String,
    /// Compare lowercased (Unicode full lowercase) text.
    pub ignore_case: bool,
    /// Turn every run of whitespace into one space and trim, on both sides.
    pub collapse_whitespace: bool,
    prepared: String,
}

impl Needle {
    /// A needle for `text` with the two options.
    pub fn new(text: &str, ignore_case: bool, collapse_whitespace: bool) -> Needle {
        let mut n = Needle {
            text: text.to_string(),
            ignore_case,
            collapse_whitespace,
            prepared: String::new(),
        };
        n.prepared = n.normalise(text);
        n
    }

    fn normalise(&self, s: &str) -> String {
        let s = if self.ignore_case {
            s.to_lowercase()
        } else {
            s.to_string()
        };
        if self.collapse_whitespace {
            s.split_whitespace().collect::<Vec<_>>().join(" ")
        } else {
            s
        }
    }

    /// Whether the needle occurs in `haystack`.
    pub(crate) fn found_in(&self, haystack: &str) -> bool {
        if !self.ignore_case && !self.collapse_whitespace {
            return haystack.contains(&self.text);
        }
        self.normalise(haystack).contains(&self.prepared)
    }

    /// The needle as compact JSON, for details.
    pub fn quoted(&self) -> String {
        serde_json::Value::String(self.text.clone()).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options() {
        assert!(Needle::new("SOURCE:", false, false).found_in("x SOURCE: y"));
        assert!(!Needle::new("source:", false, false).found_in("SOURCE:"));
        assert!(Needle::new("source:", true, false).found_in("SOURCE:"));
        assert!(Needle::new("thank  you", false, true).found_in("well, thank\n\tyou!"));
        assert!(Needle::new("ÉTÉ", true, false).found_in("un été chaud"));
    }
}
