//! Outputs never destroy anything (docs/output.md): `-o` onto an input is refused, devices and
//! FIFOs are written through, symlinks are followed and kept, a closed stdout ends quietly, and an
//! interrupt, a read-only or missing directory or a full disk leave the old file and no temporary
//! file. Device and file-system cases that need root make their own nodes and mounts inside a
//! temporary directory (a private mount namespace); they never touch the system's files.

use crate::common::{examples, fixtures, veer, Run};
use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const REFUSED: &str = "refusing to write the report over an input: ";

fn is_root() -> bool {
    fs::metadata("/proc/self")
        .map(|m| m.uid() == 0)
        .unwrap_or(false)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The directory's entries, sorted (hidden temporary files included).
fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Exit 2 naming `path` and saying it could not be written, never a panic.
fn assert_cannot_write(r: &Run, path: &Path) {
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains(&format!("{}: cannot write output", path.display())),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
}

/// A temp directory holding copies of the refund-agent example: baseline, candidate, policy.
fn workspace() -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let ex = examples().join("refund-agent");
    let copy = |name: &str| {
        let to = dir.path().join(name);
        fs::copy(ex.join(name), &to).unwrap();
        to
    };
    let (b, c, p) = (
        copy("baseline.agentlog"),
        copy("candidate.agentlog"),
        copy("policy.yaml"),
    );
    (dir, b, c, p)
}

/// A synthetic pair of `turns` turns written by the hidden `synth` command under `dir`.
fn synth_pair(dir: &Path, turns: usize) -> (PathBuf, PathBuf) {
    let r = veer(&["synth", "--turns", &turns.to_string(), "--out-dir", s(dir)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    (
        dir.join("baseline.agentlog"),
        dir.join("candidate.agentlog"),
    )
}

#[test]
fn every_writing_command_refuses_an_input_as_its_output() {
    let (dir, b, c, p) = workspace();
    let report = dir.path().join("report.json");
    let r = veer(&["diff", s(&b), s(&c), "--format", "json", "-o", s(&report)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let results = dir.path().join("results.json");
    fs::copy(fixtures().join("traxr/goldens/builtin_stub.json"), &results).unwrap();
    let input_txt = dir.path().join("notes.md");
    fs::write(&input_txt, "# Notes\n\nSome text 42.\n").unwrap();
    let exp_dir = dir.path().join("exp");

    let cases: Vec<(Vec<&str>, &Path)> = vec![
        (vec!["diff", s(&b), s(&c), "-o", s(&b)], &b),
        (vec!["diff", s(&b), s(&c), "-o", s(&c)], &c),
        (
            vec!["diff", s(&b), s(&c), "--policy", s(&p), "-o", s(&p)],
            &p,
        ),
        (vec!["check", s(&c), "--policy", s(&p), "-o", s(&c)], &c),
        (vec!["check", s(&c), "--policy", s(&p), "-o", s(&p)], &p),
        (vec!["inspect", s(&b), "-o", s(&b)], &b),
        (vec!["scan", s(&b), s(&c), "-o", s(&c)], &c),
        (vec!["gate", s(&report), "-o", s(&report)], &report),
        (vec!["experiment", "pair", s(&b), s(&c), "-o", s(&c)], &c),
        (
            vec!["experiment", "analyze", s(&results), "-o", s(&results)],
            &results,
        ),
        (
            vec![
                "experiment",
                "perturb",
                s(&input_txt),
                "--operator",
                "ocr_noise",
                "--out",
                s(&input_txt),
            ],
            &input_txt,
        ),
        (
            vec![
                "experiment",
                "run",
                "--input",
                s(&input_txt),
                "--out",
                s(&input_txt),
                "--",
                "true",
            ],
            &input_txt,
        ),
        (
            vec![
                "experiment",
                "run",
                "--input",
                s(&input_txt),
                "--out",
                s(&exp_dir),
                "-o",
                s(&input_txt),
                "--",
                "true",
            ],
            &input_txt,
        ),
    ];
    for (args, victim) in cases {
        if !victim.exists() {
            continue;
        }
        let before = fs::read(victim).unwrap();
        let r = veer(&args);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert!(
            r.stderr.contains(&format!("{REFUSED}{}", victim.display())),
            "{args:?}: {}",
            r.stderr
        );
        assert!(r.stdout.is_empty(), "{args:?} wrote {}", r.stdout);
        assert_eq!(
            fs::read(victim).unwrap(),
            before,
            "{args:?} changed its input"
        );
    }
}

#[test]
fn an_input_reached_through_a_symlink_or_hard_link_is_refused() {
    let (dir, b, c, _) = workspace();
    let link = dir.path().join("link.agentlog");
    std::os::unix::fs::symlink(&b, &link).unwrap();
    let hard = dir.path().join("hard.agentlog");
    fs::hard_link(&c, &hard).unwrap();
    let dotted = dir.path().join(".").join("baseline.agentlog");
    let before = (fs::read(&b).unwrap(), fs::read(&c).unwrap());
    for (args, shown) in [
        (vec!["diff", s(&b), s(&c), "-o", s(&link)], &link),
        (vec!["diff", s(&b), s(&c), "-o", s(&hard)], &hard),
        (vec!["diff", s(&link), s(&c), "-o", s(&b)], &b),
        (vec!["diff", s(&b), s(&c), "-o", s(&dotted)], &dotted),
    ] {
        let r = veer(&args);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert!(
            r.stderr.contains(&format!("{REFUSED}{}", shown.display())),
            "{}",
            r.stderr
        );
    }
    assert_eq!((fs::read(&b).unwrap(), fs::read(&c).unwrap()), before);
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
}

#[test]
fn a_trace_inside_an_input_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let ex = examples().join("refund-agent");
    for side in ["main", "pr"] {
        fs::create_dir(dir.path().join(side)).unwrap();
    }
    let b = dir.path().join("main/a.agentlog");
    let c = dir.path().join("pr/a.agentlog");
    fs::copy(ex.join("baseline.agentlog"), &b).unwrap();
    fs::copy(ex.join("candidate.agentlog"), &c).unwrap();
    let before = fs::read(&b).unwrap();
    let (main, pr) = (dir.path().join("main"), dir.path().join("pr"));
    let r = veer(&["diff", s(&main), s(&pr), "-o", s(&b)]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains(REFUSED), "{}", r.stderr);
    assert_eq!(fs::read(&b).unwrap(), before);
    // A new file beside the inputs destroys nothing and is written.
    let out = dir.path().join("report.md");
    let r = veer(&[
        "diff",
        s(&main),
        s(&pr),
        "--format",
        "markdown",
        "-o",
        s(&out),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(fs::read_to_string(&out).unwrap().contains('#'));
}

#[test]
fn a_symlinked_output_file_is_replaced_where_it_points_and_the_link_stays() {
    let (dir, b, c, _) = workspace();
    let reports = dir.path().join("reports");
    fs::create_dir(&reports).unwrap();
    let real = reports.join("diff.json");
    fs::write(&real, "old").unwrap();
    let link = dir.path().join("latest.json");
    std::os::unix::fs::symlink("reports/diff.json", &link).unwrap();
    let r = veer(&["diff", s(&b), s(&c), "--format", "json", "-o", s(&link)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let v: serde_json::Value = serde_json::from_slice(&fs::read(&real).unwrap()).unwrap();
    assert!(v.get("axes").is_some());
    assert_eq!(entries(&reports), ["diff.json"]);
}

#[test]
fn a_fifo_is_written_through_and_stays_a_fifo() {
    let (dir, b, c, _) = workspace();
    let fifo = dir.path().join("report.pipe");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || fs::read_to_string(fifo).unwrap())
    };
    let r = veer(&["diff", s(&b), s(&c), "--format", "json", "-o", s(&fifo)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let got = reader.join().unwrap();
    let v: serde_json::Value = serde_json::from_str(&got).unwrap();
    assert!(v.get("axes").is_some());
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    assert_eq!(entries(dir.path()).len(), 4, "{:?}", entries(dir.path()));
}

#[test]
fn a_fifo_whose_reader_goes_away_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let (b, _) = synth_pair(dir.path(), 3000);
    let fifo = dir.path().join("rows.pipe");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    // The reader takes one byte and leaves; the report is far larger than a pipe's buffer.
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            use std::io::Read;
            let mut f = fs::File::open(fifo).unwrap();
            let mut one = [0u8; 1];
            f.read_exact(&mut one).unwrap();
        })
    };
    let r = veer(&["inspect", s(&b), "--format", "json", "-o", s(&fifo)]);
    reader.join().unwrap();
    assert_cannot_write(&r, &fifo);
    assert!(
        r.stderr.to_lowercase().contains("broken pipe"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
}

#[test]
fn device_nodes_are_written_through_never_replaced() {
    if !is_root() {
        eprintln!("skipped: creating device nodes needs root (the FIFO tests cover non-root)");
        return;
    }
    let (dir, b, c, _) = workspace();
    let null = dir.path().join("null");
    let full = dir.path().join("full");
    for (node, minor) in [(&null, "3"), (&full, "7")] {
        let ok = Command::new("mknod")
            .arg(node)
            .args(["c", "1", minor])
            .status()
            .unwrap();
        assert!(ok.success());
    }
    let r = veer(&["diff", s(&b), s(&c), "-o", s(&null)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(fs::symlink_metadata(&null)
        .unwrap()
        .file_type()
        .is_char_device());
    // A full device: the write fails, and says so.
    let r = veer(&["diff", s(&b), s(&c), "-o", s(&full)]);
    assert_cannot_write(&r, &full);
    assert!(r.stderr.contains("No space left on device"), "{}", r.stderr);
    assert!(fs::symlink_metadata(&full)
        .unwrap()
        .file_type()
        .is_char_device());
    assert_eq!(entries(dir.path()).len(), 5, "{:?}", entries(dir.path()));
}

#[test]
fn a_stdout_closed_early_ends_quietly_with_the_commands_own_code() {
    let dir = tempfile::tempdir().unwrap();
    let (b, c) = synth_pair(dir.path(), 3000);
    for args in [
        vec!["inspect", s(&b), "--format", "json"],
        vec![
            "diff",
            s(&b),
            s(&c),
            "--format",
            "json",
            "--fail-on",
            "minor",
        ],
    ] {
        let expected = veer(&args).code;
        let mut child = Command::new(env!("CARGO_BIN_EXE_veer"))
            .args(&args)
            .env("NO_COLOR", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take()); // `| head -0`: the reader is gone before veer writes.
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(!stderr.contains("error"), "{stderr}");
        assert_eq!(out.status.code(), Some(expected), "{args:?}: {stderr}");
    }
}

/// Starts `veer` writing `out` with its write held open before the rename, waits until the
/// temporary file exists, and sends `signal`.
fn interrupt_mid_write(signal: &str, signo: i32) {
    let (dir, b, c, _) = workspace();
    let out = dir.path().join("report.json");
    fs::write(&out, "previous report").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_veer"))
        .args(["diff", s(&b), s(&c), "--format", "json", "-o", s(&out)])
        .env("VEER_TEST_HOLD_OUTPUT_MS", "20000")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while !entries(dir.path()).iter().any(|n| n.ends_with(".tmp")) {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "no temporary file appeared"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let pid = child.id().to_string();
    assert!(Command::new("kill")
        .args([signal, &pid])
        .status()
        .unwrap()
        .success());
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(signo), "{status:?}");
    assert_eq!(fs::read_to_string(&out).unwrap(), "previous report");
    assert!(
        !entries(dir.path()).iter().any(|n| n.ends_with(".tmp")),
        "{:?}",
        entries(dir.path())
    );
}

#[test]
fn sigint_mid_write_leaves_the_old_file_and_no_temporary() {
    interrupt_mid_write("-INT", 2);
}

#[test]
fn sigterm_mid_write_leaves_the_old_file_and_no_temporary() {
    interrupt_mid_write("-TERM", 15);
}

#[test]
fn sigterm_during_a_long_directory_diff_leaves_the_old_file() {
    let dir = tempfile::tempdir().unwrap();
    let r = veer(&[
        "synth",
        "--turns",
        "200",
        "--pairs",
        "300",
        "--out-dir",
        s(dir.path()),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let out = dir.path().join("report.json");
    fs::write(&out, "previous report").unwrap();
    let (base, cand) = (dir.path().join("baseline"), dir.path().join("candidate"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_veer"))
        .args([
            "diff",
            s(&base),
            s(&cand),
            "--format",
            "json",
            "-o",
            s(&out),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let pid = child.id().to_string();
    let _ = Command::new("kill").args(["-TERM", &pid]).status();
    let status = child.wait().unwrap();
    let text = fs::read_to_string(&out).unwrap();
    // Either the run was stopped (the old report stays) or it had already finished.
    if status.signal() == Some(15) {
        assert_eq!(text, "previous report");
    } else {
        assert!(text.starts_with('{'), "{text}");
    }
    assert!(!entries(dir.path()).iter().any(|n| n.ends_with(".tmp")));
}

#[test]
fn a_missing_output_directory_is_exit_2() {
    let (dir, b, c, _) = workspace();
    let out = dir.path().join("no-such-dir/report.json");
    let r = veer(&["diff", s(&b), s(&c), "-o", s(&out)]);
    assert_cannot_write(&r, &out);
    assert!(r.stderr.contains("hint:"), "{}", r.stderr);
}

#[test]
fn a_read_only_directory_keeps_the_old_file() {
    let (dir, b, c, _) = workspace();
    if is_root() {
        // Root writes through permission bits: make a read-only file system in a private mount
        // namespace instead (nothing outside this test's temporary directory is touched).
        let mnt = dir.path().join("ro");
        fs::create_dir(&mnt).unwrap();
        let script = format!(
            "mount -t tmpfs -o size=1m tmpfs '{m}' && echo old > '{m}/report.json' && \
             mount -o remount,ro '{m}' && '{veer}' diff '{b}' '{c}' -o '{m}/report.json'; \
             echo \"exit=$?\"; cat '{m}/report.json'; ls -a '{m}'",
            m = s(&mnt),
            veer = env!("CARGO_BIN_EXE_veer"),
            b = s(&b),
            c = s(&c)
        );
        let Some(out) = in_private_mounts(&script) else {
            return;
        };
        assert!(out.contains("exit=2"), "{out}");
        assert!(out.contains("cannot write output"), "{out}");
        assert!(out.contains("\nold\n"), "{out}");
        assert!(!out.lines().any(|l| l.ends_with(".tmp")), "{out}");
    } else {
        let ro = dir.path().join("ro");
        fs::create_dir(&ro).unwrap();
        let out = ro.join("report.json");
        fs::write(&out, "old").unwrap();
        let mut perms = fs::metadata(&ro).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o555);
        fs::set_permissions(&ro, perms).unwrap();
        let r = veer(&["diff", s(&b), s(&c), "-o", s(&out)]);
        assert_cannot_write(&r, &out);
        assert_eq!(fs::read_to_string(&out).unwrap(), "old");
        assert_eq!(entries(&ro), ["report.json"]);
    }
}

#[test]
fn a_full_disk_keeps_the_old_file_and_leaves_no_temporary() {
    if !is_root() {
        eprintln!(
            "skipped: a small full file system needs root (mount); the device test covers ENOSPC"
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (b, _) = synth_pair(dir.path(), 2000);
    let mnt = dir.path().join("small");
    fs::create_dir(&mnt).unwrap();
    let script = format!(
        "mount -t tmpfs -o size=64k tmpfs '{m}' && echo old > '{m}/rows.json' && \
         '{veer}' inspect '{b}' --format json -o '{m}/rows.json'; \
         echo \"exit=$?\"; cat '{m}/rows.json'; ls -a '{m}'",
        m = s(&mnt),
        veer = env!("CARGO_BIN_EXE_veer"),
        b = s(&b)
    );
    let Some(out) = in_private_mounts(&script) else {
        return;
    };
    assert!(out.contains("exit=2"), "{out}");
    assert!(out.contains("No space left on device"), "{out}");
    assert!(out.contains("\nold\n"), "{out}");
    assert!(!out.lines().any(|l| l.ends_with(".tmp")), "{out}");
}

/// Runs `script` with `sh` in a private mount namespace (mounts vanish with it); its stdout and
/// stderr, or `None` (with the reason printed) where namespaces are not available.
fn in_private_mounts(script: &str) -> Option<String> {
    let out = Command::new("unshare")
        .args(["--mount", "--propagation", "private", "sh", "-c", script])
        .env("NO_COLOR", "1")
        .output();
    match out {
        Ok(o) if String::from_utf8_lossy(&o.stdout).contains("exit=") => Some(format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )),
        Ok(o) => {
            eprintln!(
                "skipped: no private mount namespace here: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            None
        }
        Err(e) => {
            eprintln!("skipped: unshare is not available: {e}");
            None
        }
    }
}
