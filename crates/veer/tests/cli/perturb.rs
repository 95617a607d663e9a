//! `veer experiment perturb` on the fixtures in `tests/fixtures/perturb/`: every operator's
//! output is pinned by a snapshot, runs are deterministic, the input is never written, and an
//! operator that does not apply writes nothing and exits 0.

use crate::common::{fixtures, veer, veer_ok};
use serde_json::Value;
use std::path::Path;

/// Violations of `docs/json-schema/perturb.schema.json` by `summary`.
fn schema_errors(summary: &Value) -> Vec<String> {
    crate::common::schema_violations("perturb.schema.json", summary)
}

const TABULAR: [&str; 7] = [
    "column_swap",
    "label_corrupt",
    "data_type_corrupt",
    "row_duplicate",
    "irrelevant_columns",
    "unit_change",
    "null_content",
];
const TEXT: [&str; 7] = [
    "ocr_noise",
    "number_corruption",
    "text_redaction",
    "paragraph_shuffle",
    "encoding_error",
    "section_removal",
    "null_content",
];

fn input(name: &str) -> String {
    fixtures().join("perturb").join(name).display().to_string()
}

/// Runs the operator with `seed` and returns the perturbed copy.
fn perturbed(tmp: &Path, file: &str, op: &str, seed: &str) -> String {
    let out = tmp.join(format!("{op}-{seed}-{file}"));
    let out_s = out.display().to_string();
    veer_ok(
        &[
            "experiment",
            "perturb",
            &input(file),
            "--operator",
            op,
            "--seed",
            seed,
            "--out",
            &out_s,
        ],
        0,
    );
    std::fs::read_to_string(&out).expect("perturbed copy written")
}

#[test]
fn every_operator_on_the_fixtures() {
    let tmp = tempfile::tempdir().unwrap();
    for (file, ops) in [
        ("sales.csv", &TABULAR),
        ("rows.json", &TABULAR),
        ("notes.md", &TEXT),
    ] {
        let before = std::fs::read(input(file)).unwrap();
        for op in ops.iter() {
            let text = perturbed(tmp.path(), file, op, "42");
            insta::assert_snapshot!(format!("perturb_{file}_{op}"), text);
            assert_eq!(
                text,
                perturbed(tmp.path(), file, op, "42"),
                "{file} {op}: not deterministic"
            );
        }
        assert_eq!(
            std::fs::read(input(file)).unwrap(),
            before,
            "{file} was written"
        );
    }
}

#[test]
fn the_seed_changes_the_draws() {
    let tmp = tempfile::tempdir().unwrap();
    for (file, op) in [
        ("notes.md", "ocr_noise"),
        ("notes.md", "encoding_error"),
        ("sales.csv", "data_type_corrupt"),
    ] {
        let outputs: std::collections::BTreeSet<String> = ["1", "2", "3"]
            .iter()
            .map(|seed| perturbed(tmp.path(), file, op, seed))
            .collect();
        assert!(outputs.len() > 1, "{file} {op}: three seeds, one output");
    }
}

#[test]
fn json_summary_and_skips() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("sales.csv");
    let out_s = out.display().to_string();
    let r = veer_ok(
        &[
            "experiment",
            "perturb",
            &input("sales.csv"),
            "--operator",
            "column_swap",
            "--out",
            &out_s,
            "--format",
            "json",
        ],
        0,
    );
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(schema_errors(&v), Vec::<String>::new());
    assert_eq!(v["schema_version"], "2");
    assert_eq!(v["base_seed"], 42);
    let p = &v["perturbations"][0];
    assert_eq!(v["perturbations"].as_array().unwrap().len(), 1);
    assert_eq!(p["status"], "applied");
    assert_eq!(p["operator"], "column_swap");
    // int.from_bytes(sha256(b"42:sales.csv:column_swap").digest()[:4], "big")
    assert_eq!(p["seed"], 537_076_198u32);
    assert_eq!(p["out"], out_s.as_str());
    assert_eq!(
        p["bytes_out"].as_u64().unwrap(),
        std::fs::metadata(&out).unwrap().len()
    );

    let short_out = tmp.path().join("short.txt");
    let r = veer(&[
        "experiment",
        "perturb",
        &input("short.txt"),
        "--operator",
        "ocr_noise",
        "--out",
        &short_out.display().to_string(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("ocr_noise skipped"), "{}", r.stdout);
    assert!(r.stdout.contains("nothing written"), "{}", r.stdout);
    assert!(!short_out.exists());
}

#[test]
fn an_operator_with_nothing_to_change_applies_and_says_the_copy_equals_the_input() {
    // traxr counts column_swap on one column as applied; veer writes the copy and notes it.
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("one.csv");
    std::fs::write(&file, "only\n1\n2\n").unwrap();
    let out = tmp.path().join("out.csv");
    let args = [
        "experiment",
        "perturb",
        file.to_str().unwrap(),
        "--operator",
        "column_swap",
        "--out",
        out.to_str().unwrap(),
    ];
    let r = veer_ok(&args, 0);
    let note = "No observable change: the perturbed copy equals the input";
    assert!(
        r.stdout.contains("column_swap applied (seed ") && r.stdout.contains(note),
        "{}",
        r.stdout
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "only\n1\n2\n");
    let json_args: Vec<&str> = args.iter().copied().chain(["--format", "json"]).collect();
    let v: Value = serde_json::from_str(&veer_ok(&json_args, 0).stdout).unwrap();
    assert_eq!(schema_errors(&v), Vec::<String>::new());
    let p = &v["perturbations"][0];
    assert_eq!(p["status"], "applied");
    assert_eq!(p["note"], note);
    // A copy that differs has no note.
    std::fs::write(&file, "a,b\n1,2\n").unwrap();
    let v: Value = serde_json::from_str(&veer_ok(&json_args, 0).stdout).unwrap();
    assert_eq!(v["perturbations"][0]["note"], Value::Null);
}

#[test]
fn all_writes_the_matrix_under_one_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("inputs");
    let r = veer_ok(
        &[
            "experiment",
            "perturb",
            &input("notes.md"),
            "--all",
            "--out",
            &dir.display().to_string(),
            "--format",
            "json",
        ],
        0,
    );
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(schema_errors(&v), Vec::<String>::new());
    let ops: Vec<&str> = v["perturbations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["operator"].as_str().unwrap())
        .collect();
    assert_eq!(ops, TEXT, "matrix order");
    for op in TEXT {
        // Each copy equals what the single-operator run writes.
        let copy = std::fs::read_to_string(dir.join(op).join("notes.md")).unwrap();
        assert_eq!(copy, perturbed(tmp.path(), "notes.md", op, "42"), "{op}");
    }

    // A short text: every operator but null_content skips, and only null_content is written.
    let short_dir = tmp.path().join("short");
    let short_args = [
        "experiment",
        "perturb",
        &input("short.txt"),
        "--all",
        "--out",
        &short_dir.display().to_string(),
    ];
    let r = veer_ok(&short_args, 0);
    assert_eq!(r.stdout.matches("skipped").count(), 6, "{}", r.stdout);
    let json_args: Vec<&str> = short_args
        .iter()
        .copied()
        .chain(["--format", "json"])
        .collect();
    let v: Value = serde_json::from_str(&veer_ok(&json_args, 0).stdout).unwrap();
    assert_eq!(schema_errors(&v), Vec::<String>::new());
    assert_eq!(v["perturbations"][0]["status"], "skipped");
    assert_eq!(v["perturbations"][0]["out"], Value::Null);
    // The schema is not a rubber stamp: a skipped entry claiming a file fails it.
    let mut wrong = v.clone();
    wrong["perturbations"][0]["out"] = Value::String("x.txt".into());
    assert!(!schema_errors(&wrong).is_empty());
    assert!(short_dir.join("null_content").join("short.txt").exists());
    assert!(!short_dir.join("ocr_noise").exists());

    // --all needs a directory; --operator and --all exclude each other; one is required.
    let file_out = tmp.path().join("a-file.txt");
    std::fs::write(&file_out, "x").unwrap();
    let r = veer(&[
        "experiment",
        "perturb",
        &input("notes.md"),
        "--all",
        "--out",
        &file_out.display().to_string(),
    ]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("but this is a file"), "{}", r.stderr);
    let r = veer(&[
        "experiment",
        "perturb",
        &input("notes.md"),
        "--all",
        "--operator",
        "ocr_noise",
        "--out",
        "x",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    let r = veer(&["experiment", "perturb", &input("notes.md"), "--out", "x"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}
