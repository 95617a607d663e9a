//! Directory mode at corpus scale: pairs streamed in path order through a reorder window. The
//! JSON written pair by pair must be exactly the pretty document of its own value, the same
//! bytes whatever the thread count, redacted in every piece, and an `-o` file appears only
//! once the whole report is written.

use crate::common::veer_ok;
use std::path::Path;
use std::process::Command;

/// A synthetic corpus of `pairs` pairs of `turns` turns (`veer synth`), in `dir`.
fn corpus(dir: &Path, pairs: usize, turns: usize) {
    let (pairs, turns) = (pairs.to_string(), turns.to_string());
    veer_ok(
        &[
            "synth",
            "--kind",
            "changed",
            "--turns",
            &turns,
            "--pairs",
            &pairs,
            "--out-dir",
            dir.to_str().unwrap(),
        ],
        0,
    );
}

/// `veer diff` run with `threads` worker threads; (exit code, stdout bytes).
fn diff_with_threads(args: &[&str], threads: usize) -> (i32, Vec<u8>) {
    let out = Command::new(env!("CARGO_BIN_EXE_veer"))
        .arg("diff")
        .args(args)
        .env("NO_COLOR", "1")
        .env("RAYON_NUM_THREADS", threads.to_string())
        .output()
        .unwrap();
    (out.status.code().unwrap_or(-1), out.stdout)
}

#[test]
fn streamed_json_is_one_pretty_document_whatever_the_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    // More pairs than one window holds on 1 or 3 threads (32 per thread), so several windows
    // are diffed while earlier ones print.
    corpus(dir.path(), 100, 4);
    std::fs::remove_file(dir.path().join("baseline/pair-00004.agentlog")).unwrap();
    let (b, c) = (dir.path().join("baseline"), dir.path().join("candidate"));
    let args = [b.to_str().unwrap(), c.to_str().unwrap(), "--format", "json"];
    let (code, one) = diff_with_threads(&args, 1);
    assert_eq!(code, 0);
    let (_, three) = diff_with_threads(&args, 3);
    assert!(one == three, "JSON differs between 1 and 3 threads");
    let text = String::from_utf8(one).unwrap();
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(text, serde_json::to_string_pretty(&value).unwrap() + "\n");
    let pairs = value["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 99);
    let names: Vec<&str> = pairs
        .iter()
        .map(|p| p["baseline"].as_str().unwrap())
        .collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted, "pairs in path order");
    assert_eq!(value["aggregate"]["trace_pairs"], 99);
    assert_eq!(value["aggregate"]["unmatched"], 1);
    assert_eq!(
        value["unmatched"]["candidate_only"][0],
        "pair-00004.agentlog"
    );
    let diverged = pairs
        .iter()
        .filter(|p| !p["report"]["first_divergence"].is_null())
        .count();
    assert_eq!(value["aggregate"]["traces_with_divergence"], diverged);
    // The same bytes again through -o.
    let out = dir.path().join("report.json");
    let mut with_o = args.to_vec();
    with_o.extend(["-o", out.to_str().unwrap()]);
    let (code, stdout) = diff_with_threads(&with_o, 2);
    assert_eq!((code, stdout.len()), (0, 0));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), text);
}

#[test]
fn every_streamed_piece_is_redacted() {
    // The reports name each trace by its path: here the directories' names are secrets.
    let dir = tempfile::tempdir().unwrap();
    let key = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123";
    let (b, c) = (
        dir.path().join("dana.lee@example.com"),
        dir.path().join(key),
    );
    corpus(&b, 40, 3);
    let (b, c_made) = (b.join("baseline"), b.join("candidate"));
    std::fs::rename(&c_made, &c).unwrap();
    let (b, c) = (b.to_str().unwrap(), c.to_str().unwrap());
    for format in [
        "json", "markdown", "terminal", "junit", "sarif", "github", "html",
    ] {
        let out = veer_ok(&["diff", b, c, "--format", format], 0).stdout;
        assert!(
            !out.contains(key) && !out.contains("dana.lee"),
            "{format} leaked"
        );
        if format == "json" {
            assert!(out.contains("[REDACTED:anthropic_api_key]"));
            assert!(out.contains("[REDACTED:email]"));
            let v: serde_json::Value = serde_json::from_str(&out).unwrap();
            assert_eq!(v["pairs"].as_array().unwrap().len(), 40);
        }
    }
}

#[test]
fn a_directory_diff_with_a_bad_pair_still_writes_the_whole_report() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path(), 3, 4);
    let (b, c) = (dir.path().join("baseline"), dir.path().join("candidate"));
    std::fs::write(c.join("pair-00001.agentlog"), "not a trace\n").unwrap();
    let out = dir.path().join("report.json");
    std::fs::write(&out, "replace me").unwrap();
    let r = crate::common::veer(&[
        "diff",
        b.to_str().unwrap(),
        c.to_str().unwrap(),
        "--format",
        "json",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("pair-00001.agentlog"), "{}", r.stderr);
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["pairs"].as_array().unwrap().len(), 2);
    assert_eq!(v["errors"][0]["baseline"], "pair-00001.agentlog");
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty());
}

/// `veer diff` with one worker thread (a 32-pair window); (exit code, stdout, stderr).
fn diff_one_thread(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_veer"))
        .arg("diff")
        .args(args)
        .env("NO_COLOR", "1")
        .env("RAYON_NUM_THREADS", "1")
        .output()
        .unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (
        out.status.code().unwrap_or(-1),
        text(out.stdout),
        text(out.stderr),
    )
}

#[test]
fn bad_pairs_in_several_windows_are_the_same_error_rows_staged_or_streamed() {
    // Bad pairs in the first window and in the third: the pairs around them are diffed, both
    // are error rows in path order, and `-o FILE` holds the bytes stdout shows.
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path(), 70, 2);
    let (b, c) = (dir.path().join("baseline"), dir.path().join("candidate"));
    std::fs::write(c.join("pair-00003.agentlog"), "not a trace\n").unwrap();
    std::fs::write(b.join("pair-00067.agentlog"), "{\"broken\": \n").unwrap();
    let out = dir.path().join("report.json");
    std::fs::write(&out, "keep me").unwrap();
    let (b, c, o) = (
        b.to_str().unwrap(),
        c.to_str().unwrap(),
        out.to_str().unwrap(),
    );
    let staged = diff_one_thread(&[b, c, "--format", "json", "-o", o]);
    let streamed = diff_one_thread(&[b, c, "--format", "json"]);
    assert_eq!(staged.0, 2, "{}", staged.2);
    assert_eq!(streamed.0, 2, "{}", streamed.2);
    assert!(
        staged
            .2
            .contains("2 of 70 trace pairs could not be read or compared"),
        "{}",
        staged.2
    );
    let first = staged.2.find("pair-00003.agentlog").unwrap();
    let second = staged.2.find("pair-00067.agentlog").unwrap();
    assert!(first < second, "{}", staged.2);
    assert_eq!(staged.2, streamed.2);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), streamed.1);
    let v: serde_json::Value = serde_json::from_str(&streamed.1).unwrap();
    assert_eq!(v["pairs"].as_array().unwrap().len(), 68);
    assert_eq!(v["aggregate"]["error_pairs"], 2);
    let rows: Vec<&str> = v["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["baseline"].as_str().unwrap())
        .collect();
    assert_eq!(rows, ["pair-00003.agentlog", "pair-00067.agentlog"]);
}

#[test]
fn a_large_pooled_fingerprint_test_is_the_same_whatever_the_thread_count() {
    // Over 4,096 responses a side: the pool keeps only sums and reads the pairs again for the
    // test's second pass (docs/corpus.md).
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path(), 215, 20);
    let (b, c) = (dir.path().join("baseline"), dir.path().join("candidate"));
    let args = [b.to_str().unwrap(), c.to_str().unwrap(), "--format", "json"];
    let (code, one) = diff_with_threads(&args, 1);
    assert_eq!(code, 0);
    let (_, three) = diff_with_threads(&args, 3);
    assert!(one == three, "JSON differs between 1 and 3 threads");
    let value: serde_json::Value = serde_json::from_slice(&one).unwrap();
    let block = &value["fingerprint"];
    assert!(block["n1"].as_u64().unwrap() > 4096, "{block}");
    assert!(block["n2"].as_u64().unwrap() > 2, "{block}");
    assert_eq!(block["method"], "f_distribution");
}
