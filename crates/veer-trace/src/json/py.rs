//! The payload tree read by Python's rules (`veer_base::pystr`): traxr renders and compares
//! payload fields as CPython does, and the payloads are held as [`Json`], so the tree gives the
//! rules its nodes the way `serde_json::Value` does.

use super::{Json, Object};
use veer_base::pystr::{PyNode, PyObject, PyValue};

impl PyValue for Json {
    type Object = Object;
    fn node(&self) -> PyNode<'_, Json> {
        match self {
            Json::Null => PyNode::Null,
            Json::Bool(b) => PyNode::Bool(*b),
            Json::Number(n) => PyNode::Number(n),
            Json::String(s) => PyNode::String(s),
            Json::Array(a) => PyNode::Array(a),
            Json::Object(o) => PyNode::Object(o),
        }
    }
}

impl PyObject<Json> for Object {
    fn len(&self) -> usize {
        Object::len(self)
    }
    fn get(&self, key: &str) -> Option<&Json> {
        Object::get(self, key)
    }
    fn entries(&self) -> impl Iterator<Item = (&str, &Json)> {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::Value;
    use veer_base::pystr::{py_eq, py_eq_opt, py_str, truthy, write_repr};

    /// Any JSON value: numbers beyond i64, floats that equal integers, strings with quotes and
    /// non-printables, small nested lists and dicts.
    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            prop_oneof![Just(0.0), Just(-0.0), Just(1.0), any::<f64>()]
                .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
            "[a'\"\\\n\u{0}\u{a0}é]{0,4}".prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec(("[abc]", inner), 0..4)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// The compact payloads render, compare and test truthiness exactly as the
        /// `serde_json::Value` they stand for.
        #[test]
        fn json_reads_as_its_value(a in value(), b in value(), same in any::<bool>()) {
            let b = if same { a.clone() } else { b };
            let (ja, jb) = (Json::from(a.clone()), Json::from(b.clone()));
            prop_assert_eq!(py_eq(&ja, &jb), py_eq(&a, &b));
            prop_assert_eq!(py_eq(&jb, &ja), py_eq(&b, &a));
            prop_assert_eq!(py_str(&ja), py_str(&a));
            prop_assert_eq!(truthy(&ja), truthy(&a));
            let (mut r, mut s) = (String::new(), String::new());
            write_repr(&mut r, &ja);
            write_repr(&mut s, &a);
            prop_assert_eq!(r, s);
            prop_assert_eq!(py_eq_opt(Some(&ja), None), py_eq(&a, &Value::Null));
            prop_assert_eq!(py_eq_opt::<Json>(None, None), true);
        }
    }
}
