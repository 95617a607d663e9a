//! `veer.toml` (docs/config.md) and `veer init`: the file is found by walking up to the
//! repository root, its settings become flags a command-line flag overrides, unknown keys are
//! exit 2 naming file, line and key with a did-you-mean hint, `veer config show` names every
//! setting's source, and `veer init` writes its three files without ever overwriting one.

use crate::common::{examples, schema_violations, Run};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs `veer` in `cwd` with `env` set (and VEER_CONFIG unset unless given).
fn veer_in(cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_veer"));
    cmd.args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("VEER_CONFIG")
        .env_remove("GITHUB_STEP_SUMMARY");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("veer runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn expect(r: &Run, code: i32, what: &str) {
    assert_eq!(
        r.code, code,
        "{what}\nstdout:\n{}\nstderr:\n{}",
        r.stdout, r.stderr
    );
}

/// A repository (a directory with `.git`) holding the refund agent's traces and policy, with
/// `veer.toml` = `toml`; returns (temp dir, repository root).
fn repo(toml: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::create_dir_all(root.join("runs/deep/er")).unwrap();
    let ex = examples().join("refund-agent");
    for f in ["baseline.agentlog", "candidate.agentlog"] {
        std::fs::copy(ex.join(f), root.join("runs").join(f)).unwrap();
    }
    std::fs::copy(ex.join("policy.yaml"), root.join("policy.yaml")).unwrap();
    std::fs::write(root.join("veer.toml"), toml).unwrap();
    (tmp, root)
}

const GATED: &str = "policy = \"policy.yaml\"\n\n[diff]\nfail_on = \"severe\"\n";

fn diff_args<'a>(base: &'a str, cand: &'a str, more: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec!["diff", base, cand];
    v.extend_from_slice(more);
    v
}

#[test]
fn settings_apply_from_a_subdirectory_and_flags_win() {
    let (_tmp, root) = repo(GATED);
    let deep = root.join("runs/deep/er");
    let (b, c) = ("../../baseline.agentlog", "../../candidate.agentlog");
    // The policy (relative to veer.toml, not to the working directory) and the gate apply.
    let r = veer_in(&deep, &diff_args(b, c, &[]), &[]);
    expect(&r, 1, "the file's gate trips");
    assert!(r.stdout.contains("confirm-before-refund"), "{}", r.stdout);
    // A flag given on the command line wins over the file.
    expect(
        &veer_in(&deep, &diff_args(b, c, &["--fail-on", "never"]), &[]),
        0,
        "flag wins",
    );
    // --no-config ignores the file: no policy, no gate.
    let r = veer_in(&deep, &["--no-config", "diff", b, c], &[]);
    expect(&r, 0, "--no-config");
    assert!(!r.stdout.contains("confirm-before-refund"));
    // A flag whose value is the default still counts as given: `--fail-on never` above;
    // and a default never hides the file (no --fail-on at all tripped).
}

#[test]
fn check_takes_its_policy_from_the_file_and_says_so_when_there_is_none() {
    let (_tmp, root) = repo(GATED);
    let r = veer_in(&root, &["check", "runs/candidate.agentlog"], &[]);
    expect(&r, 1, "the file's policy is checked");
    assert!(r.stdout.contains("confirm-before-refund"), "{}", r.stdout);
    let r = veer_in(
        &root,
        &["--no-config", "check", "runs/candidate.agentlog"],
        &[],
    );
    expect(&r, 2, "no policy anywhere");
    assert!(
        r.stderr.contains("veer check needs a policy"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("hint: pass --policy FILE"),
        "{}",
        r.stderr
    );
}

#[test]
fn diff_takes_its_stored_baseline_from_the_file_and_one_path_alone_is_a_clear_error() {
    let (_tmp, root) = repo("baseline = \"main\"\n");
    for side in ["main", "pr"] {
        std::fs::create_dir_all(root.join(side)).unwrap();
    }
    std::fs::copy(
        root.join("runs/baseline.agentlog"),
        root.join("main/a.agentlog"),
    )
    .unwrap();
    std::fs::copy(
        root.join("runs/candidate.agentlog"),
        root.join("pr/a.agentlog"),
    )
    .unwrap();
    expect(
        &veer_in(
            &root,
            &["baseline", "create", "main", "--name", "main"],
            &[],
        ),
        0,
        "baseline create",
    );
    // The file names the stored baseline: one path is the candidate directory.
    let r = veer_in(&root, &["diff", "pr", "--format", "json"], &[]);
    expect(&r, 0, "the file's stored baseline");
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["pairs"].as_array().map(Vec::len), Some(1), "{}", r.stdout);
    // Without the file, one path is not enough: said in words, with the two ways out.
    let r = veer_in(&root, &["--no-config", "diff", "pr"], &[]);
    expect(&r, 2, "one path, no stored baseline");
    assert!(
        r.stderr.contains("needs a baseline and a candidate"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("--baseline NAME CANDIDATE_DIR"),
        "{}",
        r.stderr
    );
}

#[test]
fn the_walk_stops_at_the_repository_root_and_config_flags_choose_a_file() {
    let (tmp, root) = repo(GATED);
    // A veer.toml above the repository is not read once the repository has none.
    std::fs::rename(root.join("veer.toml"), tmp.path().join("veer.toml")).unwrap();
    let r = veer_in(&root.join("runs"), &["config", "show"], &[]);
    expect(&r, 0, "config show");
    assert!(r.stdout.starts_with("settings file: none"), "{}", r.stdout);
    // --config FILE and VEER_CONFIG name it; relative paths are still the file's.
    let above = tmp.path().join("veer.toml");
    let above_s = above.to_str().unwrap();
    std::fs::copy(root.join("policy.yaml"), tmp.path().join("policy.yaml")).unwrap();
    let (b, c) = ("baseline.agentlog", "candidate.agentlog");
    let runs = root.join("runs");
    expect(
        &veer_in(&runs, &["--config", above_s, "diff", b, c], &[]),
        1,
        "--config",
    );
    expect(
        &veer_in(&runs, &["diff", b, c], &[("VEER_CONFIG", above_s)]),
        1,
        "VEER_CONFIG",
    );
    // A named file that does not exist is exit 2.
    let r = veer_in(&runs, &["--config", "nope.toml", "diff", b, c], &[]);
    expect(&r, 2, "missing --config file");
    assert!(r.stderr.contains("nope.toml"), "{}", r.stderr);
}

#[test]
fn unknown_keys_and_bad_values_are_exit_2_with_file_line_and_hint() {
    let (_tmp, root) = repo("policy = \"policy.yaml\"\n[diff]\nfail-on = \"severe\"\n");
    let r = veer_in(
        &root,
        &["diff", "runs/baseline.agentlog", "runs/candidate.agentlog"],
        &[],
    );
    expect(&r, 2, "unknown key");
    assert!(
        r.stderr.contains("veer.toml:3: unknown key `diff.fail-on`"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("did you mean `diff.fail_on`?"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("panicked"));
    std::fs::write(root.join("veer.toml"), "[trials]\nalpha = 3\n").unwrap();
    let r = veer_in(&root, &["config", "show"], &[]);
    expect(&r, 2, "bad value");
    assert!(
        r.stderr.contains("veer.toml:2: `trials.alpha`"),
        "{}",
        r.stderr
    );
    std::fs::write(root.join("veer.toml"), "[diff]\nseed = \n").unwrap();
    let r = veer_in(&root, &["config", "show"], &[]);
    expect(&r, 2, "broken TOML");
    assert!(
        r.stderr.contains("veer.toml:2: not valid TOML"),
        "{}",
        r.stderr
    );
}

#[test]
fn config_show_names_every_source() {
    let (_tmp, root) =
        repo("policy = \"policy.yaml\"\n[diff]\nseed = 7\n[trials.margins]\nlatency = \"30%\"\n");
    let r = veer_in(&root.join("runs"), &["config", "show"], &[]);
    expect(&r, 0, "config show");
    let line = |key: &str| {
        r.stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(key))
            .unwrap_or_else(|| panic!("no {key} in\n{}", r.stdout))
            .to_string()
    };
    assert!(
        line("policy").ends_with("veer.toml:1"),
        "{}",
        line("policy")
    );
    assert!(line("diff.seed").contains(" 7 "), "{}", line("diff.seed"));
    assert!(line("diff.seed").ends_with("veer.toml:3"));
    assert!(line("diff.fail_on").ends_with("default"));
    assert!(line("trials.margins.latency").ends_with("veer.toml:5"));

    // For a command line: its flags are `flag`, the rest file or default.
    let r = veer_in(
        &root,
        &[
            "config", "show", "--format", "json", "diff", "a", "b", "--seed", "9",
        ],
        &[],
    );
    expect(&r, 0, "config show json");
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        schema_violations("config.schema.json", &v),
        Vec::<String>::new()
    );
    let setting = |key: &str| {
        v["settings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["key"] == key)
            .cloned()
            .unwrap()
    };
    assert_eq!(setting("diff.seed")["source"], "flag");
    assert_eq!(setting("diff.seed")["value"], "9");
    assert_eq!(setting("policy")["source"], "file");
    assert_eq!(setting("policy")["line"], 1);
    assert_eq!(setting("diff.fail_on")["source"], "default");
    assert!(v["settings"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["key"] != "check.fail_on"));
    assert!(v["file"]["path"].as_str().unwrap().ends_with("veer.toml"));
}

#[test]
fn format_and_output_from_the_file() {
    let (_tmp, root) = repo("[diff]\nformat = \"json\"\noutput = \"out/report.json\"\n");
    std::fs::create_dir(root.join("out")).unwrap();
    let args = ["diff", "baseline.agentlog", "candidate.agentlog"];
    let r = veer_in(&root.join("runs"), &args, &[]);
    expect(&r, 0, "json to the configured file");
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    let written = std::fs::read_to_string(root.join("out/report.json")).unwrap();
    assert!(serde_json::from_str::<serde_json::Value>(&written).is_ok());
    // Another format on the command line goes to stdout: the configured file is the
    // configured format's.
    let r = veer_in(
        &root.join("runs"),
        &[
            "diff",
            "baseline.agentlog",
            "candidate.agentlog",
            "--format",
            "markdown",
        ],
        &[],
    );
    expect(&r, 0, "markdown on stdout");
    assert!(
        r.stdout.starts_with('#') || r.stdout.contains("|"),
        "{}",
        r.stdout
    );
    assert_eq!(
        std::fs::read_to_string(root.join("out/report.json")).unwrap(),
        written
    );
}

#[test]
fn init_writes_three_files_once_and_never_overwrites() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    std::fs::create_dir(root.join(".git")).unwrap();
    let r = veer_in(root, &["init"], &[]);
    expect(&r, 0, "init");
    for f in [
        "veer.toml",
        "veer-policy.yaml",
        ".github/workflows/veer.yml",
    ] {
        assert!(root.join(f).is_file(), "{f}");
        assert!(r.stderr.contains(&format!("wrote ./{f}")), "{}", r.stderr);
    }
    // The starter policy is valid and the settings file loads.
    expect(
        &veer_in(root, &["policy", "validate", "veer-policy.yaml"], &[]),
        0,
        "starter policy",
    );
    let show = veer_in(root, &["config", "show"], &[]);
    expect(&show, 0, "config show after init");
    assert!(show.stdout.contains("veer.toml:"), "{}", show.stdout);
    // The workflow uses the action with its documented inputs.
    let wf = std::fs::read_to_string(root.join(".github/workflows/veer.yml")).unwrap();
    assert!(wf.contains("candidate:") && wf.contains("uses: "), "{wf}");
    // Without a known action repository the `uses:` is a placeholder init asks to fill.
    let version = env!("CARGO_PKG_VERSION");
    assert!(wf.contains(&format!("uses: OWNER/veer@v{version}")), "{wf}");
    assert!(
        r.stderr.contains("is a placeholder: replace OWNER/veer"),
        "{}",
        r.stderr
    );
    // Every input the workflow gives the action is one action.yml declares.
    let action: serde_json::Value = serde_saphyr::from_str(
        &std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../action.yml"))
            .unwrap(),
    )
    .unwrap();
    let workflow: serde_json::Value = serde_saphyr::from_str(&wf).unwrap();
    let steps = workflow["jobs"]["behaviour"]["steps"].as_array().unwrap();
    let mut checked = 0;
    for step in steps.iter().filter(|s| {
        s["uses"]
            .as_str()
            .is_some_and(|u| u.starts_with("OWNER/veer@"))
    }) {
        for key in step["with"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, _)| k)
        {
            assert!(
                action["inputs"].get(key).is_some(),
                "action.yml has no input {key}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 5, "{wf}");
    // `--action OWNER/REPO` names the real repository.
    let other = tempfile::tempdir().unwrap();
    let r = veer_in(other.path(), &["init", "--action", "acme/veer"], &[]);
    expect(&r, 0, "init --action");
    let wf = std::fs::read_to_string(other.path().join(".github/workflows/veer.yml")).unwrap();
    assert_eq!(
        wf.matches(&format!("uses: acme/veer@v{version}")).count(),
        2,
        "{wf}"
    );
    assert!(!r.stderr.contains("placeholder"), "{}", r.stderr);
    let r = veer_in(other.path(), &["init", "--action", "not a repo"], &[]);
    assert_eq!(r.code, 2, "{}", r.stderr);

    // A second run, with one file edited and one removed: only the missing one is written.
    std::fs::write(root.join("veer.toml"), "# mine\n").unwrap();
    std::fs::remove_file(root.join("veer-policy.yaml")).unwrap();
    let r = veer_in(root, &["init"], &[]);
    expect(&r, 0, "init again");
    assert_eq!(
        std::fs::read_to_string(root.join("veer.toml")).unwrap(),
        "# mine\n"
    );
    assert!(
        r.stderr.contains("skipped ./veer.toml: it already exists"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("wrote ./veer-policy.yaml"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("skipped ./.github/workflows/veer.yml"),
        "{}",
        r.stderr
    );

    // A directory that does not exist is exit 2.
    let r = veer_in(root, &["init", "no/such/dir"], &[]);
    expect(&r, 2, "init into a missing directory");
}

#[test]
fn config_show_without_a_file_lists_the_defaults() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join(".git")).unwrap();
    let r = veer_in(tmp.path(), &["config", "show"], &[]);
    expect(&r, 0, "config show without a file");
    insta::assert_snapshot!(r.stdout);
    let r = veer_in(tmp.path(), &["init"], &[]);
    expect(&r, 0, "init");
    insta::assert_snapshot!("init_stderr", r.stderr);
}
