//! Properties of the tool-schema comparison on random tool sets: a set against itself changes
//! nothing, and swapping the sides swaps every added with a removed (and required with
//! optional) change.

use super::{compare_offered, Offered};
use proptest::prelude::*;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use veer_contract::tool_schema::SchemaChangeKind as K;

/// Names far apart from each other (no two are similar enough to be a rename).
const NAMES: [&str; 6] = ["alpha", "bravo", "kilo", "oscar", "zulu", "mike"];
const TYPES: [&str; 4] = ["string", "integer", "boolean", "array"];

fn gen_tools() -> impl Strategy<Value = Value> {
    let param = (0usize..4, any::<bool>(), 0usize..3, any::<bool>());
    let tool = (
        0usize..6,
        0usize..3,
        proptest::collection::btree_map(0usize..6, param, 0..4),
    );
    proptest::collection::vec(tool, 0..4).prop_map(|tools| {
        let mut seen = BTreeMap::new();
        for (name, desc, params) in tools {
            let mut props = serde_json::Map::new();
            let mut required = Vec::new();
            for (p, (ty, req, en, nested)) in params {
                let mut s = json!({"type": TYPES[ty]});
                if en > 0 {
                    s["enum"] = json!(&["a", "b", "c"][..en + 1]);
                }
                if nested && TYPES[ty] == "array" {
                    s["items"] = json!({"type": "object", "properties": {"zulu": {"type": "string"}}});
                }
                props.insert(NAMES[p].to_string(), s);
                if req {
                    required.push(NAMES[p]);
                }
            }
            let description = ["", "x", "y"][desc];
            seen.insert(
                name,
                json!({"name": format!("tool_{}", NAMES[name]), "description": description,
                       "input_schema": {"type": "object", "properties": props, "required": required}}),
            );
        }
        Value::Array(seen.into_values().collect())
    })
}

fn offered(v: &Value) -> Offered {
    let mut o = Offered::default();
    o.add_request(v);
    o
}

/// The kind a change becomes when the sides are swapped.
fn swapped(k: K) -> K {
    match k {
        K::ToolAdded => K::ToolRemoved,
        K::ToolRemoved => K::ToolAdded,
        K::ParameterAdded => K::ParameterRemoved,
        K::ParameterRemoved => K::ParameterAdded,
        K::BecameRequired => K::BecameOptional,
        K::BecameOptional => K::BecameRequired,
        K::EnumWidened => K::EnumNarrowed,
        K::EnumNarrowed => K::EnumWidened,
        other => other,
    }
}

fn kinds(b: &Offered, c: &Offered) -> Vec<(String, K)> {
    let mut out: Vec<(String, K)> = compare_offered(b, c)
        .map(|d| {
            d.changes
                .iter()
                .map(|ch| (ch.location(), ch.kind))
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// A tool set against itself: no block.
    #[test]
    fn identity(t in gen_tools()) {
        let o = offered(&t);
        prop_assert!(compare_offered(&o, &o).is_none());
    }

    /// Swapping the sides turns added into removed (and back), required into optional,
    /// widened into narrowed; other kinds stay. Locations are by tool name, so renamed tools
    /// are left out of this comparison.
    #[test]
    fn swapping_the_sides_swaps_the_changes(b in gen_tools(), c in gen_tools()) {
        let (ob, oc) = (offered(&b), offered(&c));
        let forward = kinds(&ob, &oc);
        prop_assume!(!forward.iter().any(|(_, k)| *k == K::ToolRenamed));
        let mut mirrored: Vec<(String, K)> =
            forward.iter().map(|(l, k)| (l.clone(), swapped(*k))).collect();
        mirrored.sort();
        prop_assert_eq!(mirrored, kinds(&oc, &ob));
    }
}
