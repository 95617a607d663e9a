//! `veer mine`: a small corpus (the example and demo traces, copies of them and one unreadable
//! file) mined into a suite — the terminal summary as a snapshot, the suite's layout, the
//! published schema, a second run replacing the first, and the refusals (exit 2).

use crate::common::{examples, fixtures};
use std::path::Path;
use std::process::Command;

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

fn veer_in(cwd: &Path, args: &[&str]) -> Out {
    veer_threads(cwd, args, 0)
}

/// Runs veer in `cwd` on `threads` rayon threads (0: rayon's default).
fn veer_threads(cwd: &Path, args: &[&str], threads: usize) -> Out {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_veer"));
    if threads > 0 {
        cmd.env("RAYON_NUM_THREADS", threads.to_string());
    }
    let out = cmd
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("COLUMNS")
        .output()
        .expect("veer runs");
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// corpus/: the refund agent's two runs three times each, the demo's two runs, one broken file.
fn corpus() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let c = tmp.path().join("corpus");
    for i in 0..3 {
        let d = c.join(format!("day-{i}"));
        std::fs::create_dir_all(&d).unwrap();
        for side in ["baseline", "candidate"] {
            std::fs::copy(
                examples().join(format!("refund-agent/{side}.agentlog")),
                d.join(format!("refund-{side}.agentlog")),
            )
            .unwrap();
        }
    }
    for side in ["baseline", "candidate"] {
        std::fs::copy(
            fixtures().join(format!("shadow/demo/{side}.agentlog")),
            c.join(format!("demo-{side}.agentlog")),
        )
        .unwrap();
    }
    std::fs::write(c.join("broken.agentlog"), "not json\n").unwrap();
    tmp
}

#[test]
fn mine_writes_a_suite_and_summarises_it() {
    let tmp = corpus();
    let r = veer_in(
        tmp.path(),
        &["mine", "corpus", "--out", "suite", "--per-case", "2"],
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    insta::assert_snapshot!(r.stdout);
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(tmp.path().join("suite/suite.json")).unwrap())
            .unwrap();
    assert!(crate::common::schema_violations("mine.schema.json", &json).is_empty());
    for case in json["cases"].as_array().unwrap() {
        for f in case["files"].as_array().unwrap() {
            let copy = tmp
                .path()
                .join("suite")
                .join(case["name"].as_str().unwrap())
                .join(f["trial"].as_str().unwrap());
            let source = tmp
                .path()
                .join("corpus")
                .join(f["source"].as_str().unwrap());
            assert_eq!(std::fs::read(copy).unwrap(), std::fs::read(source).unwrap());
        }
    }
    // --format json prints suite.json's bytes; a second run replaces the first.
    let again = veer_in(
        tmp.path(),
        &[
            "mine",
            "corpus",
            "--out",
            "suite",
            "--per-case",
            "2",
            "--format",
            "json",
        ],
    );
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(
        again.stdout,
        std::fs::read_to_string(tmp.path().join("suite/suite.json")).unwrap()
    );
    for format in ["markdown", "html"] {
        let r = veer_in(
            tmp.path(),
            &["mine", "corpus", "--out", "suite", "--format", format],
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(r.stdout.contains("cluster-01"), "{format}");
    }
}

#[test]
fn mine_refuses_bad_input_with_exit_2() {
    let tmp = corpus();
    std::fs::create_dir(tmp.path().join("taken")).unwrap();
    std::fs::write(tmp.path().join("taken/notes.txt"), "mine").unwrap();
    let r = veer_in(tmp.path(), &["mine", "corpus", "--out", "taken"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("hint:"), "{}", r.stderr);
    assert!(tmp.path().join("taken/notes.txt").exists());
    let r = veer_in(tmp.path(), &["mine", "corpus", "--out", "corpus/suite"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(!tmp.path().join("corpus/suite").exists());
    let r = veer_in(tmp.path(), &["mine", "nope", "--out", "suite"]);
    assert_eq!(r.code, 2);
    let r = veer_in(
        tmp.path(),
        &["mine", "corpus", "--out", "suite", "--cases", "0"],
    );
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--cases"), "{}", r.stderr);
    let r = veer_in(
        tmp.path(),
        &[
            "mine",
            "corpus",
            "--out",
            "suite",
            "--policy",
            "missing.yaml",
        ],
    );
    assert_eq!(r.code, 2);
}

#[test]
fn mine_json_is_the_same_on_one_thread_and_three() {
    let tmp = corpus();
    let args = ["mine", "corpus", "--out", "suite", "--format", "json"];
    let one = veer_threads(tmp.path(), &args, 1);
    let three = veer_threads(tmp.path(), &args, 3);
    assert_eq!(one.code, 0, "{}", one.stderr);
    assert_eq!(one.stdout, three.stdout);
}

/// `[mine]` in veer.toml sets the flags it names; a flag on the command line wins.
#[test]
fn mine_takes_its_settings_from_veer_toml() {
    let tmp = corpus();
    std::fs::create_dir(tmp.path().join(".git")).unwrap();
    std::fs::write(
        tmp.path().join("veer.toml"),
        "[mine]\ncases = 1\nper_case = 2\n",
    )
    .unwrap();
    let r = veer_in(
        tmp.path(),
        &["mine", "corpus", "--out", "suite", "--format", "json"],
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let j: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(j["clustering"]["k"], 1, "{}", r.stdout);
    assert_eq!(j["clustering"]["k_chosen_by"], "--cases", "{}", r.stdout);
    let r = veer_in(
        tmp.path(),
        &[
            "mine", "corpus", "--out", "suite", "--format", "json", "--cases", "2",
        ],
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let j: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(j["clustering"]["k"], 2, "{}", r.stdout);
}
