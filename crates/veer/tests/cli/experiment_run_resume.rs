//! `veer experiment run` interrupted and run again: a rerun resumes, --fresh redoes everything,
//! and Ctrl-C leaves the directory consistent.

use crate::common::{veer_ok, Run};
use crate::experiment_run::{agent, pair, Exp, CSV};
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

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
