//! Every other command that walks a directory (`inspect`, `experiment`) skips FIFOs; symlinks
//! are followed to regular files and skipped otherwise; a FIFO named as an argument is read as
//! a stream.

use crate::common::fixtures;
use crate::unreadable::{copy, directories, mkfifo, socket, veer_code};
use serde_json::Value;

#[test]
fn inspect_and_experiment_directories_skip_fifos() {
    let tmp = directories();
    let r = veer_code(tmp.path(), &["inspect", "a", "--format", "json"], 0);
    assert!(
        r.stderr.contains("warning: a/pipe.agentlog: skipped"),
        "{}",
        r.stderr
    );
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["traces"].as_array().unwrap().len(), 4);

    let exp = tmp.path().join("exp");
    copy("demo/baseline.agentlog", &exp.join("baseline.agentlog"));
    copy(
        "demo/candidate.agentlog",
        &exp.join("perturbed/changed.agentlog"),
    );
    mkfifo(&exp.join("perturbed/pipe.agentlog"));
    socket(&exp.join("perturbed/sock.agentlog"));
    mkfifo(&exp.join("reruns.agentlog"));
    let r = veer_code(
        tmp.path(),
        &["experiment", "analyze", "exp", "--format", "json"],
        0,
    );
    assert!(
        r.stderr
            .contains("warning: exp/perturbed/pipe.agentlog: skipped: not a regular file"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("exp/perturbed/sock.agentlog: skipped"),
        "{}",
        r.stderr
    );
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["pairs"].as_array().unwrap().len(), 1);
}

#[test]
fn symlinks_are_followed_to_regular_files_and_skipped_otherwise() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("d");
    copy("demo/baseline.agentlog", &d.join("real.agentlog"));
    std::os::unix::fs::symlink("real.agentlog", d.join("link.agentlog")).unwrap();
    std::os::unix::fs::symlink("nowhere.agentlog", d.join("dangling.agentlog")).unwrap();
    mkfifo(&tmp.path().join("fifo"));
    std::os::unix::fs::symlink("../fifo", d.join("to-fifo.agentlog")).unwrap();
    let r = veer_code(tmp.path(), &["inspect", "d", "--format", "json"], 0);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let sources: Vec<&str> = v["traces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["source"].as_str().unwrap())
        .collect();
    assert_eq!(sources, ["d/link.agentlog", "d/real.agentlog"]);
    assert!(
        r.stderr.contains(
            "warning: d/dangling.agentlog: skipped: a dangling symlink is not a trace file"
        ),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains(
            "warning: d/to-fifo.agentlog: skipped: a symlink to a FIFO is not a trace file"
        ),
        "{}",
        r.stderr
    );
}

#[test]
fn a_fifo_named_as_an_argument_is_read_as_a_stream() {
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("run.agentlog");
    mkfifo(&fifo);
    let text = std::fs::read(fixtures().join("shadow/demo/baseline.agentlog")).unwrap();
    let writer = {
        let fifo = fifo.clone();
        // Opening a FIFO for writing waits for its reader: veer.
        std::thread::spawn(move || std::fs::write(fifo, text))
    };
    let r = veer_code(
        tmp.path(),
        &["inspect", "run.agentlog", "--format", "json"],
        0,
    );
    writer.join().unwrap().unwrap();
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["traces"][0]["source"], "run.agentlog");
    assert!(!v["traces"][0]["turns"].as_array().unwrap().is_empty());
}
