//! Claude Code sessions whose sub-agents wrote `agent-*.jsonl` files of their own, through the
//! CLI: a directory diff pairs the session files only (their sub-agent files are read with
//! them), and a sub-agent missing from one side shows in that pair's report.

use crate::common::{fixtures, veer_ok};
use serde_json::Value;
use std::path::Path;

const SESSION: &str = "ae4a77f8-aedd-4bc1-888f-c94edc91af04";

/// Copies the real session (its file and its `subagents/` folder) under `to`.
fn copy_session(to: &Path) {
    let from = fixtures().join("formats/claude-code-real");
    let subagents = to.join(SESSION).join("subagents");
    std::fs::create_dir_all(&subagents).unwrap();
    let main = format!("{SESSION}.jsonl");
    std::fs::copy(from.join(&main), to.join(&main)).unwrap();
    for f in ["agent-aac57f5.jsonl", "agent-acompact-946d2b.jsonl"] {
        let src = from.join(SESSION).join("subagents").join(f);
        std::fs::copy(src, subagents.join(f)).unwrap();
    }
}

fn diff_json(a: &Path, b: &Path) -> Value {
    let (a, b) = (a.display().to_string(), b.display().to_string());
    let r = veer_ok(&["diff", &a, &b, "--format", "json"], 0);
    serde_json::from_str(&r.stdout).unwrap()
}

#[test]
fn a_directory_diff_pairs_the_session_file_and_reads_its_sub_agents_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    copy_session(&a);
    copy_session(&b);
    let v = diff_json(&a, &b);
    let pairs = v["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 1, "{v}");
    assert_eq!(pairs[0]["baseline"], format!("{SESSION}.jsonl"));
    assert_eq!(v["unmatched"]["baseline_only"], serde_json::json!([]));
    assert_eq!(v["unmatched"]["candidate_only"], serde_json::json!([]));
    assert!(pairs[0]["report"]["first_divergence"].is_null(), "{v}");

    // The candidate lost its Task sub-agent's log: the same pair, now diverging.
    std::fs::remove_file(b.join(SESSION).join("subagents/agent-aac57f5.jsonl")).unwrap();
    let v = diff_json(&a, &b);
    let pairs = v["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 1, "{v}");
    assert!(!pairs[0]["report"]["first_divergence"].is_null(), "{v}");
}
