//! What the diff needs from one response, computed once per turn before any measure runs:
//! the shared [`TurnFeatures`] of `veer-trace` plus the few values only the diff reads (the
//! `"\n"`-joined text for drill-down, the ordered shape sequence, cost inputs, thinking parts,
//! the first object input, the text's shingles as ids). Like the features, a `DiffTurn`
//! borrows from its trace whatever the trace already holds.

use veer_trace::features::{shingles, turn_features, TurnFeatures};
use veer_trace::json::Object;
use veer_trace::views::Response;
use veer_trace::Json;
use veer_trace::Trace;

/// Token counts and flags the cost axis reads from one response (built on demand by
/// [`DiffTurn::cost`] from the features and the few counts only cost reads).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CostInputs<'t> {
    /// `model`, when a string.
    pub model: Option<&'t str>,
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
pub struct DiffTurn<'t> {
    /// The shared per-turn features (tokens, shapes, inputs, text, stop, usage).
    pub features: TurnFeatures<'t>,
    /// Text parts joined with `"\n"` (drill-down), when that differs from `features.text`
    /// (more than one part); read it with `DiffTurn::text_nl`.
    pub text_nl_if_other: Option<Box<str>>,
    /// Per tool-use block in content order, the index of its `name(k1,k2)` shape in
    /// `features.shape`; read the strings with `DiffTurn::shape_sequence`.
    pub shape_order: Box<[u32]>,
    /// The input of the first tool-use block whose input is an object (conformance tool
    /// intent); its sorted keys are `DiffTurn::first_object_keys`.
    pub first_object: Option<&'t Object>,
    /// Number of content parts with `type == "thinking"`.
    pub thinking_parts: usize,
    /// `usage.cached_input_tokens`, `usage.cached_write_5m_tokens`,
    /// `usage.cached_write_1h_tokens` (each 0 when missing or not finite); `None` when all
    /// three are 0 (most responses: kept out of line).
    pub cached_tokens: Option<Box<[f64; 3]>>,
    /// Payload `batch == true`.
    pub batch: bool,
    /// The normalised text's shingles (see [`veer_trace::features::shingles`]) as ids into
    /// the pair's shared dictionary (see [`diff_turn_pair`]), ascending: 4 bytes per distinct
    /// 4-gram instead of an 8-byte hash.
    pub shingle_ids: Box<[u32]>,
}

impl<'t> DiffTurn<'t> {
    /// Builds the diff's view of one response, with its shingle hashes (not yet ids:
    /// `shingle_ids` is empty).
    fn build(r: &Response<'t>) -> (DiffTurn<'t>, Vec<u64>) {
        let features = turn_features(r);
        let hashes = shingles(features.normalized_text());
        // With at most one part both joins are that part; more parts differ by separator.
        let text_nl_if_other = if matches!(features.text, std::borrow::Cow::Borrowed(_)) {
            None
        } else {
            let text_nl = r.text("\n");
            (text_nl != features.text).then(|| text_nl.into_boxed_str())
        };
        let mut shape_order = Vec::new();
        let mut first_object = None;
        for b in r.tool_uses() {
            let s = veer_trace::features::shape_string(b.name.unwrap_or("_"), b.input);
            let k = features
                .shape
                .binary_search_by(|x| x.as_bytes().cmp(s.as_bytes()))
                .unwrap_or_default();
            shape_order.push(k as u32);
            if first_object.is_none() {
                if let Some(Json::Object(m)) = b.input {
                    first_object = Some(m);
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
        let cached = [
            count("cached_input_tokens"),
            count("cached_write_5m_tokens"),
            count("cached_write_1h_tokens"),
        ];
        // `-0.0` is kept too: only exact positive zeros are left out.
        let cached_tokens = (cached.iter().any(|x| x.to_bits() != 0)).then(|| Box::new(cached));
        let turn = DiffTurn {
            features,
            text_nl_if_other,
            shape_order: shape_order.into_boxed_slice(),
            first_object,
            thinking_parts,
            cached_tokens,
            batch: r.record.field("batch") == Some(&Json::Bool(true)),
            shingle_ids: Box::default(),
        };
        (turn, hashes)
    }

    /// What the cost axis reads from this response.
    pub fn cost(&self) -> CostInputs<'t> {
        let [cached_input_tokens, cached_write_5m_tokens, cached_write_1h_tokens] =
            self.cached_tokens.as_deref().copied().unwrap_or([0.0; 3]);
        let f = &self.features;
        CostInputs {
            model: f.model,
            input_tokens: f.input_tokens,
            output_tokens: f.output_tokens,
            cached_input_tokens,
            cached_write_5m_tokens,
            cached_write_1h_tokens,
            thinking_tokens: f.thinking_tokens.filter(|v| v.is_finite()).unwrap_or(0.0),
            batch: self.batch,
        }
    }

    /// Text parts joined with `"\n"` (drill-down).
    pub(crate) fn text_nl(&self) -> &str {
        self.text_nl_if_other
            .as_deref()
            .unwrap_or(&self.features.text)
    }

    /// `name(k1,k2)` per tool-use block, in content order (drill-down trajectory, lanes).
    pub(crate) fn shape_sequence(&self) -> Vec<&str> {
        self.shape_order
            .iter()
            .filter_map(|&k| self.features.shape.get(k as usize).map(String::as_str))
            .collect()
    }

    /// Sorted, distinct top-level keys of [`DiffTurn::first_object`] (conformance tool
    /// intent), `None` when no tool-use block has an object input.
    pub(crate) fn first_object_keys(&self) -> Option<Vec<&str>> {
        self.first_object.map(|m| {
            let mut keys: Vec<&str> = m.keys().collect();
            keys.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
            keys.dedup();
            keys
        })
    }
}

/// The diff's view of both traces, with every turn's shingles as 32-bit ids into one
/// dictionary shared by the pair (see `SideIds`). Each side is built in turn order and its
/// hashes replaced as each turn is built, so the 64-bit hashes of a whole trace are never
/// held at once.
pub fn diff_turn_pair<'t>(
    baseline: &'t Trace,
    candidate: &'t Trace,
) -> (Vec<DiffTurn<'t>>, Vec<DiffTurn<'t>>) {
    let side = |t: &'t Trace| {
        let mut ids = SideIds::default();
        let turns: Vec<DiffTurn<'t>> = t
            .responses()
            .iter()
            .map(|r| {
                let (mut turn, hashes) = DiffTurn::build(r);
                turn.shingle_ids = ids.compact(&hashes);
                turn
            })
            .collect();
        (turns, ids)
    };
    let ((b, b_ids), (c, c_ids)) = rayon::join(|| side(baseline), || side(candidate));
    let remap = join_sides(&b_ids, c_ids);
    drop(b_ids);
    let mut c = c;
    {
        use rayon::prelude::*;
        c.par_iter_mut()
            .for_each(|t| remap_ids(&remap, &mut t.shingle_ids));
    }
    (b, c)
}

/// The diff's view of several traces with every turn's shingles as ids into one dictionary
/// shared by all of them, so any two can be aligned with each other (repeated trials of one
/// case: every pair is compared). Each trace is built on its own (in parallel), then its ids
/// are renumbered into the shared dictionary in trace order, so ids depend only on the traces
/// and their order, never on the thread count.
pub fn diff_turns_shared<'t>(traces: &[&'t Trace]) -> Vec<Vec<DiffTurn<'t>>> {
    use rayon::prelude::*;
    let built: Vec<(Vec<DiffTurn<'t>>, SideIds)> = traces
        .par_iter()
        .map(|t| {
            let mut ids = SideIds::default();
            let turns = t
                .responses()
                .iter()
                .map(|r| {
                    let (mut turn, hashes) = DiffTurn::build(r);
                    turn.shingle_ids = ids.compact(&hashes);
                    turn
                })
                .collect();
            (turns, ids)
        })
        .collect();
    let mut shared = SideIds::default();
    built
        .into_iter()
        .map(|(mut turns, ids)| {
            let remap: Vec<u32> = ids.hashes.iter().map(|&h| shared.id(h)).collect();
            for t in &mut turns {
                remap_ids(&remap, &mut t.shingle_ids);
            }
            turns
        })
        .collect()
}

/// One side's shingle dictionary: each distinct 64-bit hash gets the next id in order of
/// first appearance (turn order, then ascending hash within a turn), so ids depend only on
/// the trace, never on the thread count. Ids are a bijection on the hashes: every
/// intersection of two turns' id sets, hence every Jaccard index, is exactly the one of
/// their hashes. Halves the largest per-turn allocation of a long diff (4 bytes per distinct
/// 4-gram instead of 8).
#[derive(Default)]
pub(crate) struct SideIds {
    /// Hash → id.
    ids: std::collections::HashMap<u64, u32, crate::align::cost::ShingleHash>,
    /// Id → hash.
    hashes: Vec<u64>,
}

impl SideIds {
    /// The id of one hash (a new hash gets the next id).
    fn id(&mut self, h: u64) -> u32 {
        let next = self.hashes.len() as u32;
        *self.ids.entry(h).or_insert_with(|| {
            self.hashes.push(h);
            next
        })
    }

    /// The ids of one turn's shingle hashes, ascending (new hashes get the next ids).
    pub fn compact(&mut self, hashes: &[u64]) -> Box<[u32]> {
        let mut ids: Vec<u32> = hashes.iter().map(|&h| self.id(h)).collect();
        ids.sort_unstable();
        ids.into_boxed_slice()
    }
}

/// Where the candidate side's ids go in the baseline's dictionary (indexed by candidate id):
/// a hash both sides hold gets the baseline's id, the others new ids after the baseline's (in
/// candidate id order). Apply it to each candidate turn with [`remap_ids`].
pub(crate) fn join_sides(baseline: &SideIds, candidate: SideIds) -> Vec<u32> {
    let mut next = baseline.hashes.len() as u32;
    candidate
        .hashes
        .iter()
        .map(|h| {
            baseline.ids.get(h).copied().unwrap_or_else(|| {
                next += 1;
                next - 1
            })
        })
        .collect()
}

/// Rewrites one candidate turn's ids through `remap` (from [`join_sides`]), ascending again.
pub(crate) fn remap_ids(remap: &[u32], ids: &mut [u32]) {
    for id in ids.iter_mut() {
        *id = remap[*id as usize];
    }
    ids.sort_unstable();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{build, gen_trace};
    use proptest::prelude::*;

    fn intersection<T: Ord>(a: &[T], b: &[T]) -> usize {
        a.iter().filter(|x| b.binary_search(x).is_ok()).count()
    }

    /// Each turn's shingle hashes, the plain definition the ids stand for.
    fn hashes_of(trace: &Trace) -> Vec<Vec<u64>> {
        trace
            .features()
            .iter()
            .map(|f| shingles(f.normalized_text()))
            .collect()
    }

    /// Both sides' hash sets through [`SideIds`] and [`join_sides`], as [`diff_turn_pair`]
    /// does it.
    fn ids_of(b: &[Vec<u64>], c: &[Vec<u64>]) -> Vec<Box<[u32]>> {
        let (mut xb, mut xc) = (SideIds::default(), SideIds::default());
        let ib: Vec<Box<[u32]>> = b.iter().map(|h| xb.compact(h)).collect();
        let mut ic: Vec<Box<[u32]>> = c.iter().map(|h| xc.compact(h)).collect();
        let remap = join_sides(&xb, xc);
        ic.iter_mut().for_each(|ids| remap_ids(&remap, ids));
        ib.into_iter().chain(ic).collect()
    }

    /// Checks ids against the hashes they replace, for every pair of turns of either side.
    fn assert_same_sets(before: &[Vec<u64>], after: &[Box<[u32]>]) -> Result<(), TestCaseError> {
        prop_assert_eq!(before.len(), after.len());
        for (x, y) in before.iter().zip(after) {
            prop_assert_eq!(x.len(), y.len());
            prop_assert!(y.windows(2).all(|w| w[0] < w[1]), "ascending");
        }
        for (bx, ax) in before.iter().zip(after) {
            for (by, ay) in before.iter().zip(after) {
                prop_assert_eq!(intersection(bx, by), intersection(ax, ay));
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
            let (ib, ic) = diff_turn_pair(&tb, &tc);
            let before: Vec<Vec<u64>> = hashes_of(&tb).into_iter().chain(hashes_of(&tc)).collect();
            let after: Vec<Box<[u32]>> =
                ib.iter().chain(&ic).map(|t| t.shingle_ids.clone()).collect();
            assert_same_sets(&before, &after)?;
        }

        /// Shared ids over three traces keep every intersection of any two turns' hash sets.
        #[test]
        fn shared_ids_keep_every_intersection(
            a in gen_trace(10), b in gen_trace(10), c in gen_trace(10)
        ) {
            let traces = [build(&a), build(&b), build(&c)];
            let refs: Vec<&Trace> = traces.iter().collect();
            let turns = diff_turns_shared(&refs);
            let before: Vec<Vec<u64>> = traces.iter().flat_map(hashes_of).collect();
            let after: Vec<Box<[u32]>> =
                turns.iter().flatten().map(|t| t.shingle_ids.clone()).collect();
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
                v.iter()
                    .map(|s| {
                        let mut s: Vec<u64> =
                            s.iter().map(|x| x | (k << 32) | (x << 40)).collect();
                        s.sort_unstable();
                        s.dedup();
                        s
                    })
                    .collect()
            };
            let (sb, sc) = (lift(&low, 0), lift(&high, 1));
            let before: Vec<Vec<u64>> = sb.iter().chain(&sc).cloned().collect();
            assert_same_sets(&before, &ids_of(&sb, &sc))?;
        }

        /// The shape sequence read through `shape_order` is the shape string of every block in
        /// content order; the first object keys are those of the first object input.
        #[test]
        fn shape_sequence_and_first_keys_equal_plain_definitions(b in gen_trace(12)) {
            let t = build(&b);
            let (turns, _) = diff_turn_pair(&t, &t);
            for (turn, r) in turns.iter().zip(t.responses()) {
                let plain: Vec<String> = r
                    .tool_uses()
                    .map(|u| veer_trace::features::shape_string(u.name.unwrap_or("_"), u.input))
                    .collect();
                prop_assert_eq!(turn.shape_sequence(), plain.iter().map(String::as_str).collect::<Vec<_>>());
                let first = r.tool_uses().find_map(|u| match u.input {
                    Some(Json::Object(m)) => {
                        let mut k: Vec<String> = m.keys().map(str::to_string).collect();
                        k.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
                        k.dedup();
                        Some(k)
                    }
                    _ => None,
                });
                prop_assert_eq!(
                    turn.first_object_keys().map(|k| k.iter().map(|s| s.to_string()).collect::<Vec<_>>()),
                    first
                );
                let text_nl = r.text("\n");
                prop_assert_eq!(turn.text_nl(), text_nl.as_str());
            }
        }
    }
}
