//! Power and false alarms of the trials gate, by simulation: planted changes — an argument
//! renamed, an argument value changed, a call dropped, a call added — in 4 of 12 cases, at
//! k = 3, 5 and 10 trials a side, for a noisy agent (wording, latency and token noise, an extra
//! `search` call in 20% of runs on both sides) and a deterministic one; and same-agent
//! comparisons for the false-alarm rate. Traces are synthesized as `.agentlog` text and go
//! through the engine's own reading, measuring and deciding code, so the real behaviour
//! distance and the real gate are what is measured. No policy: the behaviour must decide.
//!
//! CI runs a reduced count (`VEER_POWER_RUNS` unset); `bench/trials_power.sh` runs the full
//! count (≥ 500 same-agent comparisons per agent and k) and prints the table of docs/trials.md.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;
use veer_base::Level;
use veer_contract::trials::{LayoutBlock, TripKind};
use veer_engine::trials::compose::{case_raw_of, CaseRaw};
use veer_engine::trials::measure::measure_traces;
use veer_engine::trials::scripted::{agentlog, Script};
use veer_engine::trials::{decide, TrialsOptions};
use veer_trace::{ReadOptions, Trace};

const CASES: usize = 12;
const PLANTED: usize = 4;
const ALPHA: f64 = 0.05;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Agent {
    Noisy,
    Deterministic,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Change {
    RenameArg,
    NewArgValue,
    DropCall,
    ExtraCall,
}

impl Change {
    const ALL: [Change; 4] = [
        Change::RenameArg,
        Change::NewArgValue,
        Change::DropCall,
        Change::ExtraCall,
    ];

    fn name(self) -> &'static str {
        match self {
            Change::RenameArg => "argument renamed",
            Change::NewArgValue => "argument value changed",
            Change::DropCall => "call dropped",
            Change::ExtraCall => "call added",
        }
    }

    /// Whether the change is in the tool calls' arguments (seen only by an argument-aware
    /// behaviour distance).
    fn in_arguments(self) -> bool {
        matches!(self, Change::RenameArg | Change::NewArgValue)
    }
}

fn script(agent: Agent, change: Option<Change>) -> Script {
    let base = Script {
        deterministic: agent == Agent::Deterministic,
        ..Script::default()
    };
    match change {
        None => base,
        Some(Change::RenameArg) => Script {
            rename_arg: Some(0),
            ..base
        },
        Some(Change::NewArgValue) => Script {
            change_arg: Some(2),
            ..base
        },
        Some(Change::DropCall) => Script {
            skip_tool: Some(0),
            ..base
        },
        Some(Change::ExtraCall) => Script {
            extra_tool: Some("notify_customer"),
            ..base
        },
    }
}

fn trace(case: &str, trial: u32, seed: u64, script: &Script) -> Trace {
    let text = agentlog(case, trial, seed, script);
    veer_trace::agentlog::reader::read_agentlog_bytes(
        "scripted",
        text.as_bytes(),
        &ReadOptions::default(),
    )
    .unwrap()
}

/// One comparison's outcome.
struct Outcome {
    /// The gate tripped (`--fail-on severe`).
    tripped: bool,
    /// Planted cases named by what tripped.
    named_planted: usize,
    /// Other cases named.
    named_other: usize,
}

/// One comparison of 12 cases at k trials a side; the candidate runs `change` in the first 4.
fn compare(seed: u64, agent: Agent, change: Option<Change>, k: u32) -> Outcome {
    let same = script(agent, None);
    let changed = script(agent, change);
    let options = TrialsOptions {
        seed,
        alpha: ALPHA,
        ..TrialsOptions::default()
    };
    let raws: Vec<CaseRaw> = (0..CASES)
        .map(|c| {
            let key = format!("case-{c:02}");
            let b: Vec<Trace> = (1..=k).map(|t| trace(&key, t, seed, &same)).collect();
            let s = if c < PLANTED { &changed } else { &same };
            let cand: Vec<Trace> = (1..=k).map(|t| trace(&key, t + 1000, seed, s)).collect();
            let m = measure_traces(&b, &cand, None, 1 << 20);
            case_raw_of(&key, (k as usize, k as usize), Some(Ok(m)), None, &options)
        })
        .collect();
    let layout = LayoutBlock {
        sources: Vec::new(),
        cases: CASES,
        baseline_trials: CASES * k as usize,
        candidate_trials: CASES * k as usize,
    };
    let (block, verdict) = decide(layout, raws, None, &options, Level::Severe, false).unwrap();
    let named: BTreeSet<String> = block
        .tripped
        .iter()
        .filter(|t| t.kind != TripKind::Axis)
        .flat_map(|t| t.cases.iter().cloned())
        .collect();
    let planted: BTreeSet<String> = (0..PLANTED).map(|c| format!("case-{c:02}")).collect();
    Outcome {
        tripped: verdict.tripped,
        named_planted: named.intersection(&planted).count(),
        named_other: named.difference(&planted).count(),
    }
}

/// Rates over `runs` comparisons: (gate tripped, planted cases named / planted, other cases
/// named / others).
fn rates(runs: u64, agent: Agent, change: Option<Change>, k: u32) -> (f64, f64, f64) {
    let (mut tripped, mut planted, mut other) = (0u64, 0usize, 0usize);
    for run in 0..runs {
        let seed = 1_000 * u64::from(k) + run;
        let o = compare(seed, agent, change, k);
        tripped += u64::from(o.tripped);
        planted += o.named_planted;
        other += o.named_other;
    }
    let others = if change.is_some() {
        CASES - PLANTED
    } else {
        CASES
    };
    (
        tripped as f64 / runs as f64,
        planted as f64 / (runs as usize * PLANTED) as f64,
        other as f64 / (runs as usize * others) as f64,
    )
}

/// α plus three binomial standard errors at `runs` comparisons.
fn bound(runs: u64) -> f64 {
    ALPHA + 3.0 * (ALPHA * (1.0 - ALPHA) / runs as f64).sqrt()
}

/// Whether the behaviour distance the engine uses sees a change in the arguments alone.
fn distance_sees_arguments() -> bool {
    let a = trace("probe", 1, 0, &script(Agent::Deterministic, None));
    let b = trace(
        "probe",
        1,
        0,
        &script(Agent::Deterministic, Some(Change::NewArgValue)),
    );
    let m = measure_traces(&[a.clone(), a], &[b.clone(), b], None, 1 << 20);
    // Pairs (0,1) within, (0,2) across.
    m.behaviour.get(1).copied().unwrap_or(0.0) > 0.0
}

/// The counts: `VEER_POWER_RUNS` planted comparisons per row (null rows: at least 500), else
/// the reduced CI counts.
fn counts() -> Option<(u64, u64)> {
    std::env::var("VEER_POWER_RUNS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .map(|n| (n, n.max(500)))
}

#[test]
fn planted_changes_are_found_and_unchanged_agents_stay_green() {
    let sees_arguments = distance_sees_arguments();
    let full = counts();
    let ks: &[u32] = if full.is_some() { &[3, 5, 10] } else { &[3, 5] };
    let (planted_runs, null_runs) = full.unwrap_or((4, 40));
    println!(
        "| agent | planted change (4 of 12 cases) | k | gate tripped | planted cases named | other cases named |"
    );
    println!("|---|---|---|---|---|---|");
    for agent in [Agent::Noisy, Agent::Deterministic] {
        for &k in ks {
            for change in Change::ALL {
                let (tripped, named, other) = rates(planted_runs, agent, Some(change), k);
                println!(
                    "| {agent:?} | {} | {k} | {tripped:.2} | {named:.2} | {other:.3} |",
                    change.name()
                );
                if change.in_arguments() && !sees_arguments {
                    // The behaviour distance ignores arguments: nothing to assert yet.
                    continue;
                }
                // A change in every planted trial is found at every k, and no unchanged case
                // is named beyond the error the procedure allows.
                assert!(tripped >= 0.75, "{agent:?} {change:?} k={k}: {tripped}");
                assert!(other <= 0.1, "{agent:?} {change:?} k={k}: {other}");
            }
            let (tripped, _, other) = rates(null_runs, agent, None, k);
            println!(
                "| {agent:?} | none (same agent, {null_runs} comparisons) | {k} | {tripped:.3} | — | {other:.3} |"
            );
            assert!(
                tripped <= bound(null_runs),
                "{agent:?} k={k}: false alarms {tripped} > {}",
                bound(null_runs)
            );
        }
    }
    if !sees_arguments {
        println!("(the behaviour distance ignores tool arguments: argument rows not asserted)");
    }
}

/// The block of one comparison (same agent on both sides unless `change`).
fn block(
    seed: u64,
    agent: Agent,
    change: Option<Change>,
    k: u32,
) -> veer_contract::trials::TrialsBlock {
    let same = script(agent, None);
    let changed = script(agent, change);
    let options = TrialsOptions {
        seed,
        ..TrialsOptions::default()
    };
    let raws: Vec<CaseRaw> = (0..CASES)
        .map(|c| {
            let key = format!("case-{c:02}");
            let b: Vec<Trace> = (1..=k).map(|t| trace(&key, t, seed, &same)).collect();
            let s = if c < PLANTED { &changed } else { &same };
            let cand: Vec<Trace> = (1..=k).map(|t| trace(&key, t + 1000, seed, s)).collect();
            let m = measure_traces(&b, &cand, None, 1 << 20);
            case_raw_of(&key, (k as usize, k as usize), Some(Ok(m)), None, &options)
        })
        .collect();
    let layout = LayoutBlock {
        sources: Vec::new(),
        cases: CASES,
        baseline_trials: CASES * k as usize,
        candidate_trials: CASES * k as usize,
    };
    decide(layout, raws, None, &options, Level::Severe, false)
        .unwrap()
        .0
}

#[test]
fn verdicts_at_small_k_say_what_they_can() {
    use veer_contract::trials::CaseVerdict;
    // A deterministic agent against itself at 3 a side: identical trials, noise estimated.
    let b = block(1, Agent::Deterministic, None, 3);
    assert_eq!(b.verdicts.unchanged, CASES, "{:?}", b.verdicts);
    // A dropped call in every trial of 4 cases at 3 vs 3: the suite test is exact, the
    // product of the 4 cases' tails (2/20 each, by hand: 0.1⁴ = 0.0001), doubled for the α
    // split; the 4 cases are `changed` (descriptive) and say why.
    let b = block(1, Agent::Deterministic, Some(Change::DropCall), 3);
    let suite = b.behaviour.as_ref().unwrap();
    assert!((suite.p_value - 1e-4).abs() < 1e-12, "{}", suite.p_value);
    assert!((suite.p_adjusted - 2e-4).abs() < 1e-12);
    assert!(suite.significant);
    assert_eq!((b.verdicts.changed, b.verdicts.unchanged), (4, 8));
    let first = b.cases.iter().next().unwrap().into_owned();
    assert_eq!(first.verdict, CaseVerdict::Changed);
    let reason = first.reason.unwrap();
    assert!(reason.starts_with("descriptive:"), "{reason}");
    assert!(reason.contains("5 a side would"), "{reason}");
    assert!(reason.contains("counts for the gate"), "{reason}");
    // At 5 a side the cases' own tests decide: 2/252 each, BH over the 4 reachable cases,
    // gated by the suite: regressed.
    let b = block(1, Agent::Deterministic, Some(Change::DropCall), 5);
    assert_eq!((b.verdicts.regressed, b.verdicts.unchanged), (4, 8));
    // A noisy agent against itself at 3 a side: undecided cases say the k that would decide
    // them; at 10 a side they are unchanged, or flaky where the agent's occasional extra call
    // makes its own baseline trials disagree (the behaviour distance counts that call).
    let b = block(2, Agent::Noisy, None, 3);
    for c in b.cases.iter() {
        if c.verdict == CaseVerdict::Inconclusive {
            assert_eq!(c.trials_needed, Some(5), "{}", c.case);
            assert!(
                c.reason
                    .as_deref()
                    .unwrap_or("")
                    .contains("5 trials a side would decide it"),
                "{:?}",
                c.reason
            );
        }
    }
    let b = block(2, Agent::Noisy, None, 10);
    assert!(
        b.verdicts.unchanged >= 6 && b.verdicts.unchanged + b.verdicts.flaky >= 10,
        "{:?}",
        b.verdicts
    );
    assert_eq!(b.verdicts.regressed + b.verdicts.changed, 0);
}
