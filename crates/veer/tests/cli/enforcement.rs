//! Live enforcement made visible: recordings written by `veer record`'s journal with a policy
//! enforced (`replace`, `raise`) show their blocked calls in `inspect`, `check` (status
//! `prevented`, gating unless `--allow-prevented`) and `diff` (every format).

use crate::common::{diff_schema_violations, schema_violations, veer, veer_ok};
use serde_json::{json, Value};
use std::path::Path;
use veer_engine::policy::Mode;
use veer_record::payload::RequestRecord;
use veer_record::{CallOutcome, Journal};

const POLICY: &str = "rules:\n  - {id: no-refund, kind: no_call, severity: error, params: {tool: refund_order}}\n  - {id: no-wire, kind: forbidden_text, severity: warning, params: {text: wire transfer}}\n";

fn request(say: &str) -> RequestRecord {
    RequestRecord {
        payload: json!({"model": "m", "messages": [{"role": "user", "content": say}], "params": {}, "tools": []}),
        tool_results: Vec::new(),
        stream: false,
        endpoint: None,
    }
}

fn response(content: Value, stop: &str) -> CallOutcome {
    CallOutcome::Response(
        json!({"model": "m", "content": content, "stop_reason": stop,
                             "usage": {"input_tokens": 10, "output_tokens": 5}, "latency_ms": 100}),
    )
}

/// The refund agent's run: it looks the order up, then (in the candidate) tries to refund it,
/// then answers. Recorded through the journal with `mode` enforced (none: no policy).
fn record(path: &Path, refund: bool, mode: Option<Mode>) {
    let file = std::fs::File::create(path).unwrap();
    let policy = mode.map(|m| {
        (
            veer_engine::policy::load_str(POLICY, "policy.yaml", false, Path::new(".")).unwrap(),
            m,
        )
    });
    let j = Journal::new(Box::new(file), policy);
    j.complete(
        &request("refund order 7"),
        response(
            json!([{"type": "tool_use", "id": "c1", "name": "lookup_order", "input": {"id": 7}}]),
            "tool_use",
        ),
    );
    if refund {
        j.complete(
            &request("refund order 7"),
            response(
                json!([{"type": "tool_use", "id": "c2", "name": "refund_order", "input": {"id": 7}}]),
                "tool_use",
            ),
        );
    }
    j.complete(
        &request("refund order 7"),
        response(json!([{"type": "text", "text": "Done."}]), "end_turn"),
    );
    j.finish();
    j.close().unwrap();
    // Timestamps are the clock's; the reports do not show them, but keep the file fixed.
    let text = std::fs::read_to_string(path).unwrap();
    let fixed: Vec<String> = text
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            v["ts"] = json!("2026-01-01T00:00:00.000Z");
            serde_json::to_string(&v).unwrap()
        })
        .collect();
    std::fs::write(path, fixed.join("\n") + "\n").unwrap();
}

struct Runs {
    dir: tempfile::TempDir,
}

impl Runs {
    fn new() -> Runs {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("policy.yaml"), POLICY).unwrap();
        record(&dir.path().join("baseline.agentlog"), false, None);
        record(
            &dir.path().join("replaced.agentlog"),
            true,
            Some(Mode::Replace),
        );
        record(&dir.path().join("raised.agentlog"), true, Some(Mode::Raise));
        Runs { dir }
    }

    fn path(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    /// `out` with the temporary directory written as `<tmp>`.
    /// The trace id is masked too: every recording has its own (a random recording id in its
    /// metadata record).
    fn clean(&self, out: &str) -> String {
        let out = out.replace(&self.dir.path().display().to_string(), "<tmp>");
        let mut masked = String::with_capacity(out.len());
        let mut rest = out.as_str();
        while let Some(i) = rest.find("sha256:") {
            let (head, tail) = rest.split_at(i + "sha256:".len());
            masked.push_str(head);
            let hex = tail.bytes().take_while(u8::is_ascii_hexdigit).count();
            if hex == 64 {
                masked.push_str("<recording>");
                rest = &tail[64..];
            } else {
                rest = tail;
            }
        }
        masked.push_str(rest);
        masked
    }
}

fn args<'a>(head: &[&'a str], tail: &[&'a str]) -> Vec<&'a str> {
    head.iter().chain(tail).copied().collect()
}

#[test]
fn inspect_shows_the_blocked_calls_with_rule_and_turn() {
    let r = Runs::new();
    for name in ["replaced.agentlog", "raised.agentlog"] {
        let p = r.path(name);
        let out = veer_ok(&["inspect", &p], 0);
        insta::assert_snapshot!(format!("inspect_{name}"), r.clean(&out.stdout));
        let j: Value =
            serde_json::from_str(&veer_ok(&["inspect", &p, "--format", "json"], 0).stdout).unwrap();
        let e = &j["traces"][0]["enforcement"][0];
        assert_eq!(e["rule_id"], "no-refund");
        assert_eq!(e["blocked"], true);
        assert_eq!(e["pair_index"], 1);
    }
    let j: Value = serde_json::from_str(
        &veer_ok(
            &["inspect", &r.path("baseline.agentlog"), "--format", "json"],
            0,
        )
        .stdout,
    )
    .unwrap();
    assert!(
        j["traces"][0].get("enforcement").is_none(),
        "no decisions, no block"
    );
}

#[test]
fn check_reports_a_blocked_call_as_prevented_and_gates_on_it() {
    let r = Runs::new();
    let policy = r.path("policy.yaml");
    for name in ["replaced.agentlog", "raised.agentlog"] {
        let p = r.path(name);
        let out = veer_ok(&["check", &p, "--policy", &policy], 1);
        insta::assert_snapshot!(format!("check_{name}"), r.clean(&out.stdout));
        let json = veer_ok(&["check", &p, "--policy", &policy, "--format", "json"], 1);
        let v: Value = serde_json::from_str(&json.stdout).unwrap();
        assert_eq!(
            schema_violations("check.schema.json", &v),
            Vec::<String>::new()
        );
        insta::assert_snapshot!(format!("check_json_{name}"), r.clean(&json.stdout));
        let allowed = veer_ok(&["check", &p, "--policy", &policy, "--allow-prevented"], 0);
        assert!(
            allowed.stdout.contains("prevented live"),
            "{}",
            allowed.stdout
        );
        for format in ["markdown", "junit", "html", "sarif", "github"] {
            let o = veer(&args(
                &["check", &p, "--policy", &policy, "--format"],
                &[format],
            ));
            assert_eq!(o.code, 1, "{format}: {}", o.stderr);
            assert!(
                o.stdout.contains("no-refund") && o.stdout.contains("prevented live"),
                "{format}: {}",
                o.stdout
            );
        }
    }
    // The run recorded without a policy has no decisions: nothing is prevented.
    veer_ok(
        &["check", &r.path("baseline.agentlog"), "--policy", &policy],
        0,
    );
}

#[test]
fn diff_shows_the_live_decisions_in_every_format() {
    let r = Runs::new();
    let (b, c) = (r.path("baseline.agentlog"), r.path("replaced.agentlog"));
    let text = veer(&["diff", &b, &c, "--fail-on", "never"]);
    let section: String = text
        .stdout
        .split("live policy (enforced while recording)")
        .nth(1)
        .unwrap_or_default()
        .split("\n\n")
        .next()
        .unwrap_or_default()
        .to_string();
    insta::assert_snapshot!("diff_terminal_live_section", section);
    let json = veer(&["diff", &b, &c, "--fail-on", "never", "--format", "json"]);
    let v: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(diff_schema_violations(&v), Vec::<String>::new());
    insta::assert_json_snapshot!("diff_json_enforcement", v["enforcement"]);
    let md = veer(&["diff", &b, &c, "--fail-on", "never", "--format", "markdown"]);
    let live = md.stdout.split("Live policy").nth(1).unwrap_or_default();
    assert!(
        live.contains("| candidate | \u{26d4} replaced | error | `no-refund` | turn #1 |"),
        "{}",
        md.stdout
    );
    for (format, needle) in [
        ("html", "Live policy (enforced while recording)"),
        ("junit", "candidate replaced no-refund @ turn #1"),
        ("sarif", "live-policy/no-refund"),
        ("github", "no-refund blocked live"),
    ] {
        let o = veer(&["diff", &b, &c, "--fail-on", "never", "--format", format]);
        assert!(o.stdout.contains(needle), "{format}: {}", o.stdout);
    }
}
