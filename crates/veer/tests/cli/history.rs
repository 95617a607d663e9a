//! `veer history …` and `veer diff … --history`: summaries into SQLite, trends out; several
//! processes writing at once lose nothing; a corrupt database is exit 2 and left as it was.

use super::baseline::{ok_in, veer_in, workspace};
use std::fs;

/// A pair report and a directory report (with a policy), written into the workspace.
fn reports(d: &std::path::Path) {
    ok_in(
        d,
        &[
            "diff",
            "runs/main/refund/t1.agentlog",
            "runs/pr/refund/t2.agentlog",
            "--policy",
            "policy.yaml",
            "--format",
            "json",
            "-o",
            "pair.json",
        ],
        0,
    );
    ok_in(
        d,
        &[
            "diff",
            "runs/main",
            "runs/pr",
            "--policy",
            "policy.yaml",
            "--format",
            "json",
            "-o",
            "dir.json",
        ],
        0,
    );
}

#[test]
fn add_show_export() {
    let ws = workspace();
    let d = ws.path();
    reports(d);
    let r = ok_in(
        d,
        &[
            "history",
            "add",
            "pair.json",
            "--commit",
            "c1",
            "--branch",
            "main",
            "--time",
            "2026-11-01T10:00:00Z",
        ],
        0,
    );
    assert_eq!(
        r.stderr,
        "added comparison 1 to .veer/history.sqlite (pair report, gate passed)\n"
    );
    ok_in(
        d,
        &[
            "history",
            "add",
            "dir.json",
            "--commit",
            "c2",
            "--time",
            "2026-11-02",
        ],
        0,
    );
    ok_in(
        d,
        &[
            "history",
            "add",
            "dir.json",
            "--commit",
            "c3",
            "--branch",
            "pr-9",
            "--ci-run",
            "42",
            "--time",
            "2026-11-03T00:00:00Z",
        ],
        0,
    );
    insta::assert_snapshot!("history_show", ok_in(d, &["history", "show"], 0).stdout);
    insta::assert_snapshot!(
        "history_show_json",
        ok_in(
            d,
            &[
                "history",
                "show",
                "--format",
                "json",
                "--since",
                "2026-11-02"
            ],
            0
        )
        .stdout
    );
    let one = ok_in(d, &["history", "show", "--case", "refund/t2.agentlog"], 0).stdout;
    assert!(one.contains("2 comparisons"), "{one}");
    assert!(!one.contains("top.agentlog"), "{one}");
    let axis = ok_in(
        d,
        &["history", "show", "--axis", "cost", "--branch", "main"],
        0,
    )
    .stdout;
    assert!(
        axis.contains("2 comparisons,") && axis.contains("\ncost "),
        "{axis}"
    );
    assert!(!axis.contains("semantic"), "{axis}");
    let export = ok_in(d, &["history", "export", "--format", "jsonl"], 0).stdout;
    let lines: Vec<serde_json::Value> = export
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["commit"], "c1");
    assert_eq!(lines[0]["branch"], "main");
    assert_eq!(
        lines[1]["branch"], "main",
        "from GITHUB_REF_NAME when --branch is not given"
    );
    assert_eq!(lines[2]["ci_run"], "42");
    assert_eq!(lines[2]["report_kind"], "directory");
    assert_eq!(lines[2]["cases"].as_array().unwrap().len(), 3);
    assert!(
        lines[0]["rules"].as_array().is_some_and(|r| !r.is_empty()),
        "the policy's rules are kept: {}",
        lines[0]
    );
    ok_in(
        d,
        &["history", "report", "--format", "html", "-o", "trend.html"],
        0,
    );
    let html = fs::read_to_string(d.join("trend.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.ends_with("</html>\n"));
    assert_eq!(
        html.matches("<svg").count(),
        9 * 2 + 3,
        "a chart and a strip per axis, a strip per case"
    );
    assert!(html.contains("<polyline"), "{html}");
    assert!(
        !html.contains("http") && !html.contains("<script"),
        "self-contained, nothing fetched"
    );
    // The same database gives the same bytes.
    assert_eq!(ok_in(d, &["history", "export"], 0).stdout, export);
    ok_in(d, &["history", "export", "-o", "h.jsonl"], 0);
    assert_eq!(fs::read_to_string(d.join("h.jsonl")).unwrap(), export);
}

#[test]
fn diff_with_history_records_every_format() {
    let ws = workspace();
    let d = ws.path();
    ok_in(d, &["diff", "runs/main", "runs/pr", "--history"], 0);
    ok_in(
        d,
        &[
            "diff",
            "runs/main",
            "runs/pr",
            "--format",
            "markdown",
            "--history",
        ],
        0,
    );
    ok_in(
        d,
        &[
            "diff",
            "runs/main/top.agentlog",
            "runs/pr/top.agentlog",
            "--format",
            "junit",
            "--history=other.sqlite",
        ],
        0,
    );
    ok_in(d, &["baseline", "create", "runs/main", "--name", "main"], 0);
    ok_in(
        d,
        &[
            "diff",
            "--baseline",
            "main",
            "runs/pr",
            "--format",
            "json",
            "-o",
            "r.json",
            "--history",
        ],
        0,
    );
    let export = ok_in(d, &["history", "export"], 0).stdout;
    assert_eq!(export.lines().count(), 3);
    assert!(
        export.contains("\"commit\":\"0123456789abcdef0123456789abcdef01234567\""),
        "{export}"
    );
    let other = ok_in(d, &["history", "export", "--db", "other.sqlite"], 0).stdout;
    assert_eq!(other.lines().count(), 1);
    assert!(other.contains("\"report_kind\":\"pair\""));
}

#[test]
fn parallel_writers_lose_nothing() {
    let ws = workspace();
    let d = ws.path();
    reports(d);
    let procs = 8;
    let each = 5;
    let children: Vec<_> = (0..procs)
        .map(|p| {
            let script = (0..each)
                .map(|i| format!("\"$VEER\" history add dir.json --commit p{p}-{i} || exit 1"))
                .collect::<Vec<_>>()
                .join("\n");
            std::process::Command::new("sh")
                .arg("-c")
                .arg(script)
                .current_dir(d)
                .env("VEER", env!("CARGO_BIN_EXE_veer"))
                .env("SOURCE_DATE_EPOCH", "1767225600")
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let export = ok_in(d, &["history", "export"], 0).stdout;
    assert_eq!(export.lines().count(), procs * each);
    for p in 0..procs {
        for i in 0..each {
            assert!(
                export.contains(&format!("\"commit\":\"p{p}-{i}\"")),
                "p{p}-{i} missing"
            );
        }
    }
}

#[test]
fn bad_databases_and_reports_are_exit_2_and_left_alone() {
    let ws = workspace();
    let d = ws.path();
    reports(d);
    fs::create_dir_all(d.join(".veer")).unwrap();
    let junk = "not a database at all, but long enough to have a header\n".repeat(50);
    fs::write(d.join(".veer/history.sqlite"), &junk).unwrap();
    for args in [
        &["history", "add", "pair.json"][..],
        &["history", "show"][..],
        &["diff", "runs/main", "runs/pr", "--history"][..],
    ] {
        let r = ok_in(d, args, 2);
        assert!(
            r.stderr
                .contains(".veer/history.sqlite: not a readable veer history database"),
            "{args:?}: {}",
            r.stderr
        );
        assert!(r.stderr.contains("veer never recreates it"), "{}", r.stderr);
    }
    assert_eq!(
        fs::read_to_string(d.join(".veer/history.sqlite")).unwrap(),
        junk
    );
    insta::assert_snapshot!("history_corrupt", veer_in(d, &["history", "show"]).stderr);

    let r = ok_in(d, &["history", "show", "--db", "missing.sqlite"], 2);
    assert!(
        r.stderr
            .contains("missing.sqlite: no history database here"),
        "{}",
        r.stderr
    );
    assert!(
        !d.join("missing.sqlite").exists(),
        "reading never creates a database"
    );

    fs::write(d.join("bad.json"), r#"{"schema_version": "1", "gate": {}}"#).unwrap();
    let r = ok_in(d, &["history", "add", "bad.json", "--db", "h.sqlite"], 2);
    assert!(
        r.stderr.contains("bad.json: (axes): missing"),
        "{}",
        r.stderr
    );
    fs::write(d.join("bad.json"), "[").unwrap();
    let r = ok_in(d, &["history", "add", "bad.json", "--db", "h.sqlite"], 2);
    assert!(
        r.stderr.contains("bad.json: not a veer diff JSON report"),
        "{}",
        r.stderr
    );
    let r = ok_in(
        d,
        &[
            "history",
            "add",
            "pair.json",
            "--db",
            "h.sqlite",
            "--time",
            "yesterday",
        ],
        2,
    );
    assert!(
        r.stderr.contains("--time yesterday: not a date or instant"),
        "{}",
        r.stderr
    );
    let r = ok_in(
        d,
        &["history", "show", "--db", "h.sqlite", "--since", "soon"],
        2,
    );
    assert!(r.stderr.contains("--since soon"), "{}", r.stderr);
}
