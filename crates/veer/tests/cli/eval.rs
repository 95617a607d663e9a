//! `veer eval` end to end: a Python agent through the recording proxy against an upstream on
//! 127.0.0.1 whose tool call echoes the agent's prompt (`lookup KEY=VALUE` → `lookup_order`
//! with `{KEY: VALUE}`), so a candidate that changes the argument changes its calls. The
//! layout and identity `veer diff` reads, resume, failed trials, `--compare`, bad case files.

use crate::common::veer_ok;
use serde_json::{json, Value};
use std::io::Write;
use std::net::TcpListener;
use std::path::Path;
use std::process::Command;

/// An OpenAI upstream whose first answer calls `lookup_order` with the prompt's `KEY=VALUE`
/// as arguments, and whose answer after a tool result is `done`.
fn echo_upstream() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            std::thread::spawn(move || {
                while let Some(req) = crate::scripted_upstream::read_request(&mut s) {
                    let messages = req["messages"].as_array().cloned().unwrap_or_default();
                    let prompt = messages[0]["content"].as_str().unwrap_or("").to_string();
                    let after_tool = messages.last().is_some_and(|m| m["role"] == "tool");
                    let (k, v) = prompt
                        .trim_start_matches("lookup ")
                        .split_once('=')
                        .unwrap_or(("q", ""));
                    let message = if after_tool {
                        json!({"role": "assistant", "content": "done"})
                    } else {
                        json!({"role": "assistant", "content": null, "tool_calls": [{
                            "id": "call_1", "type": "function",
                            "function": {"name": "lookup_order",
                                         "arguments": json!({k: v}).to_string()}}]})
                    };
                    let body = json!({"id": "x", "object": "chat.completion", "created": 0,
                        "model": "echo-1",
                        "choices": [{"index": 0, "message": message,
                            "finish_reason": if after_tool { "stop" } else { "tool_calls" }}],
                        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})
                    .to_string();
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

/// The agent: `agent.py CASE TRIAL`; `ARG_KEY` names the argument it asks for, `FAIL_AT`
/// (`case/trial`) makes that trial exit 3 before any call, `HANG_CASE` makes that case's
/// trials sleep a minute first. It prints what it was given.
const AGENT: &str = r#"
import json, os, sys, time, urllib.request
case, trial = sys.argv[1], sys.argv[2]
if os.environ.get("HANG_CASE") == case:
    time.sleep(60)
if os.environ.get("FAIL_AT") == case + "/" + trial:
    sys.exit(3)
base = os.environ["OPENAI_BASE_URL"]
def call(messages):
    req = urllib.request.Request(base + "/chat/completions",
        data=json.dumps({"model": "m", "messages": messages}).encode(),
        headers={"Content-Type": "application/json", "Authorization": "Bearer sk-test"})
    return json.load(urllib.request.urlopen(req))
msgs = [{"role": "user", "content": "lookup " + os.environ.get("ARG_KEY", "order_id") + "=" + case}]
m = call(msgs)["choices"][0]["message"]
msgs.append(m)
for tc in m.get("tool_calls") or []:
    msgs.append({"role": "tool", "tool_call_id": tc["id"], "content": "ok"})
call(msgs)
inp = os.environ.get("VEER_CASE_INPUT", "")
print(os.environ["VEER_CASE"], os.environ["VEER_TRIAL"], open(inp).read().strip() if inp and os.path.isfile(inp) else "-")
"#;

struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

/// `veer eval --cases CASES --out OUT <extra> -- python3 agent.py {case} {trial}` with `env`.
fn eval(dir: &Path, cases: &Path, out: &Path, extra: &[&str], env: &[(&str, &str)]) -> Ran {
    let o = command(dir, cases, out, extra, env).output().unwrap();
    Ran {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// The command [`eval`] runs.
fn command(dir: &Path, cases: &Path, out: &Path, extra: &[&str], env: &[(&str, &str)]) -> Command {
    let agent = dir.join("agent.py");
    if !agent.exists() {
        std::fs::write(&agent, AGENT).unwrap();
    }
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_veer"));
    cmd.args(["eval", "--cases", cases.to_str().unwrap()])
        .args(["--out", out.to_str().unwrap()])
        .args(extra)
        .args([
            "--",
            "python3",
            agent.to_str().unwrap(),
            "{case}",
            "{trial}",
        ])
        .env("NO_COLOR", "1")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("ANTHROPIC_BASE_URL")
        .env_remove("AZURE_OPENAI_ENDPOINT")
        .env_remove("FAIL_AT")
        .env_remove("HANG_CASE")
        .env_remove("ARG_KEY");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

fn records(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn two_cases_three_trials_are_recorded_as_cases_with_trials_and_resumed() {
    let up = echo_upstream();
    let tmp = tempfile::tempdir().unwrap();
    let cases = tmp.path().join("cases.txt");
    std::fs::write(&cases, "# the suite\nrefund\n\nlookup\n").unwrap();
    let out = tmp.path().join("runs/main");
    let flags = ["--trials", "3", "--jobs", "2", "--openai-upstream", &up];
    let r = eval(tmp.path(), &cases, &out, &flags, &[]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout.starts_with(&format!(
            "veer eval: 2 case(s) × 3 trial(s) in {}: 6 run, 0 reused (resumed), 0 failed",
            out.display()
        )),
        "{}",
        r.stdout
    );
    for case in ["refund", "lookup"] {
        for t in 1..=3u64 {
            let recs = records(&out.join(format!("{case}/trial-{t}.agentlog")));
            assert_eq!(recs[0]["kind"], "metadata");
            assert_eq!(recs[0]["payload"]["case"], case);
            assert_eq!(recs[0]["payload"]["trial"], t);
            assert_eq!(
                recs.len(),
                6,
                "metadata, 2 × (request, response), a tool result"
            );
            let stdout = std::fs::read_to_string(
                out.join(format!(".veer-eval/{case}/trial-{t}/stdout.txt")),
            )
            .unwrap();
            assert_eq!(stdout, format!("{case} {t} -\n"));
        }
    }
    // `veer diff` reads the layout as cases with trials, no flag needed.
    let d = veer_ok(&["diff", s(&out), s(&out), "--format", "json"], 0);
    let v: Value = serde_json::from_str(&d.stdout).unwrap();
    let listed: Vec<&str> = v["trials"]["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["case"].as_str().unwrap())
        .collect();
    assert_eq!(listed, ["lookup", "refund"]);

    // A rerun reuses everything; a deleted trial is the only one run again.
    let r = eval(tmp.path(), &cases, &out, &flags, &[]);
    assert!(
        r.stdout.contains(": 0 run, 6 reused (resumed), 0 failed"),
        "{}",
        r.stdout
    );
    std::fs::remove_file(out.join("lookup/trial-2.agentlog")).unwrap();
    let r = eval(tmp.path(), &cases, &out, &flags, &[("VEER_TEST", "1")]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains(": 1 run, 5 reused (resumed), 0 failed"),
        "{}",
        r.stdout
    );
    assert!(out.join("lookup/trial-2.agentlog").is_file());
    // Other settings are refused, and --fresh redoes veer's own trials.
    let r = eval(
        tmp.path(),
        &cases,
        &out,
        &["--trials", "3", "--timeout", "60", "--openai-upstream", &up],
        &[],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("with other settings"), "{}", r.stderr);
    assert!(r.stderr.contains("--fresh"), "{}", r.stderr);
    let r = eval(
        tmp.path(),
        &cases,
        &out,
        &[
            "--trials",
            "3",
            "--timeout",
            "60",
            "--fresh",
            "--openai-upstream",
            &up,
        ],
        &[],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains(": 6 run, 0 reused"), "{}", r.stdout);
    // A file veer did not write is never touched.
    let mine = tmp.path().join("mine");
    std::fs::create_dir_all(mine.join("refund")).unwrap();
    std::fs::write(mine.join("refund/trial-1.agentlog"), "precious\n").unwrap();
    let r = eval(tmp.path(), &cases, &mine, &flags, &[]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("was not written by veer eval"),
        "{}",
        r.stderr
    );
    assert_eq!(
        std::fs::read_to_string(mine.join("refund/trial-1.agentlog")).unwrap(),
        "precious\n"
    );
}

#[test]
fn a_failing_trial_is_kept_failed_and_its_case_reads_as_failed() {
    let up = echo_upstream();
    let tmp = tempfile::tempdir().unwrap();
    let cases = tmp.path().join("cases.txt");
    std::fs::write(&cases, "refund\nlookup\n").unwrap();
    let out = tmp.path().join("runs/pr");
    let flags = [
        "--trials",
        "3",
        "--openai-upstream",
        &up,
        "--format",
        "json",
    ];
    let r = eval(tmp.path(), &cases, &out, &flags, &[("FAIL_AT", "lookup/2")]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        (v["done"].as_u64(), v["failed"].as_u64()),
        (Some(6), Some(1))
    );
    let lookup = &v["cases"][1];
    assert_eq!(lookup["case"], "lookup");
    assert_eq!(lookup["trials"][1]["status"], "failed");
    assert_eq!(
        lookup["trials"][1]["problems"],
        json!(["exited with code 3"])
    );
    // Its trace holds only the metadata (with its identity), so the trials reader fails it.
    let recs = records(&out.join("lookup/trial-2.agentlog"));
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0]["payload"]["case"], "lookup");
    assert_eq!(
        recs[0]["payload"]["tags"]["eval_failed"],
        "exited with code 3"
    );
    let marker: Value = serde_json::from_str(
        &std::fs::read_to_string(out.join(".veer-eval/lookup/trial-2/run.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(marker["exit"], json!({"exited": 3}));
    let d = veer_ok(&["diff", s(&out), s(&out), "--format", "json"], 0);
    let v: Value = serde_json::from_str(&d.stdout).unwrap();
    let verdict = |name: &str| {
        v["trials"]["cases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["case"] == name)
            .unwrap()["verdict"]
            .clone()
    };
    assert_eq!(verdict("lookup"), "failed");
    assert_ne!(verdict("refund"), "failed");
    // The terminal summary names it; a rerun keeps it (finished, failed) and counts it again.
    let r = eval(tmp.path(), &cases, &out, &flags[..4], &[]);
    assert!(
        r.stdout.contains("0 run, 6 reused (resumed), 1 failed"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("  failed lookup/trial-2: exited with code 3\n"),
        "{}",
        r.stdout
    );
}

#[test]
fn compare_diffs_against_a_baseline_and_gates_on_a_changed_argument() {
    let up = echo_upstream();
    let tmp = tempfile::tempdir().unwrap();
    let cases = tmp.path().join("cases.txt");
    std::fs::write(&cases, "refund\nlookup\ncancel\n").unwrap();
    let base = tmp.path().join("runs/main");
    let flags = ["--trials", "5", "--jobs", "3", "--openai-upstream", &up];
    let r = eval(tmp.path(), &cases, &base, &flags, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let mut same = flags.to_vec();
    same.extend(["--compare", s(&base), "--fail-on", "minor"]);
    let r = eval(
        tmp.path(),
        &cases,
        &tmp.path().join("runs/same"),
        &same,
        &[],
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    // The summary goes to stderr; stdout is the diff report.
    assert!(
        r.stderr.contains("veer eval: 3 case(s) × 5 trial(s)"),
        "{}",
        r.stderr
    );
    assert!(!r.stdout.contains("veer eval:"), "{}", r.stdout);
    let r = eval(
        tmp.path(),
        &cases,
        &tmp.path().join("runs/pr"),
        &same,
        &[("ARG_KEY", "id")],
    );
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("lookup_order"), "{}", r.stdout);
    assert!(r.stderr.contains("tripped:"), "{}", r.stderr);
    // Bad diff flags are exit 2 before anything runs.
    let mut bad = flags.to_vec();
    bad.extend(["--compare", s(&base), "--diff-arg=--no-such-flag"]);
    let r = eval(tmp.path(), &cases, &tmp.path().join("runs/x"), &bad, &[]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("--compare: bad diff flags"),
        "{}",
        r.stderr
    );
    assert!(!tmp.path().join("runs/x").exists());
}

#[test]
fn json_and_directory_cases_give_their_input() {
    let up = echo_upstream();
    let tmp = tempfile::tempdir().unwrap();
    let cases = tmp.path().join("suite.yaml");
    std::fs::write(&cases, "- plain\n- name: withinput\n  input: {order: 42}\n").unwrap();
    let out = tmp.path().join("y");
    let r = eval(tmp.path(), &cases, &out, &["--openai-upstream", &up], &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let read = |p: &str| std::fs::read_to_string(out.join(p)).unwrap();
    assert_eq!(read(".veer-eval/plain/trial-1/stdout.txt"), "plain 1 -\n");
    let given = read(".veer-eval/withinput/trial-1/stdout.txt");
    // {input} is a file of the trial's own holding the case's JSON input.
    let json_part = given.strip_prefix("withinput 1 ").unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(json_part).unwrap(),
        json!({"order": 42})
    );
    assert!(out
        .join(".veer-eval/withinput/trial-1/input.json")
        .is_file());
    // A directory: each entry is a case, {input} its path.
    let dir = tmp.path().join("tasks");
    std::fs::create_dir_all(dir.join("b-task")).unwrap();
    std::fs::write(dir.join("a-task.txt"), "hello").unwrap();
    std::fs::write(dir.join("b-task/spec.md"), "x").unwrap();
    let out = tmp.path().join("d");
    let r = eval(tmp.path(), &dir, &out, &["--openai-upstream", &up], &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        read_in(&out, ".veer-eval/a-task/trial-1/stdout.txt"),
        "a-task 1 hello\n"
    );
    assert!(out.join("b-task/trial-1.agentlog").is_file());
}

fn read_in(out: &Path, p: &str) -> String {
    std::fs::read_to_string(out.join(p)).unwrap()
}

#[test]
fn bad_case_files_are_exit_2_naming_the_file_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("o");
    let check = |name: &str, text: &str, wanted: &str| {
        let f = tmp.path().join(name);
        std::fs::write(&f, text).unwrap();
        let r = eval(tmp.path(), &f, &out, &[], &[]);
        assert_eq!(r.code, 2, "{name}: {}", r.stderr);
        assert!(
            r.stderr.contains(&format!("{}{wanted}", f.display())),
            "{name}: {}",
            r.stderr
        );
        assert!(r.stderr.contains("hint:"), "{}", r.stderr);
    };
    check(
        "dup.txt",
        "a\nb\na\n",
        ":3: case `a` is given twice (first at line 1)",
    );
    check(
        "sep.txt",
        "ok\n../up\n",
        ":2: the case name holds a path separator",
    );
    check(
        "dots.json",
        r#"["a", {"id": "x..y"}]"#,
        ": case 2: the case name holds `..`",
    );
    check(
        "noname.json",
        r#"[{"input": 1}]"#,
        ": case 1: no `name` (or `id`)",
    );
    check("broken.json", "[\n\"a\",\n", ":3: not valid JSON");
    check(
        "map.yaml",
        "a: 1\n",
        ": the YAML document is not a list of cases",
    );
    check("empty.txt", "# none\n", ": no cases");
    assert!(!out.exists(), "nothing is made before the cases are read");
}

#[test]
fn ctrl_c_stops_cleanly_and_a_rerun_resumes_the_unfinished_trials() {
    use std::io::Read;
    use std::time::{Duration, Instant};
    let up = echo_upstream();
    let tmp = tempfile::tempdir().unwrap();
    let cases = tmp.path().join("cases.txt");
    std::fs::write(&cases, "a\nb\n").unwrap();
    let out = tmp.path().join("runs/pr");
    let flags = ["--trials", "2", "--openai-upstream", &up];
    let mut child = command(tmp.path(), &cases, &out, &flags, &[("HANG_CASE", "b")])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let marker = |c: &str, t: u32| out.join(format!(".veer-eval/{c}/trial-{t}/run.json"));
    let t = Instant::now();
    while !(marker("a", 2).is_file() && out.join("b/trial-1.agentlog").is_file())
        && t.elapsed() < Duration::from_secs(30)
    {
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
        stderr.contains("interrupted: 2 of 4 trials finished"),
        "{stderr}"
    );
    assert!(marker("a", 1).is_file() && marker("a", 2).is_file());
    assert!(!marker("b", 1).exists());
    // The rerun runs only the unfinished trials (veer's own half-written one included).
    let r = eval(tmp.path(), &cases, &out, &flags, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("reusing 2 finished trial(s) of 4"),
        "{}",
        r.stderr
    );
    assert!(
        r.stdout.contains(": 2 run, 2 reused (resumed), 0 failed"),
        "{}",
        r.stdout
    );
    assert_eq!(records(&out.join("b/trial-1.agentlog")).len(), 6);
}

#[test]
fn a_timed_out_trial_and_a_missing_trace_are_failed_trials() {
    let up = echo_upstream();
    let tmp = tempfile::tempdir().unwrap();
    let cases = tmp.path().join("cases.txt");
    std::fs::write(&cases, "slow\n").unwrap();
    let out = tmp.path().join("t");
    let flags = [
        "--timeout",
        "1",
        "--openai-upstream",
        &up,
        "--format",
        "json",
    ];
    let r = eval(tmp.path(), &cases, &out, &flags, &[("HANG_CASE", "slow")]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["failed"], 1);
    let problems = v["cases"][0]["trials"][0]["problems"].to_string();
    assert!(problems.contains("timed out after 1s"), "{problems}");
    assert_eq!(records(&out.join("slow/trial-1.agentlog")).len(), 1);
    // --trace-from: the agent wrote no trace (it crashes without a base URL).
    let out = tmp.path().join("n");
    let flags = ["--trace-from", "{run_dir}/trace.jsonl", "--format", "json"];
    let r = eval(tmp.path(), &cases, &out, &flags, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["failed"], 1);
    let problems = v["cases"][0]["trials"][0]["problems"].to_string();
    assert!(problems.contains("wrote no trace"), "{problems}");
    let recs = records(&out.join("slow/trial-1.agentlog"));
    assert_eq!(recs[0]["payload"]["case"], "slow");
}
