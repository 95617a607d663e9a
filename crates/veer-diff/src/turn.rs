//! What the diff needs from one response, computed once per turn before any measure runs:
//! the shared [`TurnFeatures`] of `veer-trace` plus the few values only the diff reads (the
//! `"\n"`-joined text for drill-down, the ordered shape sequence, cost
//! inputs, thinking parts, the first object-input key set).

use veer_trace::features::{shape_string, turn_features, TurnFeatures};
use veer_trace::views::Response;
use veer_trace::Json;
use veer_trace::Trace;

/// Token counts and flags the cost axis reads from one response.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CostInputs {
    /// `model`, when a string.
    pub model: Option<String>,
    /// `usage.input_tokens`, when a number.
    pub input_tokens: Option<f64>,
    /// `usage.output_tokens`, when a number.
    pub output_tokens: Option<f64>,
    /// `usage.cached_input_tokens` (0 when missing).
    pub cached_input_tokens: f64,
    /// `usage.cached_write_5m_tokens` (0 when missing).
    pub cached_write_5m_tokens: f64,
    /// `usage.cached_write_1h_tokens` (0 when missing).
    pub cached_write_1h_tokens: f64,
    /// `usage.thinking_tokens` (0 when missing).
    pub thinking_tokens: f64,
    /// Payload `batch == true`.
    pub batch: bool,
}

/// One response as the diff sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffTurn {
    /// The shared per-turn features (tokens, shapes, inputs, text, shingles, stop, usage).
    pub features: TurnFeatures,
    /// Text parts joined with `"\n"` (drill-down), when that differs from `features.text`
    /// (more than one part); read it with [`DiffTurn::text_nl`].
    pub text_nl_if_other: Option<String>,
    /// `name(k1,k2)` per tool-use block, in content order (drill-down trajectory).
    pub shape_sequence: Vec<String>,
    /// Sorted top-level keys of the first tool-use block whose input is an object
    /// (conformance tool intent).
    pub first_object_keys: Option<Vec<String>>,
    /// Number of content parts with `type == "thinking"`.
    pub thinking_parts: usize,
    /// Cost inputs.
    pub cost: CostInputs,
    /// The text's shingles as ids into the pair's shared dictionary (see
    /// [`diff_turn_pair`]), ascending; empty until the pair is compacted. Once filled,
    /// `features.shingles` is emptied: 4 bytes per distinct 4-gram instead of 8.
    pub shingle_ids: Box<[u32]>,
}

impl DiffTurn {
    /// Builds the diff's view of one response.
    pub fn from_response(r: &Response<'_>) -> DiffTurn {
        let features = turn_features(r);
        let text_nl = r.text("\n");
        let text_nl_if_other = (text_nl != features.text).then_some(text_nl);
        let mut shape_sequence = Vec::new();
        let mut first_object_keys = None;
        for b in r.tool_uses() {
            shape_sequence.push(shape_string(b.name.unwrap_or("_"), b.input));
            if first_object_keys.is_none() {
                if let Some(Json::Object(m)) = b.input {
                    let mut keys: Vec<String> = m.keys().map(str::to_string).collect();
                    keys.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
                    keys.dedup();
                    first_object_keys = Some(keys);
                }
            }
        }
        let thinking_parts = match r.record.field("content") {
            Some(Json::Array(parts)) => parts
                .iter()
                .filter(|p| p.get("type").and_then(Json::as_str) == Some("thinking"))
                .count(),
            _ => 0,
        };
        let count = |key: &str| r.usage(key).filter(|v| v.is_finite()).unwrap_or(0.0);
        let cost = CostInputs {
            model: r.model().map(str::to_string),
            input_tokens: r.usage("input_tokens"),
            output_tokens: r.usage("output_tokens"),
            cached_input_tokens: count("cached_input_tokens"),
            cached_write_5m_tokens: count("cached_write_5m_tokens"),
            cached_write_1h_tokens: count("cached_write_1h_tokens"),
            thinking_tokens: count("thinking_tokens"),
            batch: r.record.field("batch") == Some(&Json::Bool(true)),
        };
        DiffTurn {
            features,
            text_nl_if_other,
            shape_sequence,
            first_object_keys,
            thinking_parts,
            cost,
            shingle_ids: Box::default(),
        }
    }
}

impl DiffTurn {
    /// Text parts joined with `"\n"` (drill-down).
    pub fn text_nl(&self) -> &str {
        self.text_nl_if_other
            .as_deref()
            .unwrap_or(&self.features.text)
    }
}

/// The diff's view of every response of a trace, in turn order, with its shingles still as
/// 64-bit hashes (`shingle_ids` empty): only for checking [`diff_turn_pair`] against; the
/// measures read ids, so a diff always builds its turns with [`diff_turn_pair`].
#[cfg(test)]
fn diff_turns(trace: &Trace) -> Vec<DiffTurn> {
    trace
        .responses()
        .iter()
        .map(DiffTurn::from_response)
        .collect()
}

/// The diff's view of both traces, with every turn's shingles as 32-bit ids into one
/// dictionary shared by the pair (see [`SideIds`]). Each side is built in turn order and its
/// hashes replaced as each turn is built, so the 64-bit hashes of a whole trace are never
/// held at once.
pub fn diff_turn_pair(baseline: &Trace, candidate: &Trace) -> (Vec<DiffTurn>, Vec<DiffTurn>) {
    let side = |t: &Trace| {
        let mut ids = SideIds::default();
        let turns: Vec<DiffTurn> = t
            .responses()
            .iter()
            .map(|r| ids.compact(DiffTurn::from_response(r)))
            .collect();
        (turns, ids)
    };
    let ((b, b_ids), (c, c_ids)) = rayon::join(|| side(baseline), || side(candidate));
    (b, join_sides(&b_ids, c_ids, c))
}

/// One side's shingle dictionary: each distinct 64-bit hash gets the next id in order of
/// first appearance (turn order, then ascending hash within a turn), so ids depend only on
/// the trace, never on the thread count. Ids are a bijection on the hashes: every
/// intersection of two turns' id sets, hence every Jaccard index, is exactly the one of
/// their hashes. Halves the largest per-turn allocation of a long diff (4 bytes per distinct
/// 4-gram instead of 8).
#[derive(Default)]
pub struct SideIds {
    /// Hash → id.
    ids: std::collections::HashMap<u64, u32, crate::align::cost::ShingleHash>,
    /// Id → hash.
    hashes: Vec<u64>,
}

impl SideIds {
    /// Replaces `turn`'s shingle hashes (emptied) by ascending ids.
    pub fn compact(&mut self, mut turn: DiffTurn) -> DiffTurn {
        let hashes = std::mem::take(&mut turn.features.shingles);
        let mut ids: Vec<u32> = hashes
            .iter()
            .map(|&h| {
                let next = self.hashes.len() as u32;
                *self.ids.entry(h).or_insert_with(|| {
                    self.hashes.push(h);
                    next
                })
            })
            .collect();
        ids.sort_unstable();
        turn.shingle_ids = ids.into_boxed_slice();
        turn
    }
}

/// Moves the candidate side's ids into the baseline's dictionary: a hash both sides hold
/// gets the baseline's id, the others new ids after the baseline's (in candidate id order).
pub fn join_sides(
    baseline: &SideIds,
    candidate: SideIds,
    mut turns: Vec<DiffTurn>,
) -> Vec<DiffTurn> {
    use rayon::prelude::*;
    let mut next = baseline.hashes.len() as u32;
    let remap: Vec<u32> = candidate
        .hashes
        .iter()
        .map(|h| {
            baseline.ids.get(h).copied().unwrap_or_else(|| {
                next += 1;
                next - 1
            })
        })
        .collect();
    drop(candidate);
    turns.par_iter_mut().for_each(|t| {
        for id in t.shingle_ids.iter_mut() {
            *id = remap[*id as usize];
        }
        t.shingle_ids.sort_unstable();
    });
    turns
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{build, gen_trace};
    use proptest::prelude::*;

    fn intersection<T: Ord>(a: &[T], b: &[T]) -> usize {
        a.iter().filter(|x| b.binary_search(x).is_ok()).count()
    }

    /// Turns carrying the given hash sets as their shingles (the rest of each turn is fixed).
    fn with_hashes(sets: &[Vec<u64>]) -> Vec<DiffTurn> {
        let template = diff_turns(&build(&[crate::testing::GenTurn {
            tools: Vec::new(),
            words: vec![1, 2],
            stop: 0,
            output_tokens: 1,
            latency: 1,
            new_session: false,
        }]))
        .remove(0);
        sets.iter()
            .map(|s| {
                let mut t = template.clone();
                let mut s = s.clone();
                s.sort_unstable();
                s.dedup();
                t.features.shingles = s;
                t
            })
            .collect()
    }

    /// Checks ids against the hashes they replace, for every pair of turns of either side.
    fn assert_same_sets(before: &[&DiffTurn], after: &[&DiffTurn]) -> Result<(), TestCaseError> {
        for (x, y) in before.iter().zip(after) {
            prop_assert!(y.features.shingles.is_empty(), "hashes dropped");
            prop_assert_eq!(x.features.shingles.len(), y.shingle_ids.len());
            prop_assert!(y.shingle_ids.windows(2).all(|w| w[0] < w[1]), "ascending");
        }
        for (bx, ax) in before.iter().zip(after) {
            for (by, ay) in before.iter().zip(after) {
                prop_assert_eq!(
                    intersection(&bx.features.shingles, &by.features.shingles),
                    intersection(&ax.shingle_ids, &ay.shingle_ids)
                );
            }
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// On generated traces, every intersection of ids (within a side and across the two)
        /// equals the intersection of the hashes, and ids keep each turn's set ascending.
        #[test]
        fn compacted_ids_keep_every_intersection(b in gen_trace(16), c in gen_trace(16)) {
            let (tb, tc) = (build(&b), build(&c));
            let (hb, hc) = (diff_turns(&tb), diff_turns(&tc));
            let (ib, ic) = diff_turn_pair(&tb, &tc);
            let before: Vec<&DiffTurn> = hb.iter().chain(&hc).collect();
            let after: Vec<&DiffTurn> = ib.iter().chain(&ic).collect();
            assert_same_sets(&before, &after)?;
        }

        /// Arbitrary 64-bit hashes, including ones equal in their low 32 bits: ids are a
        /// bijection, never a truncation.
        #[test]
        fn ids_are_exact_on_arbitrary_hashes(
            low in proptest::collection::vec(proptest::collection::vec(0u64..40, 0..12), 1..8),
            high in proptest::collection::vec(proptest::collection::vec(0u64..40, 0..12), 1..8),
        ) {
            // Baseline hashes and candidate hashes that collide with them modulo 2^32.
            let lift = |v: &Vec<Vec<u64>>, k: u64| -> Vec<Vec<u64>> {
                v.iter().map(|s| s.iter().map(|x| x | (k << 32) | (x << 40)).collect()).collect()
            };
            let (sb, sc) = (lift(&low, 0), lift(&high, 1));
            let (hb, hc) = (with_hashes(&sb), with_hashes(&sc));
            let (mut xb, mut xc) = (SideIds::default(), SideIds::default());
            let ib: Vec<DiffTurn> = hb.iter().map(|t| xb.compact(t.clone())).collect();
            let ic: Vec<DiffTurn> = hc.iter().map(|t| xc.compact(t.clone())).collect();
            let ic = join_sides(&xb, xc, ic);
            let before: Vec<&DiffTurn> = hb.iter().chain(&hc).collect();
            let after: Vec<&DiffTurn> = ib.iter().chain(&ic).collect();
            assert_same_sets(&before, &after)?;
        }
    }
}
