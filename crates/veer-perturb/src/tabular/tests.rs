//! Tests of the tabular operators, with hand-computed cases and properties (reading and writing:
//! `io_tests.rs`; traxr's own outputs: `tests/traxr_parity.rs`), and the helpers both share.

use super::delimited::*;
use super::json::*;
use super::*;
use proptest::prelude::*;
use serde_json::{Map, Value};

pub(super) fn rows(raw: &[&[&str]]) -> Vec<Vec<String>> {
    raw.iter()
        .map(|row| row.iter().map(|s| s.to_string()).collect())
        .collect()
}

pub(super) fn applied(content: &str, json: bool, op: Operator, seed: u32) -> String {
    match apply(content, json, op, &mut PerturbRng::new(seed)).unwrap() {
        PerturbOutcome::Applied(s) => s,
        PerturbOutcome::Skipped(reason) => panic!("skipped: {reason}"),
    }
}

/// The table as strings (header first) after reading delimited output back.
pub(super) fn grid(content: &str) -> Vec<Vec<String>> {
    let delimiter = detect_delimiter(content);
    let table = read_delimited(content, delimiter).unwrap();
    std::iter::once(table.header)
        .chain(
            table
                .rows
                .into_iter()
                .map(|r| r.into_iter().map(|c| c.text).collect()),
        )
        .collect()
}

/// Rows written like Python's `csv` writer.
pub(super) fn write_delimited<R: AsRef<[S]>, S: AsRef<str>>(rows: &[R], delimiter: char) -> String {
    let mut out = String::new();
    for row in rows {
        push_row(&mut out, row.as_ref(), delimiter);
    }
    out
}

const SALES: &str = "name,region,amount,note\n\
                     alice,north,12.5,ok\n\
                     bob,south,7,\"late, paid\"\n\
                     carol,east,n/a,x\n\
                     dave,west,1e3,y\n";

#[test]
fn too_little_data_is_skipped() {
    for content in ["", "a,b\n", "\n\n", "=== S ===\na,b\n , \n"] {
        for op in Operator::TABULAR {
            if op == Operator::NullContent {
                continue;
            }
            assert_eq!(
                apply(content, false, op, &mut PerturbRng::new(1)).unwrap(),
                PerturbOutcome::Skipped(INSUFFICIENT_DATA.into())
            );
        }
    }
    for content in ["[]", "[{}]", "[{}, {}]"] {
        assert_eq!(
            apply(content, true, Operator::ColumnSwap, &mut PerturbRng::new(1)).unwrap(),
            PerturbOutcome::Skipped(JSON_NOT_TABULAR.into())
        );
    }
    // One object with a key makes a table; an empty object is a row of missing cells.
    assert!(matches!(
        apply(
            "[{}, {\"a\": 1}]",
            true,
            Operator::RowDuplicate,
            &mut PerturbRng::new(1)
        ),
        Ok(PerturbOutcome::Applied(_))
    ));
}

#[test]
fn null_content_empties_anything_and_other_operators_are_refused() {
    for content in ["", "a,b\n1,2\n", "\"unterminated", "{not json"] {
        for json in [false, true] {
            assert_eq!(
                apply(
                    content,
                    json,
                    Operator::NullContent,
                    &mut PerturbRng::new(5)
                )
                .unwrap(),
                PerturbOutcome::Applied(String::new())
            );
        }
    }
    assert!(matches!(
        apply(
            "a,b\n1,2\n",
            false,
            Operator::OcrNoise,
            &mut PerturbRng::new(5)
        ),
        Err(PerturbError::BadInput(_))
    ));
}

#[test]
fn column_swap_swaps_two_columns_consistently() {
    let before = grid(SALES);
    let mut swapped_somewhere = false;
    for seed in 0..40 {
        let after = grid(&applied(SALES, false, Operator::ColumnSwap, seed));
        assert_eq!(after.len(), before.len());
        let moved: Vec<usize> = (0..4).filter(|&c| before[0][c] != after[0][c]).collect();
        match moved.as_slice() {
            [] => assert_eq!(after, before),
            &[a, b] => {
                swapped_somewhere = true;
                for (x, y) in before.iter().zip(&after) {
                    let mut expected = x.clone();
                    expected.swap(a, b);
                    assert_eq!(*y, expected);
                }
            }
            other => panic!("moved {other:?}"),
        }
    }
    assert!(swapped_somewhere);
    // One column: applied, the table written back as it was (traxr's "No swap").
    assert_eq!(
        apply(
            "only\n1\n",
            false,
            Operator::ColumnSwap,
            &mut PerturbRng::new(1)
        )
        .unwrap(),
        PerturbOutcome::Applied("only\n1\n".into())
    );
}

#[test]
fn column_swap_leaves_rows_lacking_a_column() {
    for seed in 0..20 {
        let after = grid(&applied(
            "a,b,c\n1\n1,2,3\n",
            false,
            Operator::ColumnSwap,
            seed,
        ));
        assert_eq!(after[1], vec!["1"]);
    }
}

#[test]
fn label_corrupt_uses_alternatives_or_abbreviations() {
    let content = "Total Amount,zz,region,Phone\n1,2,3,4\n";
    let amount_alternatives = LABEL_CORRUPTIONS[2].1;
    let phone_alternatives = LABEL_CORRUPTIONS[10].1;
    for seed in 0..20 {
        let after = grid(&applied(content, false, Operator::LabelCorrupt, seed));
        assert!(
            amount_alternatives.contains(&after[0][0].as_str()),
            "{after:?}"
        );
        assert_eq!(after[0][1], "zz");
        assert_eq!(after[0][2], "REG");
        assert!(phone_alternatives.contains(&after[0][3].as_str()));
        assert_eq!(after[1], vec!["1", "2", "3", "4"]);
    }
    // The RNG is drawn only on a dictionary hit: no hits, same output for every seed.
    let plain = "alpha,beta,xy\n1,2,3\n";
    assert_eq!(
        applied(plain, false, Operator::LabelCorrupt, 1),
        "ALP,BET,xy\n1,2,3\n"
    );
}

#[test]
fn data_type_corrupt_marks_numeric_cells_only() {
    let before = grid(SALES);
    let (mut tilde, mut star) = (false, false);
    for seed in 0..20 {
        let after = grid(&applied(SALES, false, Operator::DataTypeCorrupt, seed));
        assert_eq!(after[0], before[0]);
        for (x, y) in before.iter().zip(&after).skip(1) {
            for (a, b) in x.iter().zip(y) {
                match py_float(a) {
                    Some(v) => {
                        let as_tilde = format!("~{}", py_repr(v));
                        let as_star = format!("{}*", py_fixed(v, 1));
                        assert!(*b == as_tilde || *b == as_star, "{a} -> {b}");
                        tilde |= *b == as_tilde;
                        star |= *b == as_star;
                    }
                    None => assert_eq!(a, b),
                }
            }
        }
    }
    assert!(tilde && star);
    let out = applied("v\n1e3\n", false, Operator::DataTypeCorrupt, 0);
    assert!(out == "v\n~1000.0\n" || out == "v\n1000.0*\n", "{out}");
}

#[test]
fn row_duplicate_inserts_marked_copies() {
    let content = "a,b\n1,x\n2,\n3,z\n4,w\n5,v\n";
    let before = grid(content);
    let mut duplicated = false;
    for seed in 0..20 {
        let after = grid(&applied(content, false, Operator::RowDuplicate, seed));
        assert_eq!(after[0], before[0]);
        let mut originals = before.iter().skip(1).peekable();
        let mut last_original: Option<&Vec<String>> = None;
        for row in after.iter().skip(1) {
            if originals.peek() == Some(&row) {
                last_original = originals.next();
                continue;
            }
            duplicated = true;
            let original = last_original.unwrap();
            let mut expected = original.clone();
            if let Some(last) = expected.last_mut().filter(|c| !c.is_empty()) {
                last.push('*');
            }
            assert_eq!(*row, expected);
            last_original = None; // at most one copy per row
        }
        assert!(originals.next().is_none());
    }
    assert!(duplicated);
}

#[test]
fn irrelevant_columns_appends_noise_from_its_domains() {
    let content = "a,b\n1,2\n3\n4,5,6\n";
    let mut counts = [false; 3];
    for seed in 0..30 {
        let after = grid(&applied(content, false, Operator::IrrelevantColumns, seed));
        let added = &after[0][2..];
        assert!((1..=2).contains(&added.len()));
        counts[added.len()] = true;
        assert!(added.iter().all(|n| NOISE_COLUMNS.contains(&n.as_str())));
        assert_ne!(added.first(), added.get(1));
        assert_eq!(after[1][..2], ["1", "2"]);
        assert_eq!(after[2][..2], ["3", ""]);
        assert_eq!(after[3][..2], ["4", "5"]);
        assert_eq!(after[3].last().map(String::as_str), Some("6"));
        for row in &after[1..] {
            for (i, name) in added.iter().enumerate() {
                let value = row[2 + i].as_str();
                match name.as_str() {
                    "_noise_id" => {
                        let n: u32 = value.parse().unwrap();
                        assert!((1000..=9999).contains(&n));
                    }
                    "_flag" => assert!(FLAG_VALUES.contains(&value)),
                    "_legacy" => assert_eq!(value, ""),
                    _ => assert_eq!(value, "???"),
                }
            }
        }
    }
    assert!(counts[1] && counts[2]);
}

#[test]
fn unit_change_rescales_one_numeric_column() {
    let content = "id,height,label,weight\nA,1.5,x,70\nB,,y,n/a\nC,2,z,80.25\nD,nan,w,90\n";
    let before = grid(content);
    let mut columns_hit = [false; 4];
    for seed in 0..30 {
        let after = grid(&applied(content, false, Operator::UnitChange, seed));
        assert_eq!(after[0], before[0]);
        let changed: Vec<usize> = (0..4)
            .filter(|&c| before.iter().zip(&after).any(|(x, y)| x[c] != y[c]))
            .collect();
        assert_eq!(changed.len(), 1, "{after:?}");
        let column = changed[0];
        assert!(column == 1 || column == 3);
        columns_hit[column] = true;
        let factors: Vec<f64> = UNIT_FACTORS
            .iter()
            .map(|(f, _)| *f)
            .filter(|f| {
                before
                    .iter()
                    .zip(&after)
                    .skip(1)
                    .all(|(x, y)| match py_float(&x[column]) {
                        Some(v) => y[column] == py_fixed(v * f, 2),
                        None => y[column] == x[column],
                    })
            })
            .collect();
        assert!(!factors.is_empty(), "{after:?}");
    }
    assert!(columns_hit[1] && columns_hit[3]);
    // No numeric column: applied, the table written back as it was.
    assert_eq!(
        applied("a,b\nx,y\n1,\n", false, Operator::UnitChange, 1),
        "a,b\nx,y\n1,\n"
    );
    // A cell of spaces is non-empty and not a number: one number of three cells is not
    // more than half, so `b` is not numeric and nothing changes.
    assert_eq!(
        applied("a,b\nx,1\ny, \nz,  \n", false, Operator::UnitChange, 1),
        "a,b\nx,1\ny, \nz,  \n"
    );
    // Unicode decimal digits are numbers, as Python's float() reads them.
    let out = applied("a\n\u{663}\n", false, Operator::UnitChange, 1);
    assert!(
        UNIT_FACTORS
            .iter()
            .any(|(f, _)| out == format!("a\n{}\n", py_fixed(3.0 * f, 2))),
        "{out}"
    );
}

fn table_strategy() -> impl Strategy<Value = Vec<Vec<String>>> {
    let cell = prop::collection::vec(
        prop::sample::select(vec![
            "a", "b", " ", ",", "\t", "\"", "\n", "\r", "\r\n", "1", "2.5", "-3", "1e3", "nan", "_",
        ]),
        0..4,
    )
    .prop_map(|parts| parts.concat());
    prop::collection::vec(prop::collection::vec(cell, 0..5), 0..6)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Whatever the cells hold, reading what was written gives the rows back.
    #[test]
    fn write_then_parse_is_identity(table in table_strategy(), tab in any::<bool>()) {
        let delimiter = if tab { '\t' } else { ',' };
        let written = write_delimited(&table, delimiter);
        prop_assert_eq!(parse_delimited(&written, delimiter).unwrap(), table);
    }

    /// No operator panics on any delimited or JSON content, and each is deterministic for
    /// its seed.
    #[test]
    fn operators_never_panic_and_are_deterministic(
        table in table_strategy(),
        raw in "[a-z0-9,\"\n\r\t .=_\\[\\]{}:-]{0,60}",
        seed in any::<u32>(),
    ) {
        let csv = write_delimited(&table, ',');
        let json = Value::Array(
            table
                .iter()
                .map(|row| {
                    let mut map = Map::new();
                    for (i, cell) in row.iter().enumerate() {
                        let value = lossless_number(cell)
                            .map_or_else(|| Value::String(cell.clone()), Value::Number);
                        map.insert(format!("k{}", i % 3), value);
                    }
                    Value::Object(map)
                })
                .collect(),
        )
        .to_string();
        let inputs = [(csv.as_str(), false), (raw.as_str(), false), (raw.as_str(), true), (json.as_str(), true)];
        for (content, is_json) in inputs {
            for op in Operator::TABULAR.iter().chain([Operator::OcrNoise].iter()) {
                let first = apply(content, is_json, *op, &mut PerturbRng::new(seed));
                let second = apply(content, is_json, *op, &mut PerturbRng::new(seed));
                prop_assert_eq!(first, second);
            }
        }
    }
}
