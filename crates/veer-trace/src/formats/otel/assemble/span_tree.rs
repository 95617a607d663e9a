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
