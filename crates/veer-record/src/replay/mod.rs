//! `veer replay`: the agent runs against the proxy as under `veer record`, but the proxy
//! answers each model call from a recording instead of the provider. Each request is matched
//! to the next unconsumed recorded call by position and compared after the recorder's own
//! normalisation ([`script`]); a match is answered with the recorded response rebuilt in the
//! endpoint's shape ([`synth`]), whole or as a synthesized stream. A request that matches
//! nothing is a divergence: by default it is answered with an HTTP error the SDKs raise and the
//! agent is stopped; with a live upstream the proxy forwards it and every later call instead
//! (`--on-divergence live`), or goes live after a given number of served turns
//! (`--branch-at N`). Every call is recorded to the new recording as `veer record` would.

pub mod job;
pub mod script;
pub(crate) mod synth;

use crate::api::{Api, Provider};
use crate::journal::{error_payload, CallOutcome};
use crate::payload::RequestRecord;
use crate::proxy::{Notify, ProxySettings};
use crate::runner::RunError;
use crate::server::Server;
use script::{first_difference, provider_of, Answer, RecordedCalls};
use serde_json::Value;
use std::ffi::OsString;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use veer_contract::replay::ReplayDivergence;

pub use script::IGNORED_PARAMS;

/// What a divergence does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnDivergence {
    /// Answer the request with an error (HTTP 422 in the provider's error shape, code
    /// `replay_divergence`) and stop the agent.
    Fail,
    /// Forward it, and every later call, to the live upstream and record them.
    Live,
}

/// How a replay runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplayOptions {
    /// What a divergence does.
    pub on_divergence: OnDivergence,
    /// Serve this many recorded responses, then forward every later call live.
    pub branch_at: Option<u64>,
    /// Whether a live upstream was given (`--upstream`); without one nothing is forwarded.
    pub live: bool,
}

/// Counts and the divergence of a replay so far.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReplayProgress {
    /// Model calls the agent made (matched or not).
    pub turns: u64,
    /// Calls answered from the recording.
    pub served: u64,
    /// Calls forwarded live.
    pub live: u64,
    /// The first divergence.
    pub divergence: Option<ReplayDivergence>,
    /// Whether the replay stopped at a divergence (the agent is being stopped).
    pub stopped: bool,
}

/// What the proxy does with one model call.
#[derive(Debug)]
pub(crate) enum Decision {
    /// Answer with the recorded answer; the turn's index makes ids unique.
    Serve(Answer, u64),
    /// Forward it to the live upstream.
    Live,
    /// Refuse it: status, error code and message.
    Refuse(u16, &'static str, String),
}

/// The replay side of a proxy: the recording's calls and how far the agent got.
pub struct Replayer {
    script: RecordedCalls,
    options: ReplayOptions,
    next: Mutex<(usize, ReplayProgress)>,
    stop: tokio::sync::Notify,
}

/// How long an agent has to end by itself after a divergence refused its call, before it is
/// sent SIGTERM.
const AFTER_DIVERGENCE: Duration = Duration::from_secs(2);

/// Recorded values shown in a divergence: compact JSON, secrets redacted, at most this many
/// characters.
const SHOWN_CHARS: usize = 500;

fn shown(v: Option<Value>) -> Option<String> {
    let text = v?.to_string();
    let red = veer_secrets::display::redact(&text).into_owned();
    Some(match red.char_indices().nth(SHOWN_CHARS) {
        Some((i, _)) => format!("{}…", &red[..i]),
        None => red,
    })
}

impl Replayer {
    /// A replayer of `script`.
    pub fn new(script: RecordedCalls, options: ReplayOptions) -> Replayer {
        Replayer {
            script,
            options,
            next: Mutex::new((0, ReplayProgress::default())),
            stop: tokio::sync::Notify::new(),
        }
    }

    /// The counts and the divergence so far.
    pub fn progress(&self) -> ReplayProgress {
        self.lock().1.clone()
    }

    /// The recorded tool results' `latency_ms` by tool-call id (the new recording reuses them
    /// for the calls it serves, so an unchanged agent's replay diffs as identical).
    pub fn tool_latencies(&self) -> std::collections::HashMap<String, u64> {
        self.script.tool_latency.clone()
    }

    /// Whether a live upstream was given.
    pub fn is_live(&self) -> bool {
        self.options.live
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (usize, ReplayProgress)> {
        self.next.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Decides one model call of `api` whose request record is `rec`.
    pub(crate) fn decide(&self, api: Api, rec: &RequestRecord) -> Decision {
        let mut g = self.lock();
        let (next, progress) = &mut *g;
        let turn = progress.turns;
        progress.turns += 1;
        let going_live = progress.divergence.is_some() && !progress.stopped
            || self.options.branch_at.is_some_and(|n| progress.served >= n);
        if progress.stopped {
            return Decision::Refuse(
                422,
                "replay_divergence",
                "veer replay: the replay stopped at an earlier divergence".into(),
            );
        }
        if going_live && self.options.live {
            progress.live += 1;
            return Decision::Live;
        }
        let divergence = match self.script.calls.get(*next) {
            None => ReplayDivergence {
                turn,
                endpoint: api.name().into(),
                reason: "extra_call".into(),
                path: String::new(),
                recorded: None,
                got: None,
            },
            Some(call)
                if call
                    .endpoint
                    .is_some_and(|e| e != api && e.provider() == api.provider()) =>
            {
                // The same provider, another API: its recorded answer has another shape.
                ReplayDivergence {
                    turn,
                    endpoint: api.name().into(),
                    reason: "endpoint".into(),
                    path: "endpoint".into(),
                    recorded: call.endpoint.map(|e| e.name().to_string()),
                    got: Some(api.name().to_string()),
                }
            }
            Some(call) => {
                let recorded = call
                    .endpoint
                    .map(Api::provider)
                    .or_else(|| provider_of(&call.request));
                if recorded.is_some_and(|p| p != api.provider()) {
                    let name = |p: Option<Provider>| match p {
                        Some(Provider::Anthropic) => "Anthropic",
                        _ => "OpenAI",
                    };
                    ReplayDivergence {
                        turn,
                        endpoint: api.name().into(),
                        reason: "provider".into(),
                        path: "model".into(),
                        recorded: shown(call.request.get("model").cloned())
                            .map(|m| format!("{m} ({})", name(recorded))),
                        got: shown(rec.payload.get("model").cloned())
                            .map(|m| format!("{m} ({})", name(Some(api.provider())))),
                    }
                } else {
                    match first_difference(&call.request, &rec.payload) {
                        None => {
                            *next += 1;
                            progress.served += 1;
                            return Decision::Serve(call.answer.clone(), turn);
                        }
                        Some((path, a, b)) => ReplayDivergence {
                            turn,
                            endpoint: api.name().into(),
                            reason: "content".into(),
                            path,
                            recorded: shown(a),
                            got: shown(b),
                        },
                    }
                }
            }
        };
        let message = describe(&divergence);
        let provider = divergence.reason == "provider";
        progress.divergence.get_or_insert(divergence);
        if self.options.on_divergence == OnDivergence::Live && self.options.live && !provider {
            progress.live += 1;
            return Decision::Live;
        }
        progress.stopped = true;
        self.stop.notify_one();
        Decision::Refuse(422, "replay_divergence", message)
    }
}

/// One line naming a divergence: the turn, the field and both values.
pub fn describe(d: &ReplayDivergence) -> String {
    match d.reason.as_str() {
        "extra_call" => format!(
            "veer replay: turn {}: the agent made a call the recording does not have ({} call(s) recorded)",
            d.turn, d.turn
        ),
        "provider" => format!(
            "veer replay: turn {}: the recording is of another provider: recorded {} but the agent called {} ({})",
            d.turn,
            d.recorded.as_deref().unwrap_or("?"),
            d.endpoint,
            d.got.as_deref().unwrap_or("?")
        ),
        _ => format!(
            "veer replay: turn {}: the request differs from the recording at {}: recorded {}, got {}",
            d.turn,
            d.path,
            d.recorded.as_deref().unwrap_or("(nothing)"),
            d.got.as_deref().unwrap_or("(nothing)")
        ),
    }
}

/// The answer to an agent for a recorded outcome: status, content type and body; and what
/// the new recording keeps of it.
pub(crate) fn answer_of(
    api: Api,
    answer: &Answer,
    turn: u64,
    stream: bool,
) -> (u16, &'static str, Vec<u8>, CallOutcome) {
    match answer {
        Answer::Response(p) => {
            let (ct, body) = if stream {
                ("text/event-stream", synth::stream(api, p, turn))
            } else {
                ("application/json", synth::body(api, p, turn))
            };
            (200, ct, body, CallOutcome::Response(p.clone()))
        }
        Answer::Failed(e) => {
            let status = e
                .get("upstream_status")
                .and_then(Value::as_u64)
                .and_then(|s| u16::try_from(s).ok())
                .filter(|s| *s >= 400)
                .unwrap_or(502);
            let message = e.get("message").and_then(Value::as_str).unwrap_or("");
            let code = e.get("code").and_then(Value::as_str).unwrap_or("api_error");
            // An upstream's own error body was recorded as its text: give it back when it is
            // JSON, else wrap the message in the provider's error shape.
            let body = match serde_json::from_str::<Value>(message) {
                Ok(v) if v.is_object() => message.as_bytes().to_vec(),
                _ => api.provider().error_body(code, message),
            };
            (
                status,
                "application/json",
                body,
                CallOutcome::Failed(e.clone()),
            )
        }
    }
}

/// The `error` payload recorded for a refused call.
pub(crate) fn refusal_payload(code: &str, message: &str) -> Value {
    error_payload("sdk", code, message, false, Some(422))
}

/// Runs `command` against a replaying proxy (the environment as `veer record` sets it, plus
/// `env`), stops it after a divergence refused its call, and returns its exit code (128 +
/// signal when a signal ended it). SIGINT/SIGTERM to veer are passed on as in `veer record`.
pub fn run_replay(
    settings: ProxySettings,
    journal: Arc<crate::Journal>,
    notify: Notify,
    replayer: Arc<Replayer>,
    command: &[OsString],
    env: &[(OsString, OsString)],
) -> Result<i32, RunError> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("veer-replay")
        .build()
        .map_err(RunError::Runtime)?;
    rt.block_on(async move {
        let mut shared = crate::runner::shared_with(settings, journal, notify, !replayer.options.live)?;
        shared.replay = Some(replayer.clone());
        let server = Server::start(0, Arc::new(shared), Duration::from_secs(5))
            .await
            .map_err(|source| RunError::Bind { port: 0, source })?;
        let (openai, anthropic) = server.base_urls();
        let program = command.first().cloned().unwrap_or_default();
        let mut int = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())
            .map_err(RunError::Signals)?;
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .map_err(RunError::Signals)?;
        let mut child = tokio::process::Command::new(&program)
            .args(command.iter().skip(1))
            .envs(env.iter().map(|(k, v)| (k, v)))
            .env("OPENAI_BASE_URL", openai)
            .env("ANTHROPIC_BASE_URL", anthropic)
            .kill_on_drop(true)
            .spawn()
            .map_err(|source| RunError::Spawn {
                program: program.to_string_lossy().into_owned(),
                source,
            })?;
        let status = tokio::select! {
            s = child.wait() => s,
            _ = int.recv() => { crate::runner::forward(&child, libc::SIGINT); crate::runner::stop_child(&mut child).await }
            _ = term.recv() => { crate::runner::forward(&child, libc::SIGTERM); crate::runner::stop_child(&mut child).await }
            _ = replayer.stop.notified() => {
                match tokio::time::timeout(AFTER_DIVERGENCE, child.wait()).await {
                    Ok(s) => s,
                    Err(_) => {
                        crate::runner::forward(&child, libc::SIGTERM);
                        crate::runner::stop_child(&mut child).await
                    }
                }
            }
        };
        server.stop().await;
        Ok(status.map_or(1, crate::runner::exit_code))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn script(n: usize) -> RecordedCalls {
        RecordedCalls {
            calls: (0..n)
                .map(|i| script::RecordedCall {
                    request: json!({"model": "gpt-4o", "messages": [{"role": "user", "content": format!("q{i}")}], "params": {}}),
                    endpoint: None,
                    answer: Answer::Response(json!({"model": "gpt-4o", "content": [{"type": "text", "text": format!("a{i}")}],
                        "stop_reason": "end_turn", "usage": {}})),
                })
                .collect(),
            tool_latency: Default::default(),
        }
    }

    fn rec(content: &str) -> RequestRecord {
        RequestRecord {
            payload: json!({"model": "gpt-4o", "messages": [{"role": "user", "content": content}], "params": {"stream": true}}),
            tool_results: vec![],
            stream: true,
            endpoint: Some(Api::ChatCompletions.name()),
        }
    }

    fn opts(on: OnDivergence, branch_at: Option<u64>, live: bool) -> ReplayOptions {
        ReplayOptions {
            on_divergence: on,
            branch_at,
            live,
        }
    }

    #[test]
    fn calls_are_served_in_order_and_a_change_is_a_divergence() {
        let r = Replayer::new(script(3), opts(OnDivergence::Fail, None, false));
        assert!(matches!(
            r.decide(Api::ChatCompletions, &rec("q0")),
            Decision::Serve(_, 0)
        ));
        match r.decide(Api::ChatCompletions, &rec("changed")) {
            Decision::Refuse(422, "replay_divergence", m) => {
                assert!(
                    m.contains("turn 1") && m.contains("messages[0].content"),
                    "{m}"
                )
            }
            d => panic!("{d:?}"),
        }
        let p = r.progress();
        assert_eq!((p.served, p.turns, p.stopped), (1, 2, true));
        let d = p.divergence.unwrap();
        assert_eq!(
            (d.recorded.as_deref(), d.got.as_deref()),
            (Some("\"q1\""), Some("\"changed\""))
        );
        // Once stopped, every later call is refused.
        assert!(matches!(
            r.decide(Api::ChatCompletions, &rec("q1")),
            Decision::Refuse(..)
        ));
    }

    #[test]
    fn live_after_a_divergence_or_a_branch_point() {
        let r = Replayer::new(script(3), opts(OnDivergence::Live, None, true));
        assert!(matches!(
            r.decide(Api::ChatCompletions, &rec("q0")),
            Decision::Serve(..)
        ));
        assert!(matches!(
            r.decide(Api::ChatCompletions, &rec("x")),
            Decision::Live
        ));
        assert!(matches!(
            r.decide(Api::ChatCompletions, &rec("q1")),
            Decision::Live
        ));
        assert_eq!(r.progress().live, 2);
        let b = Replayer::new(script(3), opts(OnDivergence::Fail, Some(2), true));
        assert!(matches!(
            b.decide(Api::ChatCompletions, &rec("q0")),
            Decision::Serve(..)
        ));
        assert!(matches!(
            b.decide(Api::ChatCompletions, &rec("q1")),
            Decision::Serve(..)
        ));
        assert!(matches!(
            b.decide(Api::ChatCompletions, &rec("anything")),
            Decision::Live
        ));
        assert!(b.progress().divergence.is_none());
    }

    #[test]
    fn the_recorded_endpoint_decides_the_api_and_the_provider() {
        let at = |endpoint: Api, model: &str| {
            let mut s = script(1);
            s.calls[0].endpoint = Some(endpoint);
            s.calls[0].request["model"] = json!(model);
            s
        };
        // Recorded on the Responses API, asked on Chat Completions: another shape of answer.
        let r = Replayer::new(
            at(Api::Responses, "gpt-4o"),
            opts(OnDivergence::Fail, None, false),
        );
        assert!(matches!(
            r.decide(Api::ChatCompletions, &rec("q0")),
            Decision::Refuse(..)
        ));
        let d = r.progress().divergence.unwrap();
        assert_eq!(d.reason, "endpoint");
        assert_eq!(
            (d.recorded.as_deref(), d.got.as_deref()),
            (Some("openai.responses"), Some("openai.chat_completions"))
        );
        // A model name that says nothing: the recorded endpoint still names the provider.
        let r = Replayer::new(
            at(Api::Messages, "my-proxy-model"),
            opts(OnDivergence::Fail, None, false),
        );
        let mut q = rec("q0");
        q.payload["model"] = json!("my-proxy-model");
        assert!(matches!(
            r.decide(Api::ChatCompletions, &q),
            Decision::Refuse(..)
        ));
        assert_eq!(r.progress().divergence.unwrap().reason, "provider");
        // The same endpoint: served.
        let r = Replayer::new(
            at(Api::ChatCompletions, "my-proxy-model"),
            opts(OnDivergence::Fail, None, false),
        );
        assert!(matches!(
            r.decide(Api::ChatCompletions, &q),
            Decision::Serve(..)
        ));
    }

    #[test]
    fn extra_calls_and_another_provider_diverge() {
        let r = Replayer::new(script(1), opts(OnDivergence::Fail, None, false));
        assert!(matches!(
            r.decide(Api::ChatCompletions, &rec("q0")),
            Decision::Serve(..)
        ));
        assert!(matches!(
            r.decide(Api::ChatCompletions, &rec("q1")),
            Decision::Refuse(..)
        ));
        assert_eq!(r.progress().divergence.unwrap().reason, "extra_call");
        let p = Replayer::new(script(1), opts(OnDivergence::Live, None, true));
        assert!(matches!(
            p.decide(Api::Messages, &rec("q0")),
            Decision::Refuse(..)
        ));
        assert_eq!(p.progress().divergence.unwrap().reason, "provider");
    }

    #[test]
    fn recorded_failures_are_given_back_with_their_status() {
        let e = Answer::Failed(
            json!({"source": "llm", "code": "upstream_status", "message": "{\"error\":{\"message\":\"boom\"}}", "upstream_status": 500}),
        );
        let (status, _, body, outcome) = answer_of(Api::ChatCompletions, &e, 0, false);
        assert_eq!(
            (status, body.as_slice()),
            (500, b"{\"error\":{\"message\":\"boom\"}}".as_slice())
        );
        assert!(matches!(outcome, CallOutcome::Failed(_)));
    }
}
