//! From an alignment to divergence events (spec `diff.md` §9.7–§9.8): the walk over the path,
//! the classification of above-floor pairs (structural, decision, style with veer's calibrated
//! style rule), the first divergence and the ranked top-k.

use super::cost::{pair_cost, AlignTurn};
use super::{Step, NOISE_FLOOR, STYLE_MIN_SIMILARITY};
use crate::turn::DiffTurn;
use std::collections::BTreeSet;
use veer_contract::axis::Axis;
use veer_contract::divergence::{Divergence, DivergenceKind};
use veer_trace::Json;

fn tool_detail(k: usize, none: &str, one: &str, many: &str) -> String {
    match k {
        0 => none.to_string(),
        1 => one.to_string(),
        k => many.replace("{k}", &k.to_string()),
    }
}

fn ticked(items: &[&str]) -> String {
    items
        .iter()
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The first argument value that changed between two turns with equal tool sets, or `None`.
pub(crate) fn arg_value_diff(a: &DiffTurn, b: &DiffTurn) -> Option<String> {
    for (name, ia) in &a.features.inputs {
        let Some(ib) = b.features.input(name) else {
            continue;
        };
        if ia.canonical == ib.canonical {
            continue;
        }
        return Some(value_change(name, ia.input, ib.input));
    }
    None
}

/// The words for a changed input of tool `name`: the first top-level argument (in the
/// baseline's key order) whose value differs, as "`name(key)`: `old` → `new`" (`<missing>`
/// when the candidate has no such key), else "`name`: input changed". Pair mode's divergence
/// explanations and the trials report's changes both use it.
pub(crate) fn value_change(name: &str, a: Option<&Json>, b: Option<&Json>) -> String {
    // The inputs as recorded (the trace's compact JSON): the same keys in the same order,
    // the same canonical bytes and the same text as their `serde_json` copies.
    if let (Some(Json::Object(oa)), Some(Json::Object(ob))) = (a, b) {
        for (key, va) in oa {
            let changed = match ob.get(key) {
                None => Some("<missing>".to_string()),
                Some(vb) => (veer_trace::canonical::canonical_bytes(va)
                    != veer_trace::canonical::canonical_bytes(vb))
                .then(|| compact(vb)),
            };
            if let Some(new) = changed {
                return format!("`{name}({key})`: `{}` → `{new}`", compact(va));
            }
        }
    }
    format!("`{name}`: input changed")
}

fn compact(v: &Json) -> String {
    serde_json::to_string(&v.to_value()).unwrap_or_default()
}

/// Classifies a pair above the noise floor (branches 1–5 of §9.8).
fn classify(
    a: &DiffTurn,
    b: &DiffTurn,
    sim: f64,
    confidence: f64,
    turns: (usize, usize),
) -> Divergence {
    let (fa, fb) = (&a.features, &b.features);
    let make = |kind, primary_axis, explanation: String| Divergence {
        baseline_turn: turns.0,
        candidate_turn: turns.1,
        kind,
        primary_axis,
        explanation,
        confidence,
    };
    if fa.shape != fb.shape {
        // `str` orders by bytes, so set order is ascending byte order.
        let sa: BTreeSet<&str> = fa.shape.iter().map(String::as_str).collect();
        let sb: BTreeSet<&str> = fb.shape.iter().map(String::as_str).collect();
        let removed: Vec<&str> = sa.difference(&sb).copied().collect();
        let added: Vec<&str> = sb.difference(&sa).copied().collect();
        let explanation = match (removed.is_empty(), added.is_empty()) {
            (false, true) => format!("candidate dropped tool call(s): {}", ticked(&removed)),
            (true, false) => format!("candidate added tool call(s): {}", ticked(&added)),
            (false, false) => format!(
                "tool set changed: removed {}, added {}",
                ticked(&removed),
                ticked(&added)
            ),
            (true, true) => "tool ordering differs".to_string(),
        };
        return make(DivergenceKind::Structural, Axis::Trajectory, explanation);
    }
    if fa.tool_count != fb.tool_count {
        let what = if fa.shape.len() == 1 {
            format!("`{}`", fa.shape[0])
        } else {
            format!("{} tool(s)", fa.shape.len())
        };
        let tail = if fb.tool_count > fa.tool_count {
            "duplicate tool invocation"
        } else {
            "dropped one or more repeat invocations"
        };
        return make(
            DivergenceKind::Structural,
            Axis::Trajectory,
            format!(
                "candidate called {what} {} time(s) vs baseline's {} — {tail}",
                fb.tool_count, fa.tool_count
            ),
        );
    }
    if fa.stop_reason != fb.stop_reason {
        return make(
            DivergenceKind::Decision,
            Axis::Safety,
            format!(
                "stop_reason changed: `{}` → `{}`",
                fa.stop_reason, fb.stop_reason
            ),
        );
    }
    if let Some(diff) = arg_value_diff(a, b) {
        return make(
            DivergenceKind::Decision,
            Axis::Trajectory,
            format!("tool arg value changed: {diff}"),
        );
    }
    make(
        DivergenceKind::Decision,
        Axis::Semantic,
        format!("response text diverged (text similarity {sim:.2}); same tool sequence"),
    )
}

/// The event of one `Match` step, if any: above the floor → classified with confidence
/// `(cost − 0.12) / 0.88`; at or below it → a style event only for a text-only change with
/// similarity in [0.90, 1).
fn match_event(
    a: &DiffTurn,
    b: &DiffTurn,
    ia: &AlignTurn<'_>,
    ib: &AlignTurn<'_>,
    turns: (usize, usize),
) -> Option<Divergence> {
    let pc = pair_cost(ia, ib);
    if pc.cost > NOISE_FLOOR {
        let confidence = ((pc.cost - NOISE_FLOOR) / (1.0 - NOISE_FLOOR)).clamp(0.0, 1.0);
        return Some(classify(a, b, pc.text_similarity, confidence, turns));
    }
    let text_only = ia.shape == ib.shape
        && ia.count == ib.count
        && ia.stop == ib.stop
        && ia.text != ib.text
        && arg_value_diff(a, b).is_none();
    let sim = pc.text_similarity;
    if text_only && (STYLE_MIN_SIMILARITY..1.0).contains(&sim) {
        return Some(Divergence {
            baseline_turn: turns.0,
            candidate_turn: turns.1,
            kind: DivergenceKind::Style,
            primary_axis: Axis::Semantic,
            explanation: "cosmetic wording change — tool sequence and semantics preserved"
                .to_string(),
            confidence: 1.0 - sim,
        });
    }
    None
}

/// The aligned turns and their interned features, both sides.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sides<'a> {
    /// Baseline turns.
    pub baseline: &'a [DiffTurn<'a>],
    /// Candidate turns.
    pub candidate: &'a [DiffTurn<'a>],
    /// Interned baseline features.
    pub baseline_aligned: &'a [AlignTurn<'a>],
    /// Interned candidate features.
    pub candidate_aligned: &'a [AlignTurn<'a>],
}

#[cfg(test)]
/// Walks the path and returns at most `limit` events in walk order.
pub fn walk(steps: &[Step], sides: Sides<'_>, limit: usize) -> Vec<Divergence> {
    let mut out = Vec::new();
    if limit == 0 {
        return out;
    }
    each_event(steps, sides, |e| {
        out.push(e);
        out.len() < limit
    });
    out
}

/// The path's first event and its `k` highest-ranked ones: exactly `walk(steps, sides,
/// usize::MAX)`'s first element and [`top_k`] of it, without holding every event (on
/// unrelated runs nearly every matched pair is one, each with its explanation): the events
/// are ranked a bounded batch at a time, which keeps the same `k` in the same order because
/// the ranking is a stable sort (a batch's top `k` holds every event of the batch that can
/// be in the overall top `k`, still in walk order among equals).
pub(crate) fn first_and_top_k(
    steps: &[Step],
    sides: Sides<'_>,
    k: usize,
) -> (Option<Divergence>, Vec<Divergence>) {
    first_and_top_k_batched(steps, sides, k, k.saturating_mul(2).max(1024))
}

/// [`first_and_top_k`], ranking whenever `batch` events are held (tests use tiny batches).
pub(crate) fn first_and_top_k_batched(
    steps: &[Step],
    sides: Sides<'_>,
    k: usize,
    batch: usize,
) -> (Option<Divergence>, Vec<Divergence>) {
    let mut first = None;
    let mut kept: Vec<Divergence> = Vec::new();
    each_event(steps, sides, |e| {
        if first.is_none() {
            first = Some(e.clone());
        }
        kept.push(e);
        if kept.len() >= batch {
            kept = top_k(std::mem::take(&mut kept), k);
        }
        true
    });
    (first, top_k(kept, k))
}

/// Calls `emit` with each event of the path in walk order, while it returns `true`.
fn each_event(steps: &[Step], sides: Sides<'_>, mut emit: impl FnMut(Divergence) -> bool) {
    let (mut b_cursor, mut c_cursor) = (0usize, 0usize);
    for step in steps {
        match *step {
            Step::Insert(j) => {
                let k = sides.candidate.get(j).map_or(0, |t| t.features.shape.len());
                let detail = tool_detail(
                    k,
                    "an extra response turn with no tool calls",
                    "an extra turn with 1 tool call",
                    "an extra turn with {k} tool calls",
                );
                let more = emit(Divergence {
                    baseline_turn: b_cursor,
                    candidate_turn: j,
                    kind: DivergenceKind::Structural,
                    primary_axis: Axis::Trajectory,
                    explanation: format!(
                        "candidate inserted {detail} between baseline turns #{} and #{b_cursor}",
                        b_cursor.saturating_sub(1)
                    ),
                    confidence: 1.0,
                });
                if !more {
                    return;
                }
                c_cursor += 1;
            }
            Step::Delete(i) => {
                let k = sides.baseline.get(i).map_or(0, |t| t.features.shape.len());
                let detail = tool_detail(
                    k,
                    "a response turn with no tool calls",
                    "a turn with 1 tool call",
                    "a turn with {k} tool calls",
                );
                let more = emit(Divergence {
                    baseline_turn: i,
                    candidate_turn: c_cursor,
                    kind: DivergenceKind::Structural,
                    primary_axis: Axis::Trajectory,
                    explanation: format!(
                        "candidate dropped {detail} (baseline turn #{i} has no counterpart)"
                    ),
                    confidence: 1.0,
                });
                if !more {
                    return;
                }
                b_cursor += 1;
            }
            Step::Match(i, j) => {
                b_cursor = i + 1;
                c_cursor = j + 1;
                let (Some(a), Some(b), Some(ia), Some(ib)) = (
                    sides.baseline.get(i),
                    sides.candidate.get(j),
                    sides.baseline_aligned.get(i),
                    sides.candidate_aligned.get(j),
                ) else {
                    continue;
                };
                if let Some(e) = match_event(a, b, ia, ib, (i, j)) {
                    if !emit(e) {
                        return;
                    }
                }
            }
        }
    }
}

/// The `k` highest-ranked events: stable sort by kind rank, then confidence, both descending.
pub fn top_k(mut events: Vec<Divergence>, k: usize) -> Vec<Divergence> {
    events.sort_by(|x, y| {
        y.kind.rank().cmp(&x.kind.rank()).then_with(|| {
            y.confidence
                .partial_cmp(&x.confidence)
                .unwrap_or(std::cmp::Ordering::Equal)
        })
    });
    events.truncate(k);
    events
}
