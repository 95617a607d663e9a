//! A proxy in front of the scripted upstream, a plain HTTP client, and the recorded file.

use crate::support::scripted::{self, Scripted};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use veer_policy::runtime::Mode;
use veer_record::proxy::Shared;
use veer_record::{Journal, ProxySettings, Server};

pub struct Rig {
    pub up: Scripted,
    pub proxy: Option<Server>,
    pub journal: Arc<Journal>,
    pub out: PathBuf,
    pub notices: Arc<Mutex<Vec<String>>>,
    pub client: Client<HttpConnector, Full<Bytes>>,
    _dir: tempfile::TempDir,
}

pub struct Options {
    pub settings: ProxySettings,
    pub policy: Option<(&'static str, Mode)>,
    pub unreachable: bool,
    /// `veer record --redact`.
    pub redact: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            settings: ProxySettings {
                timeout: Duration::from_secs(10),
                ..ProxySettings::default()
            },
            policy: None,
            unreachable: false,
            redact: false,
        }
    }
}

pub async fn rig(opts: Options) -> Rig {
    let up = scripted::start().await;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run.agentlog");
    let file = std::fs::OpenOptions::new()
        .create_new(true)
        .append(true)
        .open(&out)
        .unwrap();
    let policy = opts.policy.map(|(yaml, mode)| {
        (
            veer_policy::Policy::load_str(yaml, "policy.yaml", false, std::path::Path::new("."))
                .unwrap(),
            mode,
        )
    });
    let mut settings = opts.settings;
    settings.hold_streams = matches!(policy, Some((_, Mode::Replace | Mode::Raise)));
    if opts.unreachable {
        // A port that was free a moment ago: nothing listens there.
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        drop(l);
        settings.openai_upstream = format!("http://127.0.0.1:{port}/v1");
        settings.anthropic_upstream = format!("http://127.0.0.1:{port}");
    } else {
        settings.openai_upstream = up.openai();
        settings.anthropic_upstream = up.anthropic();
    }
    let journal = Journal::new(Box::new(file), policy);
    let journal = Arc::new(if opts.redact {
        journal.redacting(veer_secrets::Detector::builtin())
    } else {
        journal
    });
    let notices = Arc::new(Mutex::new(Vec::new()));
    let n2 = notices.clone();
    let shared = Arc::new(Shared {
        settings,
        client: veer_record::upstream::client(false).unwrap(),
        journal: journal.clone(),
        notify: Arc::new(move |m: &str| n2.lock().unwrap().push(m.to_string())),
        replay: None,
    });
    let proxy = Server::start(0, shared, Duration::from_secs(5))
        .await
        .unwrap();
    Rig {
        up,
        proxy: Some(proxy),
        journal,
        out,
        notices,
        client: Client::builder(TokioExecutor::new()).build_http(),
        _dir: dir,
    }
}

impl Rig {
    pub fn base(&self) -> String {
        format!("http://{}", self.proxy.as_ref().unwrap().addr)
    }

    /// Sends a request through the proxy (or straight to the upstream with `direct`).
    pub async fn send(&self, path: &str, body: &Value, direct: bool) -> Response<Incoming> {
        let url = if direct {
            let p = path
                .replace("/openai/v1/", "/v1/")
                .replace("/anthropic/v1/", "/v1/");
            format!("http://{}{p}", self.up.addr)
        } else {
            format!("{}{path}", self.base())
        };
        let req = Request::post(url)
            .header("content-type", "application/json")
            .header(
                "authorization",
                "Bearer sk-proj-SECRETKEY0123456789abcdefghij",
            )
            .header("x-api-key", "sk-ant-api03-SECRETKEY0123456789abcdef")
            .header("openai-organization", "org-secret-organisation")
            .body(Full::new(Bytes::from(body.to_string())))
            .unwrap();
        self.client.request(req).await.unwrap()
    }

    /// Sends and reads the whole answer.
    pub async fn call(&self, path: &str, body: &Value) -> (u16, Bytes) {
        let r = self.send(path, body, false).await;
        let status = r.status().as_u16();
        (status, r.into_body().collect().await.unwrap().to_bytes())
    }

    /// The upstream's own answer to the same request (what the agent must get unchanged).
    pub async fn direct(&self, path: &str, body: &Value) -> (u16, Bytes) {
        let r = self.send(path, body, true).await;
        let status = r.status().as_u16();
        (status, r.into_body().collect().await.unwrap().to_bytes())
    }

    /// Stops the proxy (calls in flight finish and are recorded).
    pub async fn stop(&mut self) {
        if let Some(p) = self.proxy.take() {
            p.stop().await;
        }
    }

    pub fn text(&self) -> String {
        std::fs::read_to_string(&self.out).unwrap()
    }

    /// The records written so far, each line parsed (fails on a partial line).
    pub fn records(&self) -> Vec<Value> {
        let text = self.text();
        assert!(text.is_empty() || text.ends_with('\n'), "whole lines only");
        text.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    pub fn kinds(&self) -> Vec<String> {
        self.records()
            .iter()
            .map(|r| r["kind"].as_str().unwrap().to_string())
            .collect()
    }
}

/// Waits until `f` holds (for work that finishes after the answer, like stream records).
pub async fn eventually(what: &str, mut f: impl FnMut() -> bool) {
    for _ in 0..400 {
        if f() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("timed out waiting for {what}");
}
