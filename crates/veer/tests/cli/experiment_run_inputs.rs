//! `veer experiment run`'s inputs: bad input is exit 2 before anything runs, --trace-from,
//! --answer-from, a secret in an answer, a command that cannot start, and --help.

use crate::common::{veer, veer_ok};
use crate::experiment_run::{pair, Exp, CSV};
use serde_json::Value;

#[test]
fn bad_input_is_exit_2_before_anything_runs() {
    let e = Exp::new("sales.csv", CSV);
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            {
                let mut a = e.args("o1", &[], &[]);
                a[3] = e.out("missing.csv").display().to_string();
                a
            },
            "no such file",
        ),
        (
            {
                std::fs::write(e.out("doc.pdf"), "%PDF").unwrap();
                let mut a = e.args("o1", &[], &[]);
                a[3] = e.out("doc.pdf").display().to_string();
                a
            },
            "no perturbation operators",
        ),
        (
            {
                std::fs::write(e.out("rows.json"), "{\"not\": \"an array\"}").unwrap();
                let mut a = e.args("o1", &[], &[]);
                a[3] = e.out("rows.json").display().to_string();
                a
            },
            "rows.json",
        ),
        (
            e.args("o1", &["--operators", "ocr_noise"], &[]),
            "does not apply",
        ),
        (
            e.args("o1", &["--operators", "nope"], &[]),
            "unknown operator",
        ),
        (
            e.args("o1", &["--trace-from", "trace.jsonl"], &[]),
            "{run_dir}",
        ),
        (
            e.args("o1", &["--trace-from", "{run_dir}/trace.txt"], &[]),
            "trace extension",
        ),
        (e.args("o1", &["--timeout", "0"], &[]), "--timeout"),
        (e.args("o1", &["--jobs", "0"], &[]), "--jobs"),
        (
            {
                let mut a = e.args("o1", &[], &[]);
                a[7] = "not a url".into();
                a
            },
            "--openai-upstream",
        ),
    ];
    for (args, needle) in cases {
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let r = veer_ok(&refs, 2);
        assert!(r.stderr.contains(needle), "{needle}: {}", r.stderr);
        assert!(r.stderr.contains("hint:"), "{}", r.stderr);
        assert!(!e.out("o1").exists(), "nothing ran for {needle}");
    }
    // An --out that holds the input is refused too.
    let mut a = e.args("o1", &[], &[]);
    a[5] = e.dir.path().display().to_string();
    let refs: Vec<&str> = a.iter().map(String::as_str).collect();
    let r = veer_ok(&refs, 2);
    assert!(r.stderr.contains("holds the input"), "{}", r.stderr);
    assert!(!e.dir.path().join("runs").exists());
}
#[test]
fn trace_from_reads_the_agents_own_trace() {
    let e = Exp::new("sales.csv", CSV);
    let r = e.run(
        "exp",
        &["--trace-from", "{run_dir}/trace.json"],
        &["--no-trace-if", "*"],
        0,
    );
    let out = e.out("exp");
    assert!(out.join("baseline.json").is_file());
    let (text, v) = e.results("exp");
    let dtc = pair(&v, "data_type_corrupt");
    // The marked copy wrote no trace: an empty run, said so.
    assert_eq!(dtc["status_perturbed"], "empty");
    assert!(dtc["warnings"]
        .to_string()
        .contains("wrote no trace (expected {run_dir}/trace.json)"));
    assert_eq!(dtc["d_norm"], 1.0);
    let swap = pair(&v, "column_swap");
    assert_eq!(swap["status_perturbed"], "ok");
    assert_eq!(swap["d_norm"], 0.0);
    assert_eq!(swap["token_overhead"], 1.0);
    assert!(r.stderr.contains("wrote no trace"), "{}", r.stderr);
    let again = veer_ok(
        &[
            "experiment",
            "analyze",
            out.join("results.json").to_str().unwrap(),
            "--format",
            "json",
        ],
        0,
    );
    assert_eq!(again.stdout, text);
}
#[test]
fn help_explains_with_examples() {
    let r = veer(&["experiment", "run", "--help"]);
    assert_eq!(r.code, 0);
    for needle in [
        "--trace-from",
        "{input}",
        "VEER_INPUT",
        "results.json",
        "130",
    ] {
        assert!(r.stdout.contains(needle), "{needle}");
    }
}

#[test]
fn answer_from_reads_each_runs_answer_file() {
    let e = Exp::new("sales.csv", CSV);
    let mut args = e.args(
        "exp",
        &[
            "--operators",
            "column_swap,null_content",
            "--answer-from",
            "{run_dir}/answer.txt",
        ],
        &[],
    );
    let at = args.iter().position(|a| a == "--").unwrap();
    args.truncate(at + 1);
    // Writes an answer only for a non-empty input; prints something else on stdout.
    args.extend(
        [
            "sh",
            "-c",
            "if [ -s \"$VEER_INPUT\" ]; then echo ' 42 ' > \"$VEER_RUN_DIR/answer.txt\"; fi; echo ignored",
        ]
        .map(String::from),
    );
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    veer_ok(&refs, 0);
    let (_, v) = e.results("exp");
    assert_eq!(v["answers"]["baseline"], "42");
    assert_eq!(v["answers"]["sales.csv::column_swap"], "42");
    assert_eq!(v["answers"]["sales.csv::null_content"], Value::Null);
    let null = pair(&v, "null_content");
    assert!(null["warnings"]
        .to_string()
        .contains("wrote no answer file (expected {run_dir}/answer.txt)"));
    // No model call was made: empty runs, and no token overhead without tokens.
    assert_eq!(null["status_perturbed"], "empty");
    assert_eq!(null["token_overhead"], Value::Null);
}

#[test]
fn a_secret_in_an_answer_is_redacted_in_the_results() {
    let e = Exp::new("sales.csv", CSV);
    let mut args = e.args("exp", &["--operators", "column_swap", "--reruns", "0"], &[]);
    let at = args.iter().position(|a| a == "--").unwrap();
    args.truncate(at + 1);
    args.extend(["sh", "-c", "echo key=sk-proj-EXPSECRET0123456789abcdefghij"].map(String::from));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = veer_ok(&refs, 0);
    let (text, v) = e.results("exp");
    assert!(!text.contains("EXPSECRET"), "{text}");
    assert!(!r.stdout.contains("EXPSECRET"));
    assert!(v["answers"]["baseline"]
        .as_str()
        .unwrap()
        .contains("[REDACTED:"));
}

#[test]
fn a_command_that_cannot_start_stops_the_experiment_with_exit_2() {
    let e = Exp::new("sales.csv", CSV);
    let mut args = e.args("exp", &[], &[]);
    let at = args.iter().position(|a| a == "--").unwrap();
    args.truncate(at + 1);
    args.push(e.out("no-such-agent").display().to_string());
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = veer_ok(&refs, 2);
    assert!(r.stderr.contains("cannot run"), "{}", r.stderr);
    assert!(r.stderr.contains("hint: check the command"), "{}", r.stderr);
    assert!(!e.out("exp/results.json").exists());
    assert!(!e.out("exp/runs/baseline/run.json").exists());
}
