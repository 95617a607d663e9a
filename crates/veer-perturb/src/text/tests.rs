//! Tests of the text operators: hand-computed cases, Python `re` classes bridged, and
//! properties (traxr's own outputs: `tests/traxr_parity.rs`).

use super::*;
use proptest::prelude::*;

fn patterns() -> &'static Patterns {
    PATTERNS.as_ref().unwrap()
}

fn applied(outcome: PerturbOutcome) -> String {
    match outcome {
        PerturbOutcome::Applied(text) => text,
        PerturbOutcome::Skipped(reason) => panic!("skipped: {reason}"),
    }
}

fn run(content: &str, operator: Operator, seed: u32) -> PerturbOutcome {
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
                assert_eq!(outcome, PerturbOutcome::Applied(String::new()));
            } else {
                assert_eq!(
                    outcome,
                    PerturbOutcome::Skipped(
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
        PerturbOutcome::Applied(_)
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
            assert!(matches!(run(STORY, op, 1), PerturbOutcome::Skipped(_)));
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
            .filter(|(_, (prefix, suffix))| rest.starts_with(&format!("{prefix}{number}{suffix}")))
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
        PerturbOutcome::Applied("One paragraph.\n\n  \n\nTwo paragraphs.".into())
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
        PerturbOutcome::Applied(" Only one paragraph here.\n".into())
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
                if let PerturbOutcome::Applied(out) = first {
                    // Both only ever add or swap characters locally; never empty a text.
                    prop_assert!(!out.is_empty());
                }
            }
        }
    }
}
