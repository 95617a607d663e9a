//! The atomic deltas between two configurations and the factors they form (docs/bisect.md,
//! "Deltas and factors").
//!
//! A delta is one key path whose value differs between A and B: objects are walked key by
//! key; anything else — a string however long (a prompt is one delta), a number, a boolean,
//! null, and a whole array — is one leaf. A path present on one side only is a delta too
//! (added or removed). Each delta is a factor of its own unless `--group PATH=NAME` merges every
//! delta at or under PATH into the factor NAME.

use crate::error::Error;
use serde_json::{Map, Value};

/// One atomic difference between A and B.
#[derive(Debug, Clone, PartialEq)]
pub struct Delta {
    /// The key path, outermost first.
    pub path: Vec<String>,
    /// A's value (`None`: the key is absent in A).
    pub a: Option<Value>,
    /// B's value (`None`: the key is absent in B).
    pub b: Option<Value>,
}

impl Delta {
    /// The path as shown and matched by `--group`: keys joined by `.`.
    pub fn display(&self) -> String {
        display_path(&self.path)
    }
}

/// `path` joined by `.`.
pub(crate) fn display_path(path: &[String]) -> String {
    path.join(".")
}

/// A factor of the design: one or more deltas switched together.
#[derive(Debug, Clone, PartialEq)]
pub struct Factor {
    /// Its name: the `--group` name, else the delta's path.
    pub name: String,
    /// The deltas it switches, in the order they were found.
    pub deltas: Vec<Delta>,
}

impl Factor {
    /// The paths of its deltas.
    pub fn paths(&self) -> Vec<String> {
        self.deltas.iter().map(Delta::display).collect()
    }
}

/// The deltas from `a` to `b` in document order (A's keys first, then keys only B has).
pub fn deltas(a: &Value, b: &Value) -> Vec<Delta> {
    let mut out = Vec::new();
    walk(&mut Vec::new(), Some(a), Some(b), &mut out);
    out
}

fn walk(path: &mut Vec<String>, a: Option<&Value>, b: Option<&Value>, out: &mut Vec<Delta>) {
    match (a, b) {
        (Some(Value::Object(ma)), Some(Value::Object(mb))) => {
            let keys = ma.keys().chain(mb.keys().filter(|k| !ma.contains_key(*k)));
            for k in keys {
                path.push(k.clone());
                walk(path, ma.get(k), mb.get(k), out);
                path.pop();
            }
        }
        (a, b) if a != b => out.push(Delta {
            path: path.clone(),
            a: a.cloned(),
            b: b.cloned(),
        }),
        _ => {}
    }
}

/// One `--group PATH=NAME`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// The key path prefix (keys joined by `.`).
    pub path: String,
    /// The factor's name.
    pub name: String,
}

impl Group {
    /// Parses `PATH=NAME`.
    pub fn parse(spec: &str) -> Result<Group, Error> {
        match spec.split_once('=') {
            Some((p, n)) if !p.trim().is_empty() && !n.trim().is_empty() => Ok(Group {
                path: p.trim().to_string(),
                name: n.trim().to_string(),
            }),
            _ => Err(Error::input(format!(
                "--group: `{spec}` is not PATH=NAME"
            ))
            .hint("e.g. --group agent.tools=tools (every delta at or under agent.tools becomes the factor `tools`)")),
        }
    }

    fn covers(&self, path: &str) -> bool {
        path == self.path
            || path
                .strip_prefix(&self.path)
                .is_some_and(|rest| rest.starts_with('.'))
    }
}

/// The factors: each delta alone, or merged by the first `--group` that covers its path (two
/// groups with the same name are one factor). Factors are in the order of their first delta.
/// A group that covers no delta is an error.
pub fn factors(deltas: Vec<Delta>, groups: &[Group]) -> Result<Vec<Factor>, Error> {
    for g in groups {
        if !deltas.iter().any(|d| g.covers(&d.display())) {
            let known: Vec<String> = deltas.iter().map(Delta::display).collect();
            return Err(Error::input(format!(
                "--group {}={}: no delta is at or under `{}`",
                g.path, g.name, g.path
            ))
            .hint(format!(
                "the deltas between the two configurations are: {}",
                if known.is_empty() {
                    "(none)".to_string()
                } else {
                    known.join(", ")
                }
            )));
        }
    }
    let mut out: Vec<Factor> = Vec::new();
    for d in deltas {
        let path = d.display();
        let name = groups
            .iter()
            .find(|g| g.covers(&path))
            .map_or(path, |g| g.name.clone());
        match out.iter_mut().find(|f| f.name == name) {
            Some(f) => f.deltas.push(d),
            None => out.push(Factor {
                name,
                deltas: vec![d],
            }),
        }
    }
    Ok(out)
}

/// A's configuration with the deltas of every factor whose level is `true` (B) applied: keys B
/// adds are appended, keys B removes are removed.
pub(crate) fn apply(a: &Value, factors: &[Factor], levels: &[bool]) -> Value {
    let mut v = a.clone();
    for (f, _) in factors.iter().zip(levels).filter(|(_, &on)| on) {
        for d in &f.deltas {
            set(&mut v, &d.path, d.b.as_ref());
        }
    }
    v
}

fn set(root: &mut Value, path: &[String], value: Option<&Value>) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut node = root;
    for k in parents {
        if !node.is_object() {
            *node = Value::Object(Map::new());
        }
        let Value::Object(m) = node else { return };
        node = m
            .entry(k.clone())
            .or_insert_with(|| Value::Object(Map::new()));
    }
    if !node.is_object() {
        *node = Value::Object(Map::new());
    }
    if let Value::Object(m) = node {
        match value {
            Some(v) => {
                m.insert(last.clone(), v.clone());
            }
            None => {
                m.shift_remove(last);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn a() -> Value {
        json!({"model": "m1", "prompt": "Look up the order first.\nThen refund.",
               "tools": ["lookup", "refund"], "agent": {"temperature": 0.0, "retries": 2},
               "old": true})
    }

    fn b() -> Value {
        json!({"model": "m2", "prompt": "Refund quickly.",
               "tools": ["refund"], "agent": {"temperature": 0.7, "retries": 2, "seed": 1}})
    }

    #[test]
    fn deltas_by_path_arrays_and_texts_whole() {
        let d = deltas(&a(), &b());
        let paths: Vec<String> = d.iter().map(Delta::display).collect();
        assert_eq!(
            paths,
            [
                "model",
                "prompt",
                "tools",
                "agent.temperature",
                "agent.seed",
                "old"
            ]
        );
        assert_eq!(d[4].a, None);
        assert_eq!(d[5].b, None);
        assert!(deltas(&a(), &a()).is_empty());
    }

    #[test]
    fn all_on_gives_b_and_all_off_gives_a() {
        let f = factors(deltas(&a(), &b()), &[]).unwrap();
        assert_eq!(apply(&a(), &f, &vec![false; f.len()]), a());
        assert_eq!(apply(&a(), &f, &vec![true; f.len()]), b());
        let one = apply(&a(), &f, &[true, false, false, false, false, false]);
        assert_eq!(one["model"], "m2");
        assert_eq!(one["prompt"], a()["prompt"]);
    }

    #[test]
    fn groups_merge_and_unknown_groups_fail() {
        let g = [Group::parse("agent=sampling").unwrap()];
        let f = factors(deltas(&a(), &b()), &g).unwrap();
        let names: Vec<&str> = f.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["model", "prompt", "tools", "sampling", "old"]);
        assert_eq!(f[3].paths(), ["agent.temperature", "agent.seed"]);
        // `agen` is not a segment prefix of `agent.…`.
        let e = factors(deltas(&a(), &b()), &[Group::parse("agen=x").unwrap()]).unwrap_err();
        assert!(e.message.contains("no delta"));
        assert!(e.hint.unwrap().contains("agent.temperature"));
        assert!(Group::parse("nonsense").is_err());
        assert!(Group::parse("=x").is_err());
    }

    fn leaf() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (-5i64..5).prop_map(Value::from),
            "[a-c ]{0,6}".prop_map(Value::String),
            proptest::collection::vec((-2i64..2).prop_map(Value::from), 0..3)
                .prop_map(Value::Array),
        ]
    }

    fn tree() -> impl Strategy<Value = Value> {
        leaf().prop_recursive(3, 24, 4, |inner| {
            proptest::collection::btree_map("[k-n]", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect()))
        })
    }

    fn object() -> impl Strategy<Value = Value> {
        proptest::collection::btree_map("[k-n]", tree(), 0..5)
            .prop_map(|m| Value::Object(m.into_iter().collect()))
    }

    proptest! {
        /// All factors at A give A, all at B give B, for any two configurations; each factor
        /// alone changes exactly its own paths.
        #[test]
        fn the_corners_are_a_and_b(a in object(), b in object()) {
            let f = factors(deltas(&a, &b), &[]).unwrap();
            let all_a = apply(&a, &f, &vec![false; f.len()]);
            let all_b = apply(&a, &f, &vec![true; f.len()]);
            prop_assert_eq!(&all_a, &a);
            prop_assert_eq!(&all_b, &b);
            for j in 0..f.len() {
                let mut levels = vec![false; f.len()];
                levels[j] = true;
                let one = apply(&a, &f, &levels);
                let changed: Vec<String> = deltas(&a, &one).iter().map(Delta::display).collect();
                prop_assert_eq!(changed, f[j].paths());
            }
        }
    }

    #[test]
    fn a_scalar_replaced_by_an_object_is_one_delta() {
        let d = deltas(&json!({"x": 1}), &json!({"x": {"y": 2}}));
        assert_eq!(d.len(), 1);
        let f = factors(d, &[]).unwrap();
        assert_eq!(apply(&json!({"x": 1}), &f, &[true]), json!({"x": {"y": 2}}));
    }
}
