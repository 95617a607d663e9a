//! Inspect AI eval logs (tests/fixtures/inspect/, written by inspect-ai itself): `inspect` lists
//! the sample-epochs, `convert -o DIR/` writes one `.agentlog` each, the converted baseline and
//! candidate diff against a policy, single-trace commands refuse a log of several samples, and
//! damaged logs (made here from the fixtures) are exit 2 naming the member.

use crate::common::{fixtures, veer, veer_ok};
use std::io::{Read, Write};
use std::path::Path;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

const DIR: &str = "tests/fixtures/inspect";

fn fx(name: &str) -> String {
    format!("{DIR}/{name}")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn inspect_lists_sample_epochs_with_scores_and_turns() {
    let r = veer_ok(&["inspect", &fx("baseline.eval")], 0);
    assert!(
        r.stdout
            .contains("inspect-ai, task lookup_task, model mockllm/model"),
        "{}",
        r.stdout
    );
    for row in [
        "│ 1 ",
        "│ 3 ",
        "│ orders/ORD-7 ",
        "includes=C",
        "error",
        "lookup",
    ] {
        assert!(r.stdout.contains(row), "{row}: {}", r.stdout);
    }
    let r = veer_ok(&["inspect", &fx("candidate.eval"), "--format", "json"], 0);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["log"]["format"], "inspect-ai");
    let samples = v["log"]["samples"].as_array().unwrap();
    assert_eq!(samples.len(), 6);
    assert_eq!(samples[0]["case"], "1");
    assert_eq!(samples[0]["trial"], 1);
    assert_eq!(samples[0]["outcome"], "fail");
    assert_eq!(samples[0]["scores"]["includes"], "I");
    assert_eq!(samples[0]["tools"], serde_json::json!([]));
    assert_eq!(samples[2]["outcome"], "fail"); // no tool, so no tool error either
    assert!(samples[4]["converts_to"]
        .as_str()
        .unwrap()
        .starts_with("orders_ORD-7-"));
    // The JSON log reads the same way.
    let r = veer_ok(&["inspect", &fx("baseline.json"), "--format", "json"], 0);
    assert!(r.stdout.contains("\"outcome\": \"pass\""), "{}", r.stdout);
}

#[test]
fn convert_writes_one_agentlog_per_sample_epoch_and_never_overwrites() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("base");
    let r = veer_ok(
        &[
            "convert",
            &fx("baseline.eval"),
            "-o",
            &format!("{}/", s(&out)),
        ],
        0,
    );
    assert!(r.stderr.contains("wrote 6 traces"), "{}", r.stderr);
    let mut files: Vec<String> = Vec::new();
    for case in std::fs::read_dir(&out).unwrap() {
        let case = case.unwrap();
        for f in std::fs::read_dir(case.path()).unwrap() {
            files.push(format!(
                "{}/{}",
                case.file_name().to_string_lossy(),
                f.unwrap().file_name().to_string_lossy()
            ));
        }
    }
    files.sort();
    assert_eq!(files.len(), 6, "{files:?}");
    assert_eq!(&files[..2], ["1/trial-1.agentlog", "1/trial-2.agentlog"]);
    assert!(files[4].starts_with("orders_ORD-7-") && files[4].ends_with("/trial-1.agentlog"));
    // Each file is a strict .agentlog carrying case and trial.
    let one = out.join("1/trial-2.agentlog");
    veer_ok(&["inspect", "--strict", s(&one)], 0);
    let first = std::fs::read_to_string(&one).unwrap();
    let meta: serde_json::Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
    assert_eq!(meta["payload"]["case"], "1");
    assert_eq!(meta["payload"]["trial"], 2);
    assert_eq!(meta["payload"]["outcome"], "pass");
    // A second conversion into the same directory refuses to replace the first.
    let before = std::fs::read(&one).unwrap();
    let r = veer_ok(&["convert", &fx("baseline.eval"), "-o", s(&out)], 2);
    assert!(r.stderr.contains("refusing to overwrite"), "{}", r.stderr);
    assert_eq!(std::fs::read(&one).unwrap(), before);
    // A one-sample log converts to a file; a log of several does not.
    let file = tmp.path().join("one.agentlog");
    veer_ok(&["convert", &fx("one-sample.eval"), "-o", s(&file)], 0);
    veer_ok(&["inspect", "--strict", s(&file)], 0);
    let r = veer_ok(
        &[
            "convert",
            &fx("baseline.eval"),
            "-o",
            s(&tmp.path().join("x.agentlog")),
        ],
        2,
    );
    assert!(r.stderr.contains("6 sample-epochs"), "{}", r.stderr);
    assert!(r.stderr.contains("-o DIR/"), "{}", r.stderr);
}

#[test]
fn converted_baseline_and_candidate_diff_against_a_policy_requiring_the_tool() {
    let tmp = tempfile::tempdir().unwrap();
    let (base, cand) = (tmp.path().join("base"), tmp.path().join("cand"));
    veer_ok(
        &[
            "convert",
            &fx("baseline.eval"),
            "-o",
            &format!("{}/", s(&base)),
        ],
        0,
    );
    veer_ok(
        &[
            "convert",
            &fx("candidate.eval"),
            "-o",
            &format!("{}/", s(&cand)),
        ],
        0,
    );
    let policy = fx("policy.yaml");
    let r = veer_ok(
        &[
            "diff",
            s(&base.join("1/trial-1.agentlog")),
            s(&cand.join("1/trial-1.agentlog")),
            "--policy",
            &policy,
        ],
        0,
    );
    assert!(r.stdout.contains("looks-up"), "{}", r.stdout);
    assert!(r.stdout.contains("1 candidate violation"), "{}", r.stdout);
    // The directories are compared case by case (sample id), trials by epoch: the candidate
    // skips the tool in every epoch, so every case regressed on the rule.
    let r = veer_ok(
        &[
            "diff",
            s(&base),
            s(&cand),
            "--policy",
            &policy,
            "--fail-on",
            "severe",
        ],
        1,
    );
    assert!(r.stdout.contains("3 regressed"), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("orders/ORD-7 — regressed (2 vs 2 trials): looks-up"),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr
            .contains("tripped: rule looks-up in 1, 3, orders/ORD-7"),
        "{}",
        r.stderr
    );
    // With --trials off they pair by relative path: every case and trial.
    let r = veer_ok(
        &[
            "diff",
            s(&base),
            s(&cand),
            "--policy",
            &policy,
            "--trials",
            "off",
        ],
        0,
    );
    assert!(r.stdout.contains("conformance"), "{}", r.stdout);
    // Two one-sample logs diff directly.
    let r = veer_ok(
        &[
            "diff",
            &fx("one-sample.eval"),
            &fx("one-sample-candidate.eval"),
            "--policy",
            &policy,
        ],
        0,
    );
    assert!(r.stdout.contains("looks-up"), "{}", r.stdout);
}

#[test]
fn single_trace_commands_refuse_a_log_of_several_samples() {
    // `veer diff` compares two logs case by case (sample id), trials by epoch…
    let r = veer_ok(
        &[
            "diff",
            &fx("baseline.eval"),
            &fx("candidate.eval"),
            "--policy",
            &fx("policy.yaml"),
            "--fail-on",
            "severe",
        ],
        1,
    );
    assert!(
        r.stdout.contains(
            "3 cases with repeated trials (6 baseline / 6 candidate trials) — 3 regressed"
        ),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr
            .contains("tripped: rule looks-up in 1, 3, orders/ORD-7"),
        "{}",
        r.stderr
    );
    // Inspect's scores are the pass/fail outcome of pass^k.
    let r = veer_ok(
        &[
            "diff",
            &fx("baseline.eval"),
            &fx("candidate.eval"),
            "--format",
            "json",
        ],
        0,
    );
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        v["trials"]["pass_hat_k"]["outcome"], "outcome",
        "{}",
        v["trials"]["pass_hat_k"]
    );
    assert!(
        crate::common::diff_schema_violations(&v).is_empty(),
        "{:?}",
        crate::common::diff_schema_violations(&v)
    );
    // … and with --trials off it wants single traces.
    let r = veer_ok(
        &[
            "diff",
            &fx("baseline.eval"),
            &fx("candidate.eval"),
            "--trials",
            "off",
        ],
        2,
    );
    assert!(
        r.stderr
            .contains("holds 6 sample-epochs, not a single trace"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("hint: write one trace per sample-epoch"),
        "{}",
        r.stderr
    );
    let r = veer_ok(
        &[
            "check",
            &fx("baseline.json"),
            "--policy",
            &fx("policy.yaml"),
        ],
        2,
    );
    assert!(r.stderr.contains("holds 2 sample-epochs"), "{}", r.stderr);
}

/// The members of a fixture, decompressed, in archive order.
pub(crate) fn members(name: &str) -> Vec<(String, Vec<u8>)> {
    let bytes = std::fs::read(fixtures().join("inspect").join(name)).unwrap();
    let mut z = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    (0..z.len())
        .map(|i| {
            let mut f = z.by_index(i).unwrap();
            let mut out = Vec::new();
            f.read_to_end(&mut out).unwrap();
            (f.name().to_string(), out)
        })
        .collect()
}

/// An archive of `members`, each stored with `method`.
fn archive(members: &[(String, Vec<u8>)], method: CompressionMethod) -> Vec<u8> {
    let mut w = ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let o = SimpleFileOptions::default().compression_method(method);
    for (name, bytes) in members {
        w.start_file(name.as_str(), o).unwrap();
        w.write_all(bytes).unwrap();
    }
    w.finish().unwrap().into_inner()
}

/// A zstd frame of `blocks` RLE blocks of 128 KiB spaces each (4 bytes a block).
fn zstd_rle_frame(blocks: usize) -> Vec<u8> {
    let mut f = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x50]; // magic; no size; 1 MiB window
    for i in 0..blocks {
        let last = u32::from(i + 1 == blocks);
        let header = last | (1 << 1) | (128 << 10 << 3); // RLE block of 131072 bytes
        f.extend_from_slice(&header.to_le_bytes()[..3]);
        f.push(b' ');
    }
    f
}

/// A `.eval` whose `samples/9_epoch_1.json` is a zstd bomb: 8 KiB that decompress to 257 MiB,
/// its headers claiming 1 KiB.
fn bomb() -> Vec<u8> {
    let name = "samples/9_epoch_1.json";
    let mut m = members("one-sample.eval");
    m.push((name.into(), zstd_rle_frame(257 * 8)));
    let mut bytes = archive(&m, CompressionMethod::Stored);
    // Mark the member zstd (method 93) with an uncompressed size of 1 KiB, in its local and
    // central headers.
    for (sig, method_at, size_at, name_len_at, name_at) in [
        (b"PK\x03\x04", 8, 22, 26, 30),
        (b"PK\x01\x02", 10, 24, 28, 46),
    ] {
        let mut i = 0;
        while let Some(p) = bytes[i..].windows(4).position(|w| w == sig) {
            let at = i + p;
            let len = u16::from_le_bytes([bytes[at + name_len_at], bytes[at + name_len_at + 1]]);
            if &bytes[at + name_at..at + name_at + len as usize] == name.as_bytes() {
                bytes[at + method_at..at + method_at + 2].copy_from_slice(&93u16.to_le_bytes());
                bytes[at + size_at..at + size_at + 4].copy_from_slice(&1024u32.to_le_bytes());
            }
            i = at + 4;
        }
    }
    bytes
}

#[test]
fn damaged_logs_are_exit_2_naming_the_member() {
    let tmp = tempfile::tempdir().unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let p = tmp.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        p.to_str().unwrap().to_string()
    };
    let good = std::fs::read(fixtures().join("inspect/baseline.eval")).unwrap();
    let truncated = write("truncated.eval", &good[..good.len() - 100]);
    let mut m = members("baseline.eval");
    for (n, b) in &mut m {
        if n == "samples/3_epoch_2.json" {
            *b = b"not json".to_vec();
        }
    }
    let not_json = write("not-json.eval", &archive(&m, CompressionMethod::Zstd));
    let mut m = members("baseline.eval");
    m.retain(|(n, _)| n != "header.json");
    let headless = write("headless.eval", &archive(&m, CompressionMethod::Zstd));
    let bomb = write("bomb.eval", &bomb());
    for (file, needle) in [
        (&truncated, "not a readable zip archive"),
        (
            &not_json,
            "samples/3_epoch_2.json: the member is not valid JSON",
        ),
        (&headless, "header.json: missing member"),
        (
            &bomb,
            "samples/9_epoch_1.json: the member decompresses to more than 268435456 bytes",
        ),
    ] {
        let out = format!("{}/out-{}/", s(tmp.path()), file.len());
        let convert = ["convert", file.as_str(), "-o", &out];
        // (the bomb decompresses 256 MiB in a debug build: once is enough)
        let runs = if file == &bomb { 1 } else { 2 };
        for cmd in [&["inspect", file.as_str()][..], &convert[..]]
            .into_iter()
            .take(runs)
        {
            let r = veer(cmd);
            assert_eq!(r.code, 2, "{cmd:?}: {}", r.stderr);
            assert!(r.stderr.contains(needle), "{cmd:?}: {}", r.stderr);
            assert!(r.stderr.contains("hint:"), "{cmd:?}: {}", r.stderr);
            assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
        }
    }
}

/// `--max-trace-bytes` bounds the whole log, counted over every member decompressed (so many
/// members each under the per-member cap stop too) and over a JSON log's bytes.
#[test]
fn a_log_past_max_trace_bytes_is_exit_2_naming_the_limit() {
    for log in ["baseline.eval", "baseline.json"] {
        for command in ["inspect", "convert"] {
            let dir = tempfile::tempdir().unwrap();
            let out = format!("{}/", dir.path().join("out").display());
            let mut args = vec![command, &*fx(log).leak(), "--max-trace-bytes", "3000"];
            if command == "convert" {
                args.extend(["-o", &*out.clone().leak()]);
            }
            let r = veer(&args);
            assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
            assert!(
                r.stderr.contains("larger than the limit of 3000 bytes")
                    && r.stderr.contains("--max-trace-bytes"),
                "{args:?}: {}",
                r.stderr
            );
        }
        veer_ok(&["inspect", &fx(log)], 0);
    }
}
