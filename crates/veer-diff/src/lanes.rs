//! The side-by-side view of two runs that the HTML report draws: one row per alignment step
//! (matched, changed, inserted, dropped), long runs of unchanged turns collapsed into one row,
//! and for the rows worth opening a drill-down with the request, both responses, the tool calls
//! and a word-level diff of the texts.
//!
//! Built only when asked (`BehaviourOptions::lanes`), after the measures; it reads the traces and the
//! alignment and computes nothing the other printers show. Texts are cut at fixed lengths so a
//! 10,000-turn pair stays a file a browser opens quickly.

use crate::align::cost::{intern, pair_cost};
use crate::align::{Alignment, Step, NOISE_FLOOR};
use crate::turn::DiffTurn;
use crate::word_diff::word_diff;
use std::collections::BTreeSet;
use veer_contract::lanes::{
    LaneCell, LaneRow, LaneStatus, Lanes, ToolCallView, TurnDetail, TurnSide, COLLAPSE_AFTER,
    DETAIL_ROWS, DRAWN_ROWS, PREVIEW_CHARS, TEXT_CHARS,
};
use veer_trace::views::Response;
use veer_trace::Trace;

/// Turns the report names and that therefore always get a drill-down.
#[derive(Debug, Clone, Default)]
pub struct Named {
    /// Baseline turns.
    pub baseline: BTreeSet<usize>,
    /// Candidate turns.
    pub candidate: BTreeSet<usize>,
}

/// The first `n` characters of `s`, with `…` when cut.
pub(crate) fn cut(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

/// The text of a message `content`: a string, or the `text` of its parts joined by newlines.
fn content_text(content: &veer_trace::Json) -> String {
    match content {
        veer_trace::Json::String(s) => s.to_string(),
        veer_trace::Json::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(veer_trace::Json::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The last message of the request before response `turn`.
fn request_text(trace: &Trace, turns: &[veer_trace::views::Turn], turn: usize) -> Option<String> {
    let record = trace.records.get(turns.get(turn)?.request?)?;
    let message = record.field("messages")?.as_array()?.last()?;
    let text = content_text(message.get("content")?);
    Some(cut(&text, TEXT_CHARS))
}

fn side(trace: &Trace, turns: &[veer_trace::views::Turn], r: &Response<'_>) -> TurnSide {
    TurnSide {
        request: request_text(trace, turns, r.turn),
        text: cut(&r.text("\n"), TEXT_CHARS),
        tool_calls: r
            .tool_uses()
            .map(|u| ToolCallView {
                name: u.name.unwrap_or("_").to_string(),
                input: cut(
                    &u.input.map(ToString::to_string).unwrap_or_default(),
                    TEXT_CHARS,
                ),
            })
            .collect(),
        stop_reason: r.stop_reason().unwrap_or("").to_string(),
    }
}

fn cell(t: &DiffTurn, r: &Response<'_>) -> LaneCell {
    LaneCell {
        turn: r.turn,
        line: r.record.line,
        tools: t.shape_sequence().into_iter().map(str::to_string).collect(),
        preview: cut(t.text_nl(), PREVIEW_CHARS),
    }
}

/// The steps to draw: the alignment's, or index pairs then the longer side's tail when there
/// is no alignment.
fn steps_or_index(alignment: Option<&Alignment>, nb: usize, nc: usize) -> (bool, Vec<Step>) {
    match alignment {
        Some(a) => (true, a.steps.clone()),
        None => {
            let mut steps: Vec<Step> = (0..nb.min(nc)).map(|i| Step::Match(i, i)).collect();
            steps.extend((nc..nb).map(Step::Delete));
            steps.extend((nb..nc).map(Step::Insert));
            (false, steps)
        }
    }
}

/// Builds the side-by-side view of two traces from their diff turns and alignment.
pub fn build(
    baseline: (&Trace, &[DiffTurn]),
    candidate: (&Trace, &[DiffTurn]),
    alignment: Option<&Alignment>,
    named: &Named,
) -> Lanes {
    let (trace_b, tb) = baseline;
    let (trace_c, tc) = candidate;
    let (rb, rc) = (trace_b.responses(), trace_c.responses());
    let (turns_b, turns_c) = (trace_b.turns(), trace_c.turns());
    let (ab, ac) = intern(tb, tc);
    let (aligned, steps) = steps_or_index(alignment, tb.len(), tc.len());
    let mut rows = Vec::new();
    let mut run: Vec<(usize, usize)> = Vec::new();
    let mut detailed = 0;
    let mut undetailed = 0;
    let mut drawn = 0;
    let mut not_drawn = 0;
    let mut pending: Option<(Option<usize>, Option<usize>, usize)> = None;
    // Steps past the drawing budget gather into one "not drawn" row until a drawn row.
    let hide = |pending: &mut Option<(Option<usize>, Option<usize>, usize)>,
                b: Option<usize>,
                c: Option<usize>,
                n: usize| {
        let p = pending.get_or_insert((None, None, 0));
        p.0 = p.0.or(b);
        p.1 = p.1.or(c);
        p.2 += n;
    };
    let show = |pending: &mut Option<(Option<usize>, Option<usize>, usize)>,
                rows: &mut Vec<LaneRow>,
                not_drawn: &mut usize| {
        if let Some((b, c, n)) = pending.take() {
            *not_drawn += n;
            rows.push(LaneRow::NotDrawn {
                baseline_from: b,
                candidate_from: c,
                steps: n,
            });
        }
    };
    let flush = |run: &mut Vec<(usize, usize)>,
                 rows: &mut Vec<LaneRow>,
                 pending: &mut Option<(Option<usize>, Option<usize>, usize)>,
                 not_drawn: &mut usize,
                 over_budget: bool| {
        if run.is_empty() {
            return;
        }
        if over_budget && run.len() <= COLLAPSE_AFTER {
            hide(pending, Some(run[0].0), Some(run[0].1), run.len());
            run.clear();
            return;
        }
        show(pending, rows, not_drawn);
        if run.len() > COLLAPSE_AFTER {
            rows.push(LaneRow::Collapsed {
                baseline_from: run[0].0,
                candidate_from: run[0].1,
                count: run.len(),
            });
        } else {
            for &(i, j) in run.iter() {
                if let (Some(t), Some(r), Some(u), Some(s)) =
                    (tb.get(i), rb.get(i), tc.get(j), rc.get(j))
                {
                    rows.push(LaneRow::Step {
                        status: LaneStatus::Matched,
                        cost: 0.0,
                        above_noise: false,
                        baseline: Some(cell(t, r)),
                        candidate: Some(cell(u, s)),
                        detail: None,
                    });
                }
            }
        }
        run.clear();
    };
    for step in steps {
        let (bi, ci, status, cost) = match step {
            Step::Match(i, j) => {
                let cost = match (ab.get(i), ac.get(j)) {
                    (Some(x), Some(y)) => pair_cost(x, y).cost,
                    _ => 0.0,
                };
                if cost <= 0.0 && !named.baseline.contains(&i) && !named.candidate.contains(&j) {
                    run.push((i, j));
                    continue;
                }
                let status = if cost <= 0.0 {
                    LaneStatus::Matched
                } else {
                    LaneStatus::Changed
                };
                (Some(i), Some(j), status, cost)
            }
            Step::Insert(j) => (None, Some(j), LaneStatus::Inserted, 0.0),
            Step::Delete(i) => (Some(i), None, LaneStatus::Dropped, 0.0),
        };
        let is_named = bi.is_some_and(|i| named.baseline.contains(&i))
            || ci.is_some_and(|j| named.candidate.contains(&j));
        let over_budget = drawn >= DRAWN_ROWS;
        flush(
            &mut run,
            &mut rows,
            &mut pending,
            &mut not_drawn,
            over_budget,
        );
        if over_budget && !is_named {
            hide(&mut pending, bi, ci, 1);
            continue;
        }
        show(&mut pending, &mut rows, &mut not_drawn);
        drawn += 1;
        let b = bi.and_then(|i| Some((tb.get(i)?, rb.get(i)?)));
        let c = ci.and_then(|j| Some((tc.get(j)?, rc.get(j)?)));
        let wants = is_named || (status != LaneStatus::Matched && detailed < DETAIL_ROWS);
        let detail = if wants {
            detailed += 1;
            let bs = b.map(|(_, r)| side(trace_b, &turns_b, r));
            let cs = c.map(|(_, r)| side(trace_c, &turns_c, r));
            let words = word_diff(
                bs.as_ref().map_or("", |s| s.text.as_str()),
                cs.as_ref().map_or("", |s| s.text.as_str()),
            );
            Some(Box::new(TurnDetail {
                baseline: bs,
                candidate: cs,
                words,
            }))
        } else {
            if status != LaneStatus::Matched {
                undetailed += 1;
            }
            None
        };
        rows.push(LaneRow::Step {
            status,
            cost,
            above_noise: status != LaneStatus::Matched
                && (cost > NOISE_FLOOR || status != LaneStatus::Changed),
            baseline: b.map(|(t, r)| cell(t, r)),
            candidate: c.map(|(t, r)| cell(t, r)),
            detail,
        });
    }
    flush(
        &mut run,
        &mut rows,
        &mut pending,
        &mut not_drawn,
        drawn >= DRAWN_ROWS,
    );
    show(&mut pending, &mut rows, &mut not_drawn);
    Lanes {
        aligned,
        rows,
        detailed,
        undetailed,
        not_drawn,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_counts_characters_not_bytes() {
        assert_eq!(cut("héllo", 2), "hé…");
        assert_eq!(cut("hé", 2), "hé");
    }

    fn turn(word: u8, stop: u8) -> crate::testing::GenTurn {
        crate::testing::GenTurn {
            tools: Vec::new(),
            words: vec![word, word],
            stop,
            output_tokens: 1,
            latency: 1,
            new_session: false,
        }
    }

    fn lanes_of(
        b: &[crate::testing::GenTurn],
        c: &[crate::testing::GenTurn],
        named: &Named,
    ) -> Lanes {
        let (tb, tc) = (crate::testing::build(b), crate::testing::build(c));
        let (db, dc) = crate::turn::diff_turn_pair(&tb, &tc);
        build((&tb, &db), (&tc, &dc), None, named)
    }

    #[test]
    fn unchanged_runs_collapse_and_changed_rows_stay() {
        let b: Vec<_> = (0..10).map(|_| turn(0, 0)).collect();
        let mut c = b.clone();
        c[5] = turn(1, 1);
        let l = lanes_of(&b, &c, &Named::default());
        let kinds: Vec<String> = l
            .rows
            .iter()
            .map(|r| match r {
                LaneRow::Collapsed { count, .. } => format!("collapsed {count}"),
                LaneRow::Step { status, .. } => status.label().to_string(),
                LaneRow::NotDrawn { steps, .. } => format!("not drawn {steps}"),
            })
            .collect();
        assert_eq!(kinds, ["collapsed 5", "changed", "collapsed 4"]);
        assert_eq!((l.detailed, l.undetailed, l.not_drawn), (1, 0, 0));
    }

    #[test]
    fn rows_past_the_budget_are_summarised_but_named_rows_are_drawn() {
        let n = DRAWN_ROWS + 50;
        let b: Vec<_> = (0..n).map(|_| turn(0, 0)).collect();
        let c: Vec<_> = (0..n).map(|_| turn(1, 1)).collect();
        let mut named = Named::default();
        named.candidate.insert(DRAWN_ROWS + 10);
        let l = lanes_of(&b, &c, &named);
        let steps: usize = l
            .rows
            .iter()
            .map(|r| match r {
                LaneRow::Step { .. } => 1,
                LaneRow::NotDrawn { steps, .. } => *steps,
                LaneRow::Collapsed { count, .. } => *count,
            })
            .sum();
        assert_eq!(steps, n, "every step is accounted for");
        assert_eq!(l.not_drawn, 49);
        assert_eq!(
            l.detailed,
            DETAIL_ROWS + 1,
            "the named row has its drill-down"
        );
        assert!(l.rows.iter().any(
            |r| matches!(r, LaneRow::Step { candidate: Some(c), .. } if c.turn == DRAWN_ROWS + 10)
        ));
        assert!(matches!(
            l.rows.last(),
            Some(LaneRow::NotDrawn { steps: 39, .. })
        ));
    }

    #[test]
    fn index_steps_cover_both_tails() {
        let (aligned, s) = steps_or_index(None, 3, 1);
        assert!(!aligned);
        assert_eq!(s, vec![Step::Match(0, 0), Step::Delete(1), Step::Delete(2)]);
    }
}
