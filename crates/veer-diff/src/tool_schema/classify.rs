//! The changes between two offered tool sets and their classes (docs/tool-schema.md):
//!
//! * breaking — a tool or parameter removed or renamed, a type changed (other than widened),
//!   a parameter becoming required, a new required parameter, an `enum` losing values;
//! * compatible — a new tool, a new optional parameter, a required parameter becoming
//!   optional, a type widened (to a list holding the old type, `integer` to `number`, or to
//!   any type), an `enum` gaining values or dropped;
//! * cosmetic — a description or title edited.
//!
//! Renames are found by similarity: a removed and an added tool with the same parameters
//! (paths, types, required), or a removed and an added parameter of one object with the same
//! type and a similar name or description ([`SIMILAR`]). The children of an added, removed
//! or renamed parameter are part of that change and not listed again.

use super::normalise::{Param, Tool};
use crate::levenshtein::normalized_levenshtein;
use std::collections::{BTreeMap, BTreeSet};
use veer_contract::tool_schema::{SchemaChange, SchemaChangeKind as K, SchemaClass as C};

/// The similarity (0–1) at or above which a removed and an added parameter of the same type
/// are one renamed parameter.
pub(crate) const SIMILAR: f64 = 0.5;

/// Characters of a description kept in a change's `before`/`after`.
const SHOWN_CHARS: usize = 60;

/// Every change from `base` to `cand`: the candidate's tools in order (each tool-level change
/// first, then its parameters in path order), then the removed tools in baseline order.
pub(crate) fn changes(base: &[Tool], cand: &[Tool]) -> Vec<SchemaChange> {
    let by_name: BTreeMap<&str, &Tool> = base.iter().map(|t| (t.name.as_str(), t)).collect();
    let cand_names: BTreeSet<&str> = cand.iter().map(|t| t.name.as_str()).collect();
    let removed: Vec<&Tool> = base
        .iter()
        .filter(|t| !cand_names.contains(t.name.as_str()))
        .collect();
    let added: Vec<&Tool> = cand
        .iter()
        .filter(|t| !by_name.contains_key(t.name.as_str()))
        .collect();
    let renamed = tool_renames(&removed, &added);
    let mut out = Vec::new();
    for c in cand {
        if let Some(b) = by_name.get(c.name.as_str()) {
            tool_changes(b, c, &mut out);
        } else if let Some(b) = renamed.get(c.name.as_str()) {
            out.push(change(
                &c.name,
                None,
                K::ToolRenamed,
                C::Breaking,
                Some(b.name.clone()),
                Some(c.name.clone()),
            ));
            tool_changes(b, c, &mut out);
        } else {
            out.push(change(
                &c.name,
                None,
                K::ToolAdded,
                C::Compatible,
                None,
                None,
            ));
        }
    }
    let renamed_from: BTreeSet<&str> = renamed.values().map(|b| b.name.as_str()).collect();
    for b in removed {
        if !renamed_from.contains(b.name.as_str()) {
            out.push(change(
                &b.name,
                None,
                K::ToolRemoved,
                C::Breaking,
                None,
                None,
            ));
        }
    }
    out
}

/// Added tools that are a removed one under a new name (same parameter signature; tools
/// without parameters also need similar names), by added name.
fn tool_renames<'a>(removed: &[&'a Tool], added: &[&'a Tool]) -> BTreeMap<&'a str, &'a Tool> {
    let mut out: BTreeMap<&str, &Tool> = BTreeMap::new();
    for r in removed {
        let best = added
            .iter()
            .filter(|a| !out.contains_key(a.name.as_str()) && a.signature() == r.signature())
            .map(|a| (name_similarity(&r.name, &a.name), *a))
            .filter(|(s, _)| !r.params.is_empty() || *s >= SIMILAR)
            .max_by(|x, y| x.0.total_cmp(&y.0).then_with(|| y.1.name.cmp(&x.1.name)));
        if let Some((_, a)) = best {
            out.insert(a.name.as_str(), r);
        }
    }
    out
}

/// The changes of one tool present on both sides (`b` its baseline version, `c` its
/// candidate's), listed under the candidate's name.
fn tool_changes(b: &Tool, c: &Tool, out: &mut Vec<SchemaChange>) {
    let tool = c.name.as_str();
    if b.description != c.description {
        out.push(description_change(
            tool,
            None,
            &b.description,
            &c.description,
        ));
    }
    let removed: BTreeSet<&str> = b
        .params
        .keys()
        .filter(|k| !c.params.contains_key(*k))
        .map(String::as_str)
        .collect();
    let added: BTreeSet<&str> = c
        .params
        .keys()
        .filter(|k| !b.params.contains_key(*k))
        .map(String::as_str)
        .collect();
    // A node whose ancestor is itself removed or added is part of that change.
    let top_removed: Vec<&str> = removed
        .iter()
        .copied()
        .filter(|k| !under_any(&b.params, k, &removed))
        .collect();
    let top_added: Vec<&str> = added
        .iter()
        .copied()
        .filter(|k| !under_any(&c.params, k, &added))
        .collect();
    let renames = param_renames(b, c, &top_removed, &top_added);
    let mut keyed: Vec<(String, SchemaChange)> = Vec::new();
    for (old, new) in &renames {
        let (bp, cp) = (&b.params[*old], &c.params[*new]);
        keyed.push((
            new.to_string(),
            change(
                tool,
                Some(new),
                K::ParameterRenamed,
                C::Breaking,
                Some(bp.name.clone()),
                Some(cp.name.clone()),
            ),
        ));
        let mut more = Vec::new();
        param_changes(tool, new, bp, cp, false, &mut more);
        keyed.extend(more.into_iter().map(|ch| (new.to_string(), ch)));
    }
    let renamed_old: BTreeSet<&str> = renames.iter().map(|(o, _)| *o).collect();
    let renamed_new: BTreeSet<&str> = renames.iter().map(|(_, n)| *n).collect();
    for k in top_removed.iter().filter(|k| !renamed_old.contains(*k)) {
        keyed.push((
            k.to_string(),
            change(
                tool,
                Some(k),
                K::ParameterRemoved,
                C::Breaking,
                Some(b.params[*k].type_label()),
                None,
            ),
        ));
    }
    for k in top_added.iter().filter(|k| !renamed_new.contains(*k)) {
        let p = &c.params[*k];
        let (class, how) = if p.required {
            (C::Breaking, "required")
        } else {
            (C::Compatible, "optional")
        };
        keyed.push((
            k.to_string(),
            change(
                tool,
                Some(k),
                K::ParameterAdded,
                class,
                None,
                Some(format!("{}, {how}", p.type_label())),
            ),
        ));
    }
    for (k, bp) in &b.params {
        if let Some(cp) = c.params.get(k) {
            let mut more = Vec::new();
            param_changes(tool, k, bp, cp, true, &mut more);
            keyed.extend(more.into_iter().map(|ch| (k.clone(), ch)));
        }
    }
    keyed.sort_by(|x, y| x.0.cmp(&y.0));
    out.extend(keyed.into_iter().map(|(_, ch)| ch));
}

/// Whether a proper ancestor of `path` (following `parent` links in `params`) is in `set`.
fn under_any(params: &BTreeMap<String, Param>, path: &str, set: &BTreeSet<&str>) -> bool {
    let mut at = params.get(path).and_then(|p| p.parent.as_deref());
    while let Some(p) = at {
        if set.contains(p) {
            return true;
        }
        at = params.get(p).and_then(|q| q.parent.as_deref());
    }
    false
}

/// Removed and added parameters of one object, the same type, and a similar name or
/// description: (old path, new path), best matches first taken.
fn param_renames<'a>(
    b: &'a Tool,
    c: &'a Tool,
    removed: &[&'a str],
    added: &[&'a str],
) -> Vec<(&'a str, &'a str)> {
    let mut scored: Vec<(f64, &str, &str)> = Vec::new();
    for r in removed {
        let rp = &b.params[*r];
        for a in added {
            let ap = &c.params[*a];
            if rp.parent != ap.parent || rp.types != ap.types {
                continue;
            }
            let s = name_similarity(&rp.name, &ap.name)
                .max(text_similarity(&rp.description, &ap.description));
            if s >= SIMILAR {
                scored.push((s, r, a));
            }
        }
    }
    scored.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(y.1)).then(x.2.cmp(y.2)));
    let (mut used_r, mut used_a) = (BTreeSet::new(), BTreeSet::new());
    let mut out = Vec::new();
    for (_, r, a) in scored {
        if used_r.insert(r) {
            if used_a.insert(a) {
                out.push((r, a));
            } else {
                used_r.remove(r);
            }
        }
    }
    out
}

/// The changes of one parameter present on both sides (its type only when `with_type`).
fn param_changes(
    tool: &str,
    path: &str,
    b: &Param,
    c: &Param,
    with_type: bool,
    out: &mut Vec<SchemaChange>,
) {
    if with_type && b.types != c.types {
        let class = if widened(&b.types, &c.types) {
            C::Compatible
        } else {
            C::Breaking
        };
        out.push(change(
            tool,
            Some(path),
            K::TypeChanged,
            class,
            Some(b.type_label()),
            Some(c.type_label()),
        ));
    }
    match (b.required, c.required) {
        (false, true) => out.push(change(
            tool,
            Some(path),
            K::BecameRequired,
            C::Breaking,
            None,
            None,
        )),
        (true, false) => out.push(change(
            tool,
            Some(path),
            K::BecameOptional,
            C::Compatible,
            None,
            None,
        )),
        _ => {}
    }
    if b.enum_values != c.enum_values {
        let wider = match (&b.enum_values, &c.enum_values) {
            (Some(old), Some(new)) => old.is_subset(new),
            (Some(_), None) => true,
            _ => false,
        };
        let (kind, class) = if wider {
            (K::EnumWidened, C::Compatible)
        } else {
            (K::EnumNarrowed, C::Breaking)
        };
        let show = |e: &Option<BTreeSet<String>>| match e {
            Some(vs) => vs.iter().cloned().collect::<Vec<_>>().join(", "),
            None => "any".to_string(),
        };
        out.push(change(
            tool,
            Some(path),
            kind,
            class,
            Some(show(&b.enum_values)),
            Some(show(&c.enum_values)),
        ));
    }
    if b.description != c.description {
        out.push(description_change(
            tool,
            Some(path),
            &b.description,
            &c.description,
        ));
    }
}

/// Whether the types `new` accept every value of `old`: no type (any value), a superset, or
/// `number` where `old` had `integer`. A parameter that had no type (any) narrows.
fn widened(old: &BTreeSet<String>, new: &BTreeSet<String>) -> bool {
    if new.is_empty() {
        return true;
    }
    !old.is_empty()
        && old
            .iter()
            .all(|t| new.contains(t) || (t == "integer" && new.contains("number")))
}

/// A cosmetic description change, each side shortened to [`SHOWN_CHARS`] characters.
fn description_change(tool: &str, path: Option<&str>, b: &str, c: &str) -> SchemaChange {
    change(
        tool,
        path,
        K::DescriptionChanged,
        C::Cosmetic,
        Some(shown(b)),
        Some(shown(c)),
    )
}

/// `s` on one line, cut at [`SHOWN_CHARS`] characters (with `…`); `""` shows as `(none)`.
fn shown(s: &str) -> String {
    if s.is_empty() {
        return "(none)".to_string();
    }
    let one_line: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= SHOWN_CHARS {
        one_line
    } else {
        let cut: String = one_line.chars().take(SHOWN_CHARS).collect();
        format!("{cut}…")
    }
}

fn change(
    tool: &str,
    parameter: Option<&str>,
    kind: K,
    class: C,
    before: Option<String>,
    after: Option<String>,
) -> SchemaChange {
    SchemaChange {
        tool: tool.to_string(),
        parameter: parameter.map(str::to_string),
        kind,
        class,
        before,
        after,
    }
}

/// How alike two identifiers are (0–1): 1 when equal ignoring case, `_`, `-` and spaces
/// (`user_id`, `userId`), 0.8 when one contains the other (`id`, `order_id`), 0.7 when the
/// shorter is an abbreviation of the longer (same first letter, its letters in order: `db`,
/// `database`), else one minus the normalised edit distance of their characters.
pub(crate) fn name_similarity(a: &str, b: &str) -> f64 {
    let norm = |s: &str| -> Vec<char> {
        s.chars()
            .filter(|c| !matches!(c, '_' | '-' | ' ' | '.'))
            .flat_map(char::to_lowercase)
            .collect()
    };
    let (x, y) = (norm(a), norm(b));
    if x.is_empty() || y.is_empty() {
        return 0.0;
    }
    if x == y {
        return 1.0;
    }
    let (xs, ys): (String, String) = (x.iter().collect(), y.iter().collect());
    if xs.contains(&ys) || ys.contains(&xs) {
        return 0.8;
    }
    let (short, long) = if x.len() <= y.len() {
        (&x, &y)
    } else {
        (&y, &x)
    };
    if short[0] == long[0] && is_subsequence(short, long) {
        return 0.7;
    }
    1.0 - normalized_levenshtein(&x, &y)
}

/// How alike two descriptions are (0–1): one minus the normalised edit distance of their
/// lower-cased words; 0 when either is empty.
fn text_similarity(a: &str, b: &str) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let words = |s: &str| -> Vec<String> { s.split_whitespace().map(str::to_lowercase).collect() };
    1.0 - normalized_levenshtein(&words(a), &words(b))
}

/// Whether `short` appears in `long` in order (not necessarily adjacent).
fn is_subsequence(short: &[char], long: &[char]) -> bool {
    let mut it = long.iter();
    short.iter().all(|c| it.any(|l| l == c))
}
