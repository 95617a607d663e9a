//! The GitHub Action (`action.yml` at the repository root), run locally: each step's `if:` is
//! evaluated, its `${{ … }}` expressions substituted (inputs, earlier steps' outputs,
//! `github.*`, `runner.*`), and each `run:` script executed with bash as the runner does
//! (`bash --noprofile --norc -eo pipefail`), with a simulated `GITHUB_*` environment and the
//! veer binary these tests built (the `veer-bin` input) instead of an install. `uses:` steps
//! are not run; their condition and inputs are checked.

use crate::common::examples;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn action() -> Value {
    let text = std::fs::read_to_string(root().join("action.yml")).expect("action.yml exists");
    serde_saphyr::from_str(&text).expect("action.yml is YAML")
}

/// One simulated job running the action.
struct Job {
    action: Value,
    inputs: BTreeMap<String, String>,
    /// steps.<id>.outputs
    outputs: BTreeMap<String, BTreeMap<String, String>>,
    workspace: PathBuf,
    temp: PathBuf,
    summary: PathBuf,
}

/// What one step did.
struct StepRun {
    name: String,
    ran: bool,
    code: i32,
    stdout: String,
    /// For a `uses:` step: its `with:` values, substituted.
    with: BTreeMap<String, String>,
}

impl Job {
    fn new(workspace: &Path, given: &[(&str, &str)]) -> Job {
        let action = action();
        let mut inputs = BTreeMap::new();
        for (name, spec) in action["inputs"].as_object().expect("inputs") {
            let default = spec["default"].as_str().unwrap_or_default().to_string();
            inputs.insert(name.clone(), default);
        }
        for (k, v) in given {
            assert!(inputs.contains_key(*k), "action.yml has no input {k}");
            inputs.insert(k.to_string(), v.to_string());
        }
        for (name, spec) in action["inputs"].as_object().unwrap() {
            if spec["required"] == Value::Bool(true) {
                assert!(!inputs[name].is_empty(), "required input {name} not given");
            }
        }
        let temp = workspace.join("_runner_temp");
        std::fs::create_dir_all(&temp).unwrap();
        let summary = temp.join("step_summary.md");
        std::fs::write(&summary, "").unwrap();
        Job {
            action,
            inputs,
            outputs: BTreeMap::new(),
            workspace: workspace.to_path_buf(),
            temp,
            summary,
        }
    }

    /// The value of one expression (the subset action.yml uses; anything else fails the test).
    fn value(&self, expr: &str) -> String {
        let expr = expr.trim();
        if let Some(name) = expr.strip_prefix("inputs.") {
            return self
                .inputs
                .get(name)
                .cloned()
                .unwrap_or_else(|| panic!("no input {name}"));
        }
        if let Some(rest) = expr.strip_prefix("steps.") {
            let (id, key) = rest.split_once(".outputs.").expect("steps.ID.outputs.KEY");
            return self
                .outputs
                .get(id)
                .and_then(|o| o.get(key))
                .cloned()
                .unwrap_or_default();
        }
        match expr {
            "github.action_path" => root().display().to_string(),
            "github.action_repository" | "github.action_ref" => String::new(),
            "runner.temp" => self.temp.display().to_string(),
            "runner.os" => "Linux".to_string(),
            other => panic!("expression `{other}` is not simulated"),
        }
    }

    fn substitute(&self, text: &str) -> String {
        let re = regex::Regex::new(r"\$\{\{(.*?)\}\}").unwrap();
        re.replace_all(text, |c: &regex::Captures<'_>| self.value(&c[1]))
            .into_owned()
    }

    /// A step's `if:` (terms joined by `&&`: `always()`, `X == 'v'`, `X != 'v'`).
    fn condition(&self, step: &Value) -> bool {
        let Some(cond) = step["if"].as_str() else {
            return true;
        };
        cond.split("&&").all(|term| {
            let term = term.trim();
            if term == "always()" {
                return true;
            }
            let (lhs, rhs, eq) = match term.split_once("==") {
                Some((l, r)) => (l, r, true),
                None => {
                    let (l, r) = term.split_once("!=").unwrap_or_else(|| panic!("`{term}`"));
                    (l, r, false)
                }
            };
            let rhs = rhs.trim().trim_matches('\'');
            (self.value(lhs) == rhs) == eq
        })
    }

    /// Runs every step in order, as the runner does for a job whose steps succeed until one
    /// fails (then only `always()` steps run).
    fn run(&mut self) -> Vec<StepRun> {
        let steps = self.action["runs"]["steps"].as_array().unwrap().clone();
        assert_eq!(self.action["runs"]["using"], "composite");
        let mut failed = false;
        let mut out = Vec::new();
        for step in &steps {
            let name = step["name"].as_str().unwrap_or_default().to_string();
            let always = step["if"].as_str().is_some_and(|c| c.contains("always()"));
            if (failed && !always) || !self.condition(step) {
                out.push(StepRun {
                    name,
                    ran: false,
                    code: 0,
                    stdout: String::new(),
                    with: BTreeMap::new(),
                });
                continue;
            }
            if step.get("uses").is_some() {
                let with = step["with"]
                    .as_object()
                    .map(|m| {
                        m.iter()
                            .map(|(k, v)| {
                                (k.clone(), self.substitute(v.as_str().unwrap_or_default()))
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                out.push(StepRun {
                    name,
                    ran: true,
                    code: 0,
                    stdout: String::new(),
                    with,
                });
                continue;
            }
            let script = step["run"].as_str().expect("a run step");
            assert_eq!(step["shell"], "bash", "{name}: shell");
            let output_file = self.temp.join(format!("output-{}", out.len()));
            std::fs::write(&output_file, "").unwrap();
            let cwd = match step["working-directory"].as_str() {
                Some(d) => self.workspace.join(self.substitute(d)),
                None => self.workspace.clone(),
            };
            let mut cmd = Command::new("bash");
            cmd.args(["--noprofile", "--norc", "-eo", "pipefail", "-c", script])
                .current_dir(cwd)
                .env("GITHUB_OUTPUT", &output_file)
                .env("GITHUB_STEP_SUMMARY", &self.summary)
                .env("GITHUB_ENV", self.temp.join("env"))
                .env("GITHUB_ACTIONS", "true")
                .env("GITHUB_WORKSPACE", &self.workspace)
                .env("GITHUB_ACTION_PATH", root())
                .env("RUNNER_TEMP", &self.temp)
                .env("HOME", &self.temp)
                .env("NO_COLOR", "1")
                .env_remove("VEER_CONFIG");
            if let Some(env) = step["env"].as_object() {
                for (k, v) in env {
                    cmd.env(k, self.substitute(v.as_str().unwrap_or_default()));
                }
            }
            let result = cmd.output().expect("bash runs");
            let code = result.status.code().unwrap_or(-1);
            let written = std::fs::read_to_string(&output_file).unwrap();
            if let Some(id) = step["id"].as_str() {
                let map = self.outputs.entry(id.to_string()).or_default();
                for line in written.lines() {
                    let (k, v) = line.split_once('=').expect("KEY=VALUE outputs");
                    map.insert(k.to_string(), v.to_string());
                }
            }
            failed |= code != 0;
            out.push(StepRun {
                name,
                ran: true,
                code,
                stdout: String::from_utf8_lossy(&result.stdout).into_owned()
                    + &String::from_utf8_lossy(&result.stderr),
                with: BTreeMap::new(),
            });
        }
        out
    }

    /// The action's output `name` (its `value:` expression, substituted).
    fn output(&self, name: &str) -> String {
        self.substitute(
            self.action["outputs"][name]["value"]
                .as_str()
                .expect("an output"),
        )
    }
}

fn step<'a>(runs: &'a [StepRun], name: &str) -> &'a StepRun {
    runs.iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no step {name}"))
}

/// A workspace with the refund agent's runs, its policy and a veer.toml gating on `severe`.
fn workspace() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path();
    std::fs::create_dir_all(ws.join(".git")).unwrap();
    std::fs::create_dir_all(ws.join("runs")).unwrap();
    let ex = examples().join("refund-agent");
    std::fs::copy(ex.join("baseline.agentlog"), ws.join("runs/main.agentlog")).unwrap();
    std::fs::copy(ex.join("candidate.agentlog"), ws.join("runs/pr.agentlog")).unwrap();
    std::fs::copy(ex.join("baseline.agentlog"), ws.join("runs/same.agentlog")).unwrap();
    std::fs::copy(ex.join("policy.yaml"), ws.join("policy.yaml")).unwrap();
    std::fs::write(
        ws.join("veer.toml"),
        "policy = \"policy.yaml\"\n[diff]\nfail_on = \"severe\"\n",
    )
    .unwrap();
    tmp
}

const VEER: &str = env!("CARGO_BIN_EXE_veer");

#[test]
fn a_regression_fails_the_job_with_summary_annotations_outputs_and_sarif() {
    let ws = workspace();
    let mut job = Job::new(
        ws.path(),
        &[
            ("candidate", "runs/pr.agentlog"),
            ("baseline", "runs/main.agentlog"),
            ("upload-sarif", "true"),
            ("veer-bin", VEER),
        ],
    );
    let runs = job.run();
    // The cache is skipped when a binary is given; install only reports it.
    assert!(!step(&runs, "Cache veer").ran);
    let install = step(&runs, "Install veer");
    assert_eq!(install.code, 0, "{}", install.stdout);
    assert!(install.stdout.contains("veer "), "{}", install.stdout);
    let diff = step(&runs, "veer diff");
    assert_eq!(diff.code, 0, "{}", diff.stdout);
    // Annotations on stdout, at the candidate file.
    assert!(
        diff.stdout.contains("::error file=runs/pr.agentlog"),
        "{}",
        diff.stdout
    );
    // The Markdown report went to the job summary.
    let summary = std::fs::read_to_string(&job.summary).unwrap();
    assert!(summary.contains("confirm-before-refund"), "{summary}");
    assert!(
        summary.starts_with('#') || summary.contains("| "),
        "{summary}"
    );
    // Outputs.
    assert_eq!(job.output("verdict"), "fail");
    let report = job.output("report-path");
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("report written")).unwrap();
    assert!(
        json["policy"].is_object() || json.get("axes").is_some(),
        "{json}"
    );
    // SARIF written and handed to upload-sarif.
    let upload = step(&runs, "Upload SARIF");
    assert!(upload.ran);
    let sarif = &upload.with["sarif_file"];
    assert!(sarif.ends_with("veer.sarif"), "{sarif}");
    let log: Value = serde_json::from_str(&std::fs::read_to_string(sarif).unwrap()).unwrap();
    assert_eq!(log["version"], "2.1.0");
    // The gate step fails the job with veer's exit code.
    let gate = step(&runs, "Gate");
    assert!(gate.ran);
    assert_eq!(gate.code, 1, "{}", gate.stdout);
    assert!(gate
        .stdout
        .contains("::error title=veer::the behaviour gate says fail"));
}

#[test]
fn an_unchanged_run_passes_and_skips_sarif() {
    let ws = workspace();
    let mut job = Job::new(
        ws.path(),
        &[
            ("candidate", "runs/same.agentlog"),
            ("baseline", "runs/main.agentlog"),
            ("veer-bin", VEER),
        ],
    );
    let runs = job.run();
    assert_eq!(job.output("verdict"), "pass");
    assert!(!step(&runs, "Upload SARIF").ran);
    assert_eq!(job.output("sarif-path"), "");
    let gate = step(&runs, "Gate");
    assert!(gate.ran && gate.code == 0, "{}", gate.stdout);
    assert!(!std::fs::read_to_string(&job.summary).unwrap().is_empty());
}

#[test]
fn an_input_error_is_verdict_error_and_exit_2() {
    let ws = workspace();
    let mut job = Job::new(
        ws.path(),
        &[
            ("candidate", "runs/missing.agentlog"),
            ("baseline", "runs/main.agentlog"),
            ("veer-bin", VEER),
        ],
    );
    let runs = job.run();
    assert_eq!(job.output("verdict"), "error");
    assert_eq!(step(&runs, "Gate").code, 2);
    // fail-job "false": the job goes on, the verdict is still an output.
    let mut job = Job::new(
        ws.path(),
        &[
            ("candidate", "runs/pr.agentlog"),
            ("baseline", "runs/main.agentlog"),
            ("fail-job", "false"),
            ("veer-bin", VEER),
        ],
    );
    let runs = job.run();
    assert_eq!(job.output("verdict"), "fail");
    assert!(!step(&runs, "Gate").ran);
}

#[test]
fn without_a_binary_the_action_installs_from_its_checkout_with_a_cache() {
    let a = action();
    let steps = a["runs"]["steps"].as_array().unwrap();
    let cache = steps.iter().find(|s| s["name"] == "Cache veer").unwrap();
    assert!(cache["uses"]
        .as_str()
        .unwrap()
        .starts_with("actions/cache@"));
    assert_eq!(cache["with"]["path"], "~/.cargo/bin/veer");
    let install = steps.iter().find(|s| s["name"] == "Install veer").unwrap();
    assert!(install["run"]
        .as_str()
        .unwrap()
        .contains("cargo install --locked --path \"$ACTION_PATH/crates/veer\""));
    let upload = steps.iter().find(|s| s["name"] == "Upload SARIF").unwrap();
    assert!(upload["uses"]
        .as_str()
        .unwrap()
        .starts_with("github/codeql-action/upload-sarif@"));
}
