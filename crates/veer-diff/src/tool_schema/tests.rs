//! Each classification rule of docs/tool-schema.md on small OpenAI and Anthropic tool sets, and
//! the MCP fixture read through veer-trace.

use super::*;
use serde_json::json;
use veer_contract::tool_schema::{SchemaChangeKind as K, SchemaClass as C};

fn offered(tools: Value) -> Offered {
    let mut o = Offered::default();
    o.add_request(&tools);
    o
}

fn anthropic(name: &str, description: &str, schema: Value) -> Value {
    json!({"name": name, "description": description, "input_schema": schema})
}

fn openai(name: &str, description: &str, schema: Value) -> Value {
    json!({"type": "function", "function": {"name": name, "description": description, "parameters": schema}})
}

fn obj(props: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": props, "required": required})
}

/// (location, kind, class) of every change.
fn diff(b: Value, c: Value) -> Vec<(String, K, C)> {
    compare_offered(&offered(b), &offered(c))
        .map(|d| {
            d.changes
                .iter()
                .map(|ch| (ch.location(), ch.kind, ch.class))
                .collect()
        })
        .unwrap_or_default()
}

fn one(loc: &str, kind: K, class: C) -> Vec<(String, K, C)> {
    vec![(loc.to_string(), kind, class)]
}

fn search(props: Value, required: &[&str]) -> Value {
    json!([anthropic("search", "Search the web", obj(props, required))])
}

#[test]
fn the_same_tools_give_no_block() {
    let t = search(json!({"q": {"type": "string"}}), &["q"]);
    assert!(compare_offered(&offered(t.clone()), &offered(t)).is_none());
    assert!(compare_offered(&Offered::default(), &Offered::default()).is_none());
}

#[test]
fn the_openai_and_anthropic_shapes_of_one_tool_are_the_same_tool() {
    let schema = obj(json!({"q": {"type": "string"}}), &["q"]);
    let a = json!([anthropic("search", "Find", schema.clone())]);
    let o = json!([openai("search", "Find", schema)]);
    assert_eq!(diff(a, o), vec![]);
}

#[test]
fn a_removed_tool_is_breaking_and_a_new_one_compatible() {
    let s = anthropic(
        "search",
        "Find",
        obj(json!({"q": {"type": "string"}}), &["q"]),
    );
    let f = anthropic(
        "fetch",
        "Get a page",
        obj(json!({"url": {"type": "string"}}), &["url"]),
    );
    assert_eq!(
        diff(json!([s.clone(), f.clone()]), json!([s.clone()])),
        one("fetch", K::ToolRemoved, C::Breaking)
    );
    assert_eq!(
        diff(json!([s.clone()]), json!([s, f])),
        one("fetch", K::ToolAdded, C::Compatible)
    );
}

#[test]
fn a_tool_with_the_same_parameters_under_a_new_name_is_renamed() {
    let schema = obj(json!({"city": {"type": "string"}}), &["city"]);
    let got = compare_offered(
        &offered(json!([openai("get_weather", "Weather", schema.clone())])),
        &offered(json!([openai("weather_now", "Weather", schema)])),
    )
    .unwrap();
    assert_eq!(got.changes.len(), 1, "{:?}", got.changes);
    let ch = &got.changes[0];
    assert_eq!((ch.kind, ch.class), (K::ToolRenamed, C::Breaking));
    assert_eq!(ch.before.as_deref(), Some("get_weather"));
    assert_eq!(ch.after.as_deref(), Some("weather_now"));
}

#[test]
fn tools_without_parameters_and_unlike_names_are_removed_and_added() {
    let got = diff(
        json!([anthropic("ping", "", json!({"type": "object"}))]),
        json!([anthropic("shutdown", "", json!({"type": "object"}))]),
    );
    assert_eq!(
        got,
        vec![
            ("shutdown".into(), K::ToolAdded, C::Compatible),
            ("ping".into(), K::ToolRemoved, C::Breaking)
        ]
    );
}

#[test]
fn a_removed_parameter_is_breaking() {
    assert_eq!(
        diff(
            search(
                json!({"q": {"type": "string"}, "limit": {"type": "integer"}}),
                &["q"]
            ),
            search(json!({"q": {"type": "string"}}), &["q"])
        ),
        one("search.limit", K::ParameterRemoved, C::Breaking)
    );
}

#[test]
fn a_new_optional_parameter_is_compatible_and_a_new_required_one_breaking() {
    let base = search(json!({"q": {"type": "string"}}), &["q"]);
    let props = json!({"q": {"type": "string"}, "lang": {"type": "string"}});
    assert_eq!(
        diff(base.clone(), search(props.clone(), &["q"])),
        one("search.lang", K::ParameterAdded, C::Compatible)
    );
    assert_eq!(
        diff(base, search(props, &["q", "lang"])),
        one("search.lang", K::ParameterAdded, C::Breaking)
    );
}

#[test]
fn a_parameter_with_the_same_type_and_a_similar_name_is_renamed() {
    let got = compare_offered(
        &offered(search(json!({"query": {"type": "string"}}), &["query"])),
        &offered(search(json!({"q": {"type": "string"}}), &["q"])),
    )
    .unwrap();
    assert_eq!(got.changes.len(), 1, "{:?}", got.changes);
    assert_eq!(got.changes[0].kind, K::ParameterRenamed);
    assert_eq!(got.changes[0].class, C::Breaking);
    assert_eq!(
        got.changes[0].line(),
        "search.q: parameter_renamed (query -> q)"
    );
    // camelCase to snake_case is a rename too.
    assert_eq!(
        diff(
            search(json!({"userId": {"type": "string"}}), &[]),
            search(json!({"user_id": {"type": "string"}}), &[])
        ),
        one("search.user_id", K::ParameterRenamed, C::Breaking)
    );
}

#[test]
fn a_parameter_with_a_new_name_but_the_same_description_is_renamed() {
    let d = "The ISO country code of the shipping address";
    assert_eq!(
        diff(
            search(json!({"cc": {"type": "string", "description": d}}), &[]),
            search(json!({"region": {"type": "string", "description": d}}), &[])
        ),
        one("search.region", K::ParameterRenamed, C::Breaking)
    );
}

#[test]
fn unlike_parameters_or_other_types_are_not_renamed() {
    assert_eq!(
        diff(
            search(json!({"query": {"type": "string"}}), &[]),
            search(json!({"query_text": {"type": "integer"}}), &[])
        ),
        vec![
            ("search.query".into(), K::ParameterRemoved, C::Breaking),
            ("search.query_text".into(), K::ParameterAdded, C::Compatible)
        ]
    );
    assert_eq!(
        diff(
            search(json!({"query": {"type": "string"}}), &[]),
            search(json!({"timeout": {"type": "string"}}), &[])
        )
        .len(),
        2
    );
}

#[test]
fn a_changed_type_is_breaking_and_a_widened_one_compatible() {
    assert_eq!(
        diff(
            search(json!({"limit": {"type": "integer"}}), &[]),
            search(json!({"limit": {"type": "string"}}), &[])
        ),
        one("search.limit", K::TypeChanged, C::Breaking)
    );
    for wider in [
        json!({"type": "number"}),
        json!({"type": ["integer", "null"]}),
        json!({}),
    ] {
        assert_eq!(
            diff(
                search(json!({"limit": {"type": "integer"}}), &[]),
                search(json!({"limit": wider}), &[])
            ),
            one("search.limit", K::TypeChanged, C::Compatible)
        );
    }
    // From any value to one type narrows.
    assert_eq!(
        diff(
            search(json!({"limit": {}}), &[]),
            search(json!({"limit": {"type": "integer"}}), &[])
        ),
        one("search.limit", K::TypeChanged, C::Breaking)
    );
}

#[test]
fn required_changes_are_classified_by_direction() {
    let props = json!({"q": {"type": "string"}});
    assert_eq!(
        diff(search(props.clone(), &[]), search(props.clone(), &["q"])),
        one("search.q", K::BecameRequired, C::Breaking)
    );
    assert_eq!(
        diff(search(props.clone(), &["q"]), search(props, &[])),
        one("search.q", K::BecameOptional, C::Compatible)
    );
}

#[test]
fn a_widened_enum_is_compatible_and_a_narrowed_one_breaking() {
    let e = |vs: &[&str]| search(json!({"unit": {"type": "string", "enum": vs}}), &[]);
    assert_eq!(
        diff(e(&["c", "f"]), e(&["c", "f", "k"])),
        one("search.unit", K::EnumWidened, C::Compatible)
    );
    assert_eq!(
        diff(e(&["c", "f"]), e(&["c"])),
        one("search.unit", K::EnumNarrowed, C::Breaking)
    );
    let got = compare_offered(&offered(e(&["c", "f"])), &offered(e(&["c"]))).unwrap();
    assert_eq!(got.changes[0].before.as_deref(), Some("\"c\", \"f\""));
}

#[test]
fn description_and_title_edits_are_cosmetic() {
    let s = |d: &str| {
        json!([anthropic(
            "search",
            d,
            obj(json!({"q": {"type": "string", "title": d}}), &["q"])
        )])
    };
    let got = diff(s("Search the web"), s("Search the whole web"));
    assert_eq!(
        got,
        vec![
            ("search".into(), K::DescriptionChanged, C::Cosmetic),
            ("search.q".into(), K::DescriptionChanged, C::Cosmetic)
        ]
    );
}

#[test]
fn nested_parameters_compare_by_dotted_path_and_children_of_a_change_are_not_repeated() {
    let ship = |city: Value, extra: bool| {
        let mut props = json!({"address": {"type": "object", "properties": {"city": city}, "required": ["city"]}});
        if extra {
            props["lines"] = json!({"type": "array", "items": {"type": "object", "properties": {"sku": {"type": "string"}}}});
        }
        json!([anthropic("ship", "Ship", obj(props, &["address"]))])
    };
    assert_eq!(
        diff(
            ship(json!({"type": "string"}), false),
            ship(json!({"type": "integer"}), false)
        ),
        one("ship.address.city", K::TypeChanged, C::Breaking)
    );
    // A new array parameter is one change, not one per nested node.
    assert_eq!(
        diff(
            ship(json!({"type": "string"}), false),
            ship(json!({"type": "string"}), true)
        ),
        one("ship.lines", K::ParameterAdded, C::Compatible)
    );
    assert_eq!(
        diff(
            ship(json!({"type": "string"}), true),
            ship(json!({"type": "string"}), false)
        ),
        one("ship.lines", K::ParameterRemoved, C::Breaking)
    );
}

#[test]
fn a_tool_redefined_within_one_side_is_compared_at_its_last_definition_with_a_note() {
    let mut b = Offered::default();
    b.add_request(&search(json!({"q": {"type": "string"}}), &[]));
    b.add_request(&search(json!({"q": {"type": "integer"}}), &[]));
    let c = offered(search(json!({"q": {"type": "integer"}}), &["q"]));
    let got = compare_offered(&b, &c).unwrap();
    assert_eq!(got.changes.len(), 1);
    assert_eq!(got.changes[0].kind, K::BecameRequired);
    assert_eq!(got.notes.len(), 1, "{:?}", got.notes);
    assert!(got.notes[0].contains("search"), "{}", got.notes[0]);
    assert_eq!(got.counts.breaking, 1);
    assert_eq!(got.worst, Some(C::Breaking));
}

#[test]
fn the_gate_trips_at_or_above_its_threshold_only() {
    let mut d = compare_offered(
        &offered(search(json!({"q": {"type": "string"}}), &["q"])),
        &offered(search(json!({"q": {"type": "string"}}), &[])),
    )
    .unwrap();
    assert_eq!(d.worst, Some(C::Compatible));
    d.set_gate(Some(C::Breaking));
    assert!(!d.tripped);
    d.set_gate(Some(C::Compatible));
    assert!(d.tripped);
    d.set_gate(Some(C::Cosmetic));
    assert!(d.tripped);
    d.set_gate(None);
    assert!(!d.tripped);
}

#[test]
fn the_mcp_fixtures_offer_tools_through_the_reader() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
    let read = |p: &str| {
        let path = dir.join(p);
        veer_trace::load_trace(&path, &veer_trace::ReadOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    for p in [
        "formats/mcp-sdk/baseline.mcp.jsonl",
        "shadow/mcp-session/baseline.mcp.jsonl",
    ] {
        let trace = read(p);
        let tools = Offered::of_trace(&trace);
        assert!(!tools.is_empty(), "{p}");
        // The same trace against itself changes nothing; against no tools every tool is
        // removed.
        assert!(compare(&trace, &trace).is_none(), "{p}");
        let gone = compare_offered(&tools, &Offered::default()).unwrap();
        assert_eq!(gone.counts.breaking, tools.len(), "{p}");
        assert!(gone
            .changes
            .iter()
            .all(|c| c.kind == K::ToolRemoved && c.parameter.is_none()));
    }
}

/// The Shadow fixtures whose tools changed between the recorded runs: renamed parameters
/// (`order_id` to `id`, `database` to `db`), a parameter replaced by an unlike one
/// (`patient_id` to `mrn`), descriptions shortened, a new optional parameter.
#[test]
fn the_recorded_shadow_runs_with_changed_tools_are_classified() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/shadow");
    let block = |name: &str| {
        let read = |side: &str| {
            let p = dir.join(name).join(format!("{side}.agentlog"));
            veer_trace::load_trace(&p, &veer_trace::ReadOptions::default())
                .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        };
        compare(&read("baseline"), &read("candidate")).unwrap()
    };
    let lines = |name: &str| -> Vec<String> {
        block(name)
            .changes
            .iter()
            .map(|c| format!("{} {}", c.class.label(), c.line()))
            .collect()
    };
    let support = lines("customer-support");
    for want in [
        "cosmetic lookup_order: description_changed (Fetch order details by order_id. -> Fetch order details.)",
        "breaking lookup_order.id: parameter_renamed (order_id -> id)",
        "compatible lookup_order.include_shipping: parameter_added (boolean, optional)",
        "cosmetic refund_order: description_changed (Issue a refund against an order. ONLY use after customer con… -> Issue a refund.)",
    ] {
        assert!(support.contains(&want.to_string()), "{want} not in {support:#?}");
    }
    assert_eq!(support.len(), 4, "{support:#?}");
    let triage = lines("er-triage");
    assert!(
        triage.contains(
            &"breaking lookup_patient_history.patient_id: parameter_removed (was string)"
                .to_string()
        ),
        "{triage:#?}"
    );
    assert!(
        triage.contains(
            &"breaking lookup_patient_history.mrn: parameter_added (string, required)".to_string()
        ),
        "{triage:#?}"
    );
    let devops = lines("devops-agent");
    assert!(
        devops.contains(&"breaking execute_sql.db: parameter_renamed (database -> db)".to_string()),
        "{devops:#?}"
    );
    assert_eq!(block("devops-agent").worst, Some(C::Breaking));
}
