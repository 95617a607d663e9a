//! Reading the span tree: the session of every span, model calls recorded twice, and the tool
//! spans that belong to each model call (the rules of [`super`]).

use super::{Node, Piece};
use std::collections::HashMap;

/// The session key of every span (its own or nearest ancestor's session id, else
/// `trace:<id>`), and how many spans sat on a parent cycle.
pub(super) fn sessions_of(nodes: &[Node], parent_of: &[Option<usize>]) -> (Vec<String>, usize) {
    let mut memo: Vec<Option<Option<String>>> = vec![None; nodes.len()];
    let mut visiting = vec![false; nodes.len()];
    let mut cycles = 0usize;
    for start in 0..nodes.len() {
        let mut path = Vec::new();
        let mut cur = start;
        let found: Option<String> = loop {
            if let Some(v) = &memo[cur] {
                break v.clone();
            }
            if visiting[cur] {
                cycles += path.len();
                break None;
            }
            visiting[cur] = true;
            path.push(cur);
            if let Some(s) = &nodes[cur].own_session {
                break Some(s.clone());
            }
            match parent_of[cur] {
                Some(p) => cur = p,
                None => break None,
            }
        };
        for p in path {
            visiting[p] = false;
            memo[p] = Some(found.clone());
        }
    }
    let keys = memo
        .into_iter()
        .zip(nodes)
        .map(|(m, n)| m.flatten().unwrap_or_else(|| format!("trace:{}", n.trace)))
        .collect();
    (keys, cycles)
}

/// Marks model calls recorded twice (same trace and response id): the one with captured
/// output, then more attributes, then the earlier start, then the smaller span id, is kept.
pub(super) fn drop_duplicate_calls(nodes: &[Node], pieces: &[Piece]) -> Vec<bool> {
    let mut dropped = vec![false; nodes.len()];
    let mut best: HashMap<(&str, &str), usize> = HashMap::new();
    let rank = |i: usize| match &pieces[i] {
        Piece::Model(c) => (
            !c.output_captured,
            usize::MAX - c.attribute_count,
            nodes[i].start,
            nodes[i].id.clone(),
        ),
        _ => (true, usize::MAX, u64::MAX, String::new()),
    };
    for (i, p) in pieces.iter().enumerate() {
        let Piece::Model(c) = p else { continue };
        let Some(rid) = c.response_id.as_deref() else {
            continue;
        };
        match best.get(&(nodes[i].trace.as_str(), rid)).copied() {
            None => {
                best.insert((&nodes[i].trace, rid), i);
            }
            Some(j) => {
                if rank(i) < rank(j) {
                    dropped[j] = true;
                    best.insert((&nodes[i].trace, rid), i);
                } else {
                    dropped[i] = true;
                }
            }
        }
    }
    dropped
}

/// Collapses model calls nested in model calls: a model-call span whose parent is a
/// model-call span records the same call (an agent framework's span around the provider
/// SDK's, e.g. Google ADK's `call_llm` around `generate_content`), with or without a response
/// id. Each chain of such spans becomes one turn, placed where its outermost span is (its
/// parent, times and session), and read from its best recording: the one with captured
/// output, then more attributes, then the earlier start, then the smaller span id. The
/// others are marked in `dropped`; returns how many were.
pub(super) fn collapse_nested_calls(
    nodes: &[Node],
    parent_of: &[Option<usize>],
    pieces: &mut [Piece],
    dropped: &mut [bool],
) -> usize {
    let is_call = |pieces: &[Piece], dropped: &[bool], i: usize| {
        !dropped[i] && matches!(pieces[i], Piece::Model(_))
    };
    // The outermost call of each call's chain (bounded walk: parent links may cycle).
    let mut root_of: Vec<Option<usize>> = vec![None; nodes.len()];
    for (i, root) in root_of.iter_mut().enumerate() {
        if !is_call(pieces, dropped, i) {
            continue;
        }
        let mut cur = i;
        let mut steps = 0usize;
        while let Some(p) = parent_of[cur] {
            if p == i || steps >= nodes.len() || !is_call(pieces, dropped, p) {
                break;
            }
            cur = p;
            steps += 1;
        }
        *root = Some(cur);
    }
    let mut chains: HashMap<usize, Vec<usize>> = HashMap::new();
    for (i, r) in root_of.iter().enumerate() {
        if let Some(r) = r {
            chains.entry(*r).or_default().push(i);
        }
    }
    let rank = |pieces: &[Piece], i: usize| match &pieces[i] {
        Piece::Model(c) => (
            !c.output_captured,
            usize::MAX - c.attribute_count,
            nodes[i].start,
            nodes[i].id.clone(),
        ),
        _ => (true, usize::MAX, u64::MAX, String::new()),
    };
    let mut collapsed = 0usize;
    let mut roots: Vec<usize> = chains.keys().copied().collect();
    roots.sort_unstable();
    for root in roots {
        let members = &chains[&root];
        if members.len() < 2 {
            continue;
        }
        let best = members
            .iter()
            .copied()
            .min_by(|&a, &b| rank(pieces, a).cmp(&rank(pieces, b)))
            .unwrap_or(root);
        if best != root {
            pieces.swap(best, root);
        }
        for &m in members {
            if m != root {
                dropped[m] = true;
                pieces[m] = Piece::None;
                collapsed += 1;
            }
        }
    }
    collapsed
}

/// For each member (by position), the positions of the tool spans that belong to it when it
/// is a model call: tool spans whose parent is the call, or that follow it under the same
/// parent before the next call there.
pub(super) fn attach_tools(
    members: &[usize],
    nodes: &[Node],
    parent_of: &[Option<usize>],
    pieces: &[Piece],
) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); members.len()];
    let mut last_model_under: HashMap<Option<usize>, usize> = HashMap::new();
    let mut position_of: HashMap<usize, usize> = HashMap::new();
    for (pos, &i) in members.iter().enumerate() {
        match pieces[i] {
            Piece::Model(_) => {
                last_model_under.insert(parent_of[i], pos);
                position_of.insert(i, pos);
            }
            Piece::Tool(_) => {
                let owner = parent_of[i]
                    .and_then(|p| position_of.get(&p).copied())
                    .or_else(|| {
                        nodes[i]
                            .parent
                            .as_ref()
                            .and(last_model_under.get(&parent_of[i]).copied())
                    });
                if let Some(o) = owner {
                    out[o].push(pos);
                }
            }
            Piece::None => {}
        }
    }
    out
}
