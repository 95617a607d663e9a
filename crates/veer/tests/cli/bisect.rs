//! `veer bisect` end to end with an agent whose culprit is known: the Rust `bisect_agent`
//! example (crates/veer/examples/) skips the `lookup_order` tool when the prompt loses "Look
//! up", only rewords its answer on `style`, ignores `temperature`, and adds `cache_check` only
//! when `cache` and `fast` are both on; one run in four adds a noise call. Covers the
//! attribution, the policy measure, the interaction, determinism across --jobs, resume,
//! --from-runs, --plan, --max-runs, the formats and bad inputs.
//!
//! Bad inputs and help are in `bisect_errors.rs`; runs through the recording proxy, the real
//! SDK and Ctrl-C in `bisect_proxy.rs`.

use crate::common::{schema_violations, veer_ok};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The agent binary: the `bisect_agent` example of this crate (built here once when a narrow
/// `cargo test --test cli` did not build it).
pub(crate) fn agent() -> PathBuf {
    crate::common::example_binary("bisect_agent")
}

const A: &str = r#"{"prompt": "Look up the order, then refund.", "style": "formal", "temperature": 0.0, "cache": false, "fast": false}"#;
const B: &str = r#"{"prompt": "Refund quickly.", "style": "casual", "temperature": 0.7, "cache": true, "fast": true}"#;
const POLICY: &str = "apiVersion: shadow.dev/v1alpha1\nrules:\n  - id: lookup-before-refund\n    kind: must_call_before\n    params: {first: lookup_order, then: refund}\n";

pub(crate) struct Case {
    dir: tempfile::TempDir,
}

impl Case {
    pub(crate) fn new() -> Case {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.json"), A).unwrap();
        std::fs::write(dir.path().join("b.json"), B).unwrap();
        std::fs::write(dir.path().join("policy.yaml"), POLICY).unwrap();
        Case { dir }
    }

    pub(crate) fn path(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    /// `veer bisect` on a.json → b.json into `out` with `extra` flags, the agent after `--`.
    pub(crate) fn bisect(&self, out: &str, extra: &[&str], code: i32) -> crate::common::Run {
        let a = self.path("a.json");
        let b = self.path("b.json");
        let o = self.path(out);
        let p = self.path("policy.yaml");
        let agent = agent().display().to_string();
        let mut args = vec![
            "bisect",
            "--baseline-config",
            &a,
            "--candidate-config",
            &b,
            "--out",
            &o,
            "--policy",
            &p,
            "--trace-from",
            "{run_dir}/trace.json",
        ];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--", &agent, "{config}"]);
        veer_ok(&args, code)
    }

    pub(crate) fn report(&self, out: &str) -> (String, Value) {
        let text = std::fs::read_to_string(self.dir.path().join(out).join("bisect.json")).unwrap();
        let v = serde_json::from_str(&text).unwrap();
        (text, v)
    }
}

pub(crate) fn effect<'a>(v: &'a Value, factor: &str, measure: &str) -> &'a Value {
    let f = v["factors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == factor)
        .unwrap_or_else(|| panic!("no factor {factor}"));
    f["effects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["measure"] == measure)
        .unwrap()
}

fn excludes_zero(e: &Value) -> bool {
    let lo = e["ci"][0].as_f64().unwrap();
    let hi = e["ci"][1].as_f64().unwrap();
    lo > 0.0 || hi < 0.0
}

#[test]
fn names_the_culprit_clears_the_inert_and_finds_the_interaction() {
    let c = Case::new();
    let r = c.bisect("out", &["--jobs", "2"], 0);
    assert!(
        r.stderr
            .contains("5 factor(s), full_factorial: 32 points × 3 trials = 96 runs"),
        "{}",
        r.stderr
    );
    let (text, v) = c.report("out");
    assert!(schema_violations("bisect.schema.json", &v).is_empty());
    assert_eq!(v["runs"].as_array().unwrap().len(), 96);
    assert!(v["runs"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["status"] == "ok"));
    assert_eq!(v["headline"], "trajectory");

    // The prompt change skips the lookup: implicated on the trajectory and on the rule.
    let prompt = effect(&v, "prompt", "trajectory");
    assert_eq!(prompt["implicated"], true);
    assert!(excludes_zero(prompt));
    assert!(prompt["estimate"].as_f64().unwrap() > 0.3);
    assert!(prompt["share"].as_f64().unwrap() > 0.5);
    let rule = effect(&v, "prompt", "policy:lookup-before-refund");
    assert_eq!(rule["implicated"], true);
    assert_eq!(rule["estimate"], 1.0);
    assert_eq!(effect(&v, "prompt", "tool_calls")["implicated"], true);

    // Wording and the inert setting: cleared on the trajectory, the tool calls and the rule.
    for inert in ["style", "temperature"] {
        for m in ["trajectory", "tool_calls", "policy:lookup-before-refund"] {
            let e = effect(&v, inert, m);
            assert_eq!(e["implicated"], false, "{inert} on {m}: {e}");
            assert!(!excludes_zero(e), "{inert} on {m}: {e}");
        }
    }
    // The pair that only acts together: its interaction is implicated, and no other one.
    let interactions = v["interactions"].as_array().unwrap();
    assert_eq!(interactions.len(), 10);
    for i in interactions {
        let e = i["effects"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["measure"] == "tool_calls")
            .unwrap();
        let pair = (
            i["factors"][0].as_str().unwrap(),
            i["factors"][1].as_str().unwrap(),
        );
        assert_eq!(e["implicated"], pair == ("cache", "fast"), "{pair:?}: {e}");
    }
    assert!(
        r.stdout
            .starts_with("veer bisect: The `prompt` change explains 0."),
        "{}",
        r.stdout
    );
    assert!(r
        .stdout
        .contains("the `style` and `temperature` changes explain none"));
    assert!(r.stdout.contains("`cache` × `fast`"));

    // The same command again reuses every run and writes the same file.
    let again = c.bisect("out", &[], 0);
    assert!(
        again.stderr.contains("reusing 96 finished run(s) of 96"),
        "{}",
        again.stderr
    );
    assert_eq!(c.report("out").0, text);
    // One job, redone from scratch: byte for byte the same.
    c.bisect("out", &["--fresh", "--jobs", "1"], 0);
    assert_eq!(c.report("out").0, text);

    // --from-runs on the traces of this bisect attributes the same.
    let from = c.path("out/traces");
    let r = c.bisect("again", &["--from-runs", &from, "--format", "json"], 0);
    let (_, w) = c.report("again");
    assert_eq!(w["factors"], v["factors"]);
    assert_eq!(w["interactions"], v["interactions"]);
    assert!(!Path::new(&c.path("again/runs")).exists());
    let printed: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(printed, w);

    // Markdown and HTML lead with the same answer.
    let md = c.bisect("again", &["--from-runs", &from, "--format", "markdown"], 0);
    assert!(md
        .stdout
        .starts_with("## veer bisect\n\nThe `prompt` change explains"));
    let html = c.bisect("again", &["--from-runs", &from, "--format", "html"], 0);
    assert!(html
        .stdout
        .contains("<p class=\"answer\">The `prompt` change explains"));
}

#[test]
fn plan_prints_the_design_and_writes_the_points_in_the_input_format() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.yaml");
    let b = dir.path().join("b.yaml");
    std::fs::write(&a, "model: m1\nprompt: |\n  Look up first.\n  Then refund.\ntools: [lookup, refund]\nagent:\n  temperature: 0\n  retries: 2\n  seed: 1\nx: 1\n").unwrap();
    std::fs::write(&b, "model: m2\nprompt: Refund.\ntools: [refund]\nagent:\n  temperature: 0.5\n  retries: 3\n  seed: 1\ny: 2\n").unwrap();
    let out = dir.path().join("plan");
    let args = |extra: &[&str]| {
        let mut v: Vec<String> = vec![
            "bisect".into(),
            "--baseline-config".into(),
            a.display().to_string(),
            "--candidate-config".into(),
            b.display().to_string(),
            "--out".into(),
            out.display().to_string(),
        ];
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    let plan_args = args(&["--plan", "--max-runs", "60", "--group", "agent=sampling"]);
    let refs: Vec<&str> = plan_args.iter().map(String::as_str).collect();
    let r = veer_ok(&refs, 0);
    insta::assert_snapshot!("bisect_plan", r.stdout);
    // 6 factors: the full factorial (64 × 3) does not fit 60 runs; the fold-over (16 × 3) does.
    assert!(r
        .stdout
        .contains("fold_over_plackett_burman (resolution IV): 16 points × 3 trials = 48 runs"));
    assert!(!out.join("runs").exists());
    // The all-A point is A, the all-B point is B, in YAML.
    let p1 = std::fs::read_to_string(out.join("points/p001.yaml")).unwrap();
    assert!(p1.contains("model: m1"), "{p1}");
    let files: Vec<String> = std::fs::read_dir(out.join("points"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(files.len(), 16);
    assert!(files.iter().all(|f| f.ends_with(".yaml")));

    // --max-runs is enforced before anything runs.
    let small = args(&["--max-runs", "10", "--", "true"]);
    let refs: Vec<&str> = small.iter().map(String::as_str).collect();
    let r = veer_ok(&refs, 2);
    assert!(
        r.stderr
            .contains("7 factors at 3 trials need at least 27 runs, more than --max-runs 10"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("raise --max-runs"));
}

#[test]
fn env_and_toml_points_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).display().to_string();
    std::fs::write(p("a.env"), "MODEL=m1\nPROMPT=\"Look up first\"\n").unwrap();
    std::fs::write(p("b.env"), "MODEL=m2\nPROMPT=\"Refund\"\n").unwrap();
    std::fs::write(p("a.toml"), "model = \"m1\"\n[agent]\nt = 0\n").unwrap();
    std::fs::write(p("b.toml"), "model = \"m2\"\n[agent]\nt = 1\n").unwrap();
    for (a, b, ext, want) in [
        ("a.env", "b.env", "env", "MODEL=\"m2\"\nPROMPT=\"Refund\"\n"),
        (
            "a.toml",
            "b.toml",
            "toml",
            "model = \"m2\"\n\n[agent]\nt = 1\n",
        ),
    ] {
        let (a, b, o) = (p(a), p(b), p(ext));
        veer_ok(
            &[
                "bisect",
                "--baseline-config",
                &a,
                "--candidate-config",
                &b,
                "--out",
                &o,
                "--plan",
            ],
            0,
        );
        // Two factors: the full factorial's last point is all B.
        let last = std::fs::read_to_string(dir.path().join(ext).join(format!("points/p004.{ext}")))
            .unwrap();
        assert_eq!(last, want);
    }
}
