//! LTLf tokens: `(`, `)`, `!`, `&` (`&&`), `|` (`||`), `->`, quoted atoms `"…"` with `\"` and
//! `\\` escapes, and words (keywords or atoms). Columns are 1-based character positions.

/// What a token is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TokenKind {
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `!`
    Not,
    /// `&` or `&&`
    And,
    /// `|` or `||`
    Or,
    /// `->`
    Implies,
    /// An unquoted word: a keyword (`G F X U W true false`) or an atom.
    Word(String),
    /// A quoted atom (never a keyword).
    Quoted(String),
}

/// A token and its 1-based column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// The token.
    pub kind: TokenKind,
    /// 1-based character column where it starts.
    pub column: usize,
}

impl Token {
    /// The token as the user wrote it (for messages).
    pub fn text(&self) -> String {
        match &self.kind {
            TokenKind::LParen => "(".into(),
            TokenKind::RParen => ")".into(),
            TokenKind::Not => "!".into(),
            TokenKind::And => "&".into(),
            TokenKind::Or => "|".into(),
            TokenKind::Implies => "->".into(),
            TokenKind::Word(w) => w.clone(),
            TokenKind::Quoted(q) => serde_json::Value::String(q.clone()).to_string(),
        }
    }
}

/// A lexing error: message and 1-based column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LexError {
    /// What is wrong.
    pub message: String,
    /// Where.
    pub column: usize,
}

fn is_word_char(c: char) -> bool {
    !c.is_whitespace() && !matches!(c, '(' | ')' | '!' | '&' | '|' | '"')
}

/// Splits `src` into tokens.
pub fn tokenize(src: &str) -> Result<Vec<Token>, LexError> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let column = i + 1;
        let simple = |kind| Token { kind, column };
        match c {
            c if c.is_whitespace() => i += 1,
            '(' => {
                out.push(simple(TokenKind::LParen));
                i += 1;
            }
            ')' => {
                out.push(simple(TokenKind::RParen));
                i += 1;
            }
            '!' => {
                out.push(simple(TokenKind::Not));
                i += 1;
            }
            '&' => {
                out.push(simple(TokenKind::And));
                i += if chars.get(i + 1) == Some(&'&') { 2 } else { 1 };
            }
            '|' => {
                out.push(simple(TokenKind::Or));
                i += if chars.get(i + 1) == Some(&'|') { 2 } else { 1 };
            }
            '-' if chars.get(i + 1) == Some(&'>') => {
                out.push(simple(TokenKind::Implies));
                i += 2;
            }
            '"' => {
                let mut text = String::new();
                let mut j = i + 1;
                loop {
                    match chars.get(j) {
                        None => {
                            return Err(LexError {
                                message: "unterminated quoted atom".into(),
                                column,
                            })
                        }
                        Some('"') => break,
                        Some('\\') => match chars.get(j + 1) {
                            Some(e @ ('"' | '\\')) => {
                                text.push(*e);
                                j += 2;
                            }
                            Some(other) => {
                                return Err(LexError {
                                    message: format!("invalid escape '\\{other}' in quoted atom"),
                                    column: j + 1,
                                })
                            }
                            None => {
                                return Err(LexError {
                                    message: "unterminated quoted atom".into(),
                                    column,
                                })
                            }
                        },
                        Some(ch) => {
                            text.push(*ch);
                            j += 1;
                        }
                    }
                }
                out.push(simple(TokenKind::Quoted(text)));
                i = j + 1;
            }
            _ => {
                let mut j = i;
                let mut word = String::new();
                while j < chars.len()
                    && is_word_char(chars[j])
                    && !(chars[j] == '-' && chars.get(j + 1) == Some(&'>'))
                {
                    word.push(chars[j]);
                    j += 1;
                }
                out.push(simple(TokenKind::Word(word)));
                i = j;
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<TokenKind> {
        tokenize(s).unwrap().into_iter().map(|t| t.kind).collect()
    }

    #[test]
    fn tokens() {
        use TokenKind::*;
        assert_eq!(
            kinds("G(a->b)&&!c||d"),
            vec![
                Word("G".into()),
                LParen,
                Word("a".into()),
                Implies,
                Word("b".into()),
                RParen,
                And,
                Not,
                Word("c".into()),
                Or,
                Word("d".into())
            ]
        );
        assert_eq!(kinds("a-b"), vec![Word("a-b".into())]);
        assert_eq!(
            kinds(r#""text_contains:thank you" "a\"b\\""#),
            vec![
                Quoted("text_contains:thank you".into()),
                Quoted("a\"b\\".into())
            ]
        );
        assert_eq!(tokenize("\"abc").unwrap_err().column, 1);
        let e = tokenize("x \"a\\nb\"").unwrap_err();
        assert_eq!(
            (e.column, e.message.as_str()),
            (5, "invalid escape '\\n' in quoted atom")
        );
    }
}
