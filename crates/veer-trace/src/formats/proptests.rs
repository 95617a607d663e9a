//! Property tests of the readers of `formats/`: the parent check against its slow definition,
//! span trees read the same whatever the order of their spans in the file and the number of
//! threads, and damaged real exports give errors, never panics.

use super::{check_parents, read, Foreign};
use crate::agentlog::writer::write_agentlog;
use crate::options::ReadOptions;
use proptest::prelude::*;

/// The slow definition: follow each node's parents for at most n steps; a node that comes back
/// to a node already on its walk is on or above a cycle; a parent id not in the list is missing.
fn slow(parents: &[Option<usize>], n: usize) -> (bool, Vec<usize>) {
    let mut cycle = false;
    let mut missing = Vec::new();
    for start in 0..parents.len() {
        let mut seen = vec![false; parents.len()];
        let mut at = start;
        loop {
            if seen[at] {
                cycle = true;
                break;
            }
            seen[at] = true;
            match parents[at] {
                None => break,
                Some(p) if p >= n => {
                    if at == start {
                        missing.push(start);
                    }
                    break;
                }
                Some(p) => at = p,
            }
        }
    }
    (cycle, missing)
}

/// Whether `i` lies on a cycle (following parents from it comes back to it).
fn on_cycle(parents: &[Option<usize>], i: usize) -> bool {
    let mut at = i;
    for _ in 0..parents.len() {
        match parents[at] {
            Some(p) if p < parents.len() => at = p,
            _ => return false,
        }
        if at == i {
            return true;
        }
    }
    false
}

fn written(format: Foreign, text: &str) -> Vec<u8> {
    let trace = read(
        format,
        "p.jsonl",
        text.as_bytes(),
        None,
        &ReadOptions::default(),
    )
    .unwrap();
    let mut out = Vec::new();
    write_agentlog(&trace, &mut out).unwrap();
    out
}

proptest! {
    #[test]
    fn parent_check_matches_its_slow_definition(parents in prop::collection::vec(prop::option::of(0usize..12), 0..10)) {
        let n = parents.len();
        let ids: Vec<String> = (0..n).map(|i| i.to_string()).collect();
        let id_refs: Vec<&str> = ids.iter().map(String::as_str).collect();
        let names: Vec<Option<String>> = parents.iter().map(|p| p.map(|p| p.to_string())).collect();
        let parent_refs: Vec<Option<&str>> = names.iter().map(|p| p.as_deref()).collect();
        let (cycle, missing) = slow(&parents, n);
        match check_parents(&id_refs, &parent_refs) {
            Ok(m) => {
                prop_assert!(!cycle);
                prop_assert_eq!(m, missing);
            }
            Err(i) => {
                prop_assert!(cycle);
                prop_assert!(on_cycle(&parents, i), "node {} is not on a cycle", i);
            }
        }
    }

    #[test]
    fn span_order_in_the_file_does_not_matter(seed in any::<u64>()) {
        let text = include_str!("../../../../tests/fixtures/formats/openai-agents/chat-baseline.jsonl");
        let mut lines: Vec<&str> = text.lines().collect();
        // a seeded Fisher–Yates shuffle
        let mut state = seed | 1;
        for i in (1..lines.len()).rev() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            lines.swap(i, (state % (i as u64 + 1)) as usize);
        }
        let shuffled = lines.join("\n");
        prop_assert_eq!(written(Foreign::AgentsSdk, text), written(Foreign::AgentsSdk, &shuffled));
        let runs = include_str!("../../../../tests/fixtures/formats/hosted/langsmith-candidate.json");
        let mut v: Vec<serde_json::Value> = serde_json::from_str(runs).unwrap();
        let k = (seed % v.len() as u64) as usize;
        v.rotate_left(k);
        prop_assert_eq!(written(Foreign::Langsmith, runs), written(Foreign::Langsmith, &serde_json::to_string(&v).unwrap()));
    }
}

/// Real exports of the hosted tracers and Codex, read whole.
const REAL: [&str; 3] = [
    include_str!("../../../../tests/fixtures/formats/langfuse-real/google-adk-2025-08-28.json"),
    include_str!("../../../../tests/fixtures/formats/langsmith-real/langsmith_js_wrap_openai_default.json"),
    include_str!("../../../../tests/fixtures/formats/codex-real/rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl"),
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn damaged_real_exports_are_errors_not_panics(cut in any::<usize>(), at in any::<usize>(), byte in any::<u8>()) {
        for text in REAL {
            let mut b = text.as_bytes().to_vec();
            let i = at % b.len();
            b[i] = byte;
            b.truncate(cut % (b.len() + 1));
            let _ = crate::load::load_bytes("p.json", &b, &ReadOptions::default());
        }
    }

    #[test]
    fn observation_order_in_a_langfuse_download_does_not_matter(k in 0usize..5) {
        let mut v: serde_json::Value = serde_json::from_str(REAL[0]).unwrap();
        if let Some(serde_json::Value::Array(obs)) = v.get_mut("observations") {
            let k = k % obs.len();
            obs.rotate_left(k);
        }
        prop_assert_eq!(written(Foreign::Langfuse, REAL[0]), written(Foreign::Langfuse, &v.to_string()));
    }
}

/// Lines are parsed on all cores; the trace and the first error are those of one thread.
#[test]
fn thread_count_does_not_change_the_result() {
    let text = include_str!("../../../../tests/fixtures/formats/claude-code/baseline.jsonl");
    let broken = format!("{text}{{\"type\":\n{text}");
    let on = |threads: usize, t: &str| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            format!(
                "{:?}",
                read(
                    Foreign::ClaudeCode,
                    "c.jsonl",
                    t.as_bytes(),
                    None,
                    &ReadOptions::default()
                )
            )
        })
    };
    assert_eq!(on(1, text), on(3, text));
    assert_eq!(on(1, &broken), on(3, &broken));
    assert!(on(1, &broken).contains("line: Some(15)"));
}
