//! Word-level diff of two texts for the HTML drill-down: the longest common subsequence of
//! words (each with the whitespace after it), shared prefix and suffix trimmed first, adjacent
//! words of one kind merged into spans.

use veer_contract::lanes::{WordChange, WordSpan};

/// Word diffs whose LCS table would exceed this many cells show both texts as replaced.
pub(crate) const WORD_DIFF_CELLS: usize = 1 << 20;

/// Words with the whitespace that follows them.
fn words(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_space = false;
    for (i, ch) in s.char_indices() {
        let space = ch.is_whitespace();
        if !space && in_space {
            out.push(&s[start..i]);
            start = i;
        }
        in_space = space;
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

fn push(out: &mut Vec<WordSpan>, change: WordChange, text: &str) {
    match out.last_mut() {
        Some(last) if last.change == change => last.text.push_str(text),
        _ => out.push(WordSpan {
            change,
            text: text.to_string(),
        }),
    }
}

/// Word-level diff of two texts: a longest common subsequence of words (whitespace
/// included), adjacent words of one kind merged. Over [`WORD_DIFF_CELLS`] the whole baseline
/// text is removed and the whole candidate text added.
pub(crate) fn word_diff(a: &str, b: &str) -> Vec<WordSpan> {
    let (wa, wb) = (words(a), words(b));
    let mut out = Vec::new();
    // Common prefix and suffix need no table.
    let prefix = wa.iter().zip(&wb).take_while(|(x, y)| x == y).count();
    let suffix = wa[prefix..]
        .iter()
        .rev()
        .zip(wb[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    for w in &wa[..prefix] {
        push(&mut out, WordChange::Same, w);
    }
    let (ma, mb) = (
        &wa[prefix..wa.len() - suffix],
        &wb[prefix..wb.len() - suffix],
    );
    if ma.len().saturating_mul(mb.len()) > WORD_DIFF_CELLS {
        for w in ma {
            push(&mut out, WordChange::Removed, w);
        }
        for w in mb {
            push(&mut out, WordChange::Added, w);
        }
    } else {
        // lcs[i][j] = LCS length of ma[i..] and mb[j..].
        let cols = mb.len() + 1;
        let mut lcs = vec![0u32; (ma.len() + 1) * cols];
        for i in (0..ma.len()).rev() {
            for j in (0..mb.len()).rev() {
                lcs[i * cols + j] = if ma[i] == mb[j] {
                    lcs[(i + 1) * cols + j + 1] + 1
                } else {
                    lcs[(i + 1) * cols + j].max(lcs[i * cols + j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < ma.len() || j < mb.len() {
            if i < ma.len() && j < mb.len() && ma[i] == mb[j] {
                push(&mut out, WordChange::Same, ma[i]);
                i += 1;
                j += 1;
            } else if j < mb.len()
                && (i == ma.len() || lcs[i * cols + j + 1] >= lcs[(i + 1) * cols + j])
            {
                push(&mut out, WordChange::Added, mb[j]);
                j += 1;
            } else {
                push(&mut out, WordChange::Removed, ma[i]);
                i += 1;
            }
        }
    }
    for w in &wa[wa.len() - suffix..] {
        push(&mut out, WordChange::Same, w);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn joined(spans: &[WordSpan], keep: impl Fn(WordChange) -> bool) -> String {
        spans
            .iter()
            .filter(|s| keep(s.change))
            .map(|s| s.text.as_str())
            .collect()
    }

    #[test]
    fn word_diff_marks_the_changed_word() {
        let d = word_diff("refund the full amount now", "refund half the amount now");
        assert_eq!(
            d,
            vec![
                WordSpan {
                    change: WordChange::Same,
                    text: "refund ".into()
                },
                WordSpan {
                    change: WordChange::Added,
                    text: "half ".into()
                },
                WordSpan {
                    change: WordChange::Same,
                    text: "the ".into()
                },
                WordSpan {
                    change: WordChange::Removed,
                    text: "full ".into()
                },
                WordSpan {
                    change: WordChange::Same,
                    text: "amount now".into()
                },
            ]
        );
    }

    #[test]
    fn word_diff_rebuilds_both_texts() {
        for (a, b) in [
            ("", "x y"),
            ("a b c", ""),
            ("a  b\nc", "a b\n\nc d"),
            ("same", "same"),
        ] {
            let d = word_diff(a, b);
            assert_eq!(joined(&d, |c| c != WordChange::Added), a);
            assert_eq!(joined(&d, |c| c != WordChange::Removed), b);
        }
    }
}

#[cfg(test)]
mod proptests {
    use super::*;
    use proptest::prelude::*;

    /// Slow definition: the LCS length of two word lists by the textbook table, no trimming.
    fn lcs_len(a: &[&str], b: &[&str]) -> usize {
        let mut t = vec![vec![0usize; b.len() + 1]; a.len() + 1];
        for i in 0..a.len() {
            for j in 0..b.len() {
                t[i + 1][j + 1] = if a[i] == b[j] {
                    t[i][j] + 1
                } else {
                    t[i][j + 1].max(t[i + 1][j])
                };
            }
        }
        t[a.len()][b.len()]
    }

    fn text() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![
                Just("a"),
                Just("b"),
                Just("c"),
                Just(" "),
                Just("\n"),
                Just("  ")
            ],
            0..30,
        )
        .prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// The fast word diff (shared prefix and suffix trimmed first) keeps as many words as
        /// the full LCS and rebuilds both texts exactly.
        #[test]
        fn word_diff_is_an_optimal_lcs(a in text(), b in text()) {
            let d = word_diff(&a, &b);
            let rebuilt = |skip: WordChange| d.iter().filter(|s| s.change != skip).map(|s| s.text.as_str()).collect::<String>();
            prop_assert_eq!(rebuilt(WordChange::Added), a.clone());
            prop_assert_eq!(rebuilt(WordChange::Removed), b.clone());
            let same: usize = d.iter().filter(|s| s.change == WordChange::Same).map(|s| words(&s.text).len()).sum();
            prop_assert_eq!(same, lcs_len(&words(&a), &words(&b)));
        }
    }
}
