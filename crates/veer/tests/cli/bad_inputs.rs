//! The bad-input corpus (`tests/bad_inputs/`): every case exits 2 with a message naming the
//! file, line and field (or flag), never panics, and finishes in bounded time and memory.
//!
//! A case is a directory holding its input files, `args` (one argument per line; `@/x` is the
//! file `x` of the case directory, `@@/x` the file `x` of `_shared/`, valid inputs that many
//! cases use) and `expect` (the exit code, then substrings that stderr
//! must contain). A few inputs are too big to commit and are generated here.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Wall-clock bound for one case.
const TIME_LIMIT: Duration = Duration::from_secs(30);
/// Address-space bound for one case (via `prlimit`, when available): 4 GiB.
const MEMORY_LIMIT: &str = "--as=4294967296";

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/bad_inputs")
}

pub(crate) struct Outcome {
    pub(crate) code: i32,
    pub(crate) stderr: String,
    pub(crate) elapsed: Duration,
}

pub(crate) fn run_bounded(args: &[String]) -> Outcome {
    let veer = env!("CARGO_BIN_EXE_veer");
    let limited = Path::new("/usr/bin/prlimit").exists();
    let mut cmd = if limited {
        let mut c = Command::new("/usr/bin/prlimit");
        c.arg(MEMORY_LIMIT).arg("--").arg(veer);
        c
    } else {
        Command::new(veer)
    };
    let start = Instant::now();
    let mut child = cmd
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("veer starts");
    let stderr_pipe = child.stderr.take().expect("stderr piped");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let mut r = std::io::BufReader::new(stderr_pipe);
        let _ = std::io::Read::read_to_string(&mut r, &mut s);
        s
    });
    let status = loop {
        if let Some(st) = child.try_wait().expect("wait") {
            break st;
        }
        if start.elapsed() > TIME_LIMIT {
            let _ = child.kill();
            panic!("veer {args:?} ran longer than {TIME_LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Outcome {
        code: status.code().unwrap_or(-1),
        stderr: reader.join().unwrap_or_default(),
        elapsed: start.elapsed(),
    }
}

pub(crate) fn check(name: &str, args: &[String], code: i32, needles: &[String]) {
    let out = run_bounded(args);
    assert_eq!(
        out.code, code,
        "case {name}: exit code\nstderr:\n{}",
        out.stderr
    );
    assert!(
        !out.stderr.contains("panicked"),
        "case {name} panicked:\n{}",
        out.stderr
    );
    assert!(
        out.stderr.starts_with("error"),
        "case {name}: stderr should start with an error:\n{}",
        out.stderr
    );
    for n in needles {
        assert!(
            out.stderr.contains(n.as_str()),
            "case {name}: stderr lacks {n:?}:\n{}",
            out.stderr
        );
    }
    assert!(
        out.elapsed < TIME_LIMIT,
        "case {name} took {:?}",
        out.elapsed
    );
}

#[test]
fn corpus_cases() {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(corpus())
        .expect("tests/bad_inputs exists")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.join("args").exists())
        .collect();
    cases.sort();
    assert!(cases.len() >= 40, "the corpus has {} cases", cases.len());
    for case in cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let args: Vec<String> = std::fs::read_to_string(case.join("args"))
            .unwrap()
            .lines()
            .map(|a| {
                if let Some(rest) = a.strip_prefix("@@/") {
                    corpus()
                        .join("_shared")
                        .join(rest)
                        .to_string_lossy()
                        .into_owned()
                } else if let Some(rest) = a.strip_prefix("@/") {
                    case.join(rest).to_string_lossy().into_owned()
                } else {
                    a.to_string()
                }
            })
            .collect();
        let expect = std::fs::read_to_string(case.join("expect")).unwrap();
        let mut lines = expect.lines();
        let code: i32 = lines.next().unwrap().trim().parse().unwrap();
        let needles: Vec<String> = lines
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect();
        check(&name, &args, code, &needles);
    }
}

#[test]
fn generated_100_mb_single_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("big.agentlog");
    let mut bytes = Vec::with_capacity(100 << 20);
    bytes.extend_from_slice(b"{\"payload\":\"");
    bytes.resize(100 << 20, b'x');
    std::fs::write(&p, &bytes).unwrap();
    let args = vec!["inspect".to_string(), p.to_string_lossy().into_owned()];
    check(
        "100-mb-line",
        &args,
        2,
        &["big.agentlog:1: (line): line is longer than the limit of 67108864 bytes".into()],
    );
    // Raising the limit reads the line and rejects it for what it is, still bounded.
    let args = vec![
        "inspect".to_string(),
        p.to_string_lossy().into_owned(),
        "--max-line-bytes".into(),
        "200000000".into(),
    ];
    check(
        "100-mb-line-raised",
        &args,
        2,
        &["big.agentlog:1: (line): invalid JSON".into()],
    );
}

#[test]
fn generated_deep_nesting() {
    let dir = tempfile::tempdir().unwrap();
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let p = dir.path().join("deep.agentlog");
    std::fs::write(&p, format!("{{\"payload\":{deep}}}\n")).unwrap();
    let args = vec!["inspect".to_string(), p.to_string_lossy().into_owned()];
    check(
        "deep-agentlog",
        &args,
        2,
        &["deep.agentlog:1: (line): JSON nested deeper than 128 levels".into()],
    );
    let p = dir.path().join("deep.json");
    std::fs::write(
        &p,
        format!("{{\n\"events\": [{{\"payload\": {deep}}}]\n}}\n"),
    )
    .unwrap();
    let args = vec!["inspect".to_string(), p.to_string_lossy().into_owned()];
    check("deep-traxr", &args, 2, &["deep.json".into()]);
}

/// Files that exist but cannot be read. Permissions do not stop root (CI may run as root), so
/// the always-unreadable `/proc/self/mem` (reading it from offset 0 fails with EIO) stands in
/// where the platform has it; a mode-000 file is tried too when the test is not root.
#[test]
fn generated_unreadable_files() {
    let ok = corpus().join("_shared/ok.agentlog");
    let ok = ok.to_string_lossy().into_owned();
    let mut unreadable: Vec<String> = Vec::new();
    if Path::new("/proc/self/mem").exists() {
        unreadable.push("/proc/self/mem".into());
    }
    let dir = tempfile::tempdir().unwrap();
    let locked = dir.path().join("locked.agentlog");
    std::fs::write(&locked, "{}\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    }
    if std::fs::read(&locked).is_err() {
        unreadable.push(locked.to_string_lossy().into_owned());
    }
    for bad in unreadable {
        let s = |x: &str| x.to_string();
        check(
            "unreadable-trace",
            &[s("inspect"), bad.clone()],
            2,
            &[format!("{bad}: (file): ")],
        );
        check(
            "unreadable-policy",
            &[s("check"), ok.clone(), s("--policy"), bad.clone()],
            2,
            &[format!("{bad}: cannot read")],
        );
        check(
            "unreadable-pricing",
            &[
                s("diff"),
                ok.clone(),
                ok.clone(),
                s("--pricing"),
                bad.clone(),
            ],
            2,
            &[format!("{bad}: cannot read pricing file")],
        );
    }
}
