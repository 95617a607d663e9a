//! `semantic`: lexical TF-IDF cosine between the paired response texts (continuous; spec
//! `diff.md` §5.1). Sums run in ascending token byte order, so values are deterministic.

use super::{Axis, AxisStat, Kind, Pending, Row, TurnPair};
use crate::stats::{median, Statistic};
use rayon::prelude::*;
use std::collections::HashMap;
use veer_contract::axis::FILLER_WORDS;

#[cfg(test)]
/// Tokens of `text`: NFC, per-character Unicode lowercase, split on every character that is
/// not alphanumeric, empty tokens dropped.
pub fn tokenize(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    each_token(text, &mut String::new(), |t| out.push(t.to_string()));
    out
}

/// Calls `f` with each token of `text` in order (as [`tokenize`] gives them), built in `cur`
/// so that no token is allocated. ASCII text (NFC already; lowercase and alphanumeric are the
/// ASCII ones) takes a byte loop.
fn each_token(text: &str, cur: &mut String, mut f: impl FnMut(&str)) {
    cur.clear();
    if text.is_ascii() {
        for &b in text.as_bytes() {
            if b.is_ascii_alphanumeric() {
                cur.push(char::from(b.to_ascii_lowercase()));
            } else if !cur.is_empty() {
                f(cur);
                cur.clear();
            }
        }
    } else {
        let normalized = veer_trace::canonical::nfc(text);
        for ch in normalized.chars() {
            for lc in ch.to_lowercase() {
                if lc.is_alphanumeric() {
                    cur.push(lc);
                } else if !cur.is_empty() {
                    f(cur);
                    cur.clear();
                }
            }
        }
    }
    if !cur.is_empty() {
        f(cur);
    }
}

/// One document: (token rank, count) pairs in ascending rank. Ranks number the corpus
/// vocabulary in token byte order, so ascending rank is ascending token bytes.
type Doc = Vec<(u32, u32)>;

/// One chunk of the corpus, tokenized: its distinct tokens (local id = place) and its
/// documents as (local id, count) pairs in ascending id.
struct Chunk {
    tokens: Vec<String>,
    docs: Vec<(Doc, Doc)>,
}

impl Chunk {
    fn new(pairs: &[(&str, &str)]) -> Chunk {
        let mut ids: HashMap<String, u32> = HashMap::new();
        let mut tokens: Vec<String> = Vec::new();
        let mut cur = String::new();
        let mut seen: Vec<u32> = Vec::new();
        let mut doc = |text: &str| -> Doc {
            seen.clear();
            each_token(text, &mut cur, |t| {
                let id = match ids.get(t) {
                    Some(&id) => id,
                    None => {
                        let id = tokens.len() as u32;
                        ids.insert(t.to_string(), id);
                        tokens.push(t.to_string());
                        id
                    }
                };
                seen.push(id);
            });
            seen.sort_unstable();
            let mut d: Doc = Vec::new();
            for &r in seen.iter() {
                match d.last_mut() {
                    Some((last, n)) if *last == r => *n += 1,
                    _ => d.push((r, 1)),
                }
            }
            d
        };
        let docs = pairs.iter().map(|(b, c)| (doc(b), doc(c))).collect();
        Chunk { tokens, docs }
    }
}

/// Pairs per task when the corpus is tokenized in parallel.
const CHUNK: usize = 512;

/// Per-pair TF-IDF cosine similarities in [0, 1], in pair order. The corpus is every baseline
/// text followed by every candidate text.
pub(crate) fn similarities(pairs: &[TurnPair<'_>]) -> Vec<f64> {
    let texts: Vec<(&str, &str)> = pairs
        .iter()
        .map(|(b, c)| (&*b.features.text, &*c.features.text))
        .collect();
    similarities_of(&texts)
}

/// [`similarities`] of (baseline text, candidate text) pairs.
///
/// Tokens are numbered once, in byte order, so each document is a short sorted list of
/// (rank, count) instead of a map of strings. Documents are tokenized once, in parallel chunks
/// that number their tokens locally; the local numbers are then mapped to ranks (one lookup
/// per distinct token of a chunk, not per occurrence). Every sum still runs in ascending token byte
/// order, so the values are the same doubles as term-by-term string maps give, on any number of
/// threads.
pub(crate) fn similarities_of(texts: &[(&str, &str)]) -> Vec<f64> {
    // Each chunk tokenizes its texts once, numbering tokens locally (first seen, first
    // numbered) and keeping each document as sorted (local id, count) pairs.
    let chunks: Vec<Chunk> = texts.par_chunks(CHUNK).map(Chunk::new).collect();
    // The vocabulary, sorted by bytes; a token's rank is its place in it.
    let mut vocab: Vec<&str> = chunks
        .iter()
        .flat_map(|c| c.tokens.iter().map(String::as_str))
        .collect();
    vocab.par_sort_unstable();
    vocab.dedup();
    let rank: HashMap<&str, u32> = vocab
        .iter()
        .enumerate()
        .map(|(i, t)| (*t, i as u32))
        .collect();
    let docs: Vec<(Doc, Doc)> = chunks
        .par_iter()
        .flat_map_iter(|chunk| {
            let to_rank: Vec<u32> = chunk
                .tokens
                .iter()
                .map(|t| rank.get(t.as_str()).copied().unwrap_or(0))
                .collect();
            let ranked = move |d: &Doc| -> Doc {
                let mut r: Doc = d.iter().map(|&(id, n)| (to_rank[id as usize], n)).collect();
                r.sort_unstable();
                r
            };
            chunk
                .docs
                .iter()
                .map(|(b, c)| (ranked(b), ranked(c)))
                .collect::<Vec<_>>()
        })
        .collect();
    let mut df = vec![0u32; vocab.len()];
    for (db, dc) in &docs {
        for &(r, _) in db.iter().chain(dc.iter()) {
            df[r as usize] += 1;
        }
    }
    let n_docs = (2 * docs.len()) as f64;
    let weights = |d: &Doc| -> Vec<(u32, f64)> {
        d.iter()
            .map(|&(r, tf)| {
                let dft = f64::from(df[r as usize]);
                let idf = ((n_docs + 1.0) / (dft + 1.0)).ln() + 1.0;
                (r, (1.0 + f64::from(tf).ln()) * idf)
            })
            .collect()
    };
    docs.par_iter()
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

/// Cosine of two sparse vectors sorted by token rank, clamped to [0, 1]; both ~zero → 1,
/// one ~zero → 0.
fn cosine(a: &[(u32, f64)], b: &[(u32, f64)]) -> f64 {
    let norm = |v: &[(u32, f64)]| {
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
        match a[i].0.cmp(&b[j].0) {
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
        idx: Vec::new(),
        filler: pairs.iter().map(|(b, c)| is_filler(b, c)).collect(),
    })
}

/// Whether a pair's wording is filler next to a tool call: a side calls a tool and both texts
/// have at most [`FILLER_WORDS`] words ("Checking the order now." against an empty reply).
fn is_filler(b: &crate::turn::DiffTurn<'_>, c: &crate::turn::DiffTurn<'_>) -> bool {
    let short = |t: &str| t.split_whitespace().nth(FILLER_WORDS).is_none();
    (b.features.tool_count > 0 || c.features.tool_count > 0)
        && short(&b.features.text)
        && short(&c.features.text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{build, GenTurn};

    fn turn(tools: Vec<(u8, u8, u8)>, words: Vec<u8>) -> GenTurn {
        GenTurn {
            tools,
            words,
            stop: 0,
            output_tokens: 10,
            latency: 100,
            new_session: false,
        }
    }

    fn semantic(b: &[GenTurn], c: &[GenTurn]) -> AxisStat {
        let r = crate::diff(
            &build(b),
            &build(c),
            "b",
            "c",
            &crate::BehaviourOptions::default(),
        );
        r.axes
            .into_iter()
            .find(|a| a.axis == Axis::Semantic)
            .unwrap()
    }

    #[test]
    fn wording_beside_a_tool_call_is_counted_as_filler() {
        // "the refund was" beside a lookup, against no text beside the same lookup.
        let base = [
            turn(vec![(2, 0, 1)], vec![0, 1, 2]),
            turn(vec![], vec![0, 1, 2, 3]),
        ];
        let filler = [
            turn(vec![(2, 0, 1)], vec![]),
            turn(vec![], vec![0, 1, 2, 3]),
        ];
        let row = semantic(&base, &filler);
        assert_eq!((row.changed_pairs, row.filler_pairs), (1, 1), "{row:?}");
        // The answer itself changes too: that pair is not filler.
        let answer = [
            turn(vec![(2, 0, 1)], vec![]),
            turn(vec![], vec![4, 5, 6, 7]),
        ];
        let row = semantic(&base, &answer);
        assert_eq!((row.changed_pairs, row.filler_pairs), (2, 1), "{row:?}");
        // A long text beside a call is not filler.
        let long: Vec<u8> = (0..14).map(|i| (i % 4) as u8).collect();
        let base = [turn(vec![(2, 0, 1)], long), turn(vec![], vec![0, 1, 2, 3])];
        let row = semantic(&base, &filler);
        assert_eq!((row.changed_pairs, row.filler_pairs), (1, 0), "{row:?}");
    }

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
        assert_eq!(cosine(&[(0, 1.0)], &[]), 0.0);
        assert!((cosine(&[(0, 2.0)], &[(0, 3.0)]) - 1.0).abs() < 1e-15);
    }

    /// The definition, term by term over string maps in token byte order (the implementation
    /// before tokens were ranked): the reference the fast path must equal to the bit.
    fn reference(texts: &[(&str, &str)]) -> Vec<f64> {
        use std::collections::BTreeMap;
        let counts = |t: &str| {
            let mut m: BTreeMap<String, usize> = BTreeMap::new();
            for tok in tokenize(t) {
                *m.entry(tok).or_insert(0) += 1;
            }
            m
        };
        let docs_b: Vec<_> = texts.iter().map(|(b, _)| counts(b)).collect();
        let docs_c: Vec<_> = texts.iter().map(|(_, c)| counts(c)).collect();
        let mut df: BTreeMap<&str, usize> = BTreeMap::new();
        for d in docs_b.iter().chain(docs_c.iter()) {
            for t in d.keys() {
                *df.entry(t.as_str()).or_insert(0) += 1;
            }
        }
        let n_docs = (docs_b.len() + docs_c.len()) as f64;
        let weights = |d: &BTreeMap<String, usize>| -> Vec<f64> {
            d.iter()
                .map(|(t, &tf)| {
                    let dft = df[t.as_str()] as f64;
                    (1.0 + (tf as f64).ln()) * (((n_docs + 1.0) / (dft + 1.0)).ln() + 1.0)
                })
                .collect()
        };
        docs_b
            .iter()
            .zip(docs_c.iter())
            .map(|(db, dc)| {
                if db == dc {
                    return 1.0;
                }
                let (wb, wc) = (weights(db), weights(dc));
                let norm = |v: &[f64]| v.iter().fold(0.0, |s, w| s + w * w).sqrt();
                let (na, nb) = (norm(&wb), norm(&wc));
                if na < 1e-12 || nb < 1e-12 {
                    return if na < 1e-12 && nb < 1e-12 { 1.0 } else { 0.0 };
                }
                let (kb, kc): (Vec<&String>, Vec<&String>) =
                    (db.keys().collect(), dc.keys().collect());
                let (mut i, mut j, mut dot) = (0, 0, 0.0);
                while i < kb.len() && j < kc.len() {
                    match kb[i].as_bytes().cmp(kc[j].as_bytes()) {
                        std::cmp::Ordering::Less => i += 1,
                        std::cmp::Ordering::Greater => j += 1,
                        std::cmp::Ordering::Equal => {
                            dot += wb[i] * wc[j];
                            i += 1;
                            j += 1;
                        }
                    }
                }
                (dot / (na * nb)).clamp(0.0, 1.0)
            })
            .collect()
    }

    #[test]
    fn hand_computed_pair() {
        // Two documents "a b" and "a c": df(a) = 2, df(b) = df(c) = 1, N = 2;
        // idf(a) = ln(3/3) + 1 = 1, idf(b) = idf(c) = ln(3/2) + 1; cosine = 1 / (1 + idf(b)^2).
        let idf = (1.5f64).ln() + 1.0;
        let expected = 1.0 / (1.0 + idf * idf);
        let got = similarities_of(&[("a b", "a c")]);
        assert!((got[0] - expected).abs() < 1e-15, "{got:?} vs {expected}");
        assert_eq!(similarities_of(&[("Same text.", "same TEXT")]), [1.0]);
        assert_eq!(similarities_of(&[("", "")]), [1.0]);
        assert_eq!(similarities_of(&[("words", "")]), [0.0]);
        assert!(similarities_of(&[]).is_empty());
    }

    #[test]
    fn many_chunks_give_the_reference_doubles() {
        // More pairs than one tokenizing task takes, with a vocabulary spread over them.
        let words = [
            "refund", "Order", "was", "issued", "sorry", "ID", "42", "déjà", "vu",
        ];
        let text = |i: usize, salt: usize| -> String {
            (0..(i % 7) + 1)
                .map(|k| words[(i * 31 + k * 17 + salt) % words.len()])
                .chain(std::iter::once(if i.is_multiple_of(5) {
                    "rare"
                } else {
                    ""
                }))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let owned: Vec<(String, String)> = (0..3 * CHUNK + 17)
            .map(|i| (text(i, 0), text(i, i % 3)))
            .collect();
        let pairs: Vec<(&str, &str)> = owned
            .iter()
            .map(|(b, c)| (b.as_str(), c.as_str()))
            .collect();
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&similarities_of(&pairs)), bits(&reference(&pairs)));
    }

    proptest::proptest! {
        #[test]
        fn ranked_tokens_give_the_reference_doubles(
            texts in proptest::collection::vec(
                ("[a-dA-D \\.é1ß]{0,24}", "[a-dA-D \\.é1ß]{0,24}"),
                0..40,
            ),
            threads in 1usize..4,
        ) {
            let pairs: Vec<(&str, &str)> =
                texts.iter().map(|(b, c)| (b.as_str(), c.as_str())).collect();
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let fast = pool.install(|| similarities_of(&pairs));
            let slow = reference(&pairs);
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            proptest::prop_assert_eq!(bits(&fast), bits(&slow));
        }
    }
}
