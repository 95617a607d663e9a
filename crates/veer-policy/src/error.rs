//! Load errors: every problem of a policy file, each naming file, line, column and rule, with a
//! hint (spec `policy.md` §1.5).

use std::fmt;

/// One problem found while loading a policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// 1-based line of the offending node (0 when the problem concerns the whole file).
    pub line: u64,
    /// 1-based column of the offending node (0 when unknown).
    pub column: u64,
    /// What is known about the rule: `rules[2] (id r1, kind no_call)`; `None` outside rules.
    pub rule: Option<String>,
    /// What is wrong (may span lines, e.g. an LTL formula with a caret under the column).
    pub message: String,
    /// What to do about it.
    pub hint: Option<String>,
}

/// A policy that could not be loaded: the file and all its problems, in file order.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct PolicyError {
    /// The policy file, as given.
    pub file: String,
    /// Every problem found (at least one).
    pub problems: Vec<Problem>,
}

impl PolicyError {
    /// An error with a single problem about the whole file.
    pub(crate) fn file_problem(
        file: &str,
        message: impl Into<String>,
        hint: Option<String>,
    ) -> Self {
        PolicyError {
            file: file.to_string(),
            problems: vec![Problem {
                line: 0,
                column: 0,
                rule: None,
                message: message.into(),
                hint,
            }],
        }
    }

    /// Each problem rendered on its own (location, rule, message; then `  hint: …`).
    pub fn lines(&self) -> Vec<String> {
        self.problems.iter().map(|p| self.render(p)).collect()
    }

    /// One problem as `<file>:<line>:<column>: <rule>: <message>` plus its hint line.
    pub fn render(&self, p: &Problem) -> String {
        let mut s = self.file.clone();
        if p.line > 0 {
            s.push_str(&format!(":{}:{}", p.line, p.column));
        }
        s.push_str(": ");
        if let Some(r) = &p.rule {
            s.push_str(r);
            s.push_str(": ");
        }
        s.push_str(&p.message);
        if let Some(h) = &p.hint {
            s.push_str("\n  hint: ");
            s.push_str(h);
        }
        s
    }
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.lines().join("\n"))
    }
}
