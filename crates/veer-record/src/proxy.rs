//! One agent request, end to end: route it, read its body (bounded), forward it, give the
//! agent the upstream's answer — streamed chunk by chunk as it arrives — and hand the call to
//! the [`Journal`] to be recorded and judged. Failures become answers in the provider's error
//! shape (502 unreachable, 504 timed out, 413 too large) and `error` records.

use crate::api::{route, Api, Provider, Route};
use crate::body::ProxyBody;
use crate::journal::{error_payload, CallOutcome, Journal, ProxyDecision};
use crate::payload::RequestRecord;
use crate::sse::EventReader;
use crate::upstream::UpstreamClient;
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{HeaderMap, HeaderValue};
use hyper::{Request, Response, StatusCode};
use serde_json::Value;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// ProxySettings of a proxy.
#[derive(Debug, Clone)]
pub struct ProxySettings {
    /// OpenAI base URL, as `OPENAI_BASE_URL` would be (ends in `/v1`).
    pub openai_upstream: String,
    /// Anthropic base URL, as `ANTHROPIC_BASE_URL` would be (no `/v1`).
    pub anthropic_upstream: String,
    /// Azure OpenAI endpoint, as `AZURE_OPENAI_ENDPOINT` would be (`https://NAME.openai.azure.com`):
    /// when set, the agent's `AZURE_OPENAI_ENDPOINT` points at the proxy and its calls are
    /// recorded; `None` leaves Azure alone.
    pub azure_upstream: Option<String>,
    /// Largest request body accepted from the agent, in bytes.
    pub max_request_bytes: usize,
    /// Largest non-streamed response body read from the upstream, in bytes.
    pub max_response_bytes: usize,
    /// How long to wait for the upstream's response headers, and at most between two chunks
    /// of a stream.
    pub timeout: Duration,
    /// With a policy in replace or raise mode, streamed answers are held until complete so
    /// they can be judged before the agent sees them.
    pub hold_streams: bool,
}

/// Default OpenAI upstream.
pub const OPENAI_DEFAULT: &str = "https://api.openai.com/v1";
/// Default Anthropic upstream.
pub const ANTHROPIC_DEFAULT: &str = "https://api.anthropic.com";
/// Default request body limit: 32 MiB.
pub const MAX_REQUEST_BYTES: usize = 32 * 1024 * 1024;
/// Default response body limit: 64 MiB.
pub(crate) const MAX_RESPONSE_BYTES: usize = 64 * 1024 * 1024;

impl Default for ProxySettings {
    fn default() -> ProxySettings {
        ProxySettings {
            openai_upstream: OPENAI_DEFAULT.into(),
            anthropic_upstream: ANTHROPIC_DEFAULT.into(),
            azure_upstream: None,
            max_request_bytes: MAX_REQUEST_BYTES,
            max_response_bytes: MAX_RESPONSE_BYTES,
            timeout: Duration::from_secs(600),
            hold_streams: false,
        }
    }
}

/// A message for the user (policy warnings, refused requests); the CLI prints them on stderr.
pub type Notify = Arc<dyn Fn(&str) + Send + Sync>;

/// What every request handler shares.
pub struct Shared {
    /// The proxy's settings.
    pub settings: ProxySettings,
    /// The upstream client.
    pub client: UpstreamClient,
    /// The recording.
    pub journal: Arc<Journal>,
    /// Where user-facing notices go.
    pub notify: Notify,
    /// With `veer replay`: the recording that answers model calls instead of the upstream.
    pub replay: Option<Arc<crate::replay::Replayer>>,
}

/// Headers that belong to one connection, never forwarded either way.
const HOP_BY_HOP: [&str; 11] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
];

fn copy_headers(from: &HeaderMap, to: &mut HeaderMap) {
    for (k, v) in from {
        if !HOP_BY_HOP.contains(&k.as_str()) {
            to.append(k.clone(), v.clone());
        }
    }
}

fn json_answer(status: StatusCode, body: Vec<u8>) -> Response<ProxyBody> {
    let mut r = Response::new(ProxyBody::full(body));
    *r.status_mut() = status;
    r.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

fn error_answer(p: Provider, status: StatusCode, kind: &str, msg: &str) -> Response<ProxyBody> {
    json_answer(status, p.error_body(kind, msg))
}

fn elapsed_ms(t: Instant) -> u64 {
    t.elapsed().as_millis() as u64
}

/// Serves one request; never fails (every failure is an answer).
pub(crate) async fn handle(shared: Arc<Shared>, req: Request<Incoming>) -> Response<ProxyBody> {
    let path = req.uri().path_and_query().map_or("/", |p| p.as_str());
    let Some(route) = route(req.method().as_str(), path) else {
        let msg = format!(
            "veer record: no upstream for {path}; use the base URLs veer printed (…/openai/v1, …/anthropic)"
        );
        return error_answer(Provider::OpenAi, StatusCode::NOT_FOUND, "not_found", &msg);
    };
    let (parts, body) = req.into_parts();
    let limit = shared.settings.max_request_bytes;
    let bytes = match Limited::new(body, limit).collect().await {
        Ok(b) => b.to_bytes(),
        Err(e) => {
            let too_large = e
                .downcast_ref::<http_body_util::LengthLimitError>()
                .is_some();
            let (status, kind, msg) = if too_large {
                (
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "request_too_large",
                    format!("veer record: request body over the {limit}-byte limit (--max-body-bytes); not forwarded"),
                )
            } else {
                (
                    StatusCode::BAD_REQUEST,
                    "invalid_request_error",
                    format!("veer record: could not read the request body: {e}"),
                )
            };
            shared.journal.note_error(error_payload(
                "sdk",
                kind,
                &msg,
                false,
                Some(status.as_u16()),
            ));
            (shared.notify)(&msg);
            return error_answer(route.provider, status, kind, &msg);
        }
    };
    let recorded = route.api.and_then(|api| {
        let v: Value = serde_json::from_slice(&bytes).ok()?;
        Some((api, api.request(v.as_object()?)))
    });
    if let Some(replayer) = &shared.replay {
        if let Some(answer) = replayed(&shared, replayer, &route, recorded.as_ref()) {
            return answer;
        }
    }
    let base = match route.provider {
        Provider::OpenAi => &shared.settings.openai_upstream,
        Provider::Anthropic => &shared.settings.anthropic_upstream,
        Provider::Azure => match &shared.settings.azure_upstream {
            Some(url) => url,
            None => {
                let msg = "veer record: no Azure OpenAI endpoint to forward to (AZURE_OPENAI_ENDPOINT was not set when veer started)";
                return error_answer(Provider::Azure, StatusCode::NOT_FOUND, "not_found", msg);
            }
        },
    };
    let url = format!("{}{}", base.trim_end_matches('/'), route.upstream_path);
    let mut up = Request::new(Full::new(bytes));
    *up.method_mut() = parts.method.clone();
    match url.parse() {
        Ok(uri) => *up.uri_mut() = uri,
        Err(e) => {
            let msg = format!("veer record: bad upstream URL {url}: {e}");
            return error_answer(route.provider, StatusCode::BAD_GATEWAY, "api_error", &msg);
        }
    }
    copy_headers(&parts.headers, up.headers_mut());
    // The record needs the bytes as the provider meant them, not compressed.
    up.headers_mut().insert(
        hyper::header::ACCEPT_ENCODING,
        HeaderValue::from_static("identity"),
    );
    let started = Instant::now();
    let sent = tokio::time::timeout(shared.settings.timeout, shared.client.request(up)).await;
    let fail = |status: StatusCode, code: &str, msg: String, retriable: bool| {
        if let Some((_, rec)) = &recorded {
            let err = error_payload("llm", code, &msg, retriable, None);
            shared.journal.complete(rec, CallOutcome::Failed(err));
        }
        error_answer(route.provider, status, code, &msg)
    };
    let resp = match sent {
        Err(_) => {
            let msg = format!(
                "veer record: {url} did not answer within {} s (--timeout)",
                shared.settings.timeout.as_secs_f64()
            );
            return fail(StatusCode::GATEWAY_TIMEOUT, "upstream_timeout", msg, true);
        }
        Ok(Err(e)) => {
            let msg = format!("veer record: cannot reach {url}: {}", chain(&e));
            return fail(StatusCode::BAD_GATEWAY, "upstream_unreachable", msg, true);
        }
        Ok(Ok(r)) => r,
    };
    match recorded {
        None => pass_through(resp),
        Some((api, rec)) => answer(shared, route, api, rec, resp, started).await,
    }
}

/// With `veer replay`: the answer from the recording (or the refusal of a divergent call),
/// `None` when the call goes to the live upstream.
fn replayed(
    shared: &Shared,
    replayer: &crate::replay::Replayer,
    route: &Route,
    recorded: Option<&(Api, RequestRecord)>,
) -> Option<Response<ProxyBody>> {
    use crate::replay::Decision;
    let Some((api, rec)) = recorded else {
        // Not a model call: forwarded when there is an upstream, else refused.
        if replayer.is_live() {
            return None;
        }
        let msg = "veer replay: only model calls are answered from a recording; pass --upstream URL to forward other requests";
        return Some(error_answer(
            route.provider,
            StatusCode::NOT_FOUND,
            "not_found",
            msg,
        ));
    };
    match replayer.decide(*api, rec) {
        Decision::Live => None,
        Decision::Refuse(status, code, msg) => {
            (shared.notify)(&msg);
            let err = crate::replay::refusal_payload(code, &msg);
            shared.journal.complete(rec, CallOutcome::Failed(err));
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::UNPROCESSABLE_ENTITY);
            Some(error_answer(route.provider, status, code, &msg))
        }
        Decision::Serve(answer, turn) => {
            let (status, ct, body, outcome) =
                crate::replay::answer_of(*api, &answer, turn, rec.stream);
            shared.journal.complete(rec, outcome);
            let mut r = Response::new(ProxyBody::full(body));
            *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY);
            r.headers_mut()
                .insert(hyper::header::CONTENT_TYPE, HeaderValue::from_static(ct));
            Some(r)
        }
    }
}

/// The error and its causes, `: `-joined.
fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cur = c.source();
    }
    s
}

fn head_of(resp: &Response<Incoming>) -> Response<ProxyBody> {
    let mut out = Response::new(ProxyBody::full(Bytes::new()));
    *out.status_mut() = resp.status();
    copy_headers(resp.headers(), out.headers_mut());
    out
}

/// An unrecorded path: the answer as it comes.
fn pass_through(resp: Response<Incoming>) -> Response<ProxyBody> {
    let mut out = head_of(&resp);
    let (tx, body) = ProxyBody::channel(16);
    *out.body_mut() = body;
    let mut incoming = resp.into_body();
    tokio::spawn(async move {
        loop {
            tokio::select! {
                _ = tx.closed() => return,
                frame = incoming.frame() => match frame {
                    None => return,
                    Some(Err(e)) => { let _ = tx.send(Err(std::io::Error::other(e))).await; return; }
                    Some(Ok(f)) => if let Ok(data) = f.into_data() {
                        if tx.send(Ok(data)).await.is_err() { return; }
                    },
                },
            }
        }
    });
    out
}

fn is_event_stream(resp: &Response<Incoming>) -> bool {
    resp.headers()
        .get(hyper::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"))
}

async fn answer(
    shared: Arc<Shared>,
    route: Route,
    api: Api,
    rec: RequestRecord,
    resp: Response<Incoming>,
    started: Instant,
) -> Response<ProxyBody> {
    let status = resp.status();
    if status.is_success() && is_event_stream(&resp) {
        return if shared.settings.hold_streams {
            held_stream(shared, api, rec, resp, started).await
        } else {
            live_stream(shared, api, rec, resp, started)
        };
    }
    let mut out = head_of(&resp);
    let limit = shared.settings.max_response_bytes;
    let timeout = shared.settings.timeout;
    let read = tokio::time::timeout(timeout, Limited::new(resp.into_body(), limit).collect()).await;
    let bytes = match read {
        Ok(Ok(b)) => b.to_bytes(),
        Ok(Err(e)) => {
            let msg = format!("veer record: reading the upstream's answer failed: {e}");
            let err = error_payload("llm", "upstream_body", &msg, true, Some(status.as_u16()));
            shared.journal.complete(&rec, CallOutcome::Failed(err));
            return error_answer(route.provider, StatusCode::BAD_GATEWAY, "api_error", &msg);
        }
        Err(_) => {
            let msg = "veer record: the upstream's answer timed out (--timeout)".to_string();
            let err = error_payload("llm", "upstream_timeout", &msg, true, Some(status.as_u16()));
            shared.journal.complete(&rec, CallOutcome::Failed(err));
            return error_answer(
                route.provider,
                StatusCode::GATEWAY_TIMEOUT,
                "api_error",
                &msg,
            );
        }
    };
    let latency = elapsed_ms(started);
    if !status.is_success() {
        let text = String::from_utf8_lossy(&bytes[..bytes.len().min(2000)]).into_owned();
        let retriable = status.is_server_error() || status.as_u16() == 429;
        let err = error_payload(
            "llm",
            "upstream_status",
            &text,
            retriable,
            Some(status.as_u16()),
        );
        shared.journal.complete(&rec, CallOutcome::Failed(err));
        *out.body_mut() = ProxyBody::full(bytes);
        return out;
    }
    let outcome = match serde_json::from_slice::<Value>(&bytes) {
        Ok(v) => CallOutcome::Response(with_latency(api.response(&v), latency)),
        Err(e) => CallOutcome::Failed(error_payload(
            "llm",
            "malformed_response",
            &format!("the upstream's answer is not JSON: {e}"),
            false,
            Some(status.as_u16()),
        )),
    };
    let model = model_of(&outcome);
    let decision = shared.journal.complete(&rec, outcome);
    match decided(&shared, route.provider, api, &model, false, decision) {
        Some(replaced) => replaced,
        None => {
            *out.body_mut() = ProxyBody::full(bytes);
            out
        }
    }
}

fn model_of(outcome: &CallOutcome) -> String {
    match outcome {
        CallOutcome::Response(p) => p.get("model").and_then(Value::as_str).unwrap_or(""),
        CallOutcome::Failed(_) => "",
    }
    .to_string()
}

fn with_latency(mut payload: Value, ms: u64) -> Value {
    if let Some(o) = payload.as_object_mut() {
        o.insert("latency_ms".into(), Value::from(ms));
    }
    payload
}

/// The answer a policy decision calls for, `None` to pass the upstream's answer.
fn decided(
    shared: &Shared,
    provider: Provider,
    api: Api,
    model: &str,
    stream: bool,
    decision: ProxyDecision,
) -> Option<Response<ProxyBody>> {
    match decision {
        ProxyDecision::Pass => None,
        ProxyDecision::Warn(msg) => {
            (shared.notify)(&format!("warning: {msg}"));
            None
        }
        ProxyDecision::Replace(text) => {
            (shared.notify)(&format!("policy: response replaced: {text}"));
            let mut r = Response::new(ProxyBody::full(api.replacement(model, &text, stream)));
            let ct = if stream {
                "text/event-stream"
            } else {
                "application/json"
            };
            r.headers_mut()
                .insert(hyper::header::CONTENT_TYPE, HeaderValue::from_static(ct));
            Some(r)
        }
        ProxyDecision::Raise(msg) => {
            (shared.notify)(&format!("policy: request refused: {msg}"));
            Some(error_answer(
                provider,
                StatusCode::UNPROCESSABLE_ENTITY,
                "policy_violation",
                &msg,
            ))
        }
    }
}

/// A stream passed to the agent chunk by chunk while a copy is reassembled for the record.
fn live_stream(
    shared: Arc<Shared>,
    api: Api,
    rec: RequestRecord,
    resp: Response<Incoming>,
    started: Instant,
) -> Response<ProxyBody> {
    let mut out = head_of(&resp);
    let (tx, body) = ProxyBody::channel(16);
    *out.body_mut() = body;
    let mut incoming = resp.into_body();
    let timeout = shared.settings.timeout;
    tokio::spawn(async move {
        let mut reader = EventReader::new();
        let mut asm = api.assembler();
        let mut events = Vec::new();
        let mut broken: Option<String> = None;
        let cut = loop {
            let frame = tokio::select! {
                _ = tx.closed() => break Some(("client_disconnected", "the agent closed the connection mid-stream; the upstream request was cancelled".to_string())),
                f = tokio::time::timeout(timeout, incoming.frame()) => f,
            };
            match frame {
                Err(_) => {
                    let _ = tx
                        .send(Err(std::io::Error::other("upstream stream timed out")))
                        .await;
                    break Some((
                        "upstream_timeout",
                        "the upstream stream stalled past --timeout".to_string(),
                    ));
                }
                Ok(None) => break None,
                Ok(Some(Err(e))) => {
                    let _ = tx.send(Err(std::io::Error::other(e.to_string()))).await;
                    break Some((
                        "upstream_stream",
                        format!("the upstream stream failed: {e}"),
                    ));
                }
                Ok(Some(Ok(f))) => {
                    let Ok(data) = f.into_data() else { continue };
                    if broken.is_none() {
                        reader.feed(&data, &mut events);
                        for ev in events.drain(..) {
                            if let Err(e) = asm.event(&ev) {
                                broken = Some(e);
                                break;
                            }
                        }
                    }
                    if tx.send(Ok(data)).await.is_err() {
                        break Some(("client_disconnected", "the agent closed the connection mid-stream; the upstream request was cancelled".to_string()));
                    }
                }
            }
        };
        // Dropping the upstream body here cancels the request when it was cut short.
        drop(incoming);
        let latency = elapsed_ms(started);
        let outcome = match (cut, broken) {
            (Some((code, msg)), _) => CallOutcome::Failed(error_payload(
                "llm",
                code,
                &msg,
                code != "client_disconnected",
                None,
            )),
            (None, Some(e)) => {
                CallOutcome::Failed(error_payload("llm", "malformed_stream", &e, false, None))
            }
            (None, None) if reader.has_pending() => CallOutcome::Failed(error_payload(
                "llm",
                "malformed_stream",
                "the stream ended inside an event",
                false,
                None,
            )),
            (None, None) => match asm.finish() {
                Ok(p) => CallOutcome::Response(with_latency(p, latency)),
                Err(e) => {
                    CallOutcome::Failed(error_payload("llm", "malformed_stream", &e, false, None))
                }
            },
        };
        // Too late to change what the agent saw: every decision is at most a warning here.
        if let ProxyDecision::Warn(m) | ProxyDecision::Replace(m) | ProxyDecision::Raise(m) =
            shared.journal.complete(&rec, outcome)
        {
            (shared.notify)(&format!("warning: {m}"));
        }
    });
    out
}

/// A stream read whole before the agent sees it, so the policy can replace or refuse it.
async fn held_stream(
    shared: Arc<Shared>,
    api: Api,
    rec: RequestRecord,
    resp: Response<Incoming>,
    started: Instant,
) -> Response<ProxyBody> {
    let mut out = head_of(&resp);
    let limit = shared.settings.max_response_bytes;
    let timeout = shared.settings.timeout;
    let read = tokio::time::timeout(timeout, Limited::new(resp.into_body(), limit).collect()).await;
    let provider = api.provider();
    let bytes = match read {
        Ok(Ok(b)) => b.to_bytes(),
        Ok(Err(e)) => {
            let msg = format!("veer record: reading the upstream's stream failed: {e}");
            let err = error_payload("llm", "upstream_stream", &msg, true, None);
            shared.journal.complete(&rec, CallOutcome::Failed(err));
            return error_answer(provider, StatusCode::BAD_GATEWAY, "api_error", &msg);
        }
        Err(_) => {
            let msg = "veer record: the upstream's stream timed out (--timeout)".to_string();
            let err = error_payload("llm", "upstream_timeout", &msg, true, None);
            shared.journal.complete(&rec, CallOutcome::Failed(err));
            return error_answer(provider, StatusCode::GATEWAY_TIMEOUT, "api_error", &msg);
        }
    };
    let mut reader = EventReader::new();
    let mut events = Vec::new();
    reader.feed(&bytes, &mut events);
    let mut asm = api.assembler();
    let assembled =
        events
            .iter()
            .try_for_each(|e| asm.event(e))
            .and_then(|()| match reader.has_pending() {
                true => Err("the stream ended inside an event".to_string()),
                false => asm.finish(),
            });
    let outcome = match assembled {
        Ok(p) => CallOutcome::Response(with_latency(p, elapsed_ms(started))),
        Err(e) => CallOutcome::Failed(error_payload("llm", "malformed_stream", &e, false, None)),
    };
    let model = model_of(&outcome);
    let decision = shared.journal.complete(&rec, outcome);
    match decided(&shared, provider, api, &model, true, decision) {
        Some(replaced) => replaced,
        None => {
            *out.body_mut() = ProxyBody::full(bytes);
            out
        }
    }
}
