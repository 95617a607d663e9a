//! Long traces at any distance: past `--max-align-cells` the first divergence and
//! the structural block are still reported — the structural block exactly as with an unlimited
//! budget, the turn alignment anchored and labelled — and the JSON is byte-identical whatever
//! the thread count.

use crate::common::{veer, veer_ok};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// Writes a `kind` pair of `turns` turns under `dir` with the hidden `synth` command.
fn synth(dir: &Path, kind: &str, turns: usize) -> (String, String) {
    let out = dir.join(kind);
    let r = veer(&[
        "synth",
        "--turns",
        &turns.to_string(),
        "--kind",
        kind,
        "--out-dir",
        out.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let side = |s: &str| out.join(s).to_string_lossy().into_owned();
    (side("baseline.agentlog"), side("candidate.agentlog"))
}

fn json_with_threads(args: &[&str], threads: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_veer"))
        .args(args)
        .env("RAYON_NUM_THREADS", threads)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn over_the_budget_nothing_is_null_and_the_structural_block_is_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    for kind in ["changed", "divergent"] {
        let (b, c) = synth(dir.path(), kind, 400);
        let exact: Value = serde_json::from_str(
            &veer_ok(
                &[
                    "diff",
                    &b,
                    &c,
                    "--format",
                    "json",
                    "--max-align-cells",
                    "1000000000",
                ],
                0,
            )
            .stdout,
        )
        .unwrap();
        assert_eq!(
            exact.get("alignment"),
            None,
            "{kind}: exact within a large budget"
        );
        let args = [
            "diff",
            b.as_str(),
            c.as_str(),
            "--format",
            "json",
            "--max-align-cells",
            "2000",
        ];
        let one = json_with_threads(&args, "1");
        for threads in ["2", "3"] {
            assert_eq!(
                one,
                json_with_threads(&args, threads),
                "{kind}: {threads} threads"
            );
        }
        let v: Value = serde_json::from_str(&one).unwrap();
        assert_eq!(v["alignment"], "anchored", "{kind}");
        assert!(v["first_divergence"].is_object(), "{kind}");
        assert!(!v["divergences"].as_array().unwrap().is_empty(), "{kind}");
        assert_eq!(v["structural"], exact["structural"], "{kind}");
        assert!(v["structural"]["d_norm"].as_f64().unwrap() > 0.0, "{kind}");
        assert_eq!(
            crate::common::diff_schema_violations(&v),
            Vec::<String>::new()
        );
    }
}
