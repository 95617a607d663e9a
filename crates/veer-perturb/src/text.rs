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

use crate::pystr::{is_py_space, py_strip};
use crate::{Operator, Outcome, PerturbRng};

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
pub fn apply(content: &str, operator: Operator, rng: &mut PerturbRng) -> Outcome {
    if operator == Operator::NullContent {
        return Outcome::Applied(String::new());
    }
    if !Operator::TEXT.contains(&operator) {
        return Outcome::Skipped(format!("`{}` is not a text operator", operator.name()));
    }
    if py_strip(content).chars().count() < MIN_CHARS {
        return Outcome::Skipped(INSUFFICIENT_CONTENT.into());
    }
    let patterns = match &*PATTERNS {
        Ok(patterns) => patterns,
        Err(error) => return Outcome::Skipped(format!("internal pattern error: {error}")),
    };
    match operator {
        Operator::OcrNoise => Outcome::Applied(ocr_noise(content, OCR_RATE, rng)),
        Operator::NumberCorruption => {
            Outcome::Applied(number_corruption(content, patterns, NUMBER_KEEP_ABOVE, rng))
        }
        Operator::TextRedaction => {
            Outcome::Applied(text_redaction(content, patterns, REDACTION_RATES, rng))
        }
        Operator::ParagraphShuffle => paragraph_shuffle(content, patterns, rng),
        Operator::EncodingError => Outcome::Applied(encoding_error(
            content,
            patterns,
            ENCODING_FRAGILE_RATE,
            ENCODING_LETTER_RATE,
            rng,
        )),
        Operator::SectionRemoval => section_removal(content, patterns, rng),
        _ => Outcome::Skipped(format!("`{}` is not a text operator", operator.name())),
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
fn enough_paragraphs<'a>(content: &'a str, patterns: &Patterns) -> Result<Vec<&'a str>, Outcome> {
    let found = paragraphs(content, patterns);
    if found.len() < 3 {
        return Err(Outcome::Applied(content.to_string()));
    }
    Ok(found)
}

/// `paragraph_shuffle`: the first paragraph stays, the others are shuffled; paragraphs are
/// joined by one blank line.
fn paragraph_shuffle(content: &str, patterns: &Patterns, rng: &mut PerturbRng) -> Outcome {
    let mut found = match enough_paragraphs(content, patterns) {
        Ok(found) => found,
        Err(unchanged) => return unchanged,
    };
    if let Some((_, tail)) = found.split_first_mut() {
        rng.shuffle(tail);
    }
    Outcome::Applied(found.join("\n\n"))
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
fn section_removal(content: &str, patterns: &Patterns, rng: &mut PerturbRng) -> Outcome {
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
    Outcome::Applied(kept.join("\n\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn patterns() -> &'static Patterns {
        PATTERNS.as_ref().unwrap()
    }

    fn applied(outcome: Outcome) -> String {
        match outcome {
            Outcome::Applied(text) => text,
            Outcome::Skipped(reason) => panic!("skipped: {reason}"),
        }
    }

    fn run(content: &str, operator: Operator, seed: u32) -> Outcome {
        apply(content, operator, &mut PerturbRng::new(seed))
    }

    fn redact(content: &str, rate: f64, seed: u32) -> String {
        let rates = RedactionRates {
            date: rate,
            number: rate,
            name: rate,
        };
        text_redaction(content, patterns(), rates, &mut PerturbRng::new(seed))
    }

    const STORY: &str =
        "Intro paragraph here.\n\nSecond one.\n \t\nThird one!\n\n\n\nFourth.\n\nFifth and last.";

    #[test]
    fn short_content_is_skipped_by_all_but_null_content() {
        for content in ["", "   short \n\t ", "\u{1C} nine char \u{2003}\u{1F}"] {
            for op in Operator::TEXT {
                let outcome = run(content, op, 1);
                if op == Operator::NullContent {
                    assert_eq!(outcome, Outcome::Applied(String::new()));
                } else {
                    assert_eq!(
                        outcome,
                        Outcome::Skipped(
                            "Insufficient content (need at least 10 characters)".into()
                        ),
                        "{}",
                        op.name()
                    );
                }
            }
        }
        // Ten characters are enough.
        assert!(matches!(
            run(" 0123456789 ", Operator::OcrNoise, 1),
            Outcome::Applied(_)
        ));
    }

    #[test]
    fn null_content_empties_anything() {
        assert_eq!(applied(run(STORY, Operator::NullContent, 3)), "");
    }

    #[test]
    fn tabular_operators_are_skipped() {
        for op in Operator::TABULAR {
            if op != Operator::NullContent {
                assert!(matches!(run(STORY, op, 1), Outcome::Skipped(_)));
            }
        }
    }

    #[test]
    fn ocr_noise_at_rate_zero_is_the_identity() {
        let text = "rn cl vv ii fi fl lIOoSsBgZzmdwuh,.:; ünïcödé";
        assert_eq!(ocr_noise(text, 0.0, &mut PerturbRng::new(5)), text);
    }

    #[test]
    fn ocr_noise_at_rate_one_replaces_every_rule() {
        let mut rng = PerturbRng::new(5);
        assert_eq!(
            ocr_noise("rn cl vv ii fi fl Oo sB gZz mdwuh ,.:; rrn", 1.0, &mut rng),
            "m d w u fl fi 00 58 922 rnclvviili .,;: rm"
        );
        for seed in 0..20 {
            let out = ocr_noise("lIS", 1.0, &mut PerturbRng::new(seed));
            let chars: Vec<char> = out.chars().collect();
            assert_eq!(chars.len(), 3);
            assert!(['1', '|'].contains(&chars[0]));
            assert!(['1', '|', 'l'].contains(&chars[1]));
            assert!(['5', '$'].contains(&chars[2]));
        }
    }

    #[test]
    fn ocr_noise_sometimes_changes_a_long_text() {
        let text = "The sum of all modules should be checked daily, with logs.\n".repeat(5);
        let outs: Vec<String> = (0..5)
            .map(|seed| applied(run(&text, Operator::OcrNoise, seed)))
            .collect();
        assert!(outs.iter().any(|out| *out != text));
    }

    /// Walks `out` along the numbers of `content`: text between numbers is unchanged and every
    /// number is kept or wrapped once.
    fn assert_numbers_kept_or_wrapped(content: &str, out: &str) -> usize {
        let mut rest = out;
        let mut copied = 0;
        let mut wrapped = 0;
        for found in patterns().number.find_iter(content) {
            let gap = &content[copied..found.start()];
            rest = rest.strip_prefix(gap).unwrap();
            let number = found.as_str();
            let forms = std::iter::once(("", "")).chain(NUMBER_WRAPPERS);
            let (index, (prefix, suffix)) = forms
                .enumerate()
                .filter(|(_, (prefix, suffix))| {
                    rest.starts_with(&format!("{prefix}{number}{suffix}"))
                })
                .max_by_key(|(_, (prefix, suffix))| prefix.len() + suffix.len())
                .unwrap();
            if index > 0 {
                wrapped += 1;
            }
            rest = &rest[prefix.len() + number.len() + suffix.len()..];
            copied = found.end();
        }
        assert_eq!(rest, &content[copied..]);
        wrapped
    }

    #[test]
    fn number_corruption_keeps_or_wraps_each_number() {
        let content = "Paid $1,234.50 for 3 items, 15% off in 2024 and 7.5 more; ref 12345 and $9.";
        let mut wrapped = 0;
        let mut kept_all = false;
        for seed in 0..40 {
            let out = applied(run(content, Operator::NumberCorruption, seed));
            let count = assert_numbers_kept_or_wrapped(content, &out);
            wrapped += count;
            kept_all |= count == 0;
        }
        assert!(wrapped > 0);
        assert!(kept_all || wrapped < 40 * 7);
        // Without numbers nothing changes.
        let plain = "No digits in this sentence at all.";
        assert_eq!(applied(run(plain, Operator::NumberCorruption, 1)), plain);
    }

    #[test]
    fn number_corruption_wraps_every_number_when_nothing_is_kept() {
        // keep_above = 1 keeps nothing: every number is wrapped.
        let content = "a 1 b 22.5% c $3,000";
        let out = number_corruption(content, patterns(), 1.0, &mut PerturbRng::new(9));
        assert_eq!(assert_numbers_kept_or_wrapped(content, &out), 3);
    }

    #[test]
    fn text_redaction_at_rate_one_redacts_everything() {
        let content =
            "Due 12/05/2024, we paid 12,345.67 and 123,456 today. Bob Smith agreed. Carl ran! Dan";
        // `\d{3,}` needs three leading digits, so `12,345.67` keeps its `12,` (as in Python).
        assert_eq!(
            redact(content, 1.0, 3),
            "Due [DATE], we paid 12,[REDACTED] and [REDACTED] today. [NAME] agreed. [NAME] ran! [NAME]"
        );
        assert_eq!(redact(content, 0.0, 3), content);
        assert_eq!(
            redact("On 2024-1-5 and 1/2/99: 1234.5x, 99 and 1000.", 1.0, 1),
            "On [DATE] and [DATE]: [REDACTED].5x, 99 and [REDACTED]."
        );
    }

    #[test]
    fn name_lookbehind_is_emulated() {
        let cases = [
            (
                "Hi. Bob Smith went. Carl ran! Dan",
                "Hi. [NAME] went. [NAME] ran! [NAME]",
            ),
            (
                "Bob starts. Al. Bo? Cy",
                "Bob starts. [NAME]. [NAME]? [NAME]",
            ),
            ("A. B. Cd", "A. B. [NAME]"),
            ("Hi.  Bob", "Hi.  Bob"),
            ("Hi.Bob", "Hi.Bob"),
            ("Hi.\tBob\nSmith Jones", "Hi.\t[NAME] Jones"),
            ("Hi.\u{1C}Bob", "Hi.\u{1C}[NAME]"),
            ("Hi.\u{A0}Bob", "Hi.\u{A0}[NAME]"),
            ("Hi. BOB or Bobby2", "Hi. BOB or Bobby2"),
            ("Hi. Bobby2 x", "Hi. [NAME]2 x"),
            ("Hi; Bob. Émile", "Hi; Bob. Émile"),
            ("Total 123456. Bob", "Total [REDACTED]. [NAME]"),
        ];
        for (content, expected) in cases {
            assert_eq!(redact(content, 1.0, 1), expected, "{content:?}");
            assert_eq!(redact(content, 0.0, 1), content);
        }
    }

    #[test]
    fn word_boundaries_follow_python() {
        // Python counts `²` as a word character and a combining acute accent as none.
        assert_eq!(redact("x²123456 y", 1.0, 1), "x²123456 y");
        assert_eq!(redact("e\u{301}123456 y", 1.0, 1), "e\u{301}[REDACTED] y");
        assert_eq!(redact("a 123456\u{301}", 1.0, 1), "a [REDACTED]\u{301}");
        assert_eq!(redact("a 12/05/2024½", 1.0, 1), "a 12/05/2024½");
        for (word, len) in [
            (true, 2),
            (true, 3),
            (true, 4),
            (false, 2),
            (false, 3),
            (false, 4),
        ] {
            let c = word_stand_in(word, len);
            assert_eq!(c.len_utf8(), len);
            assert_eq!(char_matches(&patterns().rust_word, c), word);
            assert!(!c.is_numeric());
        }
    }

    #[test]
    fn paragraph_shuffle_keeps_the_first_and_the_multiset() {
        let expected = [
            "Intro paragraph here.",
            "Second one.",
            "Third one!",
            "Fourth.",
            "Fifth and last.",
        ];
        let mut orders = std::collections::HashSet::new();
        for seed in 0..20 {
            let out = applied(run(STORY, Operator::ParagraphShuffle, seed));
            let got: Vec<&str> = out.split("\n\n").collect();
            assert_eq!(got[0], expected[0]);
            let mut sorted = got.clone();
            sorted.sort_unstable();
            let mut want = expected.to_vec();
            want.sort_unstable();
            assert_eq!(sorted, want);
            orders.insert(out);
        }
        assert!(orders.len() > 1);
        assert_eq!(
            run(
                "One paragraph.\n\n  \n\nTwo paragraphs.",
                Operator::ParagraphShuffle,
                1
            ),
            // Fewer than 3 paragraphs: applied, the content given back byte for byte.
            Outcome::Applied("One paragraph.\n\n  \n\nTwo paragraphs.".into())
        );
    }

    #[test]
    fn paragraphs_split_on_blank_lines_with_python_whitespace() {
        assert_eq!(
            paragraphs(" a \n\n\nb\n \u{1C}\u{3000}\nc\nd\n\n", patterns()),
            ["a", "b", "c\nd"]
        );
    }

    #[test]
    fn encoding_error_rates() {
        let text = "Hello, wörld: 42 ok-ish \"quoted\" ñ 日本 ²";
        let mut rng = PerturbRng::new(2);
        assert_eq!(encoding_error(text, patterns(), 0.0, 0.0, &mut rng), text);
        for seed in 0..10 {
            let mut rng = PerturbRng::new(seed);
            let out = encoding_error(text, patterns(), 1.0, 1.0, &mut rng);
            // Rebuild: every eligible character became one of the debris strings.
            let mut rest = out.as_str();
            for c in text.chars() {
                if ENCODING_FRAGILE.contains(c) || is_py_alpha(c, patterns()) {
                    let debris = ENCODING_DEBRIS
                        .iter()
                        .filter(|debris| rest.starts_with(*debris))
                        .max_by_key(|debris| debris.len())
                        .unwrap();
                    rest = &rest[debris.len()..];
                } else {
                    rest = rest.strip_prefix(c).unwrap();
                }
            }
            assert_eq!(rest, "");
            assert!(out.contains(" 42 ") && out.ends_with(" ²"));
        }
    }

    #[test]
    fn python_isalpha_is_the_letter_category() {
        let p = patterns();
        assert!(is_py_alpha('a', p) && is_py_alpha('ñ', p) && is_py_alpha('日', p));
        // Roman numeral twelve (Nl), a circled letter (So) and a combining mark are alphabetic
        // for Rust but not letters for Python.
        for c in ['Ⅻ', 'Ⓐ', '\u{345}', '1', '_', ' '] {
            assert!(!is_py_alpha(c, p), "{c:?}");
        }
    }

    #[test]
    fn section_removal_drops_one_or_two_middle_paragraphs() {
        let all = paragraphs(STORY, patterns());
        assert_eq!(all.len(), 5);
        let mut counts = std::collections::HashSet::new();
        for seed in 0..30 {
            let out = applied(run(STORY, Operator::SectionRemoval, seed));
            let got: Vec<&str> = out.split("\n\n").collect();
            assert_eq!(got.first(), all.first());
            assert_eq!(got.last(), all.last());
            let removed = all.len() - got.len();
            assert!((1..=2).contains(&removed));
            counts.insert(removed);
            // Order preserved: `got` is a subsequence of `all`.
            let mut remaining = all.iter();
            assert!(got.iter().all(|p| remaining.any(|q| q == p)));
        }
        assert_eq!(counts.len(), 2);
        // With three paragraphs only the middle one can go.
        let three = "First part.\n\nMiddle part.\n\nLast part.";
        for seed in 0..10 {
            assert_eq!(
                applied(run(three, Operator::SectionRemoval, seed)),
                "First part.\n\nLast part."
            );
        }
        assert_eq!(
            run(" Only one paragraph here.\n", Operator::SectionRemoval, 1),
            Outcome::Applied(" Only one paragraph here.\n".into())
        );
    }

    proptest! {
        #[test]
        fn never_panics_and_is_deterministic(content in any::<String>(), seed in any::<u32>()) {
            for op in Operator::TEXT.iter().chain(Operator::TABULAR.iter()) {
                prop_assert_eq!(run(&content, *op, seed), run(&content, *op, seed));
            }
        }

        #[test]
        fn deterministic_on_text_like_input(
            content in "([A-Za-z0-9 .,!?;:$%/\\-'\"\n\t\u{1C}\u{A0}²é\u{301}]|rn|cl|\n\n){0,120}",
            seed in any::<u32>(),
        ) {
            for op in Operator::TEXT {
                let first = run(&content, op, seed);
                prop_assert_eq!(&first, &run(&content, op, seed));
                if op == Operator::OcrNoise || op == Operator::NumberCorruption {
                    if let Outcome::Applied(out) = first {
                        // Both only ever add or swap characters locally; never empty a text.
                        prop_assert!(!out.is_empty());
                    }
                }
            }
        }
    }
}
