//! What the agent did, compared: the behaviour distance of two runs over their tool calls, and
//! the changes in words. Wording is the soft signal of a run, its tool calls the hard one —
//! which tools, in which order, with which arguments — so this distance reads nothing but the
//! trajectory tokens of spec `diff.md` §6 (tool name, sorted argument keys and the digest of
//! the canonical-JSON arguments, `TurnFeatures::tool_tokens`).
//!
//! The two runs' turns are aligned by the first-divergence detector's alignment (§9: exact
//! Gotoh, anchored beyond the work budget); within each matched pair of turns the calls are
//! aligned by unit-cost edit distance, and every call of a turn the alignment leaves unpaired
//! is one edit. The distance is the edits over the aligned length (the longer turn of each
//! matched pair, every unpaired turn's calls), in [0, 1]: 0 exactly when every call, in order,
//! has the same name, keys and argument values; a dropped, added, reordered or renamed call
//! and a changed argument value each move it. The same alignment gives the changes in words
//! ([`changes`]): "dropped `lookup_order` before `issue_refund`", "argument renamed
//! `lookup_order(order_id → orderId)`", "argument value changed: `issue_refund(amount)`:
//! `42.0` → `84.0`". Repeated trials (`veer-engine`'s trials) and pair mode use both.

use crate::align::cost::intern;
use crate::align::divergence::value_change;
use crate::align::{Alignment, Step};
use crate::turn::DiffTurn;
use veer_base::edit_script::{edit_script, EditOp};
use veer_contract::divergence::AlignmentKind;
use veer_trace::{Json, Trace};

/// The turn alignment of two runs (the first-divergence detector's, §9) within `max_cells`
/// in-band cells per round, anchored beyond; None when a side has no turn.
pub fn align(
    baseline: &[DiffTurn<'_>],
    candidate: &[DiffTurn<'_>],
    max_cells: u64,
) -> Option<(Alignment, AlignmentKind)> {
    if baseline.is_empty() || candidate.is_empty() {
        return None;
    }
    let (ab, ac) = intern(baseline, candidate);
    Some(crate::align_interned(&ab, &ac, max_cells))
}

/// The steps of `alignment`, or — when a side has no turn — every turn of the other side
/// unpaired.
fn steps_or_gaps(alignment: Option<&Alignment>, n: usize, m: usize) -> Vec<Step> {
    match alignment {
        Some(a) => a.steps.clone(),
        None => (0..n)
            .map(Step::Delete)
            .chain((0..m).map(Step::Insert))
            .collect(),
    }
}

/// One call of a run: where it is and its trajectory token.
#[derive(Debug, Clone, Copy)]
struct CallAt<'a> {
    turn: usize,
    block: usize,
    token: &'a str,
}

/// One aligned position of the two runs' calls, as indices into each run's flat call list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Same(usize, usize),
    Substituted(usize, usize),
    Dropped(usize),
    Added(usize),
}

/// Every call of a run in order, with the index of each turn's first call.
fn flat<'a>(turns: &'a [DiffTurn<'_>]) -> (Vec<CallAt<'a>>, Vec<usize>) {
    let mut calls = Vec::new();
    let mut starts = Vec::with_capacity(turns.len() + 1);
    for (turn, t) in turns.iter().enumerate() {
        starts.push(calls.len());
        for (block, token) in t.features.tool_tokens.iter().enumerate() {
            calls.push(CallAt {
                turn,
                block,
                token: token.as_str(),
            });
        }
    }
    starts.push(calls.len());
    (calls, starts)
}

/// The call-level script along the turn alignment, and its aligned length.
fn script(
    steps: &[Step],
    baseline: &[DiffTurn<'_>],
    candidate: &[DiffTurn<'_>],
) -> (Vec<Op>, usize) {
    let (_, sb) = flat(baseline);
    let (_, sc) = flat(candidate);
    let mut ops = Vec::new();
    let mut length = 0usize;
    for step in steps {
        match *step {
            Step::Match(i, j) => {
                let (Some(a), Some(b)) = (baseline.get(i), candidate.get(j)) else {
                    continue;
                };
                let (ta, tb) = (&a.features.tool_tokens, &b.features.tool_tokens);
                length += ta.len().max(tb.len());
                if ta == tb {
                    ops.extend((0..ta.len()).map(|k| Op::Same(sb[i] + k, sc[j] + k)));
                    continue;
                }
                for op in edit_script(ta, tb).ops {
                    ops.push(match op {
                        EditOp::Match { i: x, j: y } => Op::Same(sb[i] + x, sc[j] + y),
                        EditOp::Substitution { i: x, j: y } => {
                            Op::Substituted(sb[i] + x, sc[j] + y)
                        }
                        EditOp::Deletion { i: x } => Op::Dropped(sb[i] + x),
                        EditOp::Insertion { j: y } => Op::Added(sc[j] + y),
                    });
                }
            }
            Step::Delete(i) => {
                let n = baseline.get(i).map_or(0, |t| t.features.tool_tokens.len());
                length += n;
                ops.extend((0..n).map(|k| Op::Dropped(sb[i] + k)));
            }
            Step::Insert(j) => {
                let n = candidate.get(j).map_or(0, |t| t.features.tool_tokens.len());
                length += n;
                ops.extend((0..n).map(|k| Op::Added(sc[j] + k)));
            }
        }
    }
    (ops, length)
}

/// The behaviour distance along `alignment` (None when a side has no turn: every call of the
/// other side is an edit): edits over the aligned length, in [0, 1]; 0 when neither run calls
/// a tool.
pub fn distance(
    alignment: Option<&Alignment>,
    baseline: &[DiffTurn<'_>],
    candidate: &[DiffTurn<'_>],
) -> f64 {
    let steps = steps_or_gaps(alignment, baseline.len(), candidate.len());
    let (ops, length) = script(&steps, baseline, candidate);
    if length == 0 {
        return 0.0;
    }
    let edits = ops.iter().filter(|o| !matches!(o, Op::Same(..))).count();
    (edits as f64 / length as f64).clamp(0.0, 1.0)
}

/// The first pair of turns (baseline, candidate) along `alignment` where the two runs' calls
/// differ: a matched pair whose calls differ, or a turn left unpaired that has calls (its
/// counterpart is the other side's next turn); None when every call agrees.
pub fn first_change(
    alignment: Option<&Alignment>,
    baseline: &[DiffTurn<'_>],
    candidate: &[DiffTurn<'_>],
) -> Option<(usize, usize)> {
    let steps = steps_or_gaps(alignment, baseline.len(), candidate.len());
    fn calls<'a>(t: Option<&'a DiffTurn<'_>>) -> &'a [String] {
        t.map_or(&[][..], |t| &t.features.tool_tokens[..])
    }
    let (mut next_b, mut next_c) = (0usize, 0usize);
    for step in steps {
        match step {
            Step::Match(i, j) => {
                if calls(baseline.get(i)) != calls(candidate.get(j)) {
                    return Some((i, j));
                }
                (next_b, next_c) = (i + 1, j + 1);
            }
            Step::Delete(i) => {
                if !calls(baseline.get(i)).is_empty() {
                    return Some((i, next_c));
                }
                next_b = i + 1;
            }
            Step::Insert(j) => {
                if !calls(candidate.get(j)).is_empty() {
                    return Some((next_b, j));
                }
                next_c = j + 1;
            }
        }
    }
    None
}

/// What kind of change a call underwent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CallChangeKind {
    /// A baseline call the candidate does not make.
    Dropped,
    /// A candidate call the baseline does not make.
    Added,
    /// The same call (name, keys and values) at another place in the sequence.
    Moved,
    /// The same tool called with other argument keys.
    ArgumentsRenamed,
    /// The same tool and keys with another argument value.
    ValueChanged,
}

/// One change of the candidate's calls against the baseline's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallChange {
    /// What happened to the call.
    pub kind: CallChangeKind,
    /// The 0-based baseline turn of the call (None for an added call).
    pub baseline_turn: Option<usize>,
    /// The 0-based candidate turn of the call (None for a dropped call).
    pub candidate_turn: Option<usize>,
    /// The change in words, e.g. "dropped `lookup_order` before `issue_refund`".
    pub words: String,
}

/// One run as [`changes`] reads it: the trace (for tool names and argument values) and its
/// diff turns (for the tokens).
#[derive(Debug, Clone, Copy)]
pub struct Run<'a, 't> {
    /// The trace.
    pub trace: &'t Trace,
    /// Its diff turns, one per response.
    pub turns: &'a [DiffTurn<'t>],
}

/// One call's name and input, read from its trace.
#[derive(Clone, Copy)]
struct Block<'t> {
    name: &'t str,
    input: Option<&'t Json>,
}

/// The name and input of each of `calls`, read from `trace`.
fn blocks<'t>(trace: &'t Trace, calls: &[CallAt<'_>]) -> Vec<Block<'t>> {
    let per_turn: Vec<Vec<Block<'t>>> = trace
        .responses()
        .iter()
        .map(|r| {
            r.tool_uses()
                .map(|u| Block {
                    name: u.name.unwrap_or("_"),
                    input: u.input,
                })
                .collect()
        })
        .collect();
    calls
        .iter()
        .map(|c| {
            per_turn
                .get(c.turn)
                .and_then(|t| t.get(c.block))
                .copied()
                .unwrap_or(Block {
                    name: "_",
                    input: None,
                })
        })
        .collect()
}

/// The sorted top-level keys of an object input.
fn keys(input: Option<&Json>) -> Vec<&str> {
    let mut k: Vec<&str> = match input {
        Some(Json::Object(m)) => m.keys().collect(),
        _ => Vec::new(),
    };
    k.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    k.dedup();
    k
}

/// "argument renamed `name(old → new)`" (or added / dropped when only one side has keys).
fn renamed_words(name: &str, a: Option<&Json>, b: Option<&Json>) -> String {
    let (ka, kb) = (keys(a), keys(b));
    let removed: Vec<&str> = ka.iter().filter(|k| !kb.contains(k)).copied().collect();
    let added: Vec<&str> = kb.iter().filter(|k| !ka.contains(k)).copied().collect();
    match (removed.is_empty(), added.is_empty()) {
        (false, false) => format!(
            "argument renamed `{name}({} → {})`",
            removed.join(", "),
            added.join(", ")
        ),
        (true, false) => format!("argument added `{name}({})`", added.join(", ")),
        (false, true) => format!("argument dropped `{name}({})`", removed.join(", ")),
        // Same keys in another shape (e.g. an object against a string): the input changed.
        (true, true) => format!("argument value changed: {}", value_change(name, a, b)),
    }
}

/// The changes of the candidate's calls against the baseline's along `alignment` (None when a
/// side has no turn), in the order of the call script, each worded once (a change repeated
/// word for word is listed once).
pub fn changes(
    alignment: Option<&Alignment>,
    baseline: Run<'_, '_>,
    candidate: Run<'_, '_>,
) -> Vec<CallChange> {
    let steps = steps_or_gaps(alignment, baseline.turns.len(), candidate.turns.len());
    let (ops, _) = script(&steps, baseline.turns, candidate.turns);
    if ops.iter().all(|o| matches!(o, Op::Same(..))) {
        return Vec::new();
    }
    let (cb, _) = flat(baseline.turns);
    let (cc, _) = flat(candidate.turns);
    let (bb, bc) = (blocks(baseline.trace, &cb), blocks(candidate.trace, &cc));
    // A substitution by another tool is a drop and an add.
    let mut split: Vec<Op> = Vec::with_capacity(ops.len());
    for op in ops {
        match op {
            Op::Substituted(x, y) if bb[x].name != bc[y].name => {
                split.push(Op::Dropped(x));
                split.push(Op::Added(y));
            }
            other => split.push(other),
        }
    }
    // A dropped call and an added call of the same token are one moved call; of the same tool,
    // one call whose arguments changed. Paired greedily in script order.
    let mut paired: Vec<Option<usize>> = vec![None; split.len()];
    for same_token in [true, false] {
        for a in 0..split.len() {
            let Op::Dropped(x) = split[a] else { continue };
            if paired[a].is_some() {
                continue;
            }
            let found = (0..split.len()).find(|&b| {
                paired[b].is_none()
                    && matches!(split[b], Op::Added(y) if if same_token {
                        cb[x].token == cc[y].token
                    } else {
                        bb[x].name == bc[y].name
                    })
            });
            if let Some(b) = found {
                paired[a] = Some(b);
                paired[b] = Some(a);
            }
        }
    }
    let name_b = |x: usize| bb.get(x).map_or("_", |b| b.name);
    let name_c = |y: usize| bc.get(y).map_or("_", |b| b.name);
    let mut out: Vec<CallChange> = Vec::new();
    let mut push = |kind, x: Option<usize>, y: Option<usize>, words: String| {
        if out.iter().any(|c: &CallChange| c.words == words) {
            return;
        }
        out.push(CallChange {
            kind,
            baseline_turn: x.map(|x| cb[x].turn),
            candidate_turn: y.map(|y| cc[y].turn),
            words,
        });
    };
    let argument_change = |x: usize, y: usize| {
        if cb[x].token == cc[y].token {
            return None;
        }
        let (a, b) = (&bb[x], &bc[y]);
        Some(if keys(a.input) == keys(b.input) {
            (
                CallChangeKind::ValueChanged,
                format!(
                    "argument value changed: {}",
                    value_change(a.name, a.input, b.input)
                ),
            )
        } else {
            (
                CallChangeKind::ArgumentsRenamed,
                renamed_words(a.name, a.input, b.input),
            )
        })
    };
    let mut moves: Vec<(usize, usize)> = Vec::new();
    for (at, op) in split.iter().enumerate() {
        match *op {
            Op::Same(..) => {}
            Op::Substituted(x, y) => {
                if let Some((kind, words)) = argument_change(x, y) {
                    push(kind, Some(x), Some(y), words);
                }
            }
            Op::Dropped(x) => match paired[at].map(|b| split[b]) {
                Some(Op::Added(y)) if cb[x].token == cc[y].token => {
                    // Two neighbours swapped are one change: the first of the two says it.
                    let swapped = x > 0 && moves.contains(&(x - 1, y + 1));
                    moves.push((x, y));
                    if swapped {
                        continue;
                    }
                    let words = match (y.checked_sub(1), cc.get(y + 1)) {
                        (Some(p), _) => format!("moved `{}` after `{}`", name_b(x), name_c(p)),
                        (None, Some(_)) => {
                            format!("moved `{}` before `{}`", name_b(x), name_c(y + 1))
                        }
                        (None, None) => format!("moved `{}`", name_b(x)),
                    };
                    push(CallChangeKind::Moved, Some(x), Some(y), words);
                }
                Some(Op::Added(y)) => {
                    if let Some((kind, words)) = argument_change(x, y) {
                        push(kind, Some(x), Some(y), words);
                    }
                }
                _ => {
                    let words = match (cb.get(x + 1), x.checked_sub(1)) {
                        (Some(_), _) => {
                            format!("dropped `{}` before `{}`", name_b(x), name_b(x + 1))
                        }
                        (None, Some(p)) => format!("dropped `{}` after `{}`", name_b(x), name_b(p)),
                        (None, None) => format!("dropped `{}`", name_b(x)),
                    };
                    push(CallChangeKind::Dropped, Some(x), None, words);
                }
            },
            Op::Added(y) => {
                if paired[at].is_some() {
                    continue;
                }
                let words = match (y.checked_sub(1), cc.get(y + 1)) {
                    (Some(p), _) => format!("added `{}` after `{}`", name_c(y), name_c(p)),
                    (None, Some(_)) => format!("added `{}` before `{}`", name_c(y), name_c(y + 1)),
                    (None, None) => format!("added `{}`", name_c(y)),
                };
                push(CallChangeKind::Added, None, Some(y), words);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::turn::diff_turns_shared;
    use serde_json::{json, Value};
    use veer_base::format::Format;
    use veer_trace::{Kind, Record};

    fn record(kind: Kind, payload: Value) -> Record {
        Record {
            line: None,
            kind,
            version: "0.1".into(),
            id: "x".into(),
            ts: "2026-01-01T00:00:00.000Z".into(),
            parent: None,
            meta: None,
            payload: payload.into(),
            extra_envelope: None,
            origin: None,
        }
    }

    /// A trace of one response per turn; each turn is its text and its calls (name, input).
    fn trace(turns: &[(&str, Vec<(&str, Value)>)]) -> Trace {
        let mut t = Trace::new("t", Format::Agentlog);
        t.records.push(record(Kind::Metadata, json!({})));
        for (text, calls) in turns {
            let mut content = vec![json!({"type": "text", "text": text})];
            for (name, input) in calls {
                content.push(json!({"type": "tool_use", "name": name, "input": input}));
            }
            t.records.push(record(
                Kind::ChatResponse,
                json!({"model": "m", "content": content, "stop_reason": "end_turn"}),
            ));
        }
        t
    }

    fn compare(a: &Trace, b: &Trace) -> (f64, Vec<String>) {
        let turns = diff_turns_shared(&[a, b]);
        let alignment = align(&turns[0], &turns[1], u64::MAX).map(|(a, _)| a);
        let d = distance(alignment.as_ref(), &turns[0], &turns[1]);
        let first = first_change(alignment.as_ref(), &turns[0], &turns[1]);
        assert_eq!(first.is_none(), d == 0.0);
        let words = changes(
            alignment.as_ref(),
            Run {
                trace: a,
                turns: &turns[0],
            },
            Run {
                trace: b,
                turns: &turns[1],
            },
        )
        .into_iter()
        .map(|c| c.words)
        .collect();
        (d, words)
    }

    /// The support agent of the examples: look the order up, refund it, answer.
    fn agent(lookup: Option<Value>, refund: Value, text: &str) -> Trace {
        let mut turns = Vec::new();
        if let Some(l) = lookup {
            turns.push(("Checking the order now.", vec![("lookup_order", l)]));
        }
        turns.push(("", vec![("issue_refund", refund)]));
        turns.push((text, vec![]));
        trace(&turns)
    }

    #[test]
    fn identical_calls_with_other_words_are_distance_zero() {
        let a = agent(
            Some(json!({"order_id": "A1"})),
            json!({"amount": 42.0}),
            "Your refund of 42 is on its way.",
        );
        let b = agent(
            Some(json!({"order_id": "A1"})),
            json!({"amount": 42.0}),
            "Done! The refund has been issued.",
        );
        assert_eq!(compare(&a, &b), (0.0, Vec::new()));
    }

    #[test]
    fn renamed_argument() {
        let a = agent(
            Some(json!({"order_id": "A1"})),
            json!({"amount": 42.0}),
            "ok",
        );
        let b = agent(
            Some(json!({"orderId": "A1"})),
            json!({"amount": 42.0}),
            "ok",
        );
        let (d, words) = compare(&a, &b);
        assert!((d - 0.5).abs() < 1e-12, "{d}");
        assert_eq!(
            words,
            vec!["argument renamed `lookup_order(order_id → orderId)`"]
        );
    }

    #[test]
    fn changed_value() {
        let a = agent(
            Some(json!({"order_id": "A1"})),
            json!({"amount": 42.0}),
            "ok",
        );
        let b = agent(
            Some(json!({"order_id": "A1"})),
            json!({"amount": 84.0}),
            "ok",
        );
        let (d, words) = compare(&a, &b);
        assert!((d - 0.5).abs() < 1e-12, "{d}");
        assert_eq!(
            words,
            vec!["argument value changed: `issue_refund(amount)`: `42.0` → `84.0`"]
        );
    }

    #[test]
    fn dropped_call() {
        let a = agent(
            Some(json!({"order_id": "A1"})),
            json!({"amount": 42.0}),
            "ok",
        );
        let b = agent(None, json!({"amount": 42.0}), "ok");
        let (d, words) = compare(&a, &b);
        assert!((d - 0.5).abs() < 1e-12, "{d}");
        assert_eq!(words, vec!["dropped `lookup_order` before `issue_refund`"]);
        let turns = diff_turns_shared(&[&a, &b]);
        let alignment = align(&turns[0], &turns[1], u64::MAX).map(|(a, _)| a);
        assert_eq!(
            first_change(alignment.as_ref(), &turns[0], &turns[1]),
            Some((0, 0))
        );
    }

    #[test]
    fn extra_call() {
        let a = trace(&[
            ("", vec![("lookup_order", json!({"order_id": "A1"}))]),
            ("done", vec![]),
        ]);
        let b = trace(&[
            (
                "",
                vec![
                    ("lookup_order", json!({"order_id": "A1"})),
                    ("search", json!({"query": "refund policy"})),
                ],
            ),
            ("done", vec![]),
        ]);
        let (d, words) = compare(&a, &b);
        assert!((d - 0.5).abs() < 1e-12, "{d}");
        assert_eq!(words, vec!["added `search` after `lookup_order`"]);
    }

    #[test]
    fn reordered_calls() {
        let a = trace(&[(
            "",
            vec![
                ("lookup_order", json!({"order_id": "A1"})),
                ("search", json!({"query": "policy"})),
            ],
        )]);
        let b = trace(&[(
            "",
            vec![
                ("search", json!({"query": "policy"})),
                ("lookup_order", json!({"order_id": "A1"})),
            ],
        )]);
        let (d, words) = compare(&a, &b);
        assert!(d > 0.0);
        assert_eq!(words, vec!["moved `lookup_order` after `search`"]);
    }

    #[test]
    fn renamed_tool_is_a_drop_and_an_add() {
        let a = trace(&[("", vec![("lookup_order", json!({"order_id": "A1"}))])]);
        let b = trace(&[("", vec![("find_order", json!({"order_id": "A1"}))])]);
        let (d, words) = compare(&a, &b);
        assert_eq!(d, 1.0);
        assert_eq!(words, vec!["dropped `lookup_order`", "added `find_order`"]);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

        /// On generated traces the distance lies in [0, 1], is 0 against itself, and is 0
        /// exactly when no change is worded.
        #[test]
        fn distance_in_unit_interval_and_zero_without_changes(
            a in crate::testing::gen_trace(10), b in crate::testing::gen_trace(10)
        ) {
            let (ta, tb) = (crate::testing::build(&a), crate::testing::build(&b));
            let (d, words) = compare(&ta, &tb);
            proptest::prop_assert!((0.0..=1.0).contains(&d), "{}", d);
            proptest::prop_assert_eq!(d == 0.0, words.is_empty());
            proptest::prop_assert_eq!(compare(&ta, &ta), (0.0, Vec::new()));
        }

        /// Pair mode's gate judgement (the trajectory row's `changed_pairs`, read by the
        /// engine's verdict) agrees with this distance on the report's own alignment: some
        /// observation changed exactly when the distance is above 0.
        #[test]
        fn pair_mode_changed_pairs_agree_with_the_distance(
            a in crate::testing::gen_trace(8), b in crate::testing::gen_trace(8)
        ) {
            let (ta, tb) = (crate::testing::build(&a), crate::testing::build(&b));
            let m = crate::measure(&ta, &tb, "a", "b", &crate::BehaviourOptions::default());
            let (turns_a, turns_b) = &m.turns;
            let d = distance(m.alignment.as_ref(), turns_a, turns_b);
            let changed = m
                .report
                .axes
                .iter()
                .find(|r| r.axis == veer_contract::axis::Axis::Trajectory)
                .map_or(0, |r| r.changed_pairs);
            // Both sides' turns are all paired or all counted, so the two judgements agree
            // whenever the report has turns on both sides.
            if !turns_a.is_empty() && !turns_b.is_empty() {
                proptest::prop_assert_eq!(changed > 0, d > 0.0, "changed {} d {}", changed, d);
            }
        }
    }

    #[test]
    fn no_calls_on_either_side_is_zero() {
        let a = trace(&[("hello", vec![])]);
        let b = trace(&[("something else entirely", vec![]), ("more", vec![])]);
        assert_eq!(compare(&a, &b), (0.0, Vec::new()));
    }
}
