//! The bodies of the policy fuzz targets (`fuzz/fuzz_targets/policy_*.rs`, `when_resolver.rs`,
//! `ltl_parser.rs`), kept in the library so that the fuzzer and the corpus-replay tests run
//! exactly the same code (docs/fuzzing.md). Each body panics only when an invariant breaks.

use crate::context::PairContext;
use crate::ltl::{self, State};
use crate::model::Policy;
use crate::path::Path;
use crate::when::{json_eq, Condition, Op, OPS};
use serde_json::Value;
use std::path::Path as FsPath;
use veer_trace::Trace;

/// The policy loader: the first byte picks YAML (even) or JSON (odd), the rest is the file.
/// A policy that loads is evaluated on `trace` twice (the results must agree) and gated.
pub fn policy_loader(data: &[u8], trace: &Trace) {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let json = selector % 2 == 1;
    // A directory that does not exist: a `schema_path` can only name a file beside the
    // working directory, and the loader must say so rather than fail.
    let base = FsPath::new("/nonexistent/veer-fuzz");
    match Policy::load_str(text, "fuzz.policy", json, base) {
        Ok(policy) => {
            let first = crate::eval::evaluate_with_warnings(&policy, trace);
            let again = crate::eval::evaluate_with_warnings(&policy, trace);
            assert_eq!(first, again, "evaluation is deterministic");
            for v in &first.violations {
                assert!(
                    policy.rules.iter().any(|r| r.id == v.rule_id),
                    "a violation names a rule of the policy"
                );
            }
            let _ =
                veer_contract::policy::gate_violations(veer_base::Level::Minor, &first.violations);
        }
        Err(e) => {
            assert!(
                !e.problems.is_empty(),
                "an error names at least one problem"
            );
            let _ = e.to_string();
        }
    }
}

/// The `when:` path resolver: the input is four lines — a path, an operator, a JSON literal
/// and a JSON object whose `request`, `response`, `model`, `stop_reason`, `text` and
/// `tool_names` members make up the pair's context. Checks that complementary operators
/// disagree and that a resolved value equals itself.
pub fn when_resolver(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut lines = text.splitn(4, '\n');
    let (Some(path), Some(op), Some(literal)) = (lines.next(), lines.next(), lines.next()) else {
        return;
    };
    let Ok(path) = Path::parse(path) else {
        return;
    };
    let literal: Value = serde_json::from_str(literal).unwrap_or(Value::Null);
    let root: Value = lines
        .next()
        .and_then(|r| serde_json::from_str(r).ok())
        .unwrap_or(Value::Null);
    let root = veer_trace::Json::from(root);
    let empty = veer_trace::Json::empty_object();
    let member = |k: &str| root.get(k).cloned().unwrap_or_default();
    let request = root.get("request").unwrap_or(&empty);
    let response = root.get("response").unwrap_or(&empty);
    let ctx = PairContext {
        request,
        response,
        model: member("model"),
        stop_reason: member("stop_reason"),
        text: member("text"),
        tool_names: member("tool_names"),
    };
    let resolved = path.resolve(&ctx);
    if let Some(v) = resolved {
        assert!(json_eq(v, v), "a resolved value equals itself");
    }
    let holds = |op: Op| {
        Condition {
            path: path.clone(),
            op,
            value: literal.clone(),
        }
        .matches(&ctx)
    };
    // The named operator, if it is one, must evaluate without trouble.
    if let Some(op) = Op::parse(op) {
        let _ = holds(op);
    }
    let all: Vec<(Op, bool)> = OPS
        .iter()
        .filter_map(|name| Op::parse(name))
        .map(|op| (op, holds(op)))
        .collect();
    let get = |o: Op| all.iter().find(|(p, _)| *p == o).map(|&(_, h)| h);
    if resolved.is_none() {
        assert!(
            all.iter().all(|&(_, h)| !h),
            "no condition holds on a missing path"
        );
        return;
    }
    assert_ne!(get(Op::Eq), get(Op::Ne), "== and != disagree");
    assert_ne!(
        get(Op::Contains),
        get(Op::NotContains),
        "contains and not_contains disagree"
    );
    if literal.is_array() {
        assert_ne!(get(Op::In), get(Op::NotIn), "in and not_in disagree");
    }
    if get(Op::Gt) == Some(true) {
        assert_eq!(get(Op::Le), Some(false), "> excludes <=");
    }
    if get(Op::Lt) == Some(true) {
        assert_eq!(get(Op::Ge), Some(false), "< excludes >=");
    }
}

/// The LTL parser: any text; a formula that parses is evaluated on a few fixed states, and
/// its value at every position must be a boolean for each of the `n + 1` positions.
pub fn ltl_parser(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match ltl::parse(text) {
        Ok(formula) => {
            let calls = [
                vec!["lookup_order".to_string()],
                vec![],
                vec!["refund".to_string(), "notify".to_string()],
            ];
            let states: Vec<State<'_>> = calls
                .iter()
                .zip(["tool_use", "end_turn", ""])
                .zip(["checking", "", "refunded $20"])
                .map(|((c, s), t)| State {
                    tool_calls: c,
                    stop_reason: s,
                    text: t,
                })
                .collect();
            for n in 0..=states.len() {
                let out = ltl::evaluate(&formula, &states[..n]);
                assert_eq!(out.len(), n + 1, "one value per position and the end");
            }
            assert_eq!(
                ltl::parse(text).as_ref(),
                Ok(&formula),
                "parsing is deterministic"
            );
        }
        Err(e) => {
            let chars = text.chars().count();
            assert!(
                e.column >= 1 && e.column <= chars + 1,
                "column {} within 1..={} for {text:?}",
                e.column,
                chars + 1
            );
        }
    }
}
