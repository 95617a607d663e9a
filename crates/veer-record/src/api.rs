//! The recorded endpoints and what differs between them: which upstream a path goes to, how
//! its bodies map into the record, and the shapes of the answers the proxy makes itself.

use crate::payload::RequestRecord;
use crate::sse::SseEvent;
use crate::{anthropic, openai_chat, openai_responses};
use serde_json::{Map, Value};

/// Which provider an agent's request is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    /// OpenAI (and OpenAI-compatible servers).
    OpenAi,
    /// Anthropic.
    Anthropic,
    /// Azure OpenAI (`AZURE_OPENAI_ENDPOINT`): OpenAI's bodies under Azure's paths.
    Azure,
}

/// A recorded endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Api {
    /// OpenAI `POST /v1/chat/completions`.
    ChatCompletions,
    /// OpenAI `POST /v1/responses`.
    Responses,
    /// Anthropic `POST /v1/messages`.
    Messages,
}

/// Where a request goes: the provider, the path to ask the upstream for (the prefix the agent
/// used stripped), and the recorded endpoint if it is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Route {
    /// The upstream to forward to.
    pub provider: Provider,
    /// The path and query below the upstream's base URL, e.g. `/chat/completions?x=1` for
    /// OpenAI (base `…/v1`) or `/v1/messages` for Anthropic (base without `/v1`).
    pub upstream_path: String,
    /// The recorded endpoint, `None` for any other path (forwarded, not recorded).
    pub api: Option<Api>,
}

/// Routes a request. The proxy serves OpenAI under `/openai/v1` (also plain `/v1`) and
/// Anthropic under `/anthropic/v1`; `/v1/messages` without a prefix goes to Anthropic.
/// Azure OpenAI is served under `/azure` (the agent's `AZURE_OPENAI_ENDPOINT`): the path
/// below it is Azure's own (`/openai/deployments/{deployment}/chat/completions`,
/// `/openai/v1/responses`, …) and goes to the Azure endpoint unchanged, query included.
/// `None` when the path is under none of them.
pub fn route(method: &str, path_and_query: &str) -> Option<Route> {
    let (path, query) = match path_and_query.find('?') {
        Some(i) => (&path_and_query[..i], &path_and_query[i..]),
        None => (path_and_query, ""),
    };
    if let Some(rest) = path.strip_prefix("/azure") {
        if !(rest.is_empty() || rest.starts_with('/')) {
            return None;
        }
        return Some(Route {
            provider: Provider::Azure,
            upstream_path: format!("{rest}{query}"),
            api: if method == "POST" {
                azure_api(rest)
            } else {
                None
            },
        });
    }
    let (provider, rest) = if let Some(rest) = path.strip_prefix("/openai/v1") {
        (Provider::OpenAi, rest)
    } else if let Some(rest) = path.strip_prefix("/anthropic/v1") {
        (Provider::Anthropic, rest)
    } else if let Some(rest) = path.strip_prefix("/v1") {
        if rest == "/messages" || rest.starts_with("/messages/") {
            (Provider::Anthropic, rest)
        } else {
            (Provider::OpenAi, rest)
        }
    } else {
        return None;
    };
    if !(rest.is_empty() || rest.starts_with('/')) {
        return None;
    }
    let api = match (method, provider, rest) {
        ("POST", Provider::OpenAi, "/chat/completions") => Some(Api::ChatCompletions),
        ("POST", Provider::OpenAi, "/responses") => Some(Api::Responses),
        ("POST", Provider::Anthropic, "/messages") => Some(Api::Messages),
        _ => None,
    };
    // Upstreams are given as the SDKs' base URLs: OpenAI's ends in `/v1`, Anthropic's does not.
    let version = match provider {
        Provider::OpenAi | Provider::Azure => "",
        Provider::Anthropic => "/v1",
    };
    Some(Route {
        provider,
        upstream_path: format!("{version}{rest}{query}"),
        api,
    })
}

/// The recorded endpoint of an Azure OpenAI path (below the endpoint): a deployment's
/// `/chat/completions` or `/responses`, or the same under `/openai/v1` or `/openai`.
fn azure_api(rest: &str) -> Option<Api> {
    let tail = match rest.strip_prefix("/openai/deployments/") {
        Some(r) => r.split_once('/').map(|(_, t)| t)?,
        None => rest
            .strip_prefix("/openai/v1/")
            .or_else(|| rest.strip_prefix("/openai/"))?,
    };
    match tail {
        "chat/completions" => Some(Api::ChatCompletions),
        "responses" => Some(Api::Responses),
        _ => None,
    }
}

/// A stream reassembler for one endpoint.
#[derive(Debug)]
pub(crate) enum Assembler {
    /// Chat Completions chunks.
    Chat(openai_chat::Assembler),
    /// Responses events.
    Responses(openai_responses::Assembler),
    /// Messages events.
    Messages(anthropic::Assembler),
}

impl Assembler {
    /// Takes one event.
    pub fn event(&mut self, ev: &SseEvent) -> Result<(), String> {
        match self {
            Assembler::Chat(a) => a.event(ev),
            Assembler::Responses(a) => a.event(ev),
            Assembler::Messages(a) => a.event(ev),
        }
    }

    /// The response record, or why the stream was malformed.
    pub fn finish(self) -> Result<Value, String> {
        match self {
            Assembler::Chat(a) => a.finish(),
            Assembler::Responses(a) => a.finish(),
            Assembler::Messages(a) => a.finish(),
        }
    }
}

impl Api {
    /// The endpoint's provider.
    pub fn provider(self) -> Provider {
        match self {
            Api::ChatCompletions | Api::Responses => Provider::OpenAi,
            Api::Messages => Provider::Anthropic,
        }
    }

    /// The request record of a body, naming this endpoint.
    pub fn request(self, body: &Map<String, Value>) -> RequestRecord {
        let mut r = match self {
            Api::ChatCompletions => openai_chat::request(body),
            Api::Responses => openai_responses::request(body),
            Api::Messages => anthropic::request(body),
        };
        r.endpoint = Some(self.name());
        r
    }

    /// The endpoint's name in records and reports.
    pub fn name(self) -> &'static str {
        match self {
            Api::ChatCompletions => "openai.chat_completions",
            Api::Responses => "openai.responses",
            Api::Messages => "anthropic.messages",
        }
    }

    /// The endpoint of a name [`Api::name`] gives.
    pub fn from_name(name: &str) -> Option<Api> {
        [Api::ChatCompletions, Api::Responses, Api::Messages]
            .into_iter()
            .find(|a| a.name() == name)
    }

    /// The response record of a whole (non-streamed) body.
    pub fn response(self, body: &Value) -> Value {
        match self {
            Api::ChatCompletions => openai_chat::response(body),
            Api::Responses => openai_responses::response(body),
            Api::Messages => anthropic::response(body),
        }
    }

    /// A fresh stream reassembler.
    pub(crate) fn assembler(self) -> Assembler {
        match self {
            Api::ChatCompletions => Assembler::Chat(Default::default()),
            Api::Responses => Assembler::Responses(Default::default()),
            Api::Messages => Assembler::Messages(Default::default()),
        }
    }

    /// A body carrying `text` as the model's answer, whole or as a stream.
    pub fn replacement(self, model: &str, text: &str, stream: bool) -> Vec<u8> {
        if stream {
            return match self {
                Api::ChatCompletions => openai_chat::replacement_stream(model, text),
                Api::Responses => openai_responses::replacement_stream(model, text),
                Api::Messages => anthropic::replacement_stream(model, text),
            };
        }
        let body = match self {
            Api::ChatCompletions => openai_chat::replacement_body(model, text),
            Api::Responses => openai_responses::replacement_body(model, text),
            Api::Messages => anthropic::replacement_body(model, text),
        };
        body.to_string().into_bytes()
    }
}

impl Provider {
    /// An error body in the provider's shape, which its SDK turns into an exception.
    pub(crate) fn error_body(self, kind: &str, message: &str) -> Vec<u8> {
        let v = match self {
            Provider::OpenAi | Provider::Azure => openai_chat::error_body(kind, message),
            Provider::Anthropic => anthropic::error_body(kind, message),
        };
        v.to_string().into_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes() {
        let r = route("POST", "/v1/chat/completions").unwrap();
        assert_eq!(
            (r.provider, r.api, r.upstream_path.as_str()),
            (
                Provider::OpenAi,
                Some(Api::ChatCompletions),
                "/chat/completions"
            )
        );
        let r = route("POST", "/anthropic/v1/messages?beta=true").unwrap();
        assert_eq!(
            (r.provider, r.api, r.upstream_path.as_str()),
            (
                Provider::Anthropic,
                Some(Api::Messages),
                "/v1/messages?beta=true"
            )
        );
        assert_eq!(
            route("POST", "/v1/messages").unwrap().provider,
            Provider::Anthropic
        );
        let r = route(
            "POST",
            "/azure/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21",
        )
        .unwrap();
        assert_eq!(
            (r.provider, r.api, r.upstream_path.as_str()),
            (
                Provider::Azure,
                Some(Api::ChatCompletions),
                "/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21"
            )
        );
        assert_eq!(
            route("POST", "/azure/openai/v1/responses").unwrap().api,
            Some(Api::Responses)
        );
        assert_eq!(route("GET", "/azure/openai/models").unwrap().api, None);
        assert!(route("POST", "/azurex/openai/v1/responses").is_none());
        let r = route("GET", "/openai/v1/models").unwrap();
        assert_eq!((r.api, r.upstream_path.as_str()), (None, "/models"));
        assert_eq!(
            route("POST", "/v1/messages/count_tokens").unwrap().api,
            None
        );
        assert!(route("GET", "/").is_none());
        assert!(route("GET", "/v1x").is_none());
    }
}
