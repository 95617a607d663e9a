//! One shape for every tool definition a request can carry: OpenAI Chat
//! (`{type: function, function: {name, description, parameters}}`), OpenAI Responses (the same
//! keys without the `function` wrapper), Anthropic and MCP (`{name, description,
//! input_schema}`; the MCP reader already renames `inputSchema`). The JSON-schema parameters
//! are flattened into dotted paths (`address.city`, `tags[]`, `items[].id`) so two versions of
//! a tool compare path by path; local `$ref`s (`#/$defs/Address`, as pydantic and FastMCP
//! write nested models) are followed.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// One tool as offered to the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tool {
    /// The tool's name.
    pub name: String,
    /// Its description and title, joined by a newline (empty when it has none).
    pub description: String,
    /// Its parameters by dotted path, in path order.
    pub params: BTreeMap<String, Param>,
}

/// One parameter of a tool (a property of the input schema, at any depth).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Param {
    /// The path of the object or array it belongs to (`None` at the top level).
    pub parent: Option<String>,
    /// Its own name (the last path segment; `[]` for array items).
    pub name: String,
    /// Its JSON-schema types (`type`, a list of types, or the types of `anyOf`/`oneOf`
    /// variants); empty when the schema says none (any value).
    pub types: BTreeSet<String>,
    /// Whether the enclosing object lists it in `required` (array items: always true).
    pub required: bool,
    /// Its description and title, joined by a newline (empty when it has none).
    pub description: String,
    /// Its `enum` values as compact JSON, when it has an `enum` (or a `const`).
    pub enum_values: Option<BTreeSet<String>>,
}

impl Param {
    /// Its types as one label: `string`, `string|null`, `any`.
    pub fn type_label(&self) -> String {
        if self.types.is_empty() {
            "any".to_string()
        } else {
            self.types.iter().cloned().collect::<Vec<_>>().join("|")
        }
    }
}

impl Tool {
    /// Its parameters without descriptions (path, types, required): what a rename of the tool
    /// must keep.
    pub fn signature(&self) -> Vec<(&str, &BTreeSet<String>, bool)> {
        self.params
            .iter()
            .map(|(k, p)| (k.as_str(), &p.types, p.required))
            .collect()
    }
}

/// The tool of one entry of a request's `tools`, None when it has no name (nothing to compare
/// it by).
pub(crate) fn tool(v: &Value) -> Option<Tool> {
    let o = v.as_object()?;
    // OpenAI Chat wraps the definition in `function`.
    let def = match o.get("function").and_then(Value::as_object) {
        Some(f) => f,
        None => o,
    };
    let name = def.get("name").and_then(Value::as_str)?.to_string();
    let schema = def
        .get("parameters")
        .or_else(|| def.get("input_schema"))
        .or_else(|| def.get("inputSchema"));
    let mut params = BTreeMap::new();
    if let Some(s) = schema {
        flatten(s, s, None, &mut params, 0);
    }
    Some(Tool {
        name,
        description: words(def),
        params,
    })
}

/// How deep nested schemas are followed (a self-describing schema cannot recurse forever).
const MAX_DEPTH: usize = 16;

/// Parameters kept per tool: a schema whose references branch back on themselves stops here
/// instead of growing without bound.
pub(crate) const MAX_PARAMS: usize = 512;

/// The description and title of a schema node, joined by a newline.
fn words(o: &serde_json::Map<String, Value>) -> String {
    let d = o.get("description").and_then(Value::as_str).unwrap_or("");
    let t = o.get("title").and_then(Value::as_str).unwrap_or("");
    match (d.is_empty(), t.is_empty()) {
        (false, false) => format!("{t}\n{d}"),
        (false, true) => d.to_string(),
        (true, false) => t.to_string(),
        (true, true) => String::new(),
    }
}

/// The node a local `$ref` (`#/…`) points at in `root`, followed a few times; `v` itself when
/// it has none (or it cannot be resolved).
fn resolve<'a>(v: &'a Value, root: &'a Value) -> &'a Value {
    let mut at = v;
    for _ in 0..MAX_DEPTH {
        let Some(r) = at.get("$ref").and_then(Value::as_str) else {
            break;
        };
        match r.strip_prefix('#').and_then(|ptr| root.pointer(ptr)) {
            Some(next) => at = next,
            None => break,
        }
    }
    at
}

/// The JSON-schema types of a node: `type` (a string or a list), else the types of its
/// `anyOf`/`oneOf` variants (local `$ref`s followed); `integer` is kept apart from `number`.
fn types_of(o: &serde_json::Map<String, Value>, root: &Value) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    match o.get("type") {
        Some(Value::String(t)) => {
            out.insert(t.clone());
        }
        Some(Value::Array(ts)) => out.extend(ts.iter().filter_map(Value::as_str).map(String::from)),
        _ => {
            for key in ["anyOf", "oneOf"] {
                for v in o.get(key).and_then(Value::as_array).into_iter().flatten() {
                    if let Some(vo) = resolve(v, root).as_object() {
                        if !vo.contains_key("anyOf") && !vo.contains_key("oneOf") {
                            out.extend(types_of(vo, root));
                        }
                    }
                }
            }
        }
    }
    out
}

/// The properties (and array items) of the object schema `s` under `parent`, into `out`.
fn flatten(
    s: &Value,
    root: &Value,
    parent: Option<&str>,
    out: &mut BTreeMap<String, Param>,
    depth: usize,
) {
    let Some(o) = resolve(s, root).as_object() else {
        return;
    };
    if depth >= MAX_DEPTH {
        return;
    }
    let required: BTreeSet<&str> = o
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if let Some(props) = o.get("properties").and_then(Value::as_object) {
        for (name, p) in props {
            let path = match parent {
                Some(pp) => format!("{pp}.{name}"),
                None => name.clone(),
            };
            add(
                (p, root),
                parent,
                name,
                &path,
                required.contains(name.as_str()),
                out,
                depth,
            );
        }
    }
    if parent.is_some() {
        if let Some(items) = o.get("items") {
            let p = parent.unwrap_or_default();
            let path = format!("{p}[]");
            add((items, root), Some(p), "[]", &path, true, out, depth);
        }
    }
}

/// One parameter node at `path`, then its own properties and items.
fn add(
    (p, root): (&Value, &Value),
    parent: Option<&str>,
    name: &str,
    path: &str,
    required: bool,
    out: &mut BTreeMap<String, Param>,
    depth: usize,
) {
    if out.len() >= MAX_PARAMS {
        return;
    }
    let empty = serde_json::Map::new();
    let own = p.as_object().unwrap_or(&empty);
    let po = resolve(p, root).as_object().unwrap_or(&empty);
    // The reference's own description wins over the definition's.
    let description = match words(own) {
        w if w.is_empty() => words(po),
        w => w,
    };
    let enum_values = po
        .get("enum")
        .and_then(Value::as_array)
        .map(|vs| vs.iter().map(Value::to_string).collect::<BTreeSet<_>>())
        .or_else(|| po.get("const").map(|c| BTreeSet::from([c.to_string()])));
    out.insert(
        path.to_string(),
        Param {
            parent: parent.map(str::to_string),
            name: name.to_string(),
            types: types_of(po, root),
            required,
            description,
            enum_values,
        },
    );
    flatten(p, root, Some(path), out, depth + 1);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn openai_anthropic_and_responses_shapes_give_the_same_tool() {
        let schema =
            json!({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]});
        let openai = json!({"type": "function", "function": {"name": "search", "description": "Find", "parameters": schema}});
        let responses = json!({"type": "function", "name": "search", "description": "Find", "parameters": schema});
        let anthropic = json!({"name": "search", "description": "Find", "input_schema": schema});
        let mcp = json!({"name": "search", "description": "Find", "inputSchema": schema});
        let t = tool(&openai).unwrap();
        assert_eq!(t.params["q"].type_label(), "string");
        assert!(t.params["q"].required);
        for other in [responses, anthropic, mcp] {
            assert_eq!(tool(&other).unwrap(), t);
        }
    }

    #[test]
    fn nested_objects_and_arrays_become_dotted_paths() {
        let t = tool(&json!({"name": "ship", "input_schema": {"type": "object", "properties": {
            "address": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
            "items": {"type": "array", "items": {"type": "object", "properties": {"sku": {"type": ["string", "null"]}}}}
        }}}))
        .unwrap();
        let paths: Vec<&str> = t.params.keys().map(String::as_str).collect();
        assert_eq!(
            paths,
            ["address", "address.city", "items", "items[]", "items[].sku"]
        );
        assert!(t.params["address.city"].required);
        assert!(!t.params["address"].required);
        assert_eq!(t.params["items[].sku"].type_label(), "null|string");
        assert_eq!(t.params["items[].sku"].parent.as_deref(), Some("items[]"));
    }

    #[test]
    fn local_refs_and_optional_any_of_are_followed() {
        // The shape pydantic (and so FastMCP) writes for `address: Optional[Address]`.
        let t = tool(&json!({"name": "ship", "inputSchema": {
            "$defs": {"Address": {"type": "object", "title": "Address",
                                  "properties": {"city": {"type": "string", "title": "City"}},
                                  "required": ["city"]}},
            "type": "object",
            "properties": {
                "to": {"$ref": "#/$defs/Address"},
                "from": {"anyOf": [{"$ref": "#/$defs/Address"}, {"type": "null"}], "default": null},
                "loop": {"$ref": "#"}
            },
            "required": ["to"]
        }}))
        .unwrap();
        assert_eq!(t.params["to"].type_label(), "object");
        assert_eq!(t.params["to"].description, "Address");
        assert!(t.params["to.city"].required);
        assert_eq!(t.params["to.city"].description, "City");
        assert_eq!(t.params["from"].type_label(), "null|object");
        // A reference back to the root is followed only to the depth limit.
        let looped = t.params.keys().filter(|k| k.starts_with("loop")).count();
        assert!((MAX_DEPTH..=4 * MAX_DEPTH).contains(&looped), "{looped}");
    }

    #[test]
    fn a_schema_branching_back_on_itself_stays_bounded() {
        let t = tool(
            &json!({"name": "tree", "input_schema": {"type": "object", "properties": {
                "left": {"$ref": "#"}, "right": {"$ref": "#"}, "also": {"$ref": "#"}
            }}}),
        )
        .unwrap();
        assert_eq!(t.params.len(), MAX_PARAMS);
    }

    #[test]
    fn a_tool_without_a_name_is_skipped() {
        assert!(tool(&json!({"type": "function"})).is_none());
        assert!(tool(&json!("search")).is_none());
    }
}
