//! Recommendations (spec `diff.md` §11): cross-axis root-cause heuristics, one rule per ranked
//! divergence, a fallback for a severe axis with no error yet, then ordering and the cap of 8.
//!
//! veer: every recommendation cites the turns it derives from (`evidence`), and no rule fires
//! against its own evidence: the retry-loop hint needs the candidate to make more tool calls
//! than the baseline, and the fallback names only a regression (docs/diff.md
//! "Recommendations").

use crate::turn::DiffTurn;
use veer_base::Level;
use veer_contract::axis::Axis;
use veer_contract::axis::AxisStat;
use veer_contract::axis::Direction;
use veer_contract::axis::Position;
use veer_contract::divergence::Divergence;
use veer_contract::divergence::DivergenceKind;
use veer_contract::recommend::{Action, RecSeverity, Recommendation};

/// Trace-wide facts the rules check their hints against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Evidence {
    /// Tool-use blocks over every baseline response.
    pub baseline_calls: usize,
    /// Tool-use blocks over every candidate response.
    pub candidate_calls: usize,
}

impl Evidence {
    /// The facts of two traces' diff turns.
    pub fn of(baseline: &[DiffTurn<'_>], candidate: &[DiffTurn<'_>]) -> Evidence {
        let calls = |ts: &[DiffTurn<'_>]| ts.iter().map(|t| t.features.tool_tokens.len()).sum();
        Evidence {
            baseline_calls: calls(baseline),
            candidate_calls: calls(candidate),
        }
    }
}

/// Most recommendations kept.
pub(crate) const MAX_RECOMMENDATIONS: usize = 8;

fn signed(v: f64) -> String {
    format!("{v:+.3}")
}

fn root(
    severity: RecSeverity,
    axis: Axis,
    confidence: f64,
    message: String,
    rationale: String,
) -> Recommendation {
    Recommendation {
        severity,
        action: Action::RootCause,
        turn: 0,
        baseline_turn: 0,
        candidate_turn: 0,
        message,
        rationale,
        axis,
        confidence,
        evidence: Vec::new(),
    }
}

/// The largest single-pair change of each of `axes` (in that order, duplicates dropped).
fn cite(rows: &[AxisStat], axes: &[Axis]) -> Vec<Position> {
    let mut out: Vec<Position> = Vec::new();
    for a in axes {
        let at = rows
            .iter()
            .find(|r| r.axis == *a)
            .and_then(|r| r.largest_change)
            .map(|l| Position {
                baseline_turn: l.baseline_turn,
                candidate_turn: l.candidate_turn,
            });
        if let Some(p) = at {
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

/// The axes a root-cause message reads, for its citation.
fn axes_of(r: &Recommendation) -> &'static [Axis] {
    use Axis::*;
    let m = r.message.as_str();
    if m.starts_with("Looks like a model change") {
        &[Cost, Latency, Semantic]
    } else if m.starts_with("Looks like a system-prompt edit") {
        &[Semantic, Verbosity, Safety]
    } else if m.starts_with("Refusal rate") {
        &[Safety]
    } else if m.starts_with("Looks like a tool-schema") {
        &[Trajectory, Reasoning]
    } else if m.starts_with("Possible hallucination") {
        &[Semantic, Judge]
    } else if m.starts_with("Possible context-window") {
        &[Cost, Reasoning]
    } else if m.starts_with("Possible retry loop") {
        &[Trajectory, Latency]
    } else if m.starts_with("Cost up severely") {
        &[Cost]
    } else if m.starts_with("Possible prompt-injection") {
        &[Trajectory, Safety]
    } else {
        &[Latency]
    }
}

/// The cross-axis rules 1–10, in order.
fn root_causes(rows: &[AxisStat], evidence: &Evidence) -> Vec<Recommendation> {
    let get = |a: Axis| rows.iter().find(|r| r.axis == a);
    let sev = |a: Axis| get(a).map_or(Level::None, |r| r.severity);
    let d = |a: Axis| get(a).map_or(0.0, |r| r.delta);
    let moved = |a: Axis| sev(a) >= Level::Moderate;
    let severe = |a: Axis| sev(a) == Level::Severe;
    let mut out: Vec<Recommendation> = Vec::new();
    let any = |out: &[Recommendation], f: &dyn Fn(&str) -> bool| out.iter().any(|r| f(&r.message));
    use Axis::*;
    if moved(Cost) && moved(Latency) && moved(Semantic) {
        out.push(root(RecSeverity::Error, Cost, 0.85,
            "Looks like a model change. Cost, latency, and semantic axes all shifted together.".into(),
            format!("Cross-axis signature: cost Δ {}, latency Δ {}, semantic Δ {}. Three axes moving together is the canonical model-swap signature (provider change, frontier→haiku, etc.). Diff the `model` field across configs first.", signed(d(Cost)), signed(d(Latency)), signed(d(Semantic)))));
    }
    if moved(Semantic)
        && moved(Verbosity)
        && !any(&out, &|m| m.starts_with("Looks like a model change"))
    {
        let s = if moved(Safety) {
            " plus safety axis (refusal-style instruction change)"
        } else {
            ""
        };
        out.push(root(RecSeverity::Warning, Semantic, 0.70,
            format!("Looks like a system-prompt edit. Semantic + verbosity moved together{s}."),
            format!("Cross-axis signature: semantic Δ {}, verbosity Δ {}. Diff the `system` field of the request across configs.", signed(d(Semantic)), signed(d(Verbosity)))));
    }
    if severe(Safety) && d(Safety) > 0.0 {
        out.push(root(RecSeverity::Error, Safety, 0.80,
            "Refusal rate is up severely. Check for stricter system instructions or tighter content policies.".into(),
            format!("Safety axis severe with positive delta {} — the candidate refused or was content-filtered more often than baseline. Common causes: added safety preamble in system prompt, model upgrade with stricter RLHF, provider-side content-filter tightening.", signed(d(Safety)))));
    }
    if severe(Trajectory) && moved(Reasoning) {
        out.push(root(RecSeverity::Error, Trajectory, 0.78,
            "Looks like a tool-schema migration. Trajectory + reasoning both moved.".into(),
            format!("Cross-axis signature: trajectory Δ {} (tool sequence/args changed), reasoning Δ {} (the model is thinking through a different schema). Diff the `tools` array across configs and check whether arg keys were added or removed.", signed(d(Trajectory)), signed(d(Reasoning)))));
    }
    if moved(Semantic) && moved(Judge) {
        let v = if moved(Verbosity) {
            ", with verbosity also up"
        } else {
            ""
        };
        out.push(root(RecSeverity::Error, Judge, 0.82,
            format!("Possible hallucination regression. Semantic and judge axes both moved{v}."),
            format!("Cross-axis signature: semantic Δ {}, judge Δ {}. The classic 'confident-and-wrong' signature — the response diverged semantically AND was scored lower by the rubric. Sample 3-5 candidate outputs and verify factual claims against ground truth before merging.", signed(d(Semantic)), signed(d(Judge)))));
    }
    if severe(Cost)
        && moved(Reasoning)
        && !any(&out, &|m| m.contains("model change"))
        && d(Cost) > 0.0
    {
        out.push(root(RecSeverity::Error, Cost, 0.72,
            "Possible context-window overflow. Cost spiked severely without a model change, and reasoning shifted with it.".into(),
            format!("Cross-axis signature: cost Δ {} (severe) with reasoning Δ {}, model unchanged. Common cause: prompt-length growth past the effective context window — providers either truncate (lossy reasoning) or charge for the full prompt every turn (cost balloons). Check prompt-token usage trend across the candidate's turns.", signed(d(Cost)), signed(d(Reasoning)))));
    }
    // veer: a retry inflates the call count, so the hint needs more candidate calls.
    if severe(Trajectory)
        && moved(Latency)
        && !any(&out, &|m| m.contains("tool-schema"))
        && d(Latency) > 0.0
        && evidence.candidate_calls > evidence.baseline_calls
    {
        out.push(root(RecSeverity::Error, Trajectory, 0.70,
            "Possible retry loop. Trajectory diverged severely with latency spike but no reasoning shift.".into(),
            format!("Cross-axis signature: trajectory Δ {}, latency Δ {}, reasoning stable. Suggests the agent is retrying a failing tool call (each retry inflates the tool-call count and adds latency, but doesn't change reasoning depth). Inspect tool results for transient errors that the agent is silently retrying.", signed(d(Trajectory)), signed(d(Latency)))));
    }
    if severe(Cost) && !moved(Latency) && !moved(Semantic) && d(Cost) > 0.0 {
        out.push(root(RecSeverity::Error, Cost, 0.68,
            "Cost up severely with latency stable. Suggests cache control stopped being honored.".into(),
            format!("Cross-axis signature: cost Δ {}, latency stable, semantic stable. Cache-hit latency without cache-hit pricing means the request hit the cache for performance but billed at the uncached rate. Common causes: SDK upgrade dropped the `cache_control` flag, prompt-prefix drift broke cache reuse, or the provider changed cache pricing.", signed(d(Cost)))));
    }
    if severe(Trajectory) && moved(Safety) && d(Safety) < 0.0 {
        out.push(root(RecSeverity::Error, Safety, 0.75,
            "Possible prompt-injection or tool-args exfiltration. Trajectory severe AND refusal rate dropped.".into(),
            format!("Cross-axis signature: trajectory Δ {} with safety Δ {} (refusing less). Tool calls diverged AND the agent became more permissive — the canonical signature of a prompt-injected trace where tool args are being used to exfiltrate or escalate. Sample 3-5 candidate tool-call payloads against the baseline; look for unexpected URLs, IDs, or tokens in the input objects.", signed(d(Trajectory)), signed(d(Safety)))));
    }
    if severe(Latency)
        && !moved(Cost)
        && !moved(Semantic)
        && !any(&out, &|m| {
            m.contains("model change") || m.contains("context-window")
        })
        && d(Latency) > 0.0
    {
        out.push(root(RecSeverity::Warning, Latency, 0.65,
            "Latency up severely with cost stable. Provider-side capacity or network change.".into(),
            format!("Cross-axis signature: latency Δ {}, cost stable, semantic stable. Same model, same output length, slower response. Common causes: provider capacity event, network path change, regional fail-over. Check provider status pages for the candidate's run window before treating this as a code regression.", signed(d(Latency)))));
    }
    for r in &mut out {
        r.evidence = cite(rows, axes_of(r));
    }
    out
}

/// The text between the first two backticks of `s`.
fn span(s: &str) -> Option<&str> {
    let start = s.find('`')?;
    let rest = &s[start + 1..];
    let end = rest.find('`')?;
    Some(&rest[..end])
}

/// The recommendation for one ranked divergence.
fn for_divergence(e: &Divergence) -> Recommendation {
    let lower = e.explanation.to_lowercase();
    let n = e.baseline_turn;
    let sp = span(&e.explanation);
    let (severity, action, message) = match e.kind {
        DivergenceKind::Structural => {
            if lower.contains("dropped tool")
                || lower.contains("dropped a response turn")
                || lower.contains("dropped a turn")
            {
                (
                    RecSeverity::Error,
                    Action::Restore,
                    format!("Restore {} at turn {n}.", sp.unwrap_or("missing element")),
                )
            } else if lower.contains("added tool") || lower.contains("inserted an extra") {
                (
                    RecSeverity::Error,
                    Action::Review,
                    format!(
                        "Review unexpected addition at turn {n}: {}.",
                        sp.unwrap_or("extra element")
                    ),
                )
            } else if lower.contains("duplicate tool") {
                (
                    RecSeverity::Error,
                    Action::Remove,
                    format!(
                        "Remove duplicate invocation of {} at turn {n}.",
                        sp.unwrap_or("the duplicated tool")
                    ),
                )
            } else if lower.contains("tool set changed") || lower.contains("tool ordering differs")
            {
                (
                    RecSeverity::Error,
                    Action::Review,
                    format!("Review tool-schema change at turn {n}: call shape diverged."),
                )
            } else {
                (
                    RecSeverity::Error,
                    Action::Review,
                    format!("Review structural change at turn {n}."),
                )
            }
        }
        DivergenceKind::Decision => {
            if e.primary_axis == Axis::Safety && lower.contains("stop_reason") {
                let sev = if lower.contains("content_filter") {
                    RecSeverity::Error
                } else {
                    RecSeverity::Warning
                };
                (
                    sev,
                    Action::Review,
                    format!(
                        "Review refusal behaviour at turn {n}: candidate may be over-refusing."
                    ),
                )
            } else if e.primary_axis == Axis::Trajectory && lower.contains("arg value") {
                (
                    RecSeverity::Warning,
                    Action::Revert,
                    format!(
                        "Revert {} at turn {n} to the baseline value.",
                        sp.unwrap_or("arg value")
                    ),
                )
            } else if e.primary_axis == Axis::Semantic {
                (
                    RecSeverity::Warning,
                    Action::Review,
                    format!("Review response text at turn {n}: semantic content shifted."),
                )
            } else {
                (
                    RecSeverity::Warning,
                    Action::Review,
                    format!("Review decision change at turn {n}."),
                )
            }
        }
        DivergenceKind::Style => (
            RecSeverity::Info,
            Action::Verify,
            format!("Cosmetic wording change at turn {n} — verify intended."),
        ),
    };
    // A gap event's turn on the other side is only a cursor: cite the real turn alone.
    let evidence = Position {
        baseline_turn: (!lower.starts_with("candidate inserted")).then_some(n),
        candidate_turn: (!lower.starts_with("candidate dropped a")).then_some(e.candidate_turn),
    };
    Recommendation {
        severity,
        action,
        turn: n,
        baseline_turn: n,
        candidate_turn: e.candidate_turn,
        message,
        rationale: e.explanation.clone(),
        axis: e.primary_axis,
        confidence: e.confidence,
        evidence: vec![evidence],
    }
}

/// All recommendations for a filled report: root causes, per-divergence rules, the fallback,
/// sorted by severity, confidence (descending) and turn; at most 8. The retry-loop hint is
/// checked against the trace-wide `evidence` (it never fires without it).
pub(crate) fn recommendations_with(
    rows: &[AxisStat],
    divergences: &[Divergence],
    evidence: &Evidence,
) -> Vec<Recommendation> {
    let mut out = root_causes(rows, evidence);
    out.extend(divergences.iter().map(for_divergence));
    if !out.iter().any(|r| r.severity == RecSeverity::Error) {
        // veer: only a regression; an improvement is never "to review".
        if let Some(r) = rows
            .iter()
            .rev()
            .find(|r| r.severity == Level::Severe && r.direction == Direction::Regression)
        {
            let label = r.axis.label();
            out.push(Recommendation {
                severity: RecSeverity::Error,
                action: Action::Review,
                turn: 0,
                baseline_turn: 0,
                candidate_turn: 0,
                message: format!("Review the candidate: {label} axis shifted with severity severe."),
                rationale: format!(
                    "Aggregate signal crosses the `severe` threshold ({label}: delta {}, CI [{}, {}]).",
                    signed(r.delta),
                    signed(r.ci95_low),
                    signed(r.ci95_high)
                ),
                axis: r.axis,
                confidence: 0.8,
                evidence: cite(rows, &[r.axis]),
            });
        }
    }
    out.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then_with(|| {
                b.confidence
                    .partial_cmp(&a.confidence)
                    .unwrap_or(std::cmp::Ordering::Equal)
            })
            .then(a.turn.cmp(&b.turn))
    });
    out.truncate(MAX_RECOMMENDATIONS);
    out
}
