//! The compact tree against serde_json's `Value`: same parse results and errors, same bytes
//! written, same answers from every accessor.

use super::*;
use crate::canonical::canonical_bytes;
use crate::proptests::json_value;
use proptest::prelude::*;

fn parse(text: &str) -> serde_json::Result<Json> {
    json_from_str(text, &mut JsonScratch::default())
}

#[test]
fn node_is_24_bytes() {
    assert_eq!(std::mem::size_of::<Json>(), 24);
}

#[test]
fn same_text_as_serde_json() {
    for text in [
        "null",
        "true",
        "-0",
        "-0.0",
        "1e300",
        "1.5e-7",
        "18446744073709551615",
        "-9223372036854775808",
        "0.1",
        "\"a\\u00e9\\n\\u0000\"",
        "[]",
        "{}",
        "[1,[2,[3,{}]],{\"a\":[]}]",
        "{\"b\":1,\"a\":2,\"b\":3}",
        "{\"x\":{\"y\":{\"z\":[1,2,{\"w\":null}]}},\"v\":\"s\"}",
        "  {\"k\" : [ true , false ] }  ",
    ] {
        let ours = parse(text).unwrap();
        let theirs: Value = serde_json::from_str(text).unwrap();
        assert_eq!(ours.to_string(), theirs.to_string(), "{text}");
        assert_eq!(format!("{ours:#}"), format!("{theirs:#}"), "{text}");
        assert_eq!(format!("{ours:?}"), format!("{theirs:?}"), "{text}");
        assert_eq!(ours, theirs, "{text}");
        assert_eq!(Json::from(theirs.clone()).to_string(), theirs.to_string());
        assert_eq!(ours.to_value(), theirs);
    }
}

#[test]
fn duplicate_key_keeps_first_place_and_last_value() {
    let v = parse("{\"b\":1,\"a\":2,\"b\":3}").unwrap();
    assert_eq!(v.to_string(), "{\"b\":3,\"a\":2}");
    // Past the small-object path too.
    let mut text = String::from("{");
    for i in 0..40 {
        text.push_str(&format!("\"k{}\":{i},", i % 25));
    }
    text.push_str("\"end\":0}");
    let theirs: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(parse(&text).unwrap().to_string(), theirs.to_string());
    let built = Object::from_entries(vec![("x".into(), Json::Null), ("x".into(), true.into())]);
    assert_eq!(Json::Object(built).to_string(), "{\"x\":true}");
}

#[test]
fn errors_where_serde_json_errors() {
    for text in [
        "",
        "{",
        "[1,]",
        "{\"a\":1} x",
        "{\"a\" 1}",
        "nul",
        "1e400",
        "{1:2}",
    ] {
        let ours = parse(text).unwrap_err();
        let theirs = serde_json::from_str::<Value>(text).unwrap_err();
        assert_eq!(ours.to_string(), theirs.to_string(), "{text}");
    }
    let bad: &[u8] = b"{\"a\":\"\xff\"}";
    let ours = json_from_slice(bad, &mut JsonScratch::default()).unwrap_err();
    let theirs = serde_json::from_slice::<Value>(bad).unwrap_err();
    assert_eq!(ours.to_string(), theirs.to_string());
    assert!(parse(&"[".repeat(200))
        .unwrap_err()
        .to_string()
        .contains("recursion limit"));
}

#[test]
fn keys_are_shared_and_their_sharing_is_bounded() {
    let mut scratch = JsonScratch::default();
    let a = json_from_str(r#"{"role":1,"x":{"role":2}}"#, &mut scratch).unwrap();
    let b = json_from_str(r#"{"role":3}"#, &mut scratch).unwrap();
    let key = |v: &Json| v.as_object().unwrap().entries()[0].0.clone();
    let inner = a["x"].as_object().unwrap().entries()[0].0.clone();
    assert!(Key::ptr_eq(&key(&a), &key(&b)));
    assert!(Key::ptr_eq(&key(&a), &inner));
    let long = "k".repeat(100);
    let text = format!(r#"{{"{long}":1}}"#);
    let (c, d) = (
        parse(&text).unwrap(),
        json_from_str(&text, &mut scratch).unwrap(),
    );
    assert_eq!(c, d);
    // Endless distinct keys: the shared set is emptied, values stay right.
    for i in 0..10_000 {
        let v = json_from_str(&format!(r#"{{"k{i}":{i}}}"#), &mut scratch).unwrap();
        assert_eq!(v[format!("k{i}").as_str()], i as i64);
    }
}

#[test]
fn scratch_is_reusable_after_a_failure() {
    let mut scratch = JsonScratch::default();
    assert!(json_from_str("{\"a\":[1,2,{\"b\":", &mut scratch).is_err());
    let v = json_from_str("{\"c\":[3]}", &mut scratch).unwrap();
    assert_eq!(v, serde_json::json!({"c": [3]}));
}

#[test]
fn indexing_and_pointers_like_value() {
    let text = r#"{"a":[{"b~c":1,"d/e":"x"}],"f":null,"":{"":2}}"#;
    let ours = parse(text).unwrap();
    let theirs: Value = serde_json::from_str(text).unwrap();
    assert_eq!(ours["a"][0]["d/e"], "x");
    assert!(ours["missing"]["deeper"][3].is_null());
    assert!(ours["a"]["not-an-object"].is_null());
    for p in [
        "",
        "/a",
        "/a/0",
        "/a/00",
        "/a/+0",
        "/a/1",
        "/a/0/b~0c",
        "/a/0/d~1e",
        "/f",
        "/",
        "//",
        "a",
        "/a/0/x/y",
    ] {
        assert_eq!(
            ours.pointer(p).map(Json::to_value),
            theirs.pointer(p).cloned(),
            "{p}"
        );
    }
}

/// Every accessor of `j` agrees with `v`'s, recursively.
fn accessors_agree(j: &Json, v: &Value) -> Result<(), TestCaseError> {
    prop_assert_eq!(j.as_str(), v.as_str());
    prop_assert_eq!(j.as_bool(), v.as_bool());
    prop_assert_eq!(j.as_i64(), v.as_i64());
    prop_assert_eq!(j.as_u64(), v.as_u64());
    prop_assert_eq!(j.as_f64().map(f64::to_bits), v.as_f64().map(f64::to_bits));
    prop_assert_eq!(j.is_null(), v.is_null());
    prop_assert_eq!(j.is_i64(), v.is_i64());
    prop_assert_eq!(j.is_u64(), v.is_u64());
    prop_assert_eq!(j.is_f64(), v.is_f64());
    prop_assert_eq!(j.as_array().map(<[Json]>::len), v.as_array().map(Vec::len));
    if let (Some(a), Some(b)) = (j.as_array(), v.as_array()) {
        for (x, y) in a.iter().zip(b) {
            accessors_agree(x, y)?;
        }
        prop_assert!(j.get(b.len()).is_none());
    }
    prop_assert_eq!(
        j.as_object().map(Object::len),
        v.as_object().map(|m| m.len())
    );
    if let (Some(a), Some(b)) = (j.as_object(), v.as_object()) {
        let ka: Vec<&str> = a.keys().collect();
        let kb: Vec<&str> = b.keys().map(String::as_str).collect();
        prop_assert_eq!(ka, kb);
        for (k, x) in b {
            accessors_agree(&j[k.as_str()], x)?;
            prop_assert!(j.get(k.as_str()).is_some(), "key {:?} missing", k);
        }
        let absent = "\u{0}absent";
        prop_assert!(j.get(absent).is_none());
    }
    Ok(())
}

proptest! {
    #[test]
    fn parse_then_write_gives_serde_json_bytes(v in json_value(), pretty in any::<bool>()) {
        let text = if pretty {
            serde_json::to_string_pretty(&v).unwrap()
        } else {
            serde_json::to_string(&v).unwrap()
        };
        let ours = parse(&text).unwrap();
        let theirs: Value = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(serde_json::to_string(&ours).unwrap(), serde_json::to_string(&theirs).unwrap());
        prop_assert_eq!(serde_json::to_string_pretty(&ours).unwrap(), serde_json::to_string_pretty(&theirs).unwrap());
        prop_assert_eq!(canonical_bytes(&ours), canonical_bytes(&theirs));
        prop_assert!(ours == theirs);
        prop_assert_eq!(&Json::from(theirs.clone()), &ours);
        accessors_agree(&ours, &theirs)?;
    }

    /// Objects with repeated keys (which `json_value` cannot produce): same bytes as serde_json.
    #[test]
    fn repeated_keys_like_serde_json(
        kv in prop::collection::vec(("[a-d]", json_value()), 0..24),
    ) {
        let mut text = String::from("{");
        for (i, (k, v)) in kv.iter().enumerate() {
            if i > 0 {
                text.push(',');
            }
            text.push_str(&format!("{}:{}", Value::from(k.as_str()), v));
        }
        text.push('}');
        let theirs: Value = serde_json::from_str(&text).unwrap();
        let ours = parse(&text).unwrap();
        prop_assert_eq!(ours.to_string(), theirs.to_string());
        let built = Object::from_entries(
            kv.into_iter().map(|(k, v)| (Key::from(k), Json::from(v))).collect(),
        );
        prop_assert_eq!(Json::Object(built).to_string(), theirs.to_string());
    }

    #[test]
    fn adopted_values_are_the_values_they_were(v in json_value()) {
        let mut scratch = JsonScratch::default();
        let adopted = scratch.adopt(v.clone());
        prop_assert_eq!(adopted.to_string(), v.to_string());
        prop_assert_eq!(canonical_bytes(&adopted), canonical_bytes(&Json::from(v)));
    }
}

#[test]
fn adopted_keys_are_shared_with_parsed_ones() {
    let mut scratch = JsonScratch::default();
    let parsed = json_from_str(r#"{"role":"user"}"#, &mut scratch).unwrap();
    let adopted = scratch.adopt(serde_json::json!([{"role": "a"}, {"role": "b"}]));
    let key = |j: &Json| Key::clone(&j.as_object().unwrap().entries()[0].0);
    let items = adopted.as_array().unwrap();
    assert!(Key::ptr_eq(&key(&items[0]), &key(&items[1])));
    assert!(Key::ptr_eq(&key(&items[0]), &key(&parsed)));
    assert_eq!(adopted, serde_json::json!([{"role": "a"}, {"role": "b"}]));
}
