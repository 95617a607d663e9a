//! Text operators (spec `experiment.md` §13.3).
//!
//! These rewrite a `.txt` / `.md` input the way a noisy upstream would: a scanner's OCR
//! look-alikes, numbers marked as approximate, redacted dates, numbers and names, shuffled or
//! missing paragraphs, encoding debris, or no content at all. An experiment runs the agent on
//! the clean and the perturbed file and compares the two traces.
//!
//! The operators are specified as Python (`re` on `str`, `random`). veer keeps their matching
//! rules exactly and makes the same draws, in the same order, on its own stream
//! ([`PerturbRng`]), so every output is a pure function of (content, operator, seed). Where
//! Rust's `regex` defines a class differently from Python's `re`, this module bridges the gap:
//!
//! * `\s` is Python's `str.isspace()`, which is Unicode `White_Space` plus U+001C..U+001F;
//!   patterns spell it `[\s\x1C-\x1F]` and [`is_py_space`] is the character test.
//! * `\b` is a boundary between Python word characters (letters, numbers and `_`, i.e.
//!   `[\p{L}\p{N}_]`) and the rest, where Rust's `\w` also counts marks, connector punctuation
//!   and letter-like symbols and leaves out other numbers (`²`, `½`). Patterns with `\b` run on
//!   a same-length stand-in of the text (`python_word_view`).
//! * `str.isalpha()` is the Unicode `Letter` category (`\p{L}`), narrower than
//!   [`char::is_alphabetic`].
//!
//! `\d` (`Nd`) and the ASCII ranges `[A-Z]` / `[a-z]` mean the same in both engines, and both
//! pick the leftmost match and, at one start, the first alternative in backtracking order.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

use crate::{Operator, PerturbOutcome, PerturbRng};
use veer_base::pytext::{is_py_space, py_strip};

/// Content whose stripped form has fewer characters than this is skipped (all but
/// `null_content`).
const MIN_CHARS: usize = 10;

/// traxr's reason for skipping a text under [`MIN_CHARS`] characters.
pub(crate) const INSUFFICIENT_CONTENT: &str = "Insufficient content (need at least 10 characters)";

/// `ocr_noise`: the chance that one look-alike rule fires.
const OCR_RATE: f64 = 0.08;

/// `number_corruption`: a number is kept when its draw is above this.
const NUMBER_KEEP_ABOVE: f64 = 0.4;

/// `text_redaction`: the chance that one date, long number or name is redacted, by pass.
const REDACTION_RATES: RedactionRates = RedactionRates {
    date: 0.4,
    number: 0.3,
    name: 0.25,
};

/// `encoding_error`: the chance that a vowel or punctuation mark in [`ENCODING_FRAGILE`] is
/// replaced.
const ENCODING_FRAGILE_RATE: f64 = 0.12;

/// `encoding_error`: the chance that any other letter is replaced.
const ENCODING_LETTER_RATE: f64 = 0.04;

/// The characters `encoding_error` hits most often.
const ENCODING_FRAGILE: &str = "aeiouAEIOU'\".,;:-";

/// What `encoding_error` puts in place of a character.
const ENCODING_DEBRIS: [&str; 10] = [
    "\u{FFFD}", "??", "###", "[?]", "\\x00", "_", "~", "^", "|", "*",
];

/// `ocr_noise`'s two-character look-alikes, tried in this order at every position.
const OCR_PAIRS: [(&str, &str); 6] = [
    ("rn", "m"),
    ("cl", "d"),
    ("vv", "w"),
    ("ii", "u"),
    ("fi", "fl"),
    ("fl", "fi"),
];

/// `number_corruption`'s (prefix, suffix) marks.
const NUMBER_WRAPPERS: [(&str, &str); 5] =
    [("~", ""), ("", "*"), ("approx.", ""), ("", "?"), ("(", ")")];

/// Applies a text `operator` to `content`, drawing from `rng`.
///
/// `null_content` always applies; every other operator skips content with fewer than 10
/// characters once surrounding whitespace is stripped (traxr's only text skip). The paragraph
/// operators give content with fewer than 3 paragraphs back as it is, without a draw, and
/// still count as applied, as traxr does. A tabular operator is skipped with a reason (the
/// caller does not send one here).
pub fn apply(content: &str, operator: Operator, rng: &mut PerturbRng) -> PerturbOutcome {
    if operator == Operator::NullContent {
        return PerturbOutcome::Applied(String::new());
    }
    if !Operator::TEXT.contains(&operator) {
        return PerturbOutcome::Skipped(format!("`{}` is not a text operator", operator.name()));
    }
    if py_strip(content).chars().count() < MIN_CHARS {
        return PerturbOutcome::Skipped(INSUFFICIENT_CONTENT.into());
    }
    let patterns = match &*PATTERNS {
        Ok(patterns) => patterns,
        Err(error) => return PerturbOutcome::Skipped(format!("internal pattern error: {error}")),
    };
    match operator {
        Operator::OcrNoise => PerturbOutcome::Applied(ocr_noise(content, OCR_RATE, rng)),
        Operator::NumberCorruption => {
            PerturbOutcome::Applied(number_corruption(content, patterns, NUMBER_KEEP_ABOVE, rng))
        }
        Operator::TextRedaction => {
            PerturbOutcome::Applied(text_redaction(content, patterns, REDACTION_RATES, rng))
        }
        Operator::ParagraphShuffle => paragraph_shuffle(content, patterns, rng),
        Operator::EncodingError => PerturbOutcome::Applied(encoding_error(
            content,
            patterns,
            ENCODING_FRAGILE_RATE,
            ENCODING_LETTER_RATE,
            rng,
        )),
        Operator::SectionRemoval => section_removal(content, patterns, rng),
        _ => PerturbOutcome::Skipped(format!("`{}` is not a text operator", operator.name())),
    }
}

/// The regular expressions of the text operators, compiled once.
struct Patterns {
    /// `number_corruption`'s numbers.
    number: Regex,
    /// `text_redaction`'s dates.
    date: Regex,
    /// `text_redaction`'s long numbers.
    long_number: Regex,
    /// `text_redaction`'s names, anchored: the part after the lookbehind `(?<=[.!?]\s)`,
    /// which [`redact_names`] checks by hand.
    name: Regex,
    /// A paragraph break, `\n\s*\n`.
    paragraph_break: Regex,
    /// One character that Python's `str.isalpha()` accepts.
    py_letter: Regex,
    /// One character that Python's `re` counts as a word character.
    py_word: Regex,
    /// One character that Rust's `regex` counts as a word character.
    rust_word: Regex,
}

static PATTERNS: LazyLock<Result<Patterns, regex::Error>> = LazyLock::new(|| {
    Ok(Patterns {
        number: Regex::new(r"(\$?\d{1,3}(?:,\d{3})*(?:\.\d+)?%?|\d+(?:\.\d+)?%?)")?,
        date: Regex::new(r"\b(\d{1,2}[/-]\d{1,2}[/-]\d{2,4}|\d{4}[/-]\d{1,2}[/-]\d{1,2})\b")?,
        long_number: Regex::new(r"\b(\d{3,}(?:,\d{3})*(?:\.\d+)?)\b")?,
        name: Regex::new(r"\A[A-Z][a-z]+(?:[\s\x1C-\x1F][A-Z][a-z]+)?")?,
        paragraph_break: Regex::new(r"\n[\s\x1C-\x1F]*\n")?,
        py_letter: Regex::new(r"\A\p{L}\z")?,
        py_word: Regex::new(r"\A[\p{L}\p{N}_]\z")?,
        rust_word: Regex::new(r"\A\w\z")?,
    })
});

/// Whether `pattern` (a one-character class anchored at both ends) accepts `c`.
fn char_matches(pattern: &Regex, c: char) -> bool {
    let mut buf = [0; 4];
    pattern.is_match(c.encode_utf8(&mut buf))
}

/// Python's `str.isalpha()` for one character.
fn is_py_alpha(c: char, patterns: &Patterns) -> bool {
    if c.is_ascii() {
        c.is_ascii_alphabetic()
    } else {
        c.is_alphabetic() && char_matches(&patterns.py_letter, c)
    }
}

/// `text` with every character on which Python's and Rust's word classes disagree replaced by
/// a stand-in of the same UTF-8 length that Rust classes as Python does, so a Rust `\b` in a
/// pattern over the stand-in text lands where Python's would, at the same byte offsets.
///
/// Only letters, numbers that are not decimal digits, marks and symbols are replaced (ASCII
/// agrees), so the `\d` and punctuation a pattern matches are never touched.
fn python_word_view<'a>(text: &'a str, patterns: &Patterns) -> Cow<'a, str> {
    if text.is_ascii() {
        return Cow::Borrowed(text);
    }
    let mut view = String::new();
    let mut copied = 0;
    for (pos, c) in text.char_indices() {
        if c.is_ascii() {
            continue;
        }
        let python = char_matches(&patterns.py_word, c);
        if python == char_matches(&patterns.rust_word, c) {
            continue;
        }
        view.push_str(&text[copied..pos]);
        view.push(word_stand_in(python, c.len_utf8()));
        copied = pos + c.len_utf8();
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    view.push_str(&text[copied..]);
    Cow::Owned(view)
}

/// A character of `len` UTF-8 bytes (2 to 4) that Rust's `\w` accepts when `word`, and rejects
/// otherwise. None of them is a digit.
fn word_stand_in(word: bool, len: usize) -> char {
    match (word, len) {
        (true, 2) => 'é',
        (true, 3) => 'あ',
        (true, _) => '\u{10000}', // LINEAR B SYLLABLE B008 A (Lo)
        (false, 2) => '¡',
        (false, 3) => '†',
        (false, _) => '\u{1F000}', // MAHJONG TILE EAST WIND (So)
    }
}

/// Python's `re.sub(pattern, function, text)`: every match of `pattern` in `view` (a
/// same-layout stand-in of `text`, or `text` itself), leftmost first and not overlapping, is
/// replaced by what `replace` returns for the matched part of `text`. `replace` is called once
/// per match, in order.
fn substitute(
    text: &str,
    view: &str,
    pattern: &Regex,
    mut replace: impl FnMut(&str) -> String,
) -> String {
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for found in pattern.find_iter(view) {
        out.push_str(&text[copied..found.start()]);
        out.push_str(&replace(&text[found.range()]));
        copied = found.end();
    }
    out.push_str(&text[copied..]);
    out
}

/// `ocr_noise` with the chance of each rule firing as a parameter.
///
/// The scan goes character by character. At each position the two-character look-alikes
/// ([`OCR_PAIRS`]) are tried in order; one draw is made for a pair only when it is there, and
/// when the draw is below `rate` the pair is replaced and the scan moves past both characters.
/// Otherwise a character with look-alikes makes one draw, and when it is below `rate` it is
/// replaced by a `choice` among its look-alikes (a `choice` draw is made even when there is only
/// one). A pair whose draw failed falls through to the single-character rule for its first
/// character; as no pair starts with a character that has look-alikes, that draws nothing.
/// Replacements are never scanned again.
fn ocr_noise(content: &str, rate: f64, rng: &mut PerturbRng) -> String {
    let mut out = String::with_capacity(content.len());
    let mut rest = content;
    'scan: loop {
        for (pair, look_alike) in OCR_PAIRS {
            if let Some(after) = rest.strip_prefix(pair) {
                if rng.random() < rate {
                    out.push_str(look_alike);
                    rest = after;
                    continue 'scan;
                }
            }
        }
        let mut chars = rest.chars();
        let Some(c) = chars.next() else {
            break;
        };
        let look_alikes = ocr_look_alikes(c);
        if !look_alikes.is_empty() && rng.random() < rate {
            let look_alike = rng.choice(look_alikes);
            out.push_str(look_alike);
        } else {
            out.push(c);
        }
        rest = chars.as_str();
    }
    out
}

/// The OCR look-alikes of one character (empty when it has none).
fn ocr_look_alikes(c: char) -> &'static [&'static str] {
    match c {
        'l' => &["1", "|"],
        'I' => &["1", "|", "l"],
        'O' | 'o' => &["0"],
        'S' => &["5", "$"],
        's' => &["5"],
        'B' => &["8"],
        'g' => &["9"],
        'Z' | 'z' => &["2"],
        'm' => &["rn"],
        'd' => &["cl"],
        'w' => &["vv"],
        'u' => &["ii"],
        'h' => &["li"],
        ',' => &["."],
        '.' => &[","],
        ':' => &[";"],
        ';' => &[":"],
        _ => &[],
    }
}

/// `number_corruption`: each number makes one draw and is kept when the draw is above
/// `keep_above`; otherwise it is wrapped in a `choice` of [`NUMBER_WRAPPERS`].
fn number_corruption(
    content: &str,
    patterns: &Patterns,
    keep_above: f64,
    rng: &mut PerturbRng,
) -> String {
    substitute(content, content, &patterns.number, |number| {
        if rng.random() > keep_above {
            number.to_owned()
        } else {
            let (prefix, suffix) = rng.choice(&NUMBER_WRAPPERS);
            format!("{prefix}{number}{suffix}")
        }
    })
}

/// The chances that `text_redaction` redacts one match, by pass.
#[derive(Debug, Clone, Copy)]
struct RedactionRates {
    date: f64,
    number: f64,
    name: f64,
}

/// `text_redaction`: dates, then long numbers, then names after a sentence end, each pass over
/// the previous pass's output. Every match makes one draw and is redacted when it is below the
/// pass's rate.
fn text_redaction(
    content: &str,
    patterns: &Patterns,
    rates: RedactionRates,
    rng: &mut PerturbRng,
) -> String {
    let mut redact_with = |text: &str, pattern: &Regex, rate: f64, mark: &str| {
        let view = python_word_view(text, patterns);
        substitute(text, &view, pattern, |found| {
            if rng.random() < rate {
                mark.to_owned()
            } else {
                found.to_owned()
            }
        })
    };
    let dated = redact_with(content, &patterns.date, rates.date, "[DATE]");
    let numbered = redact_with(&dated, &patterns.long_number, rates.number, "[REDACTED]");
    redact_names(&numbered, patterns, rates.name, rng)
}

/// The name pass of `text_redaction`: Python's
/// `(?<=[.!?]\s)([A-Z][a-z]+(?:\s[A-Z][a-z]+)?)` with the lookbehind checked by hand.
///
/// Start positions are tried left to right. A start is eligible when the two characters before
/// it in `text` (this pass's input, never its output) are one of `.!?` and then one whitespace
/// character; the rest of the pattern is then matched anchored there. After a match the scan
/// resumes at its end.
fn redact_names(text: &str, patterns: &Patterns, rate: f64, rng: &mut PerturbRng) -> String {
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut before: (Option<char>, Option<char>) = (None, None);
    for (pos, c) in text.char_indices() {
        let after_sentence_end = matches!(
            before,
            (Some('.' | '!' | '?'), Some(space)) if is_py_space(space)
        );
        before = (before.1, Some(c));
        if pos < copied || !after_sentence_end || !c.is_ascii_uppercase() {
            continue;
        }
        if let Some(name) = patterns.name.find(&text[pos..]) {
            let end = pos + name.end();
            out.push_str(&text[copied..pos]);
            if rng.random() < rate {
                out.push_str("[NAME]");
            } else {
                out.push_str(&text[pos..end]);
            }
            copied = end;
        }
    }
    out.push_str(&text[copied..]);
    out
}

/// Python's `[p.strip() for p in re.split(r"\n\s*\n", content) if p.strip()]`.
fn paragraphs<'a>(content: &'a str, patterns: &Patterns) -> Vec<&'a str> {
    patterns
        .paragraph_break
        .split(content)
        .map(py_strip)
        .filter(|paragraph| !paragraph.is_empty())
        .collect()
}

/// The paragraphs of `content`, or `content` itself, unchanged, when there are fewer than 3
/// (traxr returns the content as it was and still counts the operator as applied).
fn enough_paragraphs<'a>(
    content: &'a str,
    patterns: &Patterns,
) -> Result<Vec<&'a str>, PerturbOutcome> {
    let found = paragraphs(content, patterns);
    if found.len() < 3 {
        return Err(PerturbOutcome::Applied(content.to_string()));
    }
    Ok(found)
}

/// `paragraph_shuffle`: the first paragraph stays, the others are shuffled; paragraphs are
/// joined by one blank line.
fn paragraph_shuffle(content: &str, patterns: &Patterns, rng: &mut PerturbRng) -> PerturbOutcome {
    let mut found = match enough_paragraphs(content, patterns) {
        Ok(found) => found,
        Err(unchanged) => return unchanged,
    };
    if let Some((_, tail)) = found.split_first_mut() {
        rng.shuffle(tail);
    }
    PerturbOutcome::Applied(found.join("\n\n"))
}

/// `encoding_error` with both chances as parameters: a character of [`ENCODING_FRAGILE`] makes
/// one draw and is replaced when it is below `fragile_rate`, any other letter likewise with
/// `letter_rate`; a replacement is a `choice` of [`ENCODING_DEBRIS`]. Other characters draw
/// nothing.
fn encoding_error(
    content: &str,
    patterns: &Patterns,
    fragile_rate: f64,
    letter_rate: f64,
    rng: &mut PerturbRng,
) -> String {
    let mut out = String::with_capacity(content.len());
    for c in content.chars() {
        let rate = if ENCODING_FRAGILE.contains(c) {
            fragile_rate
        } else if is_py_alpha(c, patterns) {
            letter_rate
        } else {
            out.push(c);
            continue;
        };
        if rng.random() < rate {
            let debris = rng.choice(&ENCODING_DEBRIS);
            out.push_str(debris);
        } else {
            out.push(c);
        }
    }
    out
}

/// `section_removal`: `min(randint(1, 2), n - 2)` of the `n - 2` middle paragraphs, picked by
/// `sample`, are removed; the rest keep their order and are joined by one blank line.
fn section_removal(content: &str, patterns: &Patterns, rng: &mut PerturbRng) -> PerturbOutcome {
    let found = match enough_paragraphs(content, patterns) {
        Ok(found) => found,
        Err(unchanged) => return unchanged,
    };
    let middle = found.len() - 2;
    let count = usize::try_from(rng.randint(1, 2)).unwrap_or(1).min(middle);
    let removed: Vec<usize> = rng
        .sample(middle, count)
        .into_iter()
        .map(|offset| offset + 1)
        .collect();
    let kept: Vec<&str> = found
        .iter()
        .enumerate()
        .filter(|(index, _)| !removed.contains(index))
        .map(|(_, paragraph)| *paragraph)
        .collect();
    PerturbOutcome::Applied(kept.join("\n\n"))
}

#[cfg(test)]
mod tests;
