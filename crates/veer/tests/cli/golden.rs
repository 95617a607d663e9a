//! The JSON goldens: every `--format json` output of every command, on the
//! conformance vectors, the fixtures and recorded agent runs, kept byte for byte under
//! `tests/golden/<command>/<case>.json`. Each output is produced on 1 and on 3 threads and must
//! equal its golden exactly, so a refactor that changes a single byte of any report is caught.
//!
//! Regenerate after an intended change (and say so in the commit):
//! `UPDATE_GOLDENS=1 cargo test -p veer-cli --test cli golden`

use std::path::{Path, PathBuf};
use std::process::Command;

/// One golden: the command's directory, the case's name, and veer's arguments (paths relative
/// to the workspace root). `--format json` is part of `args`.
pub struct Case {
    /// `tests/golden/<command>/`.
    pub command: &'static str,
    /// `<case>.json`.
    pub case: &'static str,
    /// The arguments given to veer.
    pub args: &'static [&'static str],
}

const S: &str = "tests/fixtures/shadow";

macro_rules! shadow_pair {
    ($name:literal) => {
        Case {
            command: "diff",
            case: $name,
            args: &[
                "diff",
                concat!("tests/fixtures/shadow/", $name, "/baseline.agentlog"),
                concat!("tests/fixtures/shadow/", $name, "/candidate.agentlog"),
                "--format",
                "json",
            ],
        }
    };
}

/// Every golden. Order matters only in that a `gate` case reads a `diff` golden written before it.
pub const CASES: &[Case] = &[
    // diff, one pair: the conformance vectors.
    shadow_pair!("customer-support"),
    shadow_pair!("demo"),
    shadow_pair!("devops-agent"),
    shadow_pair!("er-triage"),
    shadow_pair!("harmful-content-judge"),
    shadow_pair!("refund-agent-audit"),
    Case {
        command: "diff",
        case: "refund-causal-s1-policy",
        args: &[
            "diff",
            "tests/fixtures/shadow/refund-causal-diagnosis/baseline_traces/s1.agentlog",
            "tests/fixtures/shadow/refund-causal-diagnosis/candidate_traces/s1.agentlog",
            "--policy",
            "tests/fixtures/shadow/refund-causal-diagnosis/policy.yaml",
            "--fail-on",
            "moderate",
            "--format",
            "json",
        ],
    },
    Case {
        command: "diff",
        case: "mcp-session",
        args: &[
            "diff",
            "tests/fixtures/shadow/mcp-session/baseline.mcp.jsonl",
            "tests/fixtures/shadow/mcp-session/candidate.mcp.jsonl",
            "--format",
            "json",
        ],
    },
    // diff, one pair: the example and recorded agent runs (real SDK recordings, OTel exports).
    Case {
        command: "diff",
        case: "refund-agent-policy",
        args: &[
            "diff",
            "examples/refund-agent/baseline.agentlog",
            "examples/refund-agent/candidate.agentlog",
            "--policy",
            "examples/refund-agent/policy.yaml",
            "--format",
            "json",
        ],
    },
    Case {
        command: "diff",
        case: "refund-agent-secrets",
        args: &[
            "diff",
            "examples/refund-agent/baseline.agentlog",
            "tests/fixtures/secrets/candidate.agentlog",
            "--format",
            "json",
        ],
    },
    Case {
        command: "diff",
        case: "recorded-claude-code",
        args: &[
            "diff",
            "tests/fixtures/formats/claude-code/baseline.jsonl",
            "tests/fixtures/formats/claude-code/candidate.jsonl",
            "--policy",
            "tests/fixtures/formats/policy.yaml",
            "--format",
            "json",
        ],
    },
    Case {
        command: "diff",
        case: "recorded-openai-agents",
        args: &[
            "diff",
            "tests/fixtures/formats/openai-agents/chat-baseline.jsonl",
            "tests/fixtures/formats/openai-agents/chat-candidate.jsonl",
            "--format",
            "json",
        ],
    },
    Case {
        command: "diff",
        case: "recorded-otel-anthropic",
        args: &[
            "diff",
            "tests/fixtures/otel/anthropic/content/baseline.json",
            "tests/fixtures/otel/anthropic/content/candidate.json",
            "--policy",
            "tests/fixtures/otel/policy/refund.yaml",
            "--format",
            "json",
        ],
    },
    Case {
        command: "diff",
        case: "fingerprint-near-100",
        args: &[
            "diff",
            "tests/fixtures/fingerprint/pairs/near-100/baseline.agentlog.gz",
            "tests/fixtures/fingerprint/pairs/near-100/candidate.agentlog.gz",
            "--format",
            "json",
        ],
    },
    // diff, directories.
    Case {
        command: "diff-directory",
        case: "refund-causal-policy",
        args: &[
            "diff",
            "tests/fixtures/shadow/refund-causal-diagnosis/baseline_traces",
            "tests/fixtures/shadow/refund-causal-diagnosis/candidate_traces",
            "--policy",
            "tests/fixtures/shadow/refund-causal-diagnosis/policy.yaml",
            "--format",
            "json",
        ],
    },
    Case {
        command: "diff-directory",
        case: "refund-causal",
        args: &[
            "diff",
            "tests/fixtures/shadow/refund-causal-diagnosis/baseline_traces",
            "tests/fixtures/shadow/refund-causal-diagnosis/candidate_traces",
            "--format",
            "json",
        ],
    },
    // check: one trace and a directory.
    Case {
        command: "check",
        case: "refund-agent",
        args: &[
            "check",
            "examples/refund-agent/candidate.agentlog",
            "--policy",
            "examples/refund-agent/policy.yaml",
            "--format",
            "json",
        ],
    },
    Case {
        command: "check",
        case: "refund-causal-directory",
        args: &[
            "check",
            "tests/fixtures/shadow/refund-causal-diagnosis/candidate_traces",
            "--policy",
            "tests/fixtures/shadow/refund-causal-diagnosis/policy.yaml",
            "--format",
            "json",
        ],
    },
    Case {
        command: "check",
        case: "pii-pack-customer-support",
        args: &[
            "check",
            "tests/fixtures/shadow/customer-support/candidate.agentlog",
            "--policy",
            "tests/fixtures/shadow/policy-packs/pii.yaml",
            "--format",
            "json",
        ],
    },
    Case {
        command: "check",
        case: "recorded-claude-code",
        args: &[
            "check",
            "tests/fixtures/formats/claude-code/candidate.jsonl",
            "--policy",
            "tests/fixtures/formats/policy.yaml",
            "--format",
            "json",
        ],
    },
    // gate: saved reports (the diff goldens above).
    Case {
        command: "gate",
        case: "refund-agent-policy",
        args: &[
            "gate",
            "tests/golden/diff/refund-agent-policy.json",
            "--format",
            "json",
        ],
    },
    Case {
        command: "gate",
        case: "refund-causal-directory",
        args: &[
            "gate",
            "tests/golden/diff-directory/refund-causal-policy.json",
            "--fail-on",
            "moderate",
            "--format",
            "json",
        ],
    },
    Case {
        command: "gate",
        case: "refund-agent-recomputed-policy",
        args: &[
            "gate",
            "tests/golden/diff/refund-agent-policy.json",
            "--policy",
            "examples/refund-agent/policy.yaml",
            "--baseline",
            "examples/refund-agent/baseline.agentlog",
            "--candidate",
            "examples/refund-agent/candidate.agentlog",
            "--format",
            "json",
        ],
    },
    // inspect: a trace, a traxr results file (many runs), Inspect AI logs, a secret-bearing trace.
    Case {
        command: "inspect",
        case: "refund-agent-audit",
        args: &[
            "inspect",
            "tests/fixtures/shadow/refund-agent-audit/candidate.agentlog",
            "--format",
            "json",
        ],
    },
    Case {
        command: "inspect",
        case: "traxr-builtin-stub",
        args: &[
            "inspect",
            "tests/fixtures/traxr/goldens/builtin_stub.json",
            "--format",
            "json",
        ],
    },
    Case {
        command: "inspect",
        case: "inspect-ai-eval",
        args: &[
            "inspect",
            "tests/fixtures/inspect/baseline.eval",
            "--format",
            "json",
        ],
    },
    Case {
        command: "inspect",
        case: "inspect-ai-one-sample",
        args: &[
            "inspect",
            "tests/fixtures/inspect/one-sample.eval",
            "--format",
            "json",
        ],
    },
    Case {
        command: "inspect",
        case: "secrets",
        args: &[
            "inspect",
            "tests/fixtures/secrets/candidate.agentlog",
            "--format",
            "json",
        ],
    },
    Case {
        command: "inspect",
        case: "recorded-openai-agents",
        args: &[
            "inspect",
            "tests/fixtures/formats/openai-agents/responses-candidate.jsonl",
            "--format",
            "json",
        ],
    },
    // scan.
    Case {
        command: "scan",
        case: "secrets",
        args: &["scan", "tests/fixtures/secrets", "--format", "json"],
    },
    Case {
        command: "scan",
        case: "shadow",
        args: &["scan", S, "--format", "json"],
    },
    // experiment perturb (the summary on stdout; the copies go under target/).
    Case {
        command: "perturb",
        case: "sales-column-swap",
        args: &[
            "experiment",
            "perturb",
            "tests/fixtures/perturb/sales.csv",
            "--operator",
            "column_swap",
            "--out",
            "target/golden-out/sales.csv",
            "--format",
            "json",
        ],
    },
    Case {
        command: "perturb",
        case: "notes-all",
        args: &[
            "experiment",
            "perturb",
            "tests/fixtures/perturb/notes.md",
            "--all",
            "--seed",
            "7",
            "--out",
            "target/golden-out/notes",
            "--format",
            "json",
        ],
    },
    // experiment pair.
    Case {
        command: "experiment-pair",
        case: "known-tstar",
        args: &[
            "experiment",
            "pair",
            "tests/fixtures/traxr/analyzer_goldens/known_tstar.json",
            "--format",
            "json",
        ],
    },
    Case {
        command: "experiment-pair",
        case: "single-edit-detail",
        args: &[
            "experiment",
            "pair",
            "tests/fixtures/traxr/analyzer_goldens/single_edit.json",
            "--detail",
            "--format",
            "json",
        ],
    },
    Case {
        command: "experiment-pair",
        case: "refund-agent-secrets",
        args: &[
            "experiment",
            "pair",
            "examples/refund-agent/baseline.agentlog",
            "tests/fixtures/secrets/candidate.agentlog",
            "--detail",
            "--format",
            "json",
        ],
    },
    // experiment analyze (traxr's results layout).
    Case {
        command: "experiment-analyze",
        case: "builtin-stub",
        args: &[
            "experiment",
            "analyze",
            "tests/fixtures/traxr/goldens/builtin_stub.json",
            "--format",
            "json",
        ],
    },
    Case {
        command: "experiment-analyze",
        case: "external-mock",
        args: &[
            "experiment",
            "analyze",
            "tests/fixtures/traxr/goldens/external_mock.json",
            "--format",
            "json",
        ],
    },
];

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The golden file of `case`.
pub fn golden_path(case: &Case) -> PathBuf {
    root()
        .join("tests/golden")
        .join(case.command)
        .join(format!("{}.json", case.case))
}

/// Runs veer with `args` on `threads` rayon threads; returns (exit code, stdout bytes).
fn run_on(args: &[&str], threads: usize) -> (i32, Vec<u8>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_veer"))
        .args(args)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .env("RAYON_NUM_THREADS", threads.to_string())
        .env_remove("CLICOLOR_FORCE")
        .output()
        .expect("veer runs");
    (
        out.status.code().unwrap_or(-1),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Every case's output on 1 and 3 threads equals its golden, byte for byte.
#[test]
fn json_outputs_equal_their_goldens_on_1_and_3_threads() {
    let update = std::env::var_os("UPDATE_GOLDENS").is_some();
    std::fs::create_dir_all(root().join("target/golden-out")).unwrap();
    let mut failures = Vec::new();
    for case in CASES {
        let path = golden_path(case);
        let (code1, one, err1) = run_on(case.args, 1);
        assert!(
            code1 == 0 || code1 == 1,
            "veer {:?} exited {code1}\n{err1}",
            case.args
        );
        let (code3, three, _) = run_on(case.args, 3);
        assert_eq!(
            code1, code3,
            "veer {:?}: exit code depends on threads",
            case.args
        );
        assert!(
            one == three,
            "veer {:?}: output differs between 1 and 3 threads",
            case.args
        );
        if update {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &one).unwrap();
            continue;
        }
        match std::fs::read(&path) {
            Ok(golden) if golden == one => {}
            Ok(_) => failures.push(format!("{}: differs from the output", path.display())),
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    assert!(
        failures.is_empty(),
        "goldens differ (after an intended change: UPDATE_GOLDENS=1 cargo test -p veer-cli --test cli golden):\n{}",
        failures.join("\n")
    );
}

/// Every golden validates against the schema `veer schema <command>` publishes (its directory
/// under `tests/golden/` is named after the document).
#[test]
fn goldens_validate_against_their_schemas() {
    let mut failures = Vec::new();
    for case in CASES {
        let text = std::fs::read_to_string(golden_path(case)).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let file = format!("{}.schema.json", case.command);
        for e in crate::common::schema_violations(&file, &v) {
            failures.push(format!("{}/{}: {e}", case.command, case.case));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The schemas committed under `docs/json-schema/` are exactly what `veer schema` generates
/// from the report types, and nothing else is there.
#[test]
fn committed_schemas_match_the_generated_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_str().unwrap();
    let r = crate::common::veer_ok(&["schema", "--all-to", dir], 0);
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    let committed = root().join("docs/json-schema");
    let names = |d: &Path| {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let hint = "regenerate with: cargo run -p veer-cli -- schema --all-to docs/json-schema";
    assert_eq!(names(&committed), names(tmp.path()), "{hint}");
    for name in names(tmp.path()) {
        let fresh = std::fs::read(tmp.path().join(&name)).unwrap();
        let old = std::fs::read(committed.join(&name)).unwrap();
        assert!(
            fresh == old,
            "docs/json-schema/{name} is not what the types generate; {hint}"
        );
    }
    // `veer schema NAME` prints the same bytes; `--list` names every file.
    let list = crate::common::veer_ok(&["schema", "--list"], 0).stdout;
    for line in list.lines() {
        let name = line.split_whitespace().next().unwrap();
        let one = crate::common::veer_ok(&["schema", name], 0).stdout;
        let file = std::fs::read_to_string(committed.join(format!("{name}.schema.json"))).unwrap();
        assert_eq!(one, file, "veer schema {name}");
    }
    let r = crate::common::veer(&["schema", "nope"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("no JSON document is named \"nope\""),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("hint: one of: diff, diff-directory"),
        "{}",
        r.stderr
    );
}
