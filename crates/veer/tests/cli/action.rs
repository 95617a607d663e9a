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
    /// The event the job runs for.
    event: Event,
    /// A directory put first on the steps' PATH (a stand-in `gh`).
    path_prefix: Option<PathBuf>,
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

/// The event a job runs for: a pull request's number and the repositories of its head and
/// base (empty number: not a pull request).
#[derive(Clone)]
struct Event {
    pr: &'static str,
    head_repo: &'static str,
    base_repo: &'static str,
}

const SAME_REPO_PR: Event = Event {
    pr: "7",
    head_repo: "acme/agent",
    base_repo: "acme/agent",
};

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
        let mut job = Job {
            action,
            inputs,
            event: SAME_REPO_PR,
            path_prefix: None,
            outputs: BTreeMap::new(),
            workspace: workspace.to_path_buf(),
            temp,
            summary,
        };
        // Defaults may be expressions (`${{ github.token }}`), evaluated as the runner does.
        let inputs: BTreeMap<String, String> = job
            .inputs
            .iter()
            .map(|(k, v)| (k.clone(), job.substitute(v)))
            .collect();
        job.inputs = inputs;
        job
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
            "runner.arch" => "X64".to_string(),
            "github.token" => "test-token".to_string(),
            "github.event.pull_request.number" => self.event.pr.to_string(),
            "github.event.pull_request.head.repo.full_name" => self.event.head_repo.to_string(),
            "github.repository" => self.event.base_repo.to_string(),
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
            if let Some(dir) = &self.path_prefix {
                let path = std::env::var("PATH").unwrap_or_default();
                cmd.env("PATH", format!("{}:{path}", dir.display()));
            }
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
    assert_eq!(cache["with"]["path"], "~/.veer/bin");
    // Keyed by what is installed, never by the action's ref (empty in composite actions).
    let key = cache["with"]["key"].as_str().unwrap();
    assert!(
        key.contains("inputs.version") && key.contains("runner.arch"),
        "{key}"
    );
    assert!(
        !key.contains("action_ref") && !key.contains("action_repository"),
        "{key}"
    );
    let install = steps.iter().find(|s| s["name"] == "Install veer").unwrap();
    let script = install["run"].as_str().unwrap();
    // The released binary first, checksum-verified by the install script; the source build
    // only when that fails.
    let released = script
        .find("scripts/install.sh")
        .expect("installs a release");
    let built = script
        .find("cargo install --locked --root \"$HOME/.veer\" --path \"$ACTION_PATH/crates/veer\"")
        .expect("falls back to building");
    assert!(released < built);
    let version = a["inputs"]["version"]["default"].as_str().unwrap();
    assert_eq!(
        version,
        env!("CARGO_PKG_VERSION"),
        "the action installs its own release"
    );
    let upload = steps.iter().find(|s| s["name"] == "Upload SARIF").unwrap();
    assert!(upload["uses"]
        .as_str()
        .unwrap()
        .starts_with("github/codeql-action/upload-sarif@"));
}

#[test]
fn veer_runs_once_and_writes_every_document() {
    let a = action();
    let steps = a["runs"]["steps"].as_array().unwrap();
    let diff = steps.iter().find(|s| s["name"] == "veer diff").unwrap();
    let script = diff["run"].as_str().unwrap();
    assert_eq!(
        script.matches("\"$VEER\"").count(),
        1,
        "one veer run:\n{script}"
    );
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
    job.run();
    let markdown = std::fs::read_to_string(job.output("markdown-path")).unwrap();
    assert!(markdown.contains("confirm-before-refund"), "{markdown}");
    assert!(std::fs::metadata(job.output("sarif-path")).unwrap().len() > 0);
}

/// A stand-in `gh` that logs each call and answers the comment listing with the ids in
/// `ids` (one per line).
fn fake_gh(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let gh = bin.join("gh");
    std::fs::write(
        &gh,
        format!(
            "#!/usr/bin/env bash\necho \"$GH_TOKEN $*\" >> {log}\nfor a in \"$@\"; do case \"$a\" in body=@*) cp \"${{a#body=@}}\" {body};; esac; done\nif [ \"$2\" != \"-X\" ]; then cat {ids} 2>/dev/null; fi\nexit 0\n",
            log = dir.join("gh.log").display(),
            body = dir.join("body.md").display(),
            ids = dir.join("ids").display(),
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&gh, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

#[test]
fn the_report_is_one_pull_request_comment_updated_in_place_and_never_on_forks() {
    let ws = workspace();
    let gh_dir = ws.path().join("_gh");
    let bin = fake_gh(&gh_dir);
    let log = gh_dir.join("gh.log");
    let given = [
        ("candidate", "runs/pr.agentlog"),
        ("baseline", "runs/main.agentlog"),
        ("comment", "true"),
        ("veer-bin", VEER),
    ];
    // First push: no comment of veer's yet, so one is posted.
    let mut job = Job::new(ws.path(), &given);
    job.path_prefix = Some(bin.clone());
    let runs = job.run();
    let c = step(&runs, "Comment on the pull request");
    assert!(
        c.ran && c.code == 0,
        "ran {} code {}: {} (markdown-path `{}`)",
        c.ran,
        c.code,
        c.stdout,
        job.output("markdown-path")
    );
    let calls = std::fs::read_to_string(&log).unwrap();
    assert!(
        calls.contains("test-token api repos/acme/agent/issues/7/comments --paginate"),
        "{calls}"
    );
    assert!(
        calls.contains("-X POST repos/acme/agent/issues/7/comments"),
        "{calls}"
    );
    let body = std::fs::read_to_string(gh_dir.join("body.md")).unwrap();
    assert!(body.starts_with("<!-- veer-report -->\n"), "{body}");
    assert!(body.contains("confirm-before-refund"), "{body}");
    // Next push: the marked comment exists, so it is edited, not duplicated.
    std::fs::write(gh_dir.join("ids"), "4242\n").unwrap();
    std::fs::remove_file(&log).unwrap();
    let mut job = Job::new(ws.path(), &given);
    job.path_prefix = Some(bin.clone());
    job.run();
    let calls = std::fs::read_to_string(&log).unwrap();
    assert!(
        calls.contains("-X PATCH repos/acme/agent/issues/comments/4242"),
        "{calls}"
    );
    assert!(!calls.contains("POST"), "{calls}");
    // A fork's pull request: no call at all.
    std::fs::remove_file(&log).unwrap();
    let mut job = Job::new(ws.path(), &given);
    job.path_prefix = Some(bin.clone());
    job.event = Event {
        head_repo: "someone/agent",
        ..SAME_REPO_PR
    };
    let runs = job.run();
    assert!(step(&runs, "Comment on the pull request")
        .stdout
        .contains("fork"));
    assert!(!log.exists());
    // Off by default.
    let off = [
        ("candidate", "runs/pr.agentlog"),
        ("baseline", "runs/main.agentlog"),
        ("veer-bin", VEER),
    ];
    let mut job = Job::new(ws.path(), &off);
    job.path_prefix = Some(bin);
    let runs = job.run();
    assert!(!step(&runs, "Comment on the pull request").ran);
    assert!(!log.exists());
}

#[test]
fn a_packed_release_installs_after_its_checksum_and_a_tampered_one_does_not() {
    let tmp = tempfile::tempdir().unwrap();
    let dist = tmp.path().join("dist");
    let version = env!("CARGO_PKG_VERSION");
    let target = "x86_64-unknown-linux-musl";
    let pack = Command::new("bash")
        .arg(root().join("scripts/package.sh"))
        .args([VEER, version, target])
        .arg(&dist)
        .output()
        .unwrap();
    assert!(
        pack.status.success(),
        "{}",
        String::from_utf8_lossy(&pack.stderr)
    );
    let archive = format!("veer-{version}-{target}.tar.gz");
    assert!(dist.join(&archive).is_file());
    // The archive holds veer-VERSION-TARGET/{veer, README.md}.
    let listing = Command::new("tar")
        .arg("-tzf")
        .arg(dist.join(&archive))
        .output()
        .unwrap();
    let listing = String::from_utf8_lossy(&listing.stdout).into_owned();
    let prefix = format!("veer-{version}-{target}/");
    assert!(listing.contains(&format!("{prefix}veer")), "{listing}");
    assert!(listing.contains(&format!("{prefix}README.md")), "{listing}");
    let sums = std::fs::read_to_string(dist.join("SHA256SUMS")).unwrap();
    assert!(sums.trim_end().ends_with(&format!("  {archive}")), "{sums}");
    // Packing again gives the same bytes (reproducible archives).
    let first = std::fs::read(dist.join(&archive)).unwrap();
    Command::new("bash")
        .arg(root().join("scripts/package.sh"))
        .args([VEER, version, target])
        .arg(&dist)
        .output()
        .unwrap();
    assert_eq!(first, std::fs::read(dist.join(&archive)).unwrap());
    assert_eq!(
        sums,
        std::fs::read_to_string(dist.join("SHA256SUMS")).unwrap()
    );

    let install = |from: &Path, into: &Path| {
        Command::new("sh")
            .arg(root().join("scripts/install.sh"))
            .args(["--version", version, "--target", target, "--from"])
            .arg(from)
            .arg("--dir")
            .arg(into)
            .output()
            .unwrap()
    };
    let bin = tmp.path().join("bin");
    let r = install(&dist, &bin);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let v = Command::new(bin.join("veer"))
        .arg("--version")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&v.stdout).trim(),
        format!("veer {version}")
    );
    // A changed archive fails its checksum and installs nothing.
    let bad = tmp.path().join("bad");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::copy(dist.join("SHA256SUMS"), bad.join("SHA256SUMS")).unwrap();
    let mut bytes = first.clone();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(bad.join(&archive), bytes).unwrap();
    let elsewhere = tmp.path().join("bin2");
    let r = install(&bad, &elsewhere);
    assert_eq!(r.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&r.stderr).contains("checksum mismatch"));
    assert!(!elsewhere.join("veer").exists());
}
