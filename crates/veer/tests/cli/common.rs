//! Running the `veer` binary and locating fixtures.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The workspace's `tests/fixtures` directory.
#[allow(dead_code)]
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

/// The workspace's `examples` directory.
#[allow(dead_code)]
pub fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

/// What one run of `veer` gave.
pub struct Run {
    /// Exit code.
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

/// Runs `veer` with `args` from the workspace root, without colour.
pub fn veer(args: &[&str]) -> Run {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out: Output = Command::new(env!("CARGO_BIN_EXE_veer"))
        .args(args)
        .current_dir(root)
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("COLUMNS")
        .output()
        .expect("veer runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `veer` and asserts it exits with `code`.
pub fn veer_ok(args: &[&str], code: i32) -> Run {
    let r = veer(args);
    assert_eq!(
        r.code, code,
        "veer {args:?}\nstdout:\n{}\nstderr:\n{}",
        r.stdout, r.stderr
    );
    r
}

/// Violations of the published JSON schema `docs/json-schema/<file>` by `instance`.
#[allow(dead_code)]
pub fn schema_violations(file: &str, instance: &serde_json::Value) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs/json-schema")
        .join(file);
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("schema readable"))
            .expect("schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    validator
        .iter_errors(instance)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

/// Violations of the schema of a `veer diff --format json` document: `diff-directory` for a
/// directory report (it has `pairs`), `diff` for one pair.
#[allow(dead_code)]
pub fn diff_schema_violations(instance: &serde_json::Value) -> Vec<String> {
    let file = if instance.get("pairs").is_some() || instance.get("trials").is_some() {
        "diff-directory.schema.json"
    } else {
        "diff.schema.json"
    };
    schema_violations(file, instance)
}

/// The binary of this crate's example `name` (crates/veer/examples/), which a whole `cargo
/// test` builds; a narrower run (`cargo test --test cli`) builds it here, once per example.
pub fn example_binary(name: &str) -> PathBuf {
    static BUILT: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let exe = std::env::current_exe().unwrap();
    let debug = exe.parent().unwrap().parent().unwrap();
    let path = debug.join("examples").join(name);
    let mut built = BUILT
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if !built.iter().any(|b| b == name) {
        if !path.exists() {
            let status = Command::new(env!("CARGO"))
                .args(["build", "--quiet", "-p", "veer-cli", "--example", name])
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .status()
                .unwrap();
            assert!(status.success(), "cannot build the {name} example");
        }
        built.push(name.to_string());
    }
    assert!(path.exists(), "{} missing", path.display());
    path
}
