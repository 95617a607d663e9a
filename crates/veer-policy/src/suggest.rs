//! Policy suggestion (spec `policy.md` §13): `must_call_before` rules mined from the order in
//! which tools are first called across the scenarios of a trace.

use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use veer_trace::Trace;

/// How much evidence a suggestion needs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SuggestOptions {
    /// Least number of scenarios holding both tools (default 3).
    pub min_support: usize,
    /// Least share of those scenarios with the suggested order (default 1.0).
    pub min_consistency: f64,
}

impl Default for SuggestOptions {
    fn default() -> Self {
        SuggestOptions {
            min_support: 3,
            min_consistency: 1.0,
        }
    }
}

/// The parameters of a suggested `must_call_before` rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SuggestedParams {
    /// The tool that comes first.
    pub first: String,
    /// The tool that comes after.
    pub then: String,
}

/// One suggested rule.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Suggestion {
    /// `"<first>-before-<then>"`.
    pub rule_id: String,
    /// Always `must_call_before`.
    pub kind: &'static str,
    /// The rule's parameters.
    pub params: SuggestedParams,
    /// `n_ordered / n_both`.
    pub confidence: f64,
    /// Scenarios holding both tools.
    pub n_both: usize,
    /// Scenarios where `first` is first called before `then`.
    pub n_ordered: usize,
    /// Why, for people.
    pub rationale: String,
}

/// Suggestions and the warnings raised while mining them.
#[derive(Debug, Clone, PartialEq)]
pub struct Suggestions {
    /// Sorted by support, then confidence (both descending), then rule id.
    pub suggestions: Vec<Suggestion>,
    /// E.g. records without a scenario id that were ignored.
    pub warnings: Vec<String>,
}

fn scenario_of(r: &veer_trace::Record) -> Option<&str> {
    r.meta
        .as_ref()?
        .get("scenario_id")?
        .as_str()
        .filter(|s| !s.is_empty())
}

/// Mines `must_call_before` suggestions from `trace`.
pub fn suggest(trace: &Trace, options: SuggestOptions) -> Suggestions {
    let mut warnings = Vec::new();
    let any_scenario = trace.records.iter().any(|r| scenario_of(r).is_some());
    let ignored = if any_scenario {
        trace
            .records
            .iter()
            .filter(|r| scenario_of(r).is_none())
            .count()
    } else {
        0
    };
    if ignored > 0 {
        warnings.push(format!(
            "{ignored} record(s) without meta.scenario_id ignored (other records have one)"
        ));
    }
    // First-call position of each tool, per scenario (scenarios in order of appearance).
    let mut order: Vec<&str> = Vec::new();
    let mut firsts: HashMap<&str, BTreeMap<String, usize>> = HashMap::new();
    for (pos, call) in trace.tool_calls().into_iter().enumerate() {
        if call.name.is_empty() {
            continue;
        }
        let scenario = if any_scenario {
            match scenario_of(&trace.records[call.record_index]) {
                Some(s) => s,
                None => continue,
            }
        } else {
            ""
        };
        let entry = firsts.entry(scenario).or_insert_with(|| {
            order.push(scenario);
            BTreeMap::new()
        });
        entry.entry(call.name).or_insert(pos);
    }
    let tools: BTreeSet<&String> = firsts.values().flat_map(|m| m.keys()).collect();
    let tools: Vec<&String> = tools.into_iter().collect();
    let mut out = Vec::new();
    for (i, a) in tools.iter().enumerate() {
        for b in &tools[i + 1..] {
            let (mut n_both, mut a_first) = (0usize, 0usize);
            for s in &order {
                let m = &firsts[s];
                if let (Some(x), Some(y)) = (m.get(*a), m.get(*b)) {
                    n_both += 1;
                    if x < y {
                        a_first += 1;
                    }
                }
            }
            if n_both == 0 || n_both < options.min_support {
                continue;
            }
            for (first, then, n_ord) in [(a, b, a_first), (b, a, n_both - a_first)] {
                let confidence = n_ord as f64 / n_both as f64;
                if confidence < options.min_consistency || n_ord == 0 {
                    continue;
                }
                let tail = if n_ord == n_both {
                    "never observed in the other order.".to_string()
                } else {
                    format!(
                        "observed in the other order in {}/{n_both}.",
                        n_both - n_ord
                    )
                };
                out.push(Suggestion {
                    rule_id: format!("{first}-before-{then}"),
                    kind: "must_call_before",
                    params: SuggestedParams {
                        first: first.to_string(),
                        then: then.to_string(),
                    },
                    confidence,
                    n_both,
                    n_ordered: n_ord,
                    rationale: format!(
                        "`{first}` precedes `{then}` in {n_ord}/{n_both} scenarios ({:.0}%); {tail}",
                        confidence * 100.0
                    ),
                });
            }
        }
    }
    out.sort_by(|x, y| {
        y.n_both
            .cmp(&x.n_both)
            .then(y.confidence.total_cmp(&x.confidence))
            .then_with(|| x.rule_id.as_bytes().cmp(y.rule_id.as_bytes()))
    });
    Suggestions {
        suggestions: out,
        warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::{req, resp, trace};
    use serde_json::json;

    /// A trace of scenarios, each a list of tools called one per response.
    fn scenarios(list: &[&[&str]]) -> Trace {
        let mut recs = vec![crate::tests::meta()];
        for tools in list {
            recs.push(req("user"));
            for t in *tools {
                recs.push(resp(&[t], "", "tool_use"));
            }
        }
        let mut t = trace(&recs);
        // Tag records with scenario ids: a new scenario starts at each request.
        let mut s = 0;
        let mut started = false;
        for r in &mut t.records {
            if r.kind == veer_trace::Kind::ChatRequest {
                if started {
                    s += 1;
                }
                started = true;
            }
            if started {
                let mut m = serde_json::Map::new();
                m.insert("scenario_id".into(), json!(format!("s{s}")));
                r.meta = Some(Box::new(m));
            }
        }
        t
    }

    #[test]
    fn pinned_cases() {
        let five = vec![&["verify", "check", "transfer"][..]; 5];
        let r = suggest(&scenarios(&five), SuggestOptions::default());
        let ids: Vec<&str> = r.suggestions.iter().map(|s| s.rule_id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "check-before-transfer",
                "verify-before-check",
                "verify-before-transfer"
            ]
        );
        assert!(r.suggestions.iter().all(|s| s.confidence == 1.0));
        assert!(
            r.suggestions[0].rationale.contains("5/5")
                && r.suggestions[0].rationale.contains("100%")
        );
        assert_eq!(
            r.warnings.len(),
            1,
            "the metadata record has no scenario id"
        );

        let split = [&["a", "b"][..], &["a", "b"], &["b", "a"], &["b", "a"]];
        assert!(suggest(&scenarios(&split), SuggestOptions::default())
            .suggestions
            .is_empty());

        let two = [&["a", "b"][..], &["a", "b"]];
        assert!(suggest(&scenarios(&two), SuggestOptions::default())
            .suggestions
            .is_empty());

        let most = [&["a", "b"][..], &["a", "b"], &["a", "b"], &["b", "a"]];
        let r = suggest(
            &scenarios(&most),
            SuggestOptions {
                min_support: 3,
                min_consistency: 0.7,
            },
        );
        assert_eq!(r.suggestions.len(), 1);
        assert_eq!(r.suggestions[0].confidence, 0.75);
        assert_eq!(
            r.suggestions[0].rationale,
            "`a` precedes `b` in 3/4 scenarios (75%); observed in the other order in 1/4."
        );
    }
}
