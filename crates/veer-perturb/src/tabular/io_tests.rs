//! Tests of reading and writing tables — Python's `csv` reader and writer, JSON rows, Python's
//! number formats — with hand-computed cases.

use super::delimited::*;
use super::json::*;
use super::tests::{applied, rows, write_delimited};
use super::*;
use serde_json::Value;

#[test]
fn reader_handles_quotes_delimiters_newlines_and_crlf() {
    let parsed = parse_delimited(
        "a,\"b,c\",\"say \"\"hi\"\"\"\r\n\"multi\nline\",x\"y,\"q\"z\n",
        ',',
    )
    .unwrap();
    assert_eq!(
        parsed,
        rows(&[&["a", "b,c", "say \"hi\""], &["multi\nline", "x\"y", "qz"]])
    );
    // Empty lines are empty rows; trailing delimiter gives a trailing empty field; no
    // newline at the end is fine; a \r ends a row when only \r or \n follow on its line.
    assert_eq!(
        parse_delimited("a,\n\nb\r\r\nc\r", ',').unwrap(),
        rows(&[&["a", ""], &[], &["b"], &["c"]])
    );
    // Where Python's reader raises: text after a \r on its line (outside quotes), a field
    // over the size limit. Inside quotes a \r is text.
    for content in ["a\rb\n", "a,b\n\"x\"\ry\n", "\r1\n"] {
        assert_eq!(
            parse_delimited(content, ','),
            Err(ReadError::PythonCsv),
            "{content:?}"
        );
    }
    assert_eq!(
        parse_delimited("\"a\rb\"\n", ',').unwrap(),
        rows(&[&["a\rb"]])
    );
    let at_limit = format!("a\n{}\n", "x".repeat(FIELD_SIZE_LIMIT));
    assert_eq!(parse_delimited(&at_limit, ',').unwrap().len(), 2);
    let over = format!("a\n\"{}\"\n", "x".repeat(FIELD_SIZE_LIMIT + 1));
    assert_eq!(parse_delimited(&over, ','), Err(ReadError::PythonCsv));
    // traxr skips such content: its reader's error leaves no rows.
    assert_eq!(
        apply(
            "a,b\n1\r2,3\n",
            false,
            Operator::RowDuplicate,
            &mut PerturbRng::new(1)
        )
        .unwrap(),
        PerturbOutcome::Skipped(INSUFFICIENT_DATA.into())
    );
    assert_eq!(parse_delimited("", ',').unwrap(), Vec::<Vec<String>>::new());
    assert_eq!(parse_delimited("\"\"\n", ',').unwrap(), rows(&[&[""]]));
}

#[test]
fn reader_drops_marker_lines_and_blank_rows_and_keeps_ragged_rows() {
    let content = "=== Sheet1 ===\na,b,c\n\n , ,\n1,2\n  === Sheet2 ===\r\n3,4,5,6\n";
    let table = read_delimited(content, ',').unwrap();
    assert_eq!(table.header, vec!["a", "b", "c"]);
    let data: Vec<Vec<&str>> = table
        .rows
        .iter()
        .map(|r| r.iter().map(|c| c.text.as_str()).collect())
        .collect();
    assert_eq!(data, vec![vec!["1", "2"], vec!["3", "4", "5", "6"]]);
}

#[test]
fn unterminated_quote_is_bad_input_naming_the_line() {
    let err = apply(
        "a,b\n1,\"open\n2,3\n",
        false,
        Operator::ColumnSwap,
        &mut PerturbRng::new(1),
    )
    .unwrap_err();
    let PerturbError::BadInput(message) = err else {
        panic!("wrong error")
    };
    assert!(message.contains("line 2"), "{message}");
    assert!(message.contains("unterminated"), "{message}");
}

#[test]
fn delimiter_detection() {
    assert_eq!(detect_delimiter("a\tb\tc\n1\t2\t3\n"), '\t');
    assert_eq!(detect_delimiter("a,b\tc\n"), ',');
    assert_eq!(detect_delimiter("a\tb\n1,5\t2\n"), '\t');
    assert_eq!(detect_delimiter(""), ',');
    // Only the first five lines count.
    assert_eq!(detect_delimiter("a\tb\n\n\n\n\n1,2,3,4,5,6\n"), '\t');
    let out = applied("x\ty\n1\t\"a,b\"\n", false, Operator::RowDuplicate, 3);
    assert!(out.starts_with("x\ty\n1\ta,b\n"), "{out:?}");
}

#[test]
fn writer_quotes_minimally() {
    let written = write_delimited(
        &rows(&[
            &["a", "b,c", "q\"", "n\nl", "r\rx", " sp"],
            &[""],
            &[],
            &["", ""],
        ]),
        ',',
    );
    assert_eq!(
        written,
        "a,\"b,c\",\"q\"\"\",\"n\nl\",\"r\rx\", sp\n\"\"\n\n,\n"
    );
    assert_eq!(
        write_delimited(&rows(&[&["a,b", "c\td"]]), '\t'),
        "a,b\t\"c\td\"\n"
    );
}

#[test]
fn py_float_accepts_what_python_accepts() {
    let accepted: &[(&str, f64)] = &[
        ("1", 1.0),
        (" 2.5 ", 2.5),
        ("\u{a0}\t-3\n", -3.0),
        ("+.5", 0.5),
        ("1.", 1.0),
        ("1e3", 1000.0),
        ("1.e5", 100_000.0),
        ("-1.5E-2", -0.015),
        ("1_000", 1000.0),
        ("1_000.000_1", 1000.0001),
        ("1e1_0", 1e10),
        ("007", 7.0),
        ("inf", f64::INFINITY),
        ("-Infinity", f64::NEG_INFINITY),
        ("+iNf", f64::INFINITY),
        ("1e400", f64::INFINITY),
        ("\u{1f}4\u{1c}", 4.0),
        // Any Unicode decimal digit (Arabic-Indic, Devanagari, full-width), as in CPython.
        ("\u{663}", 3.0),
        ("-\u{661}\u{662}.\u{665}", -12.5),
        ("\u{967}\u{966}", 10.0),
        ("\u{ff11}_\u{ff10}\u{ff10}", 100.0),
    ];
    for (s, v) in accepted {
        assert_eq!(py_float(s), Some(*v), "{s:?}");
    }
    assert!(py_float("nan").unwrap().is_nan());
    assert!(py_float(" -NaN ").unwrap().is_nan());
    let rejected = [
        "",
        " ",
        ".",
        "+",
        "-",
        "e5",
        ".e5",
        "1e",
        "1e+",
        "1__0",
        "_1",
        "1_",
        "1_.5",
        "1._5",
        "1e_5",
        "0x10",
        "1.5.5",
        "1 2",
        "in f",
        "infinit",
        "nan(1)",
        "inf_",
        "1,5",
        "--1",
        "1e5.5",
        "\u{b2}",
        "\u{ff4e}an",
        "1\u{a0}2",
    ];
    for s in rejected {
        assert_eq!(py_float(s), None, "{s:?}");
    }
}

#[test]
fn repr_and_fixed_formats_match_python() {
    let reprs: &[(f64, &str)] = &[
        (1e16, "1e+16"),
        (1e15, "1000000000000000.0"),
        (0.0001, "0.0001"),
        (0.00001, "1e-05"),
        (123_456_789_012_345.0, "123456789012345.0"),
        (1000.0, "1000.0"),
        (-2.5, "-2.5"),
        (0.1 + 0.2, "0.30000000000000004"),
        (1.5e-7, "1.5e-07"),
        (f64::NAN, "nan"),
        (f64::INFINITY, "inf"),
        (f64::NEG_INFINITY, "-inf"),
        (-0.0, "-0.0"),
    ];
    for (v, s) in reprs {
        assert_eq!(py_repr(*v), *s);
    }
    let fixed: &[(f64, usize, &str)] = &[
        (2.675, 2, "2.67"),
        (0.125, 2, "0.12"),
        (0.375, 2, "0.38"),
        (0.25, 1, "0.2"),
        (1.005, 2, "1.00"),
        (-0.001, 2, "-0.00"),
        (1e16, 1, "10000000000000000.0"),
        (f64::NAN, 1, "nan"),
        (f64::NEG_INFINITY, 2, "-inf"),
    ];
    for (v, p, s) in fixed {
        assert_eq!(py_fixed(*v, *p), *s);
    }
}

const JSON_ROWS: &str = r#"[
    {"id": 1, "name": "alpha", "price": 2.5, "ok": true, "note": null, "tags": [1, 2]},
    {"id": 2, "name": "beta", "price": 10, "extra": "x"},
    {"id": 3, "name": "gamma", "price": 1e16}
]"#;

#[test]
fn json_round_trips_when_nothing_structural_changes() {
    let input: Value = serde_json::from_str(JSON_ROWS).unwrap();
    let mut unchanged = 0;
    for seed in 0..30 {
        let out = applied(JSON_ROWS, true, Operator::RowDuplicate, seed);
        assert!(out.ends_with("]\n"));
        let output: Value = serde_json::from_str(&out).unwrap();
        let items = output.as_array().unwrap();
        if items.len() == 3 {
            unchanged += 1;
            assert_eq!(output, input);
        }
        // Every object keeps its own keys in header order; numbers stay numbers.
        assert!(items
            .iter()
            .all(|o| o["id"].is_number() || o["id"].is_string()));
    }
    assert!(unchanged > 0);
}

#[test]
fn json_numbers_stay_numbers_when_the_value_is_kept_exactly() {
    let content = r#"[{"a": 1, "b": "s"}, {"a": 2.5, "b": "t"}]"#;
    let out = applied(content, true, Operator::UnitChange, 3);
    let output: Value = serde_json::from_str(&out).unwrap();
    for item in output.as_array().unwrap() {
        assert!(item["a"].is_number(), "{out}");
        assert!(item["b"].is_string());
    }
    let out = applied(content, true, Operator::DataTypeCorrupt, 3);
    let output: Value = serde_json::from_str(&out).unwrap();
    assert!(output[0]["a"].is_string(), "{out}");
    assert_eq!(
        lossless_number("16.40").map(|n| n.to_string()),
        Some("16.4".into())
    );
    assert_eq!(
        lossless_number("-0.00").map(|n| n.as_f64()),
        Some(Some(0.0))
    );
    assert!(lossless_number("1e400").is_none());
    assert!(lossless_number("0.30000000000000000001").is_none());
    assert!(lossless_number("~1.0").is_none());
    assert!(lossless_number(" 1").is_none());
    assert!(lossless_number("01").is_none());
    assert!(lossless_number("123456789012345678901234567890").is_none());
}

#[test]
fn json_header_changes_become_keys_and_duplicates_get_suffixes() {
    assert_eq!(
        unique_keys(&["a".into(), "a".into(), "a_2".into(), "b".into()]),
        vec!["a", "a_2", "a_2_2", "b"]
    );
    let content = r#"[{"first_name": "x", "last_name": "y", "region": "z"}]"#;
    for seed in 0..10 {
        let out = applied(content, true, Operator::LabelCorrupt, seed);
        let output: Value = serde_json::from_str(&out).unwrap();
        let object = output[0].as_object().unwrap();
        assert_eq!(object.len(), 3, "{out}");
        assert_eq!(object["REG"], "z");
        assert_eq!(object.values().filter(|v| *v == "x").count(), 1);
    }
}

#[test]
fn json_that_is_not_an_array_of_objects_is_bad_input() {
    let cases = [
        ("{\"a\": 1}", "found an object"),
        ("[{\"a\": 1}, 2]", "index 1 is a number"),
        ("[{\"a\": 1}", "invalid JSON"),
    ];
    for (content, needle) in cases {
        match apply(content, true, Operator::ColumnSwap, &mut PerturbRng::new(1)) {
            Err(PerturbError::BadInput(message)) => {
                assert!(message.contains(needle), "{message}")
            }
            other => panic!("{other:?}"),
        }
    }
}
