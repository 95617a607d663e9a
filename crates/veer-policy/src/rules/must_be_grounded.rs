//! `must_be_grounded` (spec §5.11, §6): the response's unigram precision against the retrieved
//! chunks is at least the threshold. Tokens are Unicode-aware (NFC, full lowercase, runs of
//! alphanumerics; Han, Hiragana and Katakana characters one token each; other tokens of at
//! least 2 characters) and counted as a multiset.

use crate::path::Path;
use crate::session::Scene;
use crate::violation::RuleFinding;
use std::collections::HashMap;
use unicode_normalization::UnicodeNormalization;
use veer_trace::Json;

/// Whether a character is written without spaces (Han, Hiragana, Katakana): each one is a
/// token by itself.
fn is_cjk_token_char(c: char) -> bool {
    matches!(c as u32,
        0x2E80..=0x2FDF       // CJK radicals, Kangxi radicals
        | 0x3005 | 0x3007 | 0x3021..=0x3029 | 0x3038..=0x303B
        | 0x3040..=0x309F     // Hiragana
        | 0x30A0..=0x30FF     // Katakana (incl. the prolonged sound mark)
        | 0x31F0..=0x31FF     // Katakana phonetic extensions
        | 0x3400..=0x4DBF     // CJK extension A
        | 0x4E00..=0x9FFF     // CJK unified ideographs
        | 0xF900..=0xFAFF     // CJK compatibility ideographs
        | 0xFF66..=0xFF9F     // halfwidth Katakana
        | 0x1B000..=0x1B16F   // Kana supplement / extended
        | 0x20000..=0x3FFFF) // CJK extensions B and later
}

/// `text` in NFC and full lowercase, the form tokens are taken from. NFC is the identity on
/// ASCII and on text the quick check already finds composed.
fn fold(text: &str) -> String {
    if text.is_ascii() {
        text.to_ascii_lowercase()
    } else if unicode_normalization::is_nfc_quick(text.chars())
        == unicode_normalization::IsNormalized::Yes
    {
        text.to_lowercase()
    } else {
        text.nfc().collect::<String>().to_lowercase()
    }
}

/// Adds the tokens of already folded text to `out`. Every token is a contiguous slice of
/// `folded` (a run of alphanumerics, or one CJK character), so nothing is copied.
fn count_into<'a>(folded: &'a str, out: &mut HashMap<&'a str, usize>) {
    let mut run_start: Option<usize> = None;
    let mut run_chars = 0usize;
    let flush =
        |start: Option<usize>, end: usize, chars: usize, out: &mut HashMap<&'a str, usize>| {
            if let Some(st) = start {
                if chars >= 2 {
                    *out.entry(&folded[st..end]).or_insert(0) += 1;
                }
            }
        };
    for (i, c) in folded.char_indices() {
        if !c.is_alphanumeric() {
            flush(run_start.take(), i, run_chars, out);
            run_chars = 0;
        } else if is_cjk_token_char(c) {
            flush(run_start.take(), i, run_chars, out);
            run_chars = 0;
            *out.entry(&folded[i..i + c.len_utf8()]).or_insert(0) += 1;
        } else {
            run_start.get_or_insert(i);
            run_chars += 1;
        }
    }
    flush(run_start, folded.len(), run_chars, out);
}

/// The token counts of `text`.
pub fn tokens(text: &str) -> HashMap<String, usize> {
    let folded = fold(text);
    let mut out = HashMap::new();
    count_into(&folded, &mut out);
    out.into_iter().map(|(t, n)| (t.to_string(), n)).collect()
}

#[cfg(test)]
/// Clipped unigram precision of `response` against `chunks`.
pub fn precision(response: &str, chunks: &[&str]) -> f64 {
    precision_of(&tokens(response), chunks)
}

/// Clipped unigram precision of a response with token counts `p` against `chunks`.
fn precision_of(p: &HashMap<String, usize>, chunks: &[&str]) -> f64 {
    let total: usize = p.values().sum();
    if total == 0 {
        return 1.0;
    }
    let folded_chunks: Vec<String> = chunks.iter().map(|c| fold(c)).collect();
    let mut k = HashMap::new();
    for c in &folded_chunks {
        count_into(c, &mut k);
    }
    if k.is_empty() {
        return 0.0;
    }
    let hit: usize = p
        .iter()
        .map(|(t, &n)| n.min(k.get(t.as_str()).copied().unwrap_or(0)))
        .sum();
    hit as f64 / total as f64
}

/// Checks one unit.
pub fn check(retrieval_path: &Path, min: f64, s: &Scene<'_, '_>) -> Vec<RuleFinding> {
    let mut out = Vec::new();
    for p in s.gated_pairs() {
        let pair = &s.view.pairs[p];
        let ctx = &pair.context;
        let chunks: Vec<&str> = match retrieval_path.resolve(ctx) {
            Some(Json::String(c)) => vec![&**c],
            Some(Json::Array(items)) => items.iter().filter_map(Json::as_str).collect(),
            _ => continue,
        };
        let chunks: Vec<&str> = chunks
            .into_iter()
            .filter(|c| !c.trim().is_empty())
            .collect();
        if chunks.is_empty() {
            continue;
        }
        let text = ctx.text().trim();
        if text.is_empty() {
            continue;
        }
        let score = precision_of(pair.text_tokens.get_or_init(|| tokens(text)), &chunks);
        if score < min {
            out.push(RuleFinding::at(
                p,
                format!(
                    "response unigram precision {score:.2} < {min:.2} threshold; likely hallucinated past retrieved context"
                ),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_precisions() {
        assert_eq!(precision("the cat sat", &["the cat sat on the mat"]), 1.0);
        assert_eq!(precision("dog ran", &["the cat sat"]), 0.0);
        assert_eq!(precision("a , .", &["anything"]), 1.0);
        assert_eq!(
            precision("refund refund refund refund", &["a refund"]),
            0.25
        );
        assert!(
            precision(
                "the refund window is thirty days from purchase",
                &["Your refund window is thirty days from the date of purchase."]
            ) >= 0.5
        );
    }

    #[test]
    fn unicode_tokens() {
        let t = tokens("Café au lait");
        assert!(t.contains_key("café") && t.contains_key("au") && t.contains_key("lait"));
        let t = tokens("東京タワー");
        for k in ["東", "京", "タ", "ワ", "ー"] {
            assert_eq!(t.get(k), Some(&1), "{k} in {t:?}");
        }
    }

    /// The tokenizer as first written: copy every token, normalise everything.
    fn reference_tokens(text: &str) -> HashMap<String, usize> {
        let lower: String = text.nfc().collect::<String>().to_lowercase();
        let mut out: HashMap<String, usize> = HashMap::new();
        let mut run = String::new();
        let flush = |run: &mut String, out: &mut HashMap<String, usize>| {
            if run.chars().count() >= 2 {
                *out.entry(std::mem::take(run)).or_insert(0) += 1;
            }
            run.clear();
        };
        for c in lower.chars() {
            if !c.is_alphanumeric() {
                flush(&mut run, &mut out);
            } else if is_cjk_token_char(c) {
                flush(&mut run, &mut out);
                *out.entry(c.to_string()).or_insert(0) += 1;
            } else {
                run.push(c);
            }
        }
        flush(&mut run, &mut out);
        out
    }

    proptest::proptest! {
        /// Borrowed tokens and the ASCII / already-composed fast paths give the tokens of the
        /// full copy-everything pipeline.
        #[test]
        fn tokens_match_the_reference(text in "[a-zA-Z0-9 .,\\u{e9}\\u{301}\\u{c5}\\u{212b}\\u{3042}\\u{6771}\\u{1e9e}\\u{130}]{0,40}") {
            proptest::prop_assert_eq!(tokens(&text), reference_tokens(&text));
        }
    }
}
