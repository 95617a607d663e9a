//! `veer mine` end to end on synthetic corpora written as `.agentlog` files: planted families
//! recovered exactly, a structureless corpus said to have none, the same bytes on one thread
//! and four, the bounded sample, and the suite's refusals.

use super::*;
use std::fmt::Write as _;

/// One `.agentlog` trace: one response per call (`tool_use`), then a final `stop` response.
/// `calls` are (tool, argument keys); `error` adds an error record.
pub(crate) fn agentlog(calls: &[(&str, &[&str])], stop: &str, error: bool) -> String {
    let mut out = String::new();
    let mut line = |kind: &str, payload: String| {
        let n = out.lines().count();
        let _ = writeln!(
            out,
            r#"{{"version":"0.1","id":"sha256:{n:064x}","kind":"{kind}","ts":"2026-11-20T10:00:{:02}.000Z","parent":null,"payload":{payload}}}"#,
            n % 60
        );
    };
    line(
        "metadata",
        r#"{"sdk":{"name":"test","version":"0"}}"#.into(),
    );
    for (i, (tool, keys)) in calls.iter().enumerate() {
        let args: Vec<String> = keys.iter().map(|k| format!(r#""{k}":"v{i}""#)).collect();
        line(
            "chat_response",
            format!(
                r#"{{"model":"m","content":[{{"type":"tool_use","id":"t{i}","name":"{tool}","input":{{{}}}}}],"stop_reason":"tool_use"}}"#,
                args.join(",")
            ),
        );
    }
    if error {
        line("error", r#"{"message":"boom"}"#.into());
    }
    line(
        "chat_response",
        format!(
            r#"{{"model":"m","content":[{{"type":"text","text":"done"}}],"stop_reason":"{stop}"}}"#
        ),
    );
    out
}

/// A tiny deterministic generator (SplitMix64) for the corpora.
struct Gen(u64);
impl Gen {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Five families of six tools each (no tool shared); each trace is its family's sequence with
/// noise: sometimes one call dropped, one repeated, or one call given an extra argument key.
/// Returns each file's family.
fn planted(dir: &Path, per_family: usize) -> BTreeMap<String, usize> {
    let mut g = Gen(7);
    let mut family_of = BTreeMap::new();
    for f in 0..5 {
        let tools: Vec<String> = (0..6).map(|t| format!("fam{f}_tool{t}")).collect();
        for i in 0..per_family {
            let mut calls: Vec<(String, Vec<&str>)> =
                tools.iter().map(|t| (t.clone(), vec!["id"])).collect();
            match g.below(4) {
                0 => {
                    let at = g.below(6) as usize;
                    calls.remove(at);
                }
                1 => {
                    let at = g.below(6) as usize;
                    let c = calls[at].clone();
                    calls.insert(at, c);
                }
                2 => {
                    let at = g.below(6) as usize;
                    calls[at].1.push("extra");
                }
                _ => {}
            }
            let refs: Vec<(&str, &[&str])> = calls
                .iter()
                .map(|(t, k)| (t.as_str(), k.as_slice()))
                .collect();
            let name = format!("f{f}-{i:03}.agentlog");
            std::fs::write(dir.join(&name), agentlog(&refs, "end_turn", false)).unwrap();
            family_of.insert(name, f);
        }
    }
    family_of
}

fn options(cases: Option<usize>) -> MineOptions<'static> {
    MineOptions {
        cases,
        per_case: 2,
        seed: 42,
        policy: None,
        read: ReadOptions::default(),
        signature_cap: SIGNATURE_CAP,
    }
}

fn run(dir: &Path, o: &MineOptions<'_>) -> MineReport {
    let corpus = Corpus::list(dir).unwrap();
    mine(&corpus, o, &|| {}).unwrap()
}

#[test]
fn a_minimal_trace_has_its_calls_shapes_and_stops() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("a.agentlog");
    std::fs::write(
        &p,
        agentlog(&[("search", &["q", "limit"])], "max_tokens", true),
    )
    .unwrap();
    let t = veer_trace::load_trace(&p, &ReadOptions::default()).unwrap();
    let (s, truncated) = signature(&t, None);
    assert!(!truncated);
    assert_eq!(s.calls.len(), 1);
    assert_eq!(s.calls[0].tool, "search");
    assert_eq!(s.calls[0].shape, "limit:string,q:string");
    assert_eq!(s.stop_reasons, vec!["max_tokens", "tool_use"]);
    assert!(s.error && !s.violation);
    assert!(is_failing(&s));
}

#[test]
fn planted_families_are_recovered_exactly() {
    let tmp = tempfile::tempdir().unwrap();
    let family_of = planted(tmp.path(), 40);
    // --per-case 100 copies every member (40 a cluster), so each cluster's whole membership
    // is checked.
    let o = MineOptions {
        per_case: 100,
        ..options(None)
    };
    let r = run(tmp.path(), &o);
    assert_eq!(r.clustering.k, 5, "{:?}", r.clustering);
    assert_eq!(r.clustering.k_chosen_by, "silhouette");
    assert!(r.clustering.silhouette.unwrap() > 0.5, "{:?}", r.clustering);
    assert_eq!(r.corpus_summary.traces_read, 200);
    // Every family's members in one cluster: each cluster's copied members share a family and
    // each cluster holds 40 traces.
    let mut seen = std::collections::BTreeSet::new();
    for c in &r.clusters {
        assert_eq!(c.traces, 40, "{c:?}");
        assert_eq!(c.members.len(), 40);
        let fams: std::collections::BTreeSet<usize> =
            c.members.iter().map(|m| family_of[m]).collect();
        assert_eq!(fams.len(), 1);
        seen.extend(fams);
        // The medoid is the family's noiseless sequence.
        assert_eq!(c.tool_sequence.len(), 6);
    }
    assert_eq!(seen.len(), 5);
    // The medoid cases come first, one per cluster.
    assert_eq!(
        r.cases
            .iter()
            .filter(|c| c.kind == CaseKind::Medoid)
            .count(),
        5
    );
}

#[test]
fn a_noise_corpus_is_said_to_have_no_structure() {
    let tmp = tempfile::tempdir().unwrap();
    let mut g = Gen(3);
    let tools = ["a", "b", "c", "d", "e", "f", "g", "h"];
    for i in 0..60 {
        let len = 1 + g.below(6) as usize;
        let calls: Vec<(&str, &[&str])> = (0..len)
            .map(|_| (tools[g.below(8) as usize], &["k"][..]))
            .collect();
        std::fs::write(
            tmp.path().join(format!("n{i:02}.agentlog")),
            agentlog(&calls, "end_turn", false),
        )
        .unwrap();
    }
    let r = run(tmp.path(), &options(None));
    let s = r.clustering.silhouette.unwrap();
    assert!(s < 0.35, "silhouette {s}");
    assert!(matches!(r.clustering.structure.as_str(), "none" | "weak"));
}

#[test]
fn the_report_is_the_same_on_one_thread_and_four() {
    let tmp = tempfile::tempdir().unwrap();
    planted(tmp.path(), 12);
    let json = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| serde_json::to_string(&run(tmp.path(), &options(None))).unwrap())
    };
    assert_eq!(json(1), json(4));
}

#[test]
fn failing_and_rare_signatures_become_cases() {
    let tmp = tempfile::tempdir().unwrap();
    for i in 0..10 {
        let calls: &[(&str, &[&str])] = &[("lookup", &["id"]), ("reply", &["text"])];
        std::fs::write(
            tmp.path().join(format!("ok{i}.agentlog")),
            agentlog(calls, "end_turn", false),
        )
        .unwrap();
    }
    std::fs::write(
        tmp.path().join("cut.agentlog"),
        agentlog(&[("lookup", &["id"])], "max_tokens", false),
    )
    .unwrap();
    std::fs::write(
        tmp.path().join("odd.agentlog"),
        agentlog(
            &[("delete_all", &["x"]), ("wipe", &["y"]), ("exit", &[])],
            "end_turn",
            false,
        ),
    )
    .unwrap();
    std::fs::write(tmp.path().join("broken.agentlog"), "not json\n").unwrap();
    let r = run(tmp.path(), &options(Some(1)));
    assert_eq!(r.corpus_summary.traces_skipped, 1);
    assert_eq!(r.skipped[0].path, "broken.agentlog");
    // The reason does not repeat the path the report shows beside it.
    assert!(
        !r.skipped[0].error.contains("broken.agentlog"),
        "{}",
        r.skipped[0].error
    );
    assert!(
        r.skipped[0].error.starts_with("line "),
        "{}",
        r.skipped[0].error
    );
    let kinds: Vec<(&str, CaseKind)> = r.cases.iter().map(|c| (c.name.as_str(), c.kind)).collect();
    assert_eq!(
        kinds,
        vec![
            ("cluster-01", CaseKind::Medoid),
            ("rare-01", CaseKind::Rare),
            ("failing-01", CaseKind::Failing)
        ]
    );
    assert_eq!(r.cases[1].files[0].source, "odd.agentlog");
    assert_eq!(r.cases[2].files[0].source, "cut.agentlog");
    assert!(r.cases[2].why.contains("max_tokens"), "{}", r.cases[2].why);
}

#[test]
fn the_sample_is_bounded_and_counts_what_it_leaves_out() {
    let tmp = tempfile::tempdir().unwrap();
    planted(tmp.path(), 10);
    let all = run(tmp.path(), &options(Some(2)));
    let o = MineOptions {
        signature_cap: 5,
        ..options(Some(2))
    };
    let r = run(tmp.path(), &o);
    assert_eq!(r.corpus_summary.unique_signatures, 5);
    assert!(all.corpus_summary.unique_signatures > 5);
    let kept: u64 = r.clusters.iter().map(|c| c.traces).sum();
    assert_eq!(kept + r.corpus_summary.traces_not_sampled, 50);
    // The same seed, the same sample.
    assert_eq!(run(tmp.path(), &o), r);
}

#[test]
fn the_suite_is_written_and_replaced_but_never_over_other_files() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = tmp.path().join("corpus");
    std::fs::create_dir(&corpus).unwrap();
    planted(&corpus, 4);
    let r = run(&corpus, &options(Some(5)));
    let suite = tmp.path().join("suite");
    let json = serde_json::to_string_pretty(&r).unwrap();
    write_suite(&suite, &corpus, &r, &json).unwrap();
    let first = &r.cases[0];
    let copy = std::fs::read(suite.join(&first.name).join(&first.files[0].trial)).unwrap();
    assert_eq!(
        copy,
        std::fs::read(corpus.join(&first.files[0].source)).unwrap()
    );
    // A previous output is replaced.
    write_suite(&suite, &corpus, &r, &json).unwrap();
    // Another file beside it: refused, nothing removed.
    std::fs::write(suite.join("notes.txt"), "mine").unwrap();
    let e = write_suite(&suite, &corpus, &r, &json).unwrap_err();
    assert!(e.message.contains("notes.txt"), "{}", e.message);
    assert!(suite.join("suite.json").exists());
    // A non-empty directory that is not ours, and a suite inside the corpus: refused.
    let other = tmp.path().join("other");
    std::fs::create_dir(&other).unwrap();
    std::fs::write(other.join("x"), "").unwrap();
    assert_eq!(
        write_suite(&other, &corpus, &r, &json)
            .unwrap_err()
            .exit_code(),
        2
    );
    let inside = corpus.join("suite");
    assert!(write_suite(&inside, &corpus, &r, &json).is_err());
    assert!(!inside.exists());
}

#[test]
fn bad_flags_are_input_errors() {
    let tmp = tempfile::tempdir().unwrap();
    planted(tmp.path(), 2);
    let corpus = Corpus::list(tmp.path()).unwrap();
    let bad = MineOptions {
        per_case: 0,
        ..options(None)
    };
    assert_eq!(mine(&corpus, &bad, &|| {}).unwrap_err().exit_code(), 2);
    assert!(mine(&corpus, &options(Some(0)), &|| {}).is_err());
    assert!(Corpus::list(&tmp.path().join("nope")).is_err());
}

#[test]
fn a_policy_violation_marks_a_signature_failing() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/refund-agent");
    let policy = crate::policy::load(&examples.join("policy.yaml")).unwrap();
    let read = |side: &str| {
        veer_trace::load_trace(
            &examples.join(format!("{side}.agentlog")),
            &ReadOptions::default(),
        )
        .unwrap()
    };
    let (base, _) = signature(&read("baseline"), Some(&policy));
    let (cand, _) = signature(&read("candidate"), Some(&policy));
    assert!(!base.violation);
    assert!(cand.violation);
    assert!(is_failing(&cand));
    // Without a policy nothing is a violation.
    assert!(!signature(&read("candidate"), None).0.violation);
}
