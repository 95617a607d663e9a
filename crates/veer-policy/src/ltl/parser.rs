//! The LTLf parser. Grammar, loosest first (spec `policy.md` §8.3, veer's changes):
//!
//! ```text
//! implies := or ( "->" implies )?          right-associative
//! or      := and ( "|" and )*              left-associative
//! and     := until ( "&" until )*          left-associative
//! until   := unary ( ("U" | "W") until )?  right-associative
//! unary   := "!" unary | "G" unary | "F" unary | "X" unary | primary
//! primary := "(" implies ")" | "true" | "false" | atom
//! ```
//!
//! Atoms are `tool_call:<name>`, `stop_reason:<value>`, `text_contains:<text>` and
//! `extra:<key>=<value>`; they are validated after the formula has parsed, so syntax errors
//! are reported first. Every error names a 1-based column.

use super::lexer::{tokenize, Token, TokenKind};

/// Deepest nesting accepted (a guard against stack exhaustion on hostile input).
const MAX_DEPTH: usize = 256;

/// An atomic proposition about one state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Atom {
    /// `tool_call:<name>`: a call named `<name>` is attached to the pair.
    ToolCall(String),
    /// `stop_reason:<v>`: the pair's stop reason is `<v>`.
    StopReason(String),
    /// `text_contains:<sub>`: the response text contains `<sub>`.
    TextContains(String),
    /// `extra:<k>=<v>`: veer's states carry no extra fields, so this holds iff `<v>` is empty.
    Extra {
        /// The key.
        key: String,
        /// The expected value.
        value: String,
    },
}

/// An LTLf formula.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Formula {
    /// `true`
    True,
    /// `false`
    False,
    /// An atom.
    Atom(Atom),
    /// `! φ`
    Not(Box<Formula>),
    /// `φ & ψ`
    And(Box<Formula>, Box<Formula>),
    /// `φ | ψ`
    Or(Box<Formula>, Box<Formula>),
    /// `φ -> ψ`
    Implies(Box<Formula>, Box<Formula>),
    /// `X φ` (strong next)
    Next(Box<Formula>),
    /// `G φ`
    Globally(Box<Formula>),
    /// `F φ`
    Finally(Box<Formula>),
    /// `φ U ψ`
    Until(Box<Formula>, Box<Formula>),
    /// `φ W ψ`
    WeakUntil(Box<Formula>, Box<Formula>),
}

impl Formula {
    /// Whether some atom is an `extra:` atom.
    pub(crate) fn has_extra_atoms(&self) -> bool {
        match self {
            Formula::True | Formula::False => false,
            Formula::Atom(a) => matches!(a, Atom::Extra { .. }),
            Formula::Not(a) | Formula::Next(a) | Formula::Globally(a) | Formula::Finally(a) => {
                a.has_extra_atoms()
            }
            Formula::And(a, b)
            | Formula::Or(a, b)
            | Formula::Implies(a, b)
            | Formula::Until(a, b)
            | Formula::WeakUntil(a, b) => a.has_extra_atoms() || b.has_extra_atoms(),
        }
    }
}

/// A parse error with its 1-based column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParseError {
    /// 1-based character column.
    pub column: usize,
    /// What is wrong.
    pub message: String,
    /// A suggestion, when there is one.
    pub hint: Option<String>,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "LTL parse error at column {}: {}",
            self.column, self.message
        )
    }
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    end_column: usize,
    depth: usize,
    atom_error: Option<ParseError>,
}

/// Parses an LTLf formula.
pub fn parse(src: &str) -> Result<Formula, ParseError> {
    let tokens = tokenize(src).map_err(|e| ParseError {
        column: e.column,
        message: e.message,
        hint: None,
    })?;
    if tokens.is_empty() {
        return Err(ParseError {
            column: 1,
            message: "empty formula".into(),
            hint: None,
        });
    }
    let mut p = Parser {
        tokens,
        pos: 0,
        end_column: src.chars().count() + 1,
        depth: 0,
        atom_error: None,
    };
    let f = p.implies()?;
    if let Some(t) = p.tokens.get(p.pos) {
        return Err(ParseError {
            column: t.column,
            message: format!("unexpected '{}'", t.text()),
            hint: None,
        });
    }
    match p.atom_error {
        Some(e) => Err(e),
        None => Ok(f),
    }
}

fn is_keyword(w: &str, k: &str) -> bool {
    w == k
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn peek_word(&self, k: &str) -> bool {
        matches!(self.peek(), Some(Token { kind: TokenKind::Word(w), .. }) if is_keyword(w, k))
    }

    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            let column = self.peek().map_or(self.end_column, |t| t.column);
            return Err(ParseError {
                column,
                message: format!("formula nests more than {MAX_DEPTH} levels deep"),
                hint: None,
            });
        }
        Ok(())
    }

    fn implies(&mut self) -> Result<Formula, ParseError> {
        self.enter()?;
        let left = self.or()?;
        let out = if matches!(
            self.peek(),
            Some(Token {
                kind: TokenKind::Implies,
                ..
            })
        ) {
            self.pos += 1;
            let right = self.implies()?;
            Formula::Implies(Box::new(left), Box::new(right))
        } else {
            left
        };
        self.depth -= 1;
        Ok(out)
    }

    fn or(&mut self) -> Result<Formula, ParseError> {
        let mut left = self.and()?;
        let before = self.depth;
        while matches!(
            self.peek(),
            Some(Token {
                kind: TokenKind::Or,
                ..
            })
        ) {
            self.pos += 1;
            // Each link of the chain deepens the (left-nested) tree.
            self.enter()?;
            let right = self.and()?;
            left = Formula::Or(Box::new(left), Box::new(right));
        }
        self.depth = before;
        Ok(left)
    }

    fn and(&mut self) -> Result<Formula, ParseError> {
        let mut left = self.until()?;
        let before = self.depth;
        while matches!(
            self.peek(),
            Some(Token {
                kind: TokenKind::And,
                ..
            })
        ) {
            self.pos += 1;
            // Each link of the chain deepens the (left-nested) tree.
            self.enter()?;
            let right = self.until()?;
            left = Formula::And(Box::new(left), Box::new(right));
        }
        self.depth = before;
        Ok(left)
    }

    fn until(&mut self) -> Result<Formula, ParseError> {
        self.enter()?;
        let left = self.unary()?;
        let out = if self.peek_word("U") || self.peek_word("W") {
            let weak = self.peek_word("W");
            self.pos += 1;
            let right = self.until()?;
            if weak {
                Formula::WeakUntil(Box::new(left), Box::new(right))
            } else {
                Formula::Until(Box::new(left), Box::new(right))
            }
        } else {
            left
        };
        self.depth -= 1;
        Ok(out)
    }

    fn unary(&mut self) -> Result<Formula, ParseError> {
        self.enter()?;
        let out = match self.peek().map(|t| t.kind.clone()) {
            Some(TokenKind::Not) => {
                self.pos += 1;
                Formula::Not(Box::new(self.unary()?))
            }
            Some(TokenKind::Word(w)) if w == "G" || w == "F" || w == "X" => {
                self.pos += 1;
                let inner = Box::new(self.unary()?);
                match w.as_str() {
                    "G" => Formula::Globally(inner),
                    "F" => Formula::Finally(inner),
                    _ => Formula::Next(inner),
                }
            }
            _ => self.primary()?,
        };
        self.depth -= 1;
        Ok(out)
    }

    fn primary(&mut self) -> Result<Formula, ParseError> {
        let Some(tok) = self.peek().cloned() else {
            return Err(ParseError {
                column: self.end_column,
                message: "unexpected end of formula".into(),
                hint: None,
            });
        };
        self.pos += 1;
        match &tok.kind {
            TokenKind::LParen => {
                let inner = self.implies()?;
                match self.peek() {
                    Some(Token {
                        kind: TokenKind::RParen,
                        ..
                    }) => {
                        self.pos += 1;
                        Ok(inner)
                    }
                    Some(t) => Err(ParseError {
                        column: t.column,
                        message: format!(
                            "expected ')' to close '(' at column {}, found '{}'",
                            tok.column,
                            t.text()
                        ),
                        hint: None,
                    }),
                    None => Err(ParseError {
                        column: self.end_column,
                        message: format!(
                            "expected ')' to close '(' at column {}, found end of formula",
                            tok.column
                        ),
                        hint: None,
                    }),
                }
            }
            TokenKind::Word(w) if w == "true" => Ok(Formula::True),
            TokenKind::Word(w) if w == "false" => Ok(Formula::False),
            TokenKind::Word(w) if w == "U" || w == "W" => Err(ParseError {
                column: tok.column,
                message: format!("unexpected '{w}'"),
                hint: None,
            }),
            TokenKind::Word(w) | TokenKind::Quoted(w) => Ok(self.atom(w, tok.column)),
            _ => Err(ParseError {
                column: tok.column,
                message: format!("unexpected '{}'", tok.text()),
                hint: None,
            }),
        }
    }

    /// Builds an atom, remembering the first invalid one (reported only if the formula
    /// parses) and standing in `false` for it.
    fn atom(&mut self, text: &str, column: usize) -> Formula {
        match validate_atom(text, column) {
            Ok(a) => Formula::Atom(a),
            Err(e) => {
                if self.atom_error.is_none() {
                    self.atom_error = Some(e);
                }
                Formula::False
            }
        }
    }
}

const ATOM_FORMS: &str =
    "expected tool_call:<name>, stop_reason:<value>, text_contains:<text> or extra:<key>=<value>";

fn validate_atom(text: &str, column: usize) -> Result<Atom, ParseError> {
    let err = |message: String, hint: Option<String>| ParseError {
        column,
        message,
        hint,
    };
    let nonempty = |prefix: &str, rest: &str| {
        if rest.is_empty() {
            Err(err(
                format!("LTL atom '{text}' has nothing after '{prefix}'"),
                Some(format!("write {prefix}<value>")),
            ))
        } else {
            Ok(rest.to_string())
        }
    };
    if let Some(rest) = text.strip_prefix("tool_call:") {
        return Ok(Atom::ToolCall(nonempty("tool_call:", rest)?));
    }
    if let Some(rest) = text.strip_prefix("stop_reason:") {
        return Ok(Atom::StopReason(nonempty("stop_reason:", rest)?));
    }
    if let Some(rest) = text.strip_prefix("text_contains:") {
        return Ok(Atom::TextContains(nonempty("text_contains:", rest)?));
    }
    if let Some(rest) = text.strip_prefix("extra:") {
        if let Some((key, value)) = rest.split_once('=') {
            return Ok(Atom::Extra {
                key: key.to_string(),
                value: value.to_string(),
            });
        }
    }
    let lower = text.to_ascii_lowercase();
    let hint = if lower == "true" || lower == "false" {
        Some(format!("did you mean '{lower}'? keywords are lowercase"))
    } else if let Some((prefix, _)) = text.split_once(':') {
        crate::hint::closest(
            prefix,
            &["tool_call", "stop_reason", "text_contains", "extra"],
        )
        .map(|k| format!("did you mean '{k}:'?"))
    } else {
        Some(format!("did you mean 'tool_call:{text}'?"))
    };
    Err(err(
        format!("unknown LTL atom '{text}'; {ATOM_FORMS}"),
        hint,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tc(n: &str) -> Box<Formula> {
        Box::new(Formula::Atom(Atom::ToolCall(n.into())))
    }

    #[test]
    fn precedence_and_associativity() {
        assert_eq!(
            parse("true -> true -> false").unwrap(),
            Formula::Implies(
                Box::new(Formula::True),
                Box::new(Formula::Implies(
                    Box::new(Formula::True),
                    Box::new(Formula::False)
                ))
            )
        );
        assert_eq!(
            parse("G tool_call:a U tool_call:b").unwrap(),
            Formula::Until(Box::new(Formula::Globally(tc("a"))), tc("b"))
        );
        assert_eq!(
            parse("tool_call:a & tool_call:b U tool_call:c").unwrap(),
            Formula::And(tc("a"), Box::new(Formula::Until(tc("b"), tc("c"))))
        );
        assert_eq!(
            parse("tool_call:a U tool_call:b U tool_call:c").unwrap(),
            Formula::Until(tc("a"), Box::new(Formula::Until(tc("b"), tc("c"))))
        );
        assert!(parse("\"tool_call:a->b\"").is_ok());
    }

    #[test]
    fn errors_name_columns() {
        let e = parse("(a").unwrap_err();
        assert_eq!(
            e.to_string(),
            "LTL parse error at column 3: expected ')' to close '(' at column 1, found end of formula"
        );
        assert_eq!(parse("G").unwrap_err().message, "unexpected end of formula");
        assert_eq!(
            parse("true false").unwrap_err().to_string(),
            "LTL parse error at column 6: unexpected 'false'"
        );
        assert_eq!(parse("  ").unwrap_err().message, "empty formula");
        assert_eq!(parse("a & )").unwrap_err().column, 5);
        assert_eq!(parse("U").unwrap_err().message, "unexpected 'U'");
        let e = parse("G TRUE").unwrap_err();
        assert!(e.message.starts_with("unknown LTL atom 'TRUE'"));
        assert_eq!(
            e.hint.as_deref(),
            Some("did you mean 'true'? keywords are lowercase")
        );
        assert!(parse("tool_call:").is_err());
        // Syntax errors come before atom errors.
        assert_eq!(parse("bogus (").unwrap_err().message, "unexpected '('");
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let s = "!".repeat(100_000) + "true";
        assert!(parse(&s).is_err());
        let s = "(".repeat(100_000);
        assert!(parse(&s).is_err());
        let s = vec!["true"; 100_000].join(" & ");
        assert!(parse(&s).is_err());
    }
}
