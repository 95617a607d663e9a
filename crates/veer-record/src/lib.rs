//! `veer record`: a local HTTP proxy that speaks the OpenAI and Anthropic APIs, forwards every
//! request to the real provider, gives the agent the provider's answer unchanged (streams chunk
//! by chunk) and records each model call as `.agentlog` records — with a behaviour policy
//! optionally enforced live. Any agent in any language is recorded by pointing its SDK's base
//! URL at the proxy; no code change.
//!
//! Async stays inside this crate: [`runner::serve`] and [`runner::run_command`] build their own
//! runtime and block. Layout: `api` (routing and the per-endpoint differences), one mapping
//! per endpoint (`openai_chat`, `openai_responses`, `anthropic`) built on [`payload`],
//! `sse` (event framing), `journal` (records, order, live policy), [`proxy`] (one request
//! end to end), [`body`], [`upstream`] (the HTTPS client), `server`, `runner`.

#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

pub(crate) mod agent;
pub(crate) mod anthropic;
pub(crate) mod api;
pub mod body;
#[doc(hidden)]
pub mod fuzzing;
pub(crate) mod journal;
pub(crate) mod openai_chat;
pub(crate) mod openai_responses;
pub mod payload;
pub mod proxy;
pub mod replay;
pub(crate) mod runner;
pub(crate) mod server;
pub(crate) mod sse;
pub mod upstream;

pub use agent::{run_agent, AgentExit, AgentRun, Recording};
pub use journal::{CallOutcome, Identity, Journal, ProxyDecision, RecordingSummary};
pub use proxy::{Notify, ProxySettings};
pub use runner::{run_command, serve, RunError};
pub use server::Server;
