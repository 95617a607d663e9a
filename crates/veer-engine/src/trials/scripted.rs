//! Stochastic scripted agents: `.agentlog` traces of an agent whose wording,
//! latency, token counts and an occasional extra tool call vary from run to run, with planted
//! changes of stated size. The calibration tests, the CLI tests and the benchmark compare
//! samples of these agents, so the gate's false-alarm rate and power are measured, not
//! assumed.

use veer_base::rng::derive_seed;
use veer_base::rng::TrialRng;

/// What an agent does and how much it varies.
#[derive(Debug, Clone, PartialEq)]
pub struct Script {
    /// The tools it calls, one per turn, in order.
    pub tools: Vec<&'static str>,
    /// Mean latency of a response, ms (each varies uniformly by ±30%).
    pub latency_ms: f64,
    /// Mean output tokens of a response (each varies uniformly by ±30%).
    pub output_tokens: f64,
    /// Chance, in [0, 1], that a run makes one extra `search` call before its first tool.
    pub extra_call_rate: f64,
    /// A planted change: the tool at this position is never called.
    pub skip_tool: Option<usize>,
    /// A planted change: the tool at this position gets its argument under another key
    /// (`case_id` instead of `case`), same value.
    pub rename_arg: Option<usize>,
    /// A planted change: the tool at this position gets another argument value (`CASE#2`
    /// instead of `CASE`).
    pub change_arg: Option<usize>,
    /// A planted change: one more call of this tool after the last scripted one.
    pub extra_tool: Option<&'static str>,
    /// No run-to-run variation at all: the first phrasing, mean latency and tokens, no extra
    /// call (whatever `extra_call_rate` says).
    pub deterministic: bool,
}

impl Default for Script {
    fn default() -> Self {
        Script {
            tools: vec!["lookup_order", "check_policy", "issue_refund"],
            latency_ms: 400.0,
            output_tokens: 60.0,
            extra_call_rate: 0.2,
            skip_tool: None,
            rename_arg: None,
            change_arg: None,
            extra_tool: None,
            deterministic: false,
        }
    }
}

impl Script {
    /// A steady agent (no extra calls) and the same agent with a planted change: responses
    /// about twice as slow (900 ms mean) and the second tool never called. The pair the
    /// engine's tests compare.
    pub fn steady_and_changed() -> (Script, Script) {
        let same = Script {
            extra_call_rate: 0.0,
            ..Script::default()
        };
        let changed = Script {
            latency_ms: 900.0,
            skip_tool: Some(1),
            ..same.clone()
        };
        (same, changed)
    }
}

const PHRASES: [&str; 4] = [
    "Let me check that for you.",
    "I'll look into this now.",
    "Checking the details.",
    "One moment while I verify.",
];

/// One run of `script` for `case` and `trial` as `.agentlog` text, seeded by `seed`. The
/// metadata record names the case and trial.
pub fn agentlog(case: &str, trial: u32, seed: u64, script: &Script) -> String {
    let mut lines = Vec::new();
    let mut n = 0usize;
    let mut push = |kind: &str, payload: serde_json::Value, lines: &mut Vec<String>| {
        n += 1;
        let record = serde_json::json!({
            "version": "0.1", "id": format!("r{n}"), "kind": kind,
            "ts": format!("2026-01-01T00:00:{:02}.000Z", n.min(59)),
            "parent": if n > 1 { serde_json::Value::from(format!("r{}", n - 1)) } else { serde_json::Value::Null },
            "payload": payload,
        });
        lines.push(record.to_string());
    };
    push(
        "metadata",
        serde_json::json!({"sdk": {"name": "scripted"}, "case": case, "trial": trial}),
        &mut lines,
    );
    // (tool, argument key, argument value) per call.
    let mut calls: Vec<(&str, &str, String)> = Vec::new();
    if !script.deterministic && rng_share(seed, case, trial) < script.extra_call_rate {
        calls.push(("search", "case", case.to_string()));
    }
    for (i, tool) in script.tools.iter().enumerate() {
        if script.skip_tool == Some(i) {
            continue;
        }
        let key = if script.rename_arg == Some(i) {
            "case_id"
        } else {
            "case"
        };
        let value = if script.change_arg == Some(i) {
            format!("{case}#2")
        } else {
            case.to_string()
        };
        calls.push((tool, key, value));
    }
    if let Some(tool) = script.extra_tool {
        calls.push((tool, "case", case.to_string()));
    }
    let vary = |unit: f64| {
        if script.deterministic {
            1.0
        } else {
            0.7 + 0.6 * unit
        }
    };
    let mut rng = TrialRng::new(derive_seed(seed, &format!("{case}/{trial}/text")));
    for (i, (tool, key, value)) in calls.iter().enumerate() {
        push(
            "chat_request",
            serde_json::json!({"model": "m", "messages": [{"role": "user", "content": format!("Case {case}: please help.")}]}),
            &mut lines,
        );
        let pick = (rng.unit() * PHRASES.len() as f64) as usize % PHRASES.len();
        let phrase = PHRASES[if script.deterministic { 0 } else { pick }];
        let latency = (script.latency_ms * vary(rng.unit())).round();
        let tokens = (script.output_tokens * vary(rng.unit())).round();
        push(
            "chat_response",
            serde_json::json!({"model": "m", "content": [
                {"type": "text", "text": phrase},
                {"type": "tool_use", "id": format!("t{i}"), "name": tool, "input": {*key: value}}],
              "stop_reason": "tool_use", "latency_ms": latency,
              "usage": {"input_tokens": 100, "output_tokens": tokens}}),
            &mut lines,
        );
    }
    push(
        "chat_request",
        serde_json::json!({"model": "m", "messages": [{"role": "user", "content": "Thanks."}]}),
        &mut lines,
    );
    let latency = (script.latency_ms * vary(rng.unit())).round();
    let tokens = (script.output_tokens * vary(rng.unit())).round();
    push(
        "chat_response",
        serde_json::json!({"model": "m", "content": [{"type": "text", "text": "Done."}],
          "stop_reason": "end_turn", "latency_ms": latency,
          "usage": {"input_tokens": 100, "output_tokens": tokens}}),
        &mut lines,
    );
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

/// A uniform share in [0, 1) for the extra-call draw of one run.
fn rng_share(seed: u64, case: &str, trial: u32) -> f64 {
    TrialRng::new(derive_seed(seed, &format!("{case}/{trial}/extra"))).unit()
}
