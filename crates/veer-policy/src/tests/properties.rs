//! Properties: a trace against itself has no regressions or fixes; swapping the sides swaps
//! regressions and fixes; evaluation does not depend on the thread count; the LTL parser
//! never panics.

use super::*;
use crate::compare::compare;
use proptest::prelude::*;

fn all_kinds_policy() -> Policy {
    policy(
        "rules:
  - {id: a, kind: must_call_before, params: {first: t0, then: t1}}
  - {id: b, kind: must_call_once, params: {tool: t2}, scope: session}
  - {id: c, kind: no_call, params: {tool: t1}}
  - {id: d, kind: max_turns, params: {limit: 2}, scope: session}
  - {id: e, kind: required_stop_reason, params: {allowed: end_turn}}
  - {id: f, kind: max_total_tokens, params: {limit: 3}}
  - {id: g, kind: must_include_text, params: {text: w1}}
  - {id: h, kind: must_include_text_each, params: {text: w0}, scope: session}
  - {id: i, kind: forbidden_text, params: {text: w2}, when: {path: stop_reason, op: '==', value: end_turn}}
  - {id: j, kind: must_match_json_schema, params: {schema: {type: object}}}
  - {id: k, kind: must_remain_consistent, params: {path: stop_reason}}
  - {id: l, kind: must_followup, params: {must: {kind: tool_call, tool_name: t0}}, scope: session}
  - {id: m, kind: must_be_grounded, params: {retrieval_path: request.messages.0.content}}
  - {id: n, kind: ltl_formula, params: {formula: 'G (tool_call:t1 -> X tool_call:t2)'}}
",
    )
}

fn arb_trace() -> impl Strategy<Value = Trace> {
    let pair = (
        prop::collection::vec(0usize..3, 0..3),
        0usize..3,
        prop::bool::ANY,
        prop::bool::ANY,
    );
    prop::collection::vec(pair, 0..6).prop_map(|pairs| {
        let mut recs = vec![meta()];
        for (tools, word, user, stop) in pairs {
            recs.push(req(if user { "user" } else { "tool" }));
            let names: Vec<String> = tools.iter().map(|t| format!("t{t}")).collect();
            let refs: Vec<&str> = names.iter().map(String::as_str).collect();
            recs.push(resp(
                &refs,
                &format!("w{word}"),
                if stop { "end_turn" } else { "tool_use" },
            ));
        }
        trace(&recs)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Rules and pair contexts are evaluated in parallel; the violations and warnings are the
    /// same, in the same order, with one thread and with four.
    #[test]
    fn evaluation_is_the_same_on_any_number_of_threads(t in arb_trace()) {
        let p = all_kinds_policy();
        let on = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| crate::evaluate_with_warnings(&p, &t))
        };
        let one = on(1);
        prop_assert_eq!(&one, &on(4));
        prop_assert_eq!(one.violations, crate::evaluate(&p, &t));
    }

    #[test]
    fn a_trace_against_itself_has_no_change(t in arb_trace()) {
        let d = compare(&all_kinds_policy(), &t, &t);
        prop_assert!(d.regressions.is_empty());
        prop_assert!(d.fixes.is_empty());
    }

    #[test]
    fn swapping_sides_swaps_regressions_and_fixes(a in arb_trace(), b in arb_trace()) {
        let p = all_kinds_policy();
        let ab = compare(&p, &a, &b);
        let ba = compare(&p, &b, &a);
        prop_assert_eq!(ab.regressions, ba.fixes);
        prop_assert_eq!(ab.fixes, ba.regressions);
    }

    #[test]
    fn loader_never_panics(s in "\\PC{0,200}") {
        let _ = Policy::load_str(&s, "p.yaml", false, std::path::Path::new("."));
        let _ = Policy::load_str(&s, "p.json", true, std::path::Path::new("."));
    }

    #[test]
    fn loader_never_panics_on_policy_shaped_yaml(
        kind in "(no_call|must_followup|ltl_formula|max_turns|must_match_json_schema|bogus)",
        key in "(tool|limit|formula|must|schema|text|when|trigger)",
        value in "(1|-2|2.5|true|null|''|x|\\[\\]|\\{\\}|\\{kind: tool_call\\}|'G \\(')",
    ) {
        let y = format!("rules:\n  - kind: {kind}\n    params: {{{key}: {value}}}\n    when: {{path: text, op: '==', value: {value}}}\n");
        let _ = Policy::load_str(&y, "p.yaml", false, std::path::Path::new("."));
    }

    #[test]
    fn ltl_parser_never_panics(s in "\\PC{0,64}") {
        let _ = crate::ltl::parse(&s);
    }

    #[test]
    fn ltl_parser_never_panics_on_operator_soup(s in "[()!&|\\-> GFXUWa-c:\"\\\\]{0,80}") {
        if let Ok(f) = crate::ltl::parse(&s) {
            let _ = crate::ltl::evaluate(&f, &[]);
        }
    }
}
