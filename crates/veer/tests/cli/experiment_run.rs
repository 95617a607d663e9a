//! `veer experiment run` end to end with a deterministic agent: the Rust `scripted_agent`
//! example (crates/veer/examples/) talking through veer's recording proxy to the scripted
//! upstream of `scripted_upstream.rs`, whose tool calls follow the input; and the real `openai`
//! Python SDK as the agent where the pinned SDK is installed. Covers the layout, results.json
//! (re-derived identically by `experiment analyze`), --jobs determinism, faults (crash, hang,
//! silence, no trace) and skipped operators; resume, --fresh and Ctrl-C are in
//! `experiment_run_resume.rs`, bad inputs and the input/answer flags in
//! `experiment_run_inputs.rs`.

use crate::common::{veer_ok, Run};
use crate::scripted_upstream::upstream;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::Command;

pub(crate) const CSV: &str = "name,amount,date\nalpha,10,2024-01-02\nbeta,20,2024-02-03\ngamma,30,2024-03-04\ndelta,40,2024-04-05\n";

/// The scripted agent binary: the `scripted_agent` example of this crate, which a whole
/// `cargo test` builds; a narrower run (`cargo test --test cli`) builds it here, once.
pub(crate) fn agent() -> PathBuf {
    crate::common::example_binary("scripted_agent")
}

pub(crate) struct Exp {
    pub(crate) dir: tempfile::TempDir,
    pub(crate) input: PathBuf,
    pub(crate) upstream: String,
}

impl Exp {
    pub(crate) fn new(name: &str, content: &str) -> Exp {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join(name);
        std::fs::write(&input, content).unwrap();
        Exp {
            dir,
            input,
            upstream: upstream(),
        }
    }

    pub(crate) fn out(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `veer experiment run --input … --out <out> <flags> -- scripted_agent <agent args> {input}`.
    pub(crate) fn args(&self, out: &str, flags: &[&str], agent_args: &[&str]) -> Vec<String> {
        let mut a: Vec<String> = vec![
            "experiment".into(),
            "run".into(),
            "--input".into(),
            self.input.display().to_string(),
            "--out".into(),
            self.out(out).display().to_string(),
            "--openai-upstream".into(),
            self.upstream.clone(),
        ];
        a.extend(flags.iter().map(|s| s.to_string()));
        a.push("--".into());
        a.push(agent().display().to_string());
        a.extend(agent_args.iter().map(|s| s.to_string()));
        a.push("{input}".into());
        a
    }

    pub(crate) fn run(&self, out: &str, flags: &[&str], agent_args: &[&str], code: i32) -> Run {
        let args = self.args(out, flags, agent_args);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        veer_ok(&refs, code)
    }

    pub(crate) fn results(&self, out: &str) -> (String, Value) {
        let text = std::fs::read_to_string(self.out(out).join("results.json")).unwrap();
        let v = serde_json::from_str(&text).unwrap();
        (text, v)
    }
}

pub(crate) fn pair<'a>(results: &'a Value, op: &str) -> &'a Value {
    results["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["perturbation"] == op)
        .unwrap_or_else(|| panic!("no pair {op}"))
}

#[test]
fn a_whole_experiment_through_the_proxy() {
    let e = Exp::new("sales.csv", CSV);
    let r = e.run("exp", &["--format", "json"], &[], 0);
    let out = e.out("exp");
    // The layout experiment analyze reads, and every input copy kept.
    assert!(out.join("baseline.agentlog").is_file());
    assert!(out.join("reruns/rerun-001.agentlog").is_file());
    assert_eq!(
        std::fs::read_to_string(out.join("runs/baseline/sales.csv")).unwrap(),
        CSV
    );
    let (text, v) = e.results("exp");
    assert_eq!(r.stdout, text, "--format json prints the results file");
    assert_eq!(v["noise_floor_runs"], 1);
    assert_eq!(v["noise_floor"], 0.0);
    assert_eq!(v["answers"]["baseline"], "rows=4");
    assert_eq!(v["fingerprint"]["agent_kind"], "external");
    assert_eq!(v["fingerprint"]["model_ids"], json!(["scripted-1"]));
    let ops = v["fingerprint"]["perturbations"].as_array().unwrap();
    assert_eq!(ops.len(), 7);
    for p in v["pairs"].as_array().unwrap() {
        let op = p["perturbation"].as_str().unwrap();
        if p["status_perturbed"] == "skipped" {
            continue;
        }
        // Each applied operator's copy is exactly what `experiment perturb` writes.
        let copy = out.join(format!("runs/perturbed/{op}/sales.csv"));
        let want = e.out(&format!("perturb-{op}.csv"));
        veer_ok(
            &[
                "experiment",
                "perturb",
                e.input.to_str().unwrap(),
                "--operator",
                op,
                "--out",
                want.to_str().unwrap(),
            ],
            0,
        );
        assert_eq!(
            std::fs::read(&copy).unwrap(),
            std::fs::read(&want).unwrap(),
            "{op}"
        );
        assert!(out.join(format!("perturbed/{op}.agentlog")).is_file());
    }
    // column_swap keeps every marker-free row: same calls, same answer.
    let swap = pair(&v, "column_swap");
    assert_eq!(swap["status_perturbed"], "ok");
    assert_eq!(swap["d_norm"], 0.0);
    assert_eq!(swap["manifestation"], "no_observable_effect");
    assert_eq!(swap["token_overhead"], 1.0);
    // data_type_corrupt marks numbers (~ or *): the model asks for one more tool.
    let dtc = pair(&v, "data_type_corrupt");
    assert_eq!(dtc["status_perturbed"], "ok");
    assert!(dtc["d_norm"].as_f64().unwrap() > 0.0, "{dtc}");
    assert!(dtc["token_overhead"].as_f64().unwrap() > 0.0);
    // null_content: no rows, no tools, a different answer.
    let null = pair(&v, "null_content");
    assert_eq!(v["answers"]["sales.csv::null_content"], "rows=0");
    assert_eq!(null["answer_changed"], true);
    // Token overhead is the ratio of the recorded calls' tokens (prompt + completion).
    let base_tokens = 2.0 * ((10 + CSV.len() / 10) + 5) as f64;
    let null_tokens = (10 + 5) as f64;
    assert_eq!(null["token_overhead"], null_tokens / base_tokens);

    // `experiment analyze` on the results file re-derives the same pairs, byte for byte.
    let again = veer_ok(
        &[
            "experiment",
            "analyze",
            out.join("results.json").to_str().unwrap(),
            "--format",
            "json",
        ],
        0,
    );
    assert_eq!(again.stdout, text);
    // And on the directory (answers there come from the traces, which hold none).
    let dir = veer_ok(
        &[
            "experiment",
            "analyze",
            out.to_str().unwrap(),
            "--format",
            "json",
        ],
        0,
    );
    let d: Value = serde_json::from_str(&dir.stdout).unwrap();
    assert_eq!(
        pair(&d, "data_type_corrupt")["d_norm"],
        pair(&v, "data_type_corrupt")["d_norm"]
    );
}

#[test]
fn jobs_2_gives_the_same_results_as_jobs_1_byte_for_byte() {
    let e = Exp::new("sales.csv", CSV);
    e.run("one", &["--jobs", "1", "--reruns", "2"], &[], 0);
    e.run("two", &["--jobs", "2", "--reruns", "2"], &[], 0);
    let (one, _) = e.results("one");
    let (two, _) = e.results("two");
    assert_eq!(one, two);
    // And an unchanged agent run again gives the same file.
    e.run(
        "three",
        &["--jobs", "3", "--reruns", "2", "--fresh"],
        &[],
        0,
    );
    assert_eq!(e.results("three").0, one);
}

#[test]
fn crash_hang_and_silence_give_their_statuses_and_the_experiment_goes_on() {
    let e = Exp::new("sales.csv", CSV);
    let r = e.run(
        "exp",
        &["--timeout", "3", "--jobs", "2"],
        // null_content crashes, irrelevant_columns (adds _noise_id, _flag, …) hangs, a marked
        // number (data_type_corrupt, row_duplicate) prints nothing.
        &["--crash-if-empty", "--hang-if", "_", "--silent-if", "*"],
        0,
    );
    let (_, v) = e.results("exp");
    let null = pair(&v, "null_content");
    assert_eq!(null["status_perturbed"], "error");
    assert!(null["warnings"]
        .to_string()
        .contains("null_content: exited with code 3"));
    assert_eq!(null["recovery"], Value::Null);
    let hang = pair(&v, "irrelevant_columns");
    assert_eq!(hang["status_perturbed"], "timeout");
    assert!(hang["warnings"].to_string().contains("timed out after 3s"));
    let silent = pair(&v, "row_duplicate");
    assert_eq!(silent["status_perturbed"], "ok");
    assert_eq!(v["answers"]["sales.csv::row_duplicate"], Value::Null);
    assert!(silent["warnings"].to_string().contains("printed no answer"));
    assert_eq!(pair(&v, "column_swap")["status_perturbed"], "ok");
    assert!(r
        .stderr
        .contains("warning: sales.csv::null_content: exited with code 3"));
}

#[test]
fn operators_that_do_not_apply_are_skipped_with_the_reason() {
    // Two paragraphs: paragraph_shuffle and section_removal have nothing to reorder or remove.
    // traxr still counts them as applied (the copy is the input), so they run, and both the
    // plan on stderr and the pair's warnings say the copy equals the input.
    let text = "The first paragraph has 1,234 words and a date 2024-01-02.\n\nThe second one. Alice Smith wrote it in 2023.\n";
    let e = Exp::new("notes.md", text);
    let r = e.run("exp", &["--reruns", "0"], &[], 0);
    let (_, v) = e.results("exp");
    for op in ["paragraph_shuffle", "section_removal"] {
        let p = pair(&v, op);
        assert_eq!(p["status_perturbed"], "ok");
        let note = format!("{op}: No observable change: the perturbed copy equals the input");
        assert_eq!(p["warnings"], serde_json::json!([note]));
        assert!(
            r.stderr.contains(&format!(
                "{op} applied: No observable change: the perturbed copy equals the input"
            )),
            "{}",
            r.stderr
        );
        assert!(e.out("exp").join(format!("runs/perturbed/{op}")).exists());
    }
    assert_eq!(pair(&v, "ocr_noise")["status_perturbed"], "ok");
    // Under 10 characters: traxr's skip.
    let short = Exp::new("short.md", "too short\n");
    let r_short = short.run(
        "exp",
        &["--reruns", "0", "--operators", "ocr_noise,null_content"],
        &[],
        0,
    );
    let (_, v_short) = short.results("exp");
    let p = pair(&v_short, "ocr_noise");
    assert_eq!(p["status_perturbed"], "skipped");
    assert_eq!(
        p["warnings"][0],
        "Perturbation ocr_noise skipped for 'short.md': \
         Insufficient content (need at least 10 characters)"
    );
    assert!(
        r_short.stderr.contains("ocr_noise skipped: "),
        "{}",
        r_short.stderr
    );
    assert!(!short.out("exp").join("runs/perturbed/ocr_noise").exists());
    // --reruns 0: the floor is unmeasured, loudly.
    assert!(r.stderr.contains("noise floor UNMEASURED"), "{}", r.stderr);
    assert!(r.stdout.contains("UNMEASURED"), "{}", r.stdout);
    assert_eq!(v["noise_floor"], Value::Null);
}

pub(crate) fn python() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let candidates = [
        std::env::var_os("VEER_TEST_PYTHON").map(PathBuf::from),
        Some(root.join("target/py-sdk/bin/python")),
    ];
    candidates.into_iter().flatten().find(|p| {
        Command::new(p)
            .args(["-c", "import openai"])
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

#[test]
fn the_real_openai_python_sdk_as_the_agent() {
    let Some(py) = python() else {
        eprintln!("SKIPPED the_real_openai_python_sdk_as_the_agent: no Python with the openai SDK (run .ci/run, or set VEER_TEST_PYTHON)");
        return;
    };
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/cli/sdk/experiment_agent.py");
    let e = Exp::new("sales.csv", CSV);
    let mut args = e.args(
        "exp",
        &["--operators", "column_swap,data_type_corrupt,null_content"],
        &[],
    );
    let at = args.iter().position(|a| a == "--").unwrap();
    args.truncate(at + 1);
    args.extend([
        py.display().to_string(),
        script.display().to_string(),
        "{input}".into(),
    ]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = Command::new(env!("CARGO_BIN_EXE_veer"))
        .args(&refs)
        .env("OPENAI_API_KEY", "sk-test-not-a-secret")
        .output()
        .unwrap();
    assert_eq!(
        r.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
    let (_, v) = e.results("exp");
    assert_eq!(v["answers"]["baseline"], "rows=4");
    assert_eq!(v["answers"]["noise_floor_1"], "rows=4");
    assert_eq!(pair(&v, "column_swap")["d_norm"], 0.0);
    assert_eq!(pair(&v, "column_swap")["token_overhead"], 1.0);
    assert!(pair(&v, "data_type_corrupt")["d_norm"].as_f64().unwrap() > 0.0);
    assert_eq!(v["answers"]["sales.csv::null_content"], "rows=0");
    let t = veer_trace::load_trace(
        &e.out("exp/baseline.agentlog"),
        &veer_trace::ReadOptions::default(),
    )
    .unwrap();
    assert_eq!(t.count(&veer_trace::Kind::ChatResponse), 2);
}
