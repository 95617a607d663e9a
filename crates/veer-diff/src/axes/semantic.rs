//! `semantic`: lexical TF-IDF cosine between the paired response texts (continuous; spec
//! `diff.md` §5.1). Sums run in ascending token byte order, so values are deterministic.

use super::{Axis, AxisStat, Kind, Pending, Row, TurnPair};
use crate::stats::{median, Statistic};
use std::collections::BTreeMap;

/// Tokens of `text`: NFC, per-character Unicode lowercase, split on every character that is
/// not alphanumeric, empty tokens dropped.
pub fn tokenize(text: &str) -> Vec<String> {
    let normalized = veer_trace::canonical::nfc(text);
    let mut out = Vec::new();
    let mut cur = String::new();
    for ch in normalized.chars() {
        for lc in ch.to_lowercase() {
            if lc.is_alphanumeric() {
                cur.push(lc);
            } else if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Term counts of one document, keyed (and so ordered) by token bytes.
fn term_counts(tokens: Vec<String>) -> BTreeMap<String, usize> {
    let mut m = BTreeMap::new();
    for t in tokens {
        *m.entry(t).or_insert(0) += 1;
    }
    m
}

/// Per-pair TF-IDF cosine similarities in [0, 1], in pair order. The corpus is every baseline
/// text followed by every candidate text.
pub fn similarities(pairs: &[TurnPair<'_>]) -> Vec<f64> {
    let docs_b: Vec<BTreeMap<String, usize>> = pairs
        .iter()
        .map(|(b, _)| term_counts(tokenize(&b.features.text)))
        .collect();
    let docs_c: Vec<BTreeMap<String, usize>> = pairs
        .iter()
        .map(|(_, c)| term_counts(tokenize(&c.features.text)))
        .collect();
    let mut df: BTreeMap<&str, usize> = BTreeMap::new();
    for d in docs_b.iter().chain(docs_c.iter()) {
        for t in d.keys() {
            *df.entry(t.as_str()).or_insert(0) += 1;
        }
    }
    let n_docs = (docs_b.len() + docs_c.len()) as f64;
    let weights = |d: &BTreeMap<String, usize>| -> Vec<(String, f64)> {
        d.iter()
            .map(|(t, &tf)| {
                let dft = df.get(t.as_str()).copied().unwrap_or(0) as f64;
                let idf = ((n_docs + 1.0) / (dft + 1.0)).ln() + 1.0;
                (t.clone(), (1.0 + (tf as f64).ln()) * idf)
            })
            .collect()
    };
    docs_b
        .iter()
        .zip(docs_c.iter())
        .map(|(db, dc)| {
            // Identical documents are exactly similar; the rounded formula can miss 1.0 by
            // an ulp, and a trace diffed against itself must show a delta of exactly 0.
            if db == dc {
                1.0
            } else {
                cosine(&weights(db), &weights(dc))
            }
        })
        .collect()
}

/// Cosine of two sparse vectors sorted by token bytes, clamped to [0, 1]; both ~zero → 1,
/// one ~zero → 0.
fn cosine(a: &[(String, f64)], b: &[(String, f64)]) -> f64 {
    let norm = |v: &[(String, f64)]| {
        let mut s = 0.0;
        for (_, w) in v {
            s += w * w;
        }
        s.sqrt()
    };
    let (na, nb) = (norm(a), norm(b));
    if na < 1e-12 || nb < 1e-12 {
        return if na < 1e-12 && nb < 1e-12 { 1.0 } else { 0.0 };
    }
    let mut dot = 0.0;
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].0.as_bytes().cmp(b[j].0.as_bytes()) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                dot += a[i].1 * b[j].1;
                i += 1;
                j += 1;
            }
        }
    }
    (dot / (na * nb)).clamp(0.0, 1.0)
}

/// The semantic row: baseline 1.0, candidate the median similarity; the empty row when there
/// is no pair.
pub fn row(pairs: &[TurnPair<'_>], seed: u64) -> AxisStat {
    prepare(pairs).finish_alone(seed)
}

/// The row before its interval (see [`super::compute_axes`]).
pub(crate) fn prepare(pairs: &[TurnPair<'_>]) -> Row {
    if pairs.is_empty() {
        return Row::Done(AxisStat::empty(Axis::Semantic));
    }
    let s = similarities(pairs);
    let cm = median(&s);
    Row::Pending(Pending {
        axis: Axis::Semantic,
        baseline_median: 1.0,
        candidate_median: cm,
        delta: cm - 1.0,
        kind: Kind::Continuous,
        b: vec![1.0; s.len()],
        c: s,
        statistic: Statistic::MedianDifference,
        extra_flags: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokenizer_vector() {
        assert_eq!(
            tokenize("Hello, world!  It's nice"),
            vec!["hello", "world", "it", "s", "nice"]
        );
        assert!(tokenize("  ,, ").is_empty());
    }

    #[test]
    fn cosine_edges() {
        assert_eq!(cosine(&[], &[]), 1.0);
        assert_eq!(cosine(&[("a".into(), 1.0)], &[]), 0.0);
        assert!((cosine(&[("a".into(), 2.0)], &[("a".into(), 3.0)]) - 1.0).abs() < 1e-15);
    }
}
