//! The Parquet file read back with the parquet crate's own reader: rows, types, nulls.

use super::*;
use crate::store::Provenance;
use crate::summary::{
    CaseSummary, ComparisonAxis, ComparisonAxisName, ComparisonSummary, GateSummary, RuleSummary,
};
use parquet::basic::{LogicalType, Type as Physical};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;
use veer_base::Level;

fn entries() -> Vec<Entry> {
    let e = |id: i64, commit: Option<&str>, tripped: bool| Entry {
        id,
        provenance: Provenance {
            recorded_at_ms: 1_767_225_600_000 + id,
            commit: commit.map(str::to_string),
            branch: Some("main".into()),
            ci_run: None,
            veer_version: "0.1.0".into(),
        },
        summary: ComparisonSummary {
            report_kind: "directory".into(),
            pairs: 3,
            axes: vec![
                ComparisonAxis {
                    axis: ComparisonAxisName::Diff(veer_contract::axis::Axis::Cost),
                    level: Level::Minor,
                    delta: Some(0.25),
                },
                ComparisonAxis {
                    axis: ComparisonAxisName::Diff(veer_contract::axis::Axis::Semantic),
                    level: Level::None,
                    delta: None,
                },
            ],
            rules: vec![RuleSummary {
                rule: "r1".into(),
                regressions: 2,
                fixes: 1,
                baseline_violations: 0,
                candidate_violations: 2,
            }],
            cases: vec![CaseSummary {
                case: "refund".into(),
                verdict: "regressed".into(),
                source: "trials".into(),
            }],
            gate: GateSummary {
                fail_on: "moderate".into(),
                worst: "severe".into(),
                tripped,
                errors: 0,
            },
        },
    };
    vec![e(1, Some("abc"), true), e(2, None, false)]
}

#[test]
fn the_file_reads_back_with_its_rows_and_types() {
    let bytes = to_parquet(&entries()).unwrap();
    assert_eq!(&bytes[..4], b"PAR1");
    let reader = SerializedFileReader::new(bytes::Bytes::from(bytes.clone())).unwrap();
    let meta = reader.metadata().file_metadata();
    // 2 comparisons × (gate + 2 axes + 1 rule + 1 case)
    assert_eq!(meta.num_rows(), 10);
    let schema = meta.schema_descr();
    assert_eq!(schema.num_columns(), 16);
    let col = |name: &str| {
        (0..schema.num_columns())
            .map(|i| schema.column(i))
            .find(|c| c.name() == name)
            .unwrap()
    };
    assert_eq!(col("comparison_id").physical_type(), Physical::INT64);
    assert!(matches!(
        col("recorded_at").logical_type_ref(),
        Some(LogicalType::Timestamp(t)) if t.is_adjusted_to_u_t_c
    ));
    assert_eq!(col("delta").physical_type(), Physical::DOUBLE);
    assert_eq!(col("tripped").physical_type(), Physical::BOOLEAN);
    assert_eq!(col("name").logical_type_ref(), Some(&LogicalType::String));
    let rows: Vec<_> = reader
        .get_row_iter(None)
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(rows.len(), 10);
    let get = |r: usize, name: &str| -> Field {
        rows[r]
            .get_column_iter()
            .find(|(n, _)| n.as_str() == name)
            .map(|(_, f)| f.clone())
            .unwrap()
    };
    assert_eq!(get(0, "comparison_id"), Field::Long(1));
    assert_eq!(get(0, "kind"), Field::Str("gate".into()));
    assert_eq!(get(0, "name"), Field::Str("moderate".into()));
    assert_eq!(get(0, "level"), Field::Str("severe".into()));
    assert_eq!(get(0, "tripped"), Field::Bool(true));
    assert_eq!(get(0, "commit"), Field::Str("abc".into()));
    assert_eq!(
        get(0, "recorded_at"),
        Field::TimestampMillis(1_767_225_600_001)
    );
    assert_eq!(get(1, "kind"), Field::Str("axis".into()));
    assert_eq!(get(1, "delta"), Field::Double(0.25));
    assert_eq!(get(2, "delta"), Field::Null);
    assert_eq!(get(3, "kind"), Field::Str("rule".into()));
    assert_eq!(get(3, "regressions"), Field::Long(2));
    assert_eq!(get(3, "candidate_violations"), Field::Long(2));
    assert_eq!(get(3, "level"), Field::Null);
    assert_eq!(get(4, "name"), Field::Str("refund".into()));
    assert_eq!(get(4, "level"), Field::Str("regressed".into()));
    assert_eq!(get(5, "comparison_id"), Field::Long(2));
    assert_eq!(get(5, "commit"), Field::Null);
    assert_eq!(get(5, "tripped"), Field::Bool(false));
    // deterministic; an empty history is a valid file with no rows
    assert_eq!(to_parquet(&entries()).unwrap(), bytes);
    let empty = to_parquet(&[]).unwrap();
    let reader = SerializedFileReader::new(bytes::Bytes::from(empty)).unwrap();
    assert_eq!(reader.metadata().file_metadata().num_rows(), 0);
}
