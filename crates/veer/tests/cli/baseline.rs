//! `veer baseline …` and `veer diff --baseline NAME`: create, show, approve, update, verify,
//! list; a tampered baseline is exit 2 naming the file; the diff against a baseline is the
//! diff against the runs it stored.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What one run gave.
pub struct Out {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs veer in `dir` with a fixed clock and no CI or git provenance from the environment.
pub fn veer_in(dir: &Path, args: &[&str]) -> Out {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_veer"));
    cmd.args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("SOURCE_DATE_EPOCH", "1767225600")
        .env("GITHUB_SHA", "0123456789abcdef0123456789abcdef01234567")
        .env("GITHUB_REF_NAME", "main")
        .env("GIT_CEILING_DIRECTORIES", dir);
    for var in [
        "GITHUB_RUN_ID",
        "GITHUB_RUN_ATTEMPT",
        "CI_PIPELINE_ID",
        "BUILDKITE_BUILD_ID",
        "CIRCLE_WORKFLOW_ID",
        "BUILD_TAG",
        "GITHUB_HEAD_REF",
        "GITHUB_ACTOR",
    ] {
        cmd.env_remove(var);
    }
    let out = cmd.output().expect("veer runs");
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// [`veer_in`], asserting the exit code.
pub fn ok_in(dir: &Path, args: &[&str], code: i32) -> Out {
    let r = veer_in(dir, args);
    assert_eq!(
        r.code, code,
        "veer {args:?}\nstdout:\n{}\nstderr:\n{}",
        r.stdout, r.stderr
    );
    r
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/refund-agent")
        .join(name)
}

/// A workspace with runs/main (two trials of `refund`, one `top` case) and runs/pr (the same
/// layout, one trial changed).
pub fn workspace() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    for side in ["main", "pr"] {
        fs::create_dir_all(d.join("runs").join(side).join("refund")).unwrap();
    }
    let base = example("baseline.agentlog");
    let cand = example("candidate.agentlog");
    for (to, from) in [
        ("runs/main/refund/t1.agentlog", &base),
        ("runs/main/refund/t2.agentlog", &base),
        ("runs/main/top.agentlog", &base),
        ("runs/pr/refund/t1.agentlog", &base),
        ("runs/pr/refund/t2.agentlog", &cand),
        ("runs/pr/top.agentlog", &base),
    ] {
        fs::copy(from, d.join(to)).unwrap();
    }
    fs::copy(example("policy.yaml"), d.join("policy.yaml")).unwrap();
    tmp
}

#[test]
fn create_show_approve_update_list_verify() {
    let ws = workspace();
    let d = ws.path();
    let r = ok_in(
        d,
        &[
            "baseline",
            "create",
            "runs/main",
            "--name",
            "main",
            "--policy",
            "policy.yaml",
            "--ci-run",
            "77",
        ],
        0,
    );
    insta::assert_snapshot!("baseline_create", r.stdout);
    let r = ok_in(d, &["baseline", "show", "main"], 0);
    insta::assert_snapshot!("baseline_show", r.stdout);
    let json = ok_in(d, &["baseline", "show", "main", "--format", "json"], 0).stdout;
    let stored = fs::read_to_string(d.join(".veer/baselines/main/v1/manifests/0001.json")).unwrap();
    assert_eq!(
        json, stored,
        "show --format json prints the stored manifest"
    );
    insta::assert_snapshot!("baseline_manifest", json);

    let e = ok_in(d, &["baseline", "create", "runs/main", "--name", "main"], 2);
    assert!(e.stderr.contains("already exists"), "{}", e.stderr);
    assert!(e.stderr.contains("veer baseline update"), "{}", e.stderr);

    let r = ok_in(
        d,
        &[
            "baseline",
            "approve",
            "main",
            "--by",
            "ana",
            "--reason",
            "refund flows reviewed",
        ],
        0,
    );
    assert_eq!(
        r.stdout,
        "approved baseline main version 1 (manifest revision 2, 1 approval)\n"
    );
    let rev2: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(d.join(".veer/baselines/main/v1/manifests/0002.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(rev2["approvals"][0]["by"], "ana");
    assert_eq!(rev2["approvals"][0]["reason"], "refund flows reviewed");
    assert_eq!(rev2["approvals"][0]["at"], "2026-01-01T00:00:00.000Z");
    assert_eq!(
        fs::read_to_string(d.join(".veer/baselines/main/v1/manifests/0001.json")).unwrap(),
        stored,
        "revision 1 untouched"
    );

    let r = ok_in(d, &["baseline", "update", "runs/pr", "--name", "main"], 0);
    assert!(
        r.stdout.starts_with("stored baseline main version 2"),
        "{}",
        r.stdout
    );
    let v1 = ok_in(d, &["baseline", "show", "main@1", "--format", "json"], 0).stdout;
    assert!(v1.contains("\"revision\": 2"), "v1 keeps its approval");
    let r = ok_in(d, &["baseline", "list", "--format", "json"], 0);
    let list: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(list["baselines"][0]["versions"], serde_json::json!([1, 2]));
    insta::assert_snapshot!("baseline_list", ok_in(d, &["baseline", "list"], 0).stdout);

    let r = ok_in(d, &["baseline", "verify", "main@1"], 0);
    assert_eq!(
        r.stdout,
        "baseline main version 1: all 3 files match the manifest (revision 2)\n"
    );
    ok_in(d, &["baseline", "verify", "main", "--format", "json"], 0);

    // --path stores anywhere; the same runs give the same manifest bytes.
    ok_in(
        d,
        &[
            "baseline",
            "create",
            "runs/main",
            "--path",
            "elsewhere/main",
            "--policy",
            "policy.yaml",
            "--ci-run",
            "77",
        ],
        0,
    );
    let again = fs::read_to_string(d.join("elsewhere/main/v1/manifests/0001.json")).unwrap();
    assert_eq!(again, stored);
    ok_in(d, &["baseline", "verify", "./elsewhere/main"], 0);
}

#[test]
fn diff_against_a_baseline_is_the_diff_against_its_runs() {
    let ws = workspace();
    let d = ws.path();
    ok_in(d, &["baseline", "create", "runs/main", "--name", "main"], 0);
    let direct = ok_in(
        d,
        &[
            "diff",
            "runs/main",
            "runs/pr",
            "--format",
            "json",
            "--fail-on",
            "severe",
        ],
        1,
    );
    let stored = ok_in(
        d,
        &[
            "diff",
            "--baseline",
            "main",
            "runs/pr",
            "--format",
            "json",
            "--fail-on",
            "severe",
        ],
        1,
    );
    let a: serde_json::Value = serde_json::from_str(&direct.stdout).unwrap();
    let b: serde_json::Value = serde_json::from_str(&stored.stdout).unwrap();
    assert_eq!(a["aggregate"], b["aggregate"]);
    assert_eq!(a["gate"], b["gate"]);
    assert_eq!(a["pairs"].as_array().unwrap().len(), 3);
    for (x, y) in a["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .zip(b["pairs"].as_array().unwrap())
    {
        assert_eq!(x["baseline"], y["baseline"]);
        assert_eq!(x["report"]["axes"], y["report"]["axes"]);
    }
    // The policy the baseline was stored with is expected on the diff.
    ok_in(
        d,
        &[
            "baseline",
            "create",
            "runs/main",
            "--name",
            "with-policy",
            "--policy",
            "policy.yaml",
        ],
        0,
    );
    let r = ok_in(d, &["diff", "--baseline", "with-policy", "runs/pr"], 0);
    assert!(
        r.stderr.contains("this diff has no --policy"),
        "{}",
        r.stderr
    );
    let r = ok_in(
        d,
        &[
            "diff",
            "--baseline",
            "with-policy",
            "runs/pr",
            "--policy",
            "policy.yaml",
        ],
        0,
    );
    assert!(!r.stderr.contains("warning"), "{}", r.stderr);
    // Byte-identical from one run to the next.
    let again = ok_in(
        d,
        &[
            "diff",
            "--baseline",
            "main@1",
            "runs/pr",
            "--format",
            "json",
            "--fail-on",
            "severe",
        ],
        1,
    );
    assert_eq!(again.stdout, stored.stdout);
}

fn make_writable(p: &Path) {
    let mut perms = fs::metadata(p).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    fs::set_permissions(p, perms).unwrap();
}

#[test]
fn a_tampered_baseline_is_exit_2_naming_the_file() {
    let ws = workspace();
    let d = ws.path();
    ok_in(d, &["baseline", "create", "runs/main", "--name", "main"], 0);
    let victim = d.join(".veer/baselines/main/v1/traces/refund/t2.agentlog");
    assert!(
        fs::metadata(&victim).unwrap().permissions().readonly(),
        "stored files are read-only"
    );
    make_writable(&victim);
    // Swap in other (valid, uncompressed) trace content.
    fs::copy(example("candidate.agentlog"), &victim).unwrap();
    for args in [
        &["baseline", "verify", "main"][..],
        &["diff", "--baseline", "main", "runs/pr"][..],
        &["baseline", "approve", "main", "--by", "x", "--reason", "y"][..],
    ] {
        let r = ok_in(d, args, 2);
        assert!(
            r.stderr
                .contains(".veer/baselines/main/v1/traces/refund/t2.agentlog: sha256 mismatch"),
            "{args:?}: {}",
            r.stderr
        );
        assert!(
            r.stderr
                .contains("hint: the baseline was changed after it was stored"),
            "{}",
            r.stderr
        );
        assert!(r.stdout.is_empty(), "no report from a tampered baseline");
    }
    insta::assert_snapshot!(
        "baseline_tampered",
        veer_in(d, &["baseline", "verify", "main"])
            .stderr
            .replace(&*d.display().to_string(), "[TMP]")
    );
    // An added file is named too.
    fs::copy(example("candidate.agentlog"), &victim).unwrap();
    let ws2 = workspace();
    let d2 = ws2.path();
    ok_in(
        d2,
        &["baseline", "create", "runs/main", "--name", "main"],
        0,
    );
    fs::copy(
        example("candidate.agentlog"),
        d2.join(".veer/baselines/main/v1/traces/extra.agentlog"),
    )
    .unwrap();
    let r = ok_in(d2, &["diff", "--baseline", "main", "runs/pr"], 2);
    assert!(
        r.stderr
            .contains("traces/extra.agentlog: not in the manifest"),
        "{}",
        r.stderr
    );
}

#[test]
fn bad_baseline_arguments_are_exit_2_with_a_hint() {
    let ws = workspace();
    let d = ws.path();
    let r = ok_in(d, &["diff", "--baseline", "nope", "runs/pr"], 2);
    assert!(
        r.stderr.contains(".veer/baselines/nope: no baseline here"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("hint: create one with `veer baseline create"),
        "{}",
        r.stderr
    );
    ok_in(d, &["baseline", "create", "runs/main", "--name", "main"], 0);
    let r = ok_in(
        d,
        &["diff", "--baseline", "main", "runs/pr", "runs/main"],
        2,
    );
    assert!(
        r.stderr.contains("give only the candidate directory"),
        "{}",
        r.stderr
    );
    let r = ok_in(d, &["diff", "--baseline", "main@9", "runs/pr"], 2);
    assert!(
        r.stderr.contains("no version 9 (versions: 1)"),
        "{}",
        r.stderr
    );
    let r = ok_in(d, &["baseline", "create", "runs/main", "--name", "../x"], 2);
    assert!(r.stderr.contains("is not a baseline name"), "{}", r.stderr);
    let r = ok_in(
        d,
        &["baseline", "update", "runs/main", "--name", "other"],
        2,
    );
    assert!(
        r.stderr.contains("no baseline `other` to update"),
        "{}",
        r.stderr
    );
    fs::write(d.join("runs/main/broken.agentlog"), "not json\n").unwrap();
    let r = ok_in(d, &["baseline", "update", "runs/main", "--name", "main"], 2);
    assert!(r.stderr.contains("broken.agentlog"), "{}", r.stderr);
    assert!(!d.join(".veer/baselines/main/v2").exists());
    let hidden: Vec<_> = fs::read_dir(d.join(".veer/baselines/main"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(hidden, ["v1"], "no temporary directory left");
    let r = ok_in(
        d,
        &["baseline", "approve", "main", "--by", "a", "--reason", "  "],
        2,
    );
    assert!(r.stderr.contains("--reason is empty"), "{}", r.stderr);
    assert_eq!(
        ok_in(d, &["baseline", "list", "--root", "nowhere"], 0).stdout,
        "no baselines in nowhere (create one: veer baseline create RUNS_DIR --name main)\n"
    );
}

/// The approver's address is the user's own metadata: `show` prints it (JSON byte for byte),
/// while a secret in the same manifest would still be redacted.
#[test]
fn show_keeps_the_approvers_address() {
    let ws = workspace();
    let d = ws.path();
    ok_in(d, &["baseline", "create", "runs/main", "--name", "main"], 0);
    ok_in(
        d,
        &[
            "baseline",
            "approve",
            "main",
            "--by",
            "ana@example.com",
            "--reason",
            "refund flows reviewed",
        ],
        0,
    );
    let json = ok_in(d, &["baseline", "show", "main", "--format", "json"], 0).stdout;
    assert_eq!(
        json,
        fs::read_to_string(d.join(".veer/baselines/main/v1/manifests/0002.json")).unwrap(),
        "show --format json prints the stored manifest byte for byte"
    );
    assert!(json.contains("\"ana@example.com\""), "{json}");
    let text = ok_in(d, &["baseline", "show", "main"], 0).stdout;
    assert!(
        text.contains("ana@example.com") && !text.contains("REDACTED"),
        "{text}"
    );
}
