//! `veer synth` (hidden): writes realistic synthetic trace pairs for the benchmark harness
//! (`bench/run.sh`). Deterministic for a given seed.
//!
//! Each turn is a request (system + user message), a response with text, 0–2 tool calls with
//! arguments, usage and latency, and a tool result per call; a `metadata` record opens a new
//! session every 50 turns. A *near* pair changes about 1% of the candidate's turns (reworded
//! text, a changed argument value, a flipped stop reason, an extra tool call); a *changed* pair
//! touches about 10% (8% edited that way, 1% dropped, 1% fresh turns inserted); a *divergent*
//! pair is generated from an unrelated seed.

use crate::cli::{SynthArgs, SynthKind};
use crate::error::{CliError, Exit};
use serde_json::{json, Value};
use std::path::Path;
use veer_base::format::Format;
use veer_base::rng::SplitMix64;
use veer_trace::agentlog::writer::write_agentlog;
use veer_trace::canonical::content_id;
use veer_trace::{Kind, Record, RecordId, Trace};

/// The synthetic data's draws: veer's SplitMix64 ([`SplitMix64`]), bounded by a plain
/// remainder (a bias of at most n / 2^64, negligible for synthetic text, and kept so a seed
/// writes the same traces it always has).
struct Rng(SplitMix64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(SplitMix64::new(seed))
    }
    fn next(&mut self) -> u64 {
        self.0.next_u64()
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn pick<'a>(&mut self, items: &'a [&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

const WORDS: [&str; 48] = [
    "order",
    "refund",
    "customer",
    "shipping",
    "invoice",
    "account",
    "delivery",
    "status",
    "the",
    "a",
    "your",
    "we",
    "will",
    "can",
    "has",
    "been",
    "check",
    "update",
    "confirm",
    "today",
    "tomorrow",
    "within",
    "days",
    "please",
    "thanks",
    "issue",
    "resolved",
    "ticket",
    "replacement",
    "damaged",
    "item",
    "payment",
    "method",
    "card",
    "balance",
    "credit",
    "policy",
    "return",
    "label",
    "warehouse",
    "tracking",
    "number",
    "address",
    "changed",
    "escalate",
    "manager",
    "sorry",
    "happy",
];
const TOOLS: [&str; 6] = [
    "lookup_order",
    "issue_refund",
    "search_kb",
    "update_ticket",
    "send_email",
    "get_tracking",
];
const KEYS: [&str; 6] = ["order_id", "amount", "query", "ticket_id", "status", "note"];

fn sentence(rng: &mut Rng, words: usize) -> String {
    let mut s = String::new();
    for i in 0..words {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(rng.pick(&WORDS));
    }
    s.push('.');
    s
}

struct Turn {
    user: String,
    text: String,
    tools: Vec<(String, Value)>,
    stop: &'static str,
    input_tokens: u64,
    output_tokens: u64,
    latency_ms: u64,
}

fn turn(rng: &mut Rng, i: usize) -> Turn {
    let calls = rng.below(3) as usize;
    let tools = (0..calls)
        .map(|_| {
            let name = rng.pick(&TOOLS).to_string();
            let mut args = serde_json::Map::new();
            for _ in 0..1 + rng.below(3) {
                let k = rng.pick(&KEYS);
                let v = if k == "amount" {
                    json!(rng.below(500))
                } else {
                    json!(format!("{}-{}", k, rng.below(10_000)))
                };
                args.insert(k.to_string(), v);
            }
            (name, Value::Object(args))
        })
        .collect::<Vec<_>>();
    let words = 8 + rng.below(40) as usize;
    Turn {
        user: {
            let n = 6 + rng.below(20) as usize;
            format!("Ticket {i}: {}", sentence(rng, n))
        },
        text: sentence(rng, words),
        stop: if tools.is_empty() {
            "end_turn"
        } else {
            "tool_use"
        },
        tools,
        input_tokens: 300 + rng.below(2000),
        output_tokens: words as u64 * 2 + rng.below(20),
        latency_ms: 200 + rng.below(3000),
    }
}

/// Applies one small change to a turn (the 1% of a near-identical pair).
fn perturb(rng: &mut Rng, t: &mut Turn) {
    match rng.below(4) {
        0 => {
            let n = 8 + rng.below(30) as usize;
            t.text = sentence(rng, n);
        }
        1 => match t.tools.first_mut() {
            Some((_, Value::Object(args))) => {
                if let Some(v) = args.values_mut().next() {
                    *v = json!("changed-value");
                }
            }
            _ => t.text.push_str(" Anything else?"),
        },
        2 => {
            t.stop = if t.stop == "end_turn" {
                "max_tokens"
            } else {
                "end_turn"
            }
        }
        _ => {
            t.tools
                .push(("escalate".into(), json!({"reason": "policy"})));
            t.stop = "tool_use";
        }
    }
}

fn record(kind: Kind, payload: Value, parent: &mut Option<RecordId>, ms: u64) -> Record {
    let id = RecordId::from(content_id(&payload));
    Record {
        line: None,
        kind,
        version: "0.1".into(),
        id: id.clone(),
        ts: veer_trace::timefmt::format_epoch_ms(1_767_225_600_000 + ms as i64).into(),
        parent: parent.replace(id),
        meta: None,
        payload: payload.into(),
        extra_envelope: None,
        origin: None,
    }
}

fn build(name: &str, turns: &[Turn]) -> Trace {
    let mut t = Trace::new(name, Format::Agentlog);
    let mut parent: Option<RecordId> = None;
    let mut ms = 0u64;
    for (i, turn) in turns.iter().enumerate() {
        if i % 50 == 0 {
            let meta =
                json!({"sdk": {"name": "veer-synth", "version": "1"}, "tags": {"session": i / 50}});
            t.records
                .push(record(Kind::Metadata, meta, &mut parent, ms));
        }
        let req = json!({
            "model": "claude-sonnet-4-5",
            "messages": [
                {"role": "system", "content": "You are a careful support agent."},
                {"role": "user", "content": turn.user}
            ],
            "params": {"temperature": 0.2, "max_tokens": 1024}
        });
        t.records
            .push(record(Kind::ChatRequest, req, &mut parent, ms));
        ms += turn.latency_ms;
        let mut content = vec![json!({"type": "text", "text": turn.text})];
        for (k, (name, args)) in turn.tools.iter().enumerate() {
            content.push(json!({"type": "tool_use", "id": format!("toolu_{i}_{k}"), "name": name, "input": args}));
        }
        let resp = json!({
            "model": "claude-sonnet-4-5",
            "content": content,
            "stop_reason": turn.stop,
            "usage": {"input_tokens": turn.input_tokens, "output_tokens": turn.output_tokens, "thinking_tokens": 0},
            "latency_ms": turn.latency_ms
        });
        t.records
            .push(record(Kind::ChatResponse, resp, &mut parent, ms));
        for k in 0..turn.tools.len() {
            let res = json!({"tool_call_id": format!("toolu_{i}_{k}"), "output": {"ok": true, "rows": k + 1}, "is_error": false, "latency_ms": 40});
            t.records
                .push(record(Kind::ToolResult, res, &mut parent, ms));
        }
    }
    t
}

fn write(path: &Path, trace: &Trace) -> Result<(), CliError> {
    crate::output::write_file_with(path, |f| write_agentlog(trace, f))
}

/// Generates one baseline/candidate pair of `n` turns.
fn pair(n: usize, kind: SynthKind, seed: u64) -> (Trace, Trace) {
    let mut rng = Rng::new(seed);
    let base: Vec<Turn> = (0..n).map(|i| turn(&mut rng, i)).collect();
    let cand: Vec<Turn> = match kind {
        SynthKind::Near => {
            let mut other = Rng::new(seed);
            let mut c: Vec<Turn> = (0..n).map(|i| turn(&mut other, i)).collect();
            let changes = (n / 100).max(1);
            let mut pr = Rng::new(seed ^ 0x5eed);
            for _ in 0..changes {
                let at = pr.below(n as u64) as usize;
                if let Some(t) = c.get_mut(at) {
                    perturb(&mut pr, t);
                }
            }
            c
        }
        SynthKind::Changed => {
            let mut other = Rng::new(seed);
            let mut c: Vec<Turn> = (0..n).map(|i| turn(&mut other, i)).collect();
            let mut pr = Rng::new(seed ^ 0x0c4a_96ed);
            for _ in 0..(n / 10).max(1) {
                let at = pr.below(c.len() as u64) as usize;
                match pr.below(10) {
                    0 if c.len() > 1 => {
                        c.remove(at);
                    }
                    1 => {
                        let fresh = turn(&mut pr, n + at);
                        c.insert(at, fresh);
                    }
                    _ => {
                        if let Some(t) = c.get_mut(at) {
                            perturb(&mut pr, t);
                        }
                    }
                }
            }
            c
        }
        SynthKind::Divergent => {
            let mut other = Rng::new(seed.wrapping_mul(31).wrapping_add(7));
            (0..n).map(|i| turn(&mut other, i)).collect()
        }
    };
    (build("baseline", &base), build("candidate", &cand))
}

/// Runs `veer synth`.
pub fn run(args: &SynthArgs) -> Result<Exit, CliError> {
    std::fs::create_dir_all(&args.out_dir)
        .map_err(|e| CliError::output(&args.out_dir.display().to_string(), &e))?;
    if args.pairs <= 1 {
        let (b, c) = pair(args.turns, args.kind, args.seed);
        write(&args.out_dir.join("baseline.agentlog"), &b)?;
        write(&args.out_dir.join("candidate.agentlog"), &c)?;
    } else {
        for side in ["baseline", "candidate"] {
            let d = args.out_dir.join(side);
            std::fs::create_dir_all(&d)
                .map_err(|e| CliError::output(&d.display().to_string(), &e))?;
        }
        for p in 0..args.pairs {
            let (b, c) = pair(args.turns, args.kind, args.seed.wrapping_add(p as u64));
            let name = format!("pair-{p:05}.agentlog");
            write(&args.out_dir.join("baseline").join(&name), &b)?;
            write(&args.out_dir.join("candidate").join(&name), &c)?;
        }
    }
    Ok(Exit::done())
}
