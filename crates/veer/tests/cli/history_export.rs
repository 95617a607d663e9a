//! `veer history export --format parquet`: a Parquet file (magic bytes at both ends, the same
//! bytes twice), written atomically to -o; the reading back of rows and types is tested in
//! crates/veer-history/src/parquet_export/tests.rs with the parquet crate's reader.

use super::baseline::ok_in;
use super::history_drift::{add, report};
use std::fs;

#[test]
fn parquet_export_writes_a_parquet_file() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    for i in 0..3 {
        add(d, i, &report(0.5, &[("refund", "pass")]), "c1", "main");
    }
    ok_in(
        d,
        &[
            "history",
            "export",
            "--format",
            "parquet",
            "-o",
            "h.parquet",
        ],
        0,
    );
    let bytes = fs::read(d.join("h.parquet")).unwrap();
    assert!(bytes.len() > 100, "{}", bytes.len());
    assert_eq!(&bytes[..4], b"PAR1");
    assert_eq!(&bytes[bytes.len() - 4..], b"PAR1");
    // deterministic: the same history gives the same bytes
    ok_in(
        d,
        &[
            "history",
            "export",
            "--format",
            "parquet",
            "-o",
            "again.parquet",
        ],
        0,
    );
    assert_eq!(fs::read(d.join("again.parquet")).unwrap(), bytes);
    // the branch filter narrows it (no rows is still a valid file)
    ok_in(
        d,
        &[
            "history",
            "export",
            "--format",
            "parquet",
            "--branch",
            "none",
            "-o",
            "empty.parquet",
        ],
        0,
    );
    let empty = fs::read(d.join("empty.parquet")).unwrap();
    assert!(empty.starts_with(b"PAR1") && empty.len() < bytes.len());
}
