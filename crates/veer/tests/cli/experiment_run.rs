//! `veer experiment run` end to end with a deterministic agent: the Rust `scripted_agent`
//! example (crates/veer/examples/) talking through veer's recording proxy to a scripted
//! upstream on 127.0.0.1 whose tool calls follow the input; and the real `openai` Python SDK as
//! the agent where the pinned SDK is installed. Covers the layout, results.json (re-derived
//! identically by `experiment analyze`), --jobs determinism, faults (crash, hang, silence, no
//! trace), skipped operators, bad inputs, resume, --fresh, Ctrl-C and the unmeasured floor.

use crate::common::{veer, veer_ok, Run};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CSV: &str = "name,amount,date\nalpha,10,2024-01-02\nbeta,20,2024-02-03\ngamma,30,2024-03-04\ndelta,40,2024-04-05\n";

/// The scripted agent binary: the `scripted_agent` example of this crate, which a whole
/// `cargo test` builds; a narrower run (`cargo test --test cli`) builds it here, once.
pub(crate) fn agent() -> PathBuf {
    crate::common::example_binary("scripted_agent")
}

/// The tools the scripted model asks for (the same rule as the agent's own traces).
fn tools_for(content: &str) -> Vec<&'static str> {
    if content.trim().is_empty() {
        return vec![];
    }
    let mut t = vec!["read_rows"];
    if content.contains(['~', '*', '?', '\u{FFFD}', '#']) {
        t.push("flag_anomaly");
    }
    t
}

fn read_request(s: &mut TcpStream) -> Option<Value> {
    let mut r = BufReader::new(s.try_clone().ok()?);
    let mut len = 0usize;
    let mut chunked = false;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let l = line.trim_end().to_ascii_lowercase();
        if l.is_empty() {
            break;
        }
        if let Some(v) = l.strip_prefix("content-length:") {
            len = v.trim().parse().ok()?;
        }
        if l.starts_with("transfer-encoding:") && l.contains("chunked") {
            chunked = true;
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            let mut size = String::new();
            r.read_line(&mut size).ok()?;
            let n = usize::from_str_radix(size.trim(), 16).ok()?;
            let mut chunk = vec![0; n + 2];
            r.read_exact(&mut chunk).ok()?;
            if n == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..n]);
        }
    } else {
        body.resize(len, 0);
        r.read_exact(&mut body).ok()?;
    }
    serde_json::from_slice(&body).ok()
}

/// The scripted model's answer to a chat request.
fn answer(req: &Value) -> Value {
    let messages = req["messages"].as_array().cloned().unwrap_or_default();
    let content = messages
        .first()
        .and_then(|m| m["content"].as_str())
        .unwrap_or("")
        .to_string();
    let after_tools = messages.last().is_some_and(|m| m["role"] == "tool");
    let tools = if after_tools {
        vec![]
    } else {
        tools_for(&content)
    };
    let usage = json!({"prompt_tokens": 10 + content.len() / 10, "completion_tokens": 5,
                       "total_tokens": 15 + content.len() / 10});
    let message = if tools.is_empty() {
        json!({"role": "assistant", "content": "done"})
    } else {
        json!({"role": "assistant", "content": null, "tool_calls": tools.iter().map(|t| json!({
            "id": format!("call_{t}"), "type": "function",
            "function": {"name": t, "arguments": "{}"}})).collect::<Vec<_>>()})
    };
    json!({"id": "chatcmpl-scripted", "object": "chat.completion", "created": 0,
           "model": "scripted-1",
           "choices": [{"index": 0, "message": message,
                        "finish_reason": if tools.is_empty() { "stop" } else { "tool_calls" }}],
           "usage": usage})
}

/// A scripted OpenAI upstream on 127.0.0.1; its base URL (ending in /v1).
pub(crate) fn upstream() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            std::thread::spawn(move || {
                while let Some(req) = read_request(&mut s) {
                    let body = answer(&req).to_string();
                    let _ = write!(
                        s,
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                        body.len()
                    );
                }
            });
        }
    });
    format!("http://{addr}/v1")
}

struct Exp {
    dir: tempfile::TempDir,
    input: PathBuf,
    upstream: String,
}

impl Exp {
    fn new(name: &str, content: &str) -> Exp {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join(name);
        std::fs::write(&input, content).unwrap();
        Exp {
            dir,
            input,
            upstream: upstream(),
        }
    }

    fn out(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `veer experiment run --input … --out <out> <flags> -- scripted_agent <agent args> {input}`.
    fn args(&self, out: &str, flags: &[&str], agent_args: &[&str]) -> Vec<String> {
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

    fn run(&self, out: &str, flags: &[&str], agent_args: &[&str], code: i32) -> Run {
        let args = self.args(out, flags, agent_args);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        veer_ok(&refs, code)
    }

    fn results(&self, out: &str) -> (String, Value) {
        let text = std::fs::read_to_string(self.out(out).join("results.json")).unwrap();
        let v = serde_json::from_str(&text).unwrap();
        (text, v)
    }
}

fn pair<'a>(results: &'a Value, op: &str) -> &'a Value {
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

#[test]
fn bad_input_is_exit_2_before_anything_runs() {
    let e = Exp::new("sales.csv", CSV);
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            {
                let mut a = e.args("o1", &[], &[]);
                a[3] = e.out("missing.csv").display().to_string();
                a
            },
            "no such file",
        ),
        (
            {
                std::fs::write(e.out("doc.pdf"), "%PDF").unwrap();
                let mut a = e.args("o1", &[], &[]);
                a[3] = e.out("doc.pdf").display().to_string();
                a
            },
            "no perturbation operators",
        ),
        (
            {
                std::fs::write(e.out("rows.json"), "{\"not\": \"an array\"}").unwrap();
                let mut a = e.args("o1", &[], &[]);
                a[3] = e.out("rows.json").display().to_string();
                a
            },
            "rows.json",
        ),
        (
            e.args("o1", &["--operators", "ocr_noise"], &[]),
            "does not apply",
        ),
        (
            e.args("o1", &["--operators", "nope"], &[]),
            "unknown operator",
        ),
        (
            e.args("o1", &["--trace-from", "trace.jsonl"], &[]),
            "{run_dir}",
        ),
        (
            e.args("o1", &["--trace-from", "{run_dir}/trace.txt"], &[]),
            "trace extension",
        ),
        (e.args("o1", &["--timeout", "0"], &[]), "--timeout"),
        (e.args("o1", &["--jobs", "0"], &[]), "--jobs"),
        (
            {
                let mut a = e.args("o1", &[], &[]);
                a[7] = "not a url".into();
                a
            },
            "--openai-upstream",
        ),
    ];
    for (args, needle) in cases {
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let r = veer_ok(&refs, 2);
        assert!(r.stderr.contains(needle), "{needle}: {}", r.stderr);
        assert!(r.stderr.contains("hint:"), "{}", r.stderr);
        assert!(!e.out("o1").exists(), "nothing ran for {needle}");
    }
    // An --out that holds the input is refused too.
    let mut a = e.args("o1", &[], &[]);
    a[5] = e.dir.path().display().to_string();
    let refs: Vec<&str> = a.iter().map(String::as_str).collect();
    let r = veer_ok(&refs, 2);
    assert!(r.stderr.contains("holds the input"), "{}", r.stderr);
    assert!(!e.dir.path().join("runs").exists());
}

/// The agent wrapped so that each start is counted in `counter`.
fn counted(e: &Exp, counter: &Path, flags: &[&str], code: i32) -> Run {
    let script = format!(
        "echo x >> '{}'; exec '{}' \"$@\"",
        counter.display(),
        agent().display()
    );
    let mut args = e.args("exp", flags, &[]);
    let at = args.iter().position(|a| a == "--").unwrap();
    args.truncate(at + 1);
    args.extend(["sh", "-c", &script, "sh", "{input}"].map(String::from));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    veer_ok(&refs, code)
}

fn starts(counter: &Path) -> usize {
    std::fs::read_to_string(counter).map_or(0, |s| s.lines().count())
}

#[test]
fn a_rerun_resumes_and_fresh_redoes_everything() {
    let e = Exp::new("sales.csv", CSV);
    let counter = e.out("starts");
    counted(
        &e,
        &counter,
        &["--operators", "column_swap,null_content"],
        0,
    );
    assert_eq!(starts(&counter), 4, "baseline, 1 re-run, 2 operators");
    let (first, _) = e.results("exp");
    let r = counted(
        &e,
        &counter,
        &["--operators", "column_swap,null_content"],
        0,
    );
    assert_eq!(starts(&counter), 4, "every run reused");
    assert!(
        r.stderr.contains("reusing 4 finished run(s)"),
        "{}",
        r.stderr
    );
    assert_eq!(e.results("exp").0, first);
    // An unfinished run (no marker) is redone, alone.
    std::fs::remove_file(e.out("exp/runs/perturbed/null_content/run.json")).unwrap();
    counted(
        &e,
        &counter,
        &["--operators", "column_swap,null_content"],
        0,
    );
    assert_eq!(starts(&counter), 5);
    assert_eq!(e.results("exp").0, first);
    counted(
        &e,
        &counter,
        &["--operators", "column_swap,null_content", "--fresh"],
        0,
    );
    assert_eq!(starts(&counter), 9);
    assert_eq!(e.results("exp").0, first);
}

#[test]
fn ctrl_c_leaves_the_directory_consistent_and_a_rerun_resumes() {
    let e = Exp::new("sales.csv", CSV);
    let counter = e.out("starts");
    // Each run takes a second; interrupt during the third.
    let script = format!(
        "echo x >> '{}'; sleep 1; exec '{}' \"$@\"",
        counter.display(),
        agent().display()
    );
    let mut args = e.args("exp", &["--jobs", "1"], &[]);
    let at = args.iter().position(|a| a == "--").unwrap();
    args.truncate(at + 1);
    args.extend(["sh", "-c", &script, "sh", "{input}"].map(String::from));
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut child = Command::new(env!("CARGO_BIN_EXE_veer"))
        .args(&args)
        .current_dir(root)
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while starts(&counter) < 3 && t.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("interrupted: 2 of 9 runs finished"),
        "{stderr}"
    );
    assert!(!e.out("exp/results.json").exists());
    let out = e.out("exp");
    let markers = ["runs/baseline", "runs/reruns/rerun-001"]
        .iter()
        .filter(|d| out.join(d).join("run.json").is_file())
        .count();
    assert_eq!(markers, 2);
    assert!(!out.join("runs/perturbed/column_swap/run.json").exists());
    // The rerun starts only the 7 unfinished runs and completes.
    let before = starts(&counter);
    let r = veer_ok(&args.iter().map(String::as_str).collect::<Vec<_>>(), 0);
    assert!(
        r.stderr.contains("reusing 2 finished run(s) of 9"),
        "{}",
        r.stderr
    );
    assert_eq!(starts(&counter) - before, 7);
    let (_, v) = e.results("exp");
    assert_eq!(pair(&v, "column_swap")["status_perturbed"], "ok");
}

#[test]
fn trace_from_reads_the_agents_own_trace() {
    let e = Exp::new("sales.csv", CSV);
    let r = e.run(
        "exp",
        &["--trace-from", "{run_dir}/trace.json"],
        &["--no-trace-if", "*"],
        0,
    );
    let out = e.out("exp");
    assert!(out.join("baseline.json").is_file());
    let (text, v) = e.results("exp");
    let dtc = pair(&v, "data_type_corrupt");
    // The marked copy wrote no trace: an empty run, said so.
    assert_eq!(dtc["status_perturbed"], "empty");
    assert!(dtc["warnings"]
        .to_string()
        .contains("wrote no trace (expected {run_dir}/trace.json)"));
    assert_eq!(dtc["d_norm"], 1.0);
    let swap = pair(&v, "column_swap");
    assert_eq!(swap["status_perturbed"], "ok");
    assert_eq!(swap["d_norm"], 0.0);
    assert_eq!(swap["token_overhead"], 1.0);
    assert!(r.stderr.contains("wrote no trace"), "{}", r.stderr);
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

#[test]
fn help_explains_with_examples() {
    let r = veer(&["experiment", "run", "--help"]);
    assert_eq!(r.code, 0);
    for needle in [
        "--trace-from",
        "{input}",
        "VEER_INPUT",
        "results.json",
        "130",
    ] {
        assert!(r.stdout.contains(needle), "{needle}");
    }
}

#[test]
fn answer_from_reads_each_runs_answer_file() {
    let e = Exp::new("sales.csv", CSV);
    let mut args = e.args(
        "exp",
        &[
            "--operators",
            "column_swap,null_content",
            "--answer-from",
            "{run_dir}/answer.txt",
        ],
        &[],
    );
    let at = args.iter().position(|a| a == "--").unwrap();
    args.truncate(at + 1);
    // Writes an answer only for a non-empty input; prints something else on stdout.
    args.extend(
        [
            "sh",
            "-c",
            "if [ -s \"$VEER_INPUT\" ]; then echo ' 42 ' > \"$VEER_RUN_DIR/answer.txt\"; fi; echo ignored",
        ]
        .map(String::from),
    );
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    veer_ok(&refs, 0);
    let (_, v) = e.results("exp");
    assert_eq!(v["answers"]["baseline"], "42");
    assert_eq!(v["answers"]["sales.csv::column_swap"], "42");
    assert_eq!(v["answers"]["sales.csv::null_content"], Value::Null);
    let null = pair(&v, "null_content");
    assert!(null["warnings"]
        .to_string()
        .contains("wrote no answer file (expected {run_dir}/answer.txt)"));
    // No model call was made: empty runs, and no token overhead without tokens.
    assert_eq!(null["status_perturbed"], "empty");
    assert_eq!(null["token_overhead"], Value::Null);
}

#[test]
fn a_secret_in_an_answer_is_redacted_in_the_results() {
    let e = Exp::new("sales.csv", CSV);
    let mut args = e.args("exp", &["--operators", "column_swap", "--reruns", "0"], &[]);
    let at = args.iter().position(|a| a == "--").unwrap();
    args.truncate(at + 1);
    args.extend(["sh", "-c", "echo key=sk-proj-EXPSECRET0123456789abcdefghij"].map(String::from));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = veer_ok(&refs, 0);
    let (text, v) = e.results("exp");
    assert!(!text.contains("EXPSECRET"), "{text}");
    assert!(!r.stdout.contains("EXPSECRET"));
    assert!(v["answers"]["baseline"]
        .as_str()
        .unwrap()
        .contains("[REDACTED:"));
}

#[test]
fn a_command_that_cannot_start_stops_the_experiment_with_exit_2() {
    let e = Exp::new("sales.csv", CSV);
    let mut args = e.args("exp", &[], &[]);
    let at = args.iter().position(|a| a == "--").unwrap();
    args.truncate(at + 1);
    args.push(e.out("no-such-agent").display().to_string());
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = veer_ok(&refs, 2);
    assert!(r.stderr.contains("cannot run"), "{}", r.stderr);
    assert!(r.stderr.contains("hint: check the command"), "{}", r.stderr);
    assert!(!e.out("exp/results.json").exists());
    assert!(!e.out("exp/runs/baseline/run.json").exists());
}
