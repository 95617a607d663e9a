//! `--format html`, `--format sarif` and `--format github`: the HTML page is one self-contained
//! file (no network reference), deterministic, redacted, and renders in headless Chromium
//! without console errors with the first divergence and a regression in the DOM; SARIF validates
//! against the vendored OASIS schema; GitHub commands are escaped and the step summary is
//! appended to, never replaced.

use crate::common::{veer, veer_ok};
use std::path::{Path, PathBuf};
use std::process::Command;

const DEMO_CANDIDATE: &str = "examples/refund-agent/candidate.agentlog";
const DEMO_BASELINE: &str = "examples/refund-agent/baseline.agentlog";

/// `veer demo --format FORMAT`, with no `GITHUB_STEP_SUMMARY` (so a CI runner's job summary is
/// never written by the tests).
fn demo(format: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_veer"))
        .args(["demo", "--format", format])
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .env("NO_COLOR", "1")
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .expect("veer runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// Every `http(s)://` reference in `page` other than the SVG namespace.
fn network_references(page: &str) -> Vec<String> {
    let mut out = Vec::new();
    for scheme in ["http://", "https://", "//fonts.", "url("] {
        let mut rest = page;
        while let Some(at) = rest.find(scheme) {
            let tail: String = rest[at..].chars().take(40).collect();
            if !tail.starts_with("http://www.w3.org/2000/svg") {
                out.push(tail);
            }
            rest = &rest[at + scheme.len()..];
        }
    }
    out
}

#[test]
fn demo_html_is_one_self_contained_page() {
    let page = demo("html");
    assert!(page.starts_with("<!DOCTYPE html>"), "{}", &page[..80]);
    assert_eq!(network_references(&page), Vec::<String>::new());
    for forbidden in ["<link", " src=", "@import", "@font-face"] {
        assert!(!page.contains(forbidden), "{forbidden}");
    }
    // The summary is plain HTML, readable without the script.
    for needle in [
        "id=\"verdict\"",
        "class=\"tag first\"",
        "class=\"regressions\"",
        "confirm-before-refund",
        "class=\"forest\"",
        "<del>",
        "<ins>",
        "class=\"recommendations\"",
    ] {
        assert!(page.contains(needle), "missing {needle}");
    }
    // The first divergence links to a row that exists.
    let link = page
        .split("class=\"tag first\">first divergence</span><a href=\"#")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .expect("first divergence is linked");
    assert!(page.contains(&format!("id=\"{link}\"")), "no row {link}");
}

#[test]
fn html_is_byte_identical_across_runs_and_thread_counts() {
    let run = |threads: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_veer"))
            .args([
                "diff",
                "tests/fixtures/shadow/demo/baseline.agentlog",
                "tests/fixtures/shadow/demo/candidate.agentlog",
                "--format",
                "html",
            ])
            .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
            .env("RAYON_NUM_THREADS", threads)
            .output()
            .expect("veer runs");
        assert!(out.status.success());
        out.stdout
    };
    let one = run("1");
    assert_eq!(one, run("4"));
    assert_eq!(one, run("1"));
}

#[test]
fn directory_check_and_experiment_pages() {
    let dir = tempfile::tempdir().unwrap();
    for side in ["a", "b"] {
        std::fs::create_dir_all(dir.path().join(side)).unwrap();
    }
    for (side, file) in [("a", "baseline"), ("b", "candidate")] {
        std::fs::copy(
            format!("examples/refund-agent/{file}.agentlog").replace("examples", &examples()),
            dir.path().join(side).join("refund.agentlog"),
        )
        .unwrap();
    }
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    let page = veer_ok(
        &[
            "diff",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--format",
            "html",
        ],
        0,
    )
    .stdout;
    assert!(page.contains("<table class=\"sortable\" id=\"pairs\">"));
    assert!(page.contains("href=\"#pair-0\"") && page.contains("id=\"pair-0\""));
    // Ids inside a pair section carry its prefix, so two pairs never clash.
    assert!(page.contains("id=\"p0-c0\""), "prefixed row ids");

    let check = veer(&[
        "check",
        DEMO_CANDIDATE,
        "--policy",
        "examples/refund-agent/policy.yaml",
        "--format",
        "html",
    ]);
    assert_eq!(check.code, 1, "{}", check.stderr);
    assert!(
        check.stdout.contains("Gate tripped") && check.stdout.contains("confirm-before-refund")
    );

    let exp = veer_ok(
        &[
            "experiment",
            "analyze",
            "tests/fixtures/traxr/goldens/builtin_stub.json",
            "--format",
            "html",
        ],
        0,
    )
    .stdout;
    assert!(exp.contains("class=\"scatter\"") && exp.contains("class=\"sortable pairs\""));
    assert!(
        !exp.contains("class=\"noise-floor\""),
        "builtin_stub has no noise floor"
    );
    let with_floor = veer_ok(
        &[
            "experiment",
            "analyze",
            "tests/fixtures/traxr/goldens/external_mock.json",
            "--format",
            "html",
        ],
        0,
    )
    .stdout;
    assert!(
        with_floor.contains("class=\"noise-floor\""),
        "the noise-floor line"
    );
    // Each measured pair's event alignment (builtin_stub: 12 and 42 aligned event pairs).
    assert!(exp.contains("12 aligned event pair(s)") && exp.contains("42 aligned event pair(s)"));
    assert_eq!(network_references(&exp), Vec::<String>::new());

    let pair = veer_ok(
        &[
            "experiment",
            "pair",
            "tests/fixtures/shadow/demo/baseline.agentlog",
            "tests/fixtures/shadow/demo/candidate.agentlog",
            "--format",
            "html",
        ],
        0,
    )
    .stdout;
    assert!(pair.contains("Event alignment") && pair.contains("class=\"lanes\""));
    assert!(!pair.contains("Not in the report."));
}

fn examples() -> String {
    crate::common::examples().display().to_string()
}

fn agentlog(texts: &[&str]) -> String {
    let mut out = String::from(
        r#"{"version":"0.1","id":"sha256:0","kind":"metadata","ts":"2026-01-01T00:00:00.000Z","parent":null,"payload":{"sdk":{"name":"t","version":"1"}}}"#,
    );
    out.push('\n');
    for (i, t) in texts.iter().enumerate() {
        let resp = serde_json::json!({
            "version": "0.1", "id": format!("sha256:{}", i + 1), "kind": "chat_response",
            "ts": "2026-01-01T00:00:00.000Z", "parent": "sha256:0",
            "payload": {"model": "m", "content": [{"type": "text", "text": t}],
                        "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 2},
                        "latency_ms": 3}
        });
        out.push_str(&resp.to_string());
        out.push('\n');
    }
    out
}

#[test]
fn html_escaping_and_redaction_compose() {
    let dir = tempfile::tempdir().unwrap();
    let b = dir.path().join("b.agentlog");
    let c = dir.path().join("c.agentlog");
    std::fs::write(&b, agentlog(&["All good.", "Nothing to share."])).unwrap();
    let pem = "-----BEGIN PRIVATE KEY-----\nMII<x&y>\"z\n-----END PRIVATE KEY-----";
    let key = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123";
    let text = format!("Mail dana.lee@example.com <b>bold</b> key {key} and {pem}");
    std::fs::write(&c, agentlog(&[&text, "Nothing to share."])).unwrap();
    let (b, c) = (b.to_str().unwrap(), c.to_str().unwrap());
    let page = veer_ok(&["diff", b, c, "--format", "html"], 0).stdout;
    for leaked in ["dana.lee", key, "MII", "x&amp;y", "<b>bold"] {
        assert!(!page.contains(leaked), "{leaked} leaked");
    }
    for kept in [
        "[REDACTED:email]",
        "[REDACTED:anthropic_api_key]",
        "[REDACTED:private_key]",
        "&lt;b&gt;bold&lt;/b&gt;",
    ] {
        assert!(page.contains(kept), "missing {kept}");
    }
    let raw = veer_ok(&["diff", b, c, "--format", "html", "--no-redact"], 0).stdout;
    assert!(raw.contains("dana.lee@example.com") && raw.contains("MII&lt;x&amp;y&gt;"));
}

pub(crate) fn sarif_validator() -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../veer-report/schemas/sarif-schema-2.1.0.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the vendored SARIF schema compiles")
}

#[test]
fn sarif_validates_and_locates_findings() {
    let validator = sarif_validator();
    let log: serde_json::Value = serde_json::from_str(&demo("sarif")).unwrap();
    let errors: Vec<String> = validator.iter_errors(&log).map(|e| e.to_string()).collect();
    assert_eq!(errors, Vec::<String>::new());
    let results = log["runs"][0]["results"].as_array().unwrap();
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    // The demo runs with the gate off: nothing tripped it, so no finding is an `error`.
    assert!(results
        .iter()
        .any(|r| r["ruleId"] == "policy/confirm-before-refund" && r["level"] == "warning"));
    assert!(results.iter().all(|r| r["level"] != "error"));
    assert!(results.iter().any(|r| r["ruleId"] == "axis/semantic"));
    for r in results {
        let loc = &r["locations"][0]["physicalLocation"];
        assert_eq!(loc["artifactLocation"]["uri"], DEMO_CANDIDATE);
        let rule = &rules[r["ruleIndex"].as_u64().unwrap() as usize];
        assert_eq!(rule["id"], r["ruleId"]);
        assert!(rule["help"]["text"].as_str().unwrap().len() > 40);
    }
    // The severe axes sit at the candidate record of the first divergence (candidate turn 0,
    // line 3 of the bundled candidate).
    let axis = results
        .iter()
        .find(|r| r["ruleId"] == "axis/semantic")
        .unwrap();
    assert_eq!(
        axis["locations"][0]["physicalLocation"]["region"]["startLine"],
        3
    );

    // check: one result per violation, each at the line of its response record.
    let check = veer(&[
        "check",
        DEMO_CANDIDATE,
        "--policy",
        "examples/refund-agent/policy.yaml",
        "--format",
        "sarif",
    ]);
    let log: serde_json::Value = serde_json::from_str(&check.stdout).unwrap();
    assert!(validator.is_valid(&log));
    assert!(!log["runs"][0]["results"].as_array().unwrap().is_empty());

    // Under a gate, exactly the findings that tripped it are errors.
    let gated = veer_ok(
        &[
            "diff",
            DEMO_BASELINE,
            DEMO_CANDIDATE,
            "--policy",
            "examples/refund-agent/policy.yaml",
            "--fail-on",
            "severe",
            "--format",
            "sarif",
        ],
        1,
    );
    let log: serde_json::Value = serde_json::from_str(&gated.stdout).unwrap();
    assert!(validator.is_valid(&log));
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert!(results.iter().any(|r| r["level"] == "error"));
}

#[test]
fn github_commands_and_the_step_summary() {
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.md");
    std::fs::write(&summary, "# earlier step\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_veer"))
        .args(["demo", "--format", "github"])
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines.iter().all(|l| l.starts_with("::")), "{stdout}");
    let regression = lines
        .iter()
        .find(|l| l.contains("confirm-before-refund"))
        .unwrap();
    assert!(regression.starts_with(&format!(
        "::warning file={DEMO_CANDIDATE},line=2,title=veer%3A confirm-before-refund candidate regression::"
    )));
    // `%` in a message is escaped (the 95% interval).
    let axis = lines
        .iter()
        .find(|l| l.contains("title=veer%3A semantic"))
        .unwrap();
    assert!(axis.starts_with(&format!(
        "::warning file={DEMO_CANDIDATE},line=3,title=veer%3A semantic changed (severe)::"
    )));
    assert!(axis.contains("95%25 CI") && !axis.contains("95% CI"));
    // The headline leads, a notice at the first divergence's candidate turn.
    assert!(
        lines[0].starts_with(&format!(
            "::notice file={DEMO_CANDIDATE},line=3,title=veer%3A first divergence::diverges at "
        )),
        "{stdout}"
    );
    let written = std::fs::read_to_string(&summary).unwrap();
    assert!(
        written.starts_with("# earlier step\n"),
        "appended, not replaced"
    );
    assert!(written.contains("confirm-before-refund") && written.len() > 200);
    // Without the variable the same commands, and nothing else is written.
    assert_eq!(demo("github"), stdout);
    assert_eq!(std::fs::read_to_string(&summary).unwrap(), written);
}

/// The headless browser: `$VEER_CHROMIUM`, else `chromium`, `chromium-browser` or
/// `google-chrome` on PATH.
pub(crate) fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("VEER_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        for dir in std::env::split_paths(&path) {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// Where the browser test keeps its pages and screenshots (under `target/`).
pub(crate) fn artifacts() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("html-report");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Opens `page` in headless Chromium: (the DOM after scripts ran, console lines on stderr),
/// and writes `shot` as a screenshot.
pub(crate) fn open_in_browser(browser: &Path, page: &Path, shot: &Path) -> (String, Vec<String>) {
    let url = format!("file://{}", page.display());
    let profile = tempfile::tempdir().unwrap();
    let common = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-extensions",
        "--enable-logging=stderr",
        "--v=0",
    ];
    let run = |extra: &[String]| {
        let out = Command::new(browser)
            .args(common)
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .args(extra)
            .arg(&url)
            .output()
            .expect("chromium runs");
        assert!(
            out.status.success(),
            "chromium failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    };
    let dom = run(&["--dump-dom".to_string()]);
    let stderr = String::from_utf8_lossy(&dom.stderr).into_owned();
    let console: Vec<String> = stderr
        .lines()
        .filter(|l| l.contains(":CONSOLE") || l.contains("Uncaught"))
        .map(str::to_string)
        .collect();
    run(&[
        "--hide-scrollbars".to_string(),
        "--window-size=1280,1600".to_string(),
        format!("--screenshot={}", shot.display()),
    ]);
    assert!(shot.is_file(), "no screenshot at {}", shot.display());
    (String::from_utf8_lossy(&dom.stdout).into_owned(), console)
}

fn assert_renders(browser: &Path, name: &str, html: &str, regression: &str) {
    let dir = artifacts();
    let page = dir.join(format!("{name}.html"));
    std::fs::write(&page, html).unwrap();
    let (dom, console) = open_in_browser(browser, &page, &dir.join(format!("{name}.png")));
    assert_eq!(console, Vec::<String>::new(), "{name}: console output");
    assert!(
        dom.contains("data-ready=\"1\""),
        "{name}: the script did not finish"
    );
    assert!(
        dom.contains("first divergence</span>"),
        "{name}: no first divergence"
    );
    // A policy regression: the regressions table, and the rule in the rendered page.
    assert!(
        dom.contains("<table class=\"regressions\">") && dom.contains(regression),
        "{name}: no regression {regression}"
    );
    eprintln!("{name}: page and screenshot in {}", dir.display());
}

/// Skips (loudly) only when no browser is installed and `VEER_REQUIRE_BROWSER` is unset; CI
/// installs Chromium and sets it.
pub(crate) fn browser_or_skip(test: &str) -> Option<PathBuf> {
    match chromium() {
        Some(b) => Some(b),
        None if std::env::var_os("VEER_REQUIRE_BROWSER").is_some() => {
            panic!("{test}: VEER_REQUIRE_BROWSER is set but no chromium was found")
        }
        None => {
            eprintln!(
                "SKIPPED {test}: no chromium on PATH (install the `chromium` package or set VEER_CHROMIUM)"
            );
            None
        }
    }
}

#[test]
fn demo_renders_in_a_browser() {
    let Some(browser) = browser_or_skip("demo_renders_in_a_browser") else {
        return;
    };
    assert_renders(&browser, "demo", &demo("html"), "confirm-before-refund");
}

#[test]
fn a_ten_thousand_turn_pair_renders_in_a_browser_under_15_mb() {
    let Some(browser) =
        browser_or_skip("a_ten_thousand_turn_pair_renders_in_a_browser_under_15_mb")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    veer_ok(&["synth", "--turns", "10000", "--out-dir", d], 0);
    let policy = dir.path().join("policy.yaml");
    std::fs::write(
        &policy,
        "rules:\n  - id: no-escalation\n    kind: no_call\n    severity: error\n    params: {tool: escalate}\n",
    )
    .unwrap();
    let b = dir.path().join("baseline.agentlog");
    let c = dir.path().join("candidate.agentlog");
    let html = veer_ok(
        &[
            "diff",
            b.to_str().unwrap(),
            c.to_str().unwrap(),
            "--policy",
            policy.to_str().unwrap(),
            "--format",
            "html",
        ],
        0,
    )
    .stdout;
    assert!(html.len() < 15_000_000, "{} bytes", html.len());
    assert!(
        html.contains("unchanged turns (baseline #"),
        "long runs are collapsed"
    );
    // The regression is also tagged on its turn in the lanes.
    assert_renders(
        &browser,
        "long-pair",
        &html,
        "regression no-escalation</span>",
    );
}

#[test]
fn demo_sarif_and_github_snapshots() {
    insta::assert_snapshot!("demo_sarif", demo("sarif"));
    insta::assert_snapshot!("demo_github", demo("github"));
}

/// `veer demo` at `COLUMNS`, as a terminal would show it.
fn demo_at(columns: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_veer"))
        .arg("demo")
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .env("NO_COLOR", "1")
        .env("COLUMNS", columns)
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .expect("veer runs");
    String::from_utf8(out.stdout).expect("utf-8")
}

/// The terminal table fits the terminal: at 80 columns the axes are printed one block per axis
/// (no line of the block wider than 80), on a wide terminal as the table; `-o` writes the demo
/// to a file in any format.
#[test]
fn the_terminal_table_fits_the_terminal_and_demo_writes_to_a_file() {
    let narrow = demo_at("80");
    assert!(!narrow.contains('┌'), "{narrow}");
    let block: Vec<&str> = narrow
        .lines()
        .skip_while(|l| *l != "semantic")
        .take_while(|l| !l.is_empty())
        .collect();
    assert!(block.len() > 9, "{narrow}");
    for l in &block {
        assert!(
            l.chars().count() <= 80,
            "{} columns: {l}",
            l.chars().count()
        );
    }
    assert!(narrow.contains("  severity       severe"), "{narrow}");
    let wide = demo_at("400");
    assert!(wide.contains("┌"), "{wide}");
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("demo.html");
    veer_ok(
        &["demo", "--format", "html", "-o", page.to_str().unwrap()],
        0,
    );
    assert!(std::fs::read_to_string(&page)
        .unwrap()
        .starts_with("<!DOCTYPE html>"));
}
