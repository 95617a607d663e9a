//! The identity of a trace format: which reader a trace came from (`.agentlog`, traxr,
//! OpenTelemetry, …), with the short name reports print and the description messages list.
//! It lives here, below the trace model and the output contract, so a report type (`veer
//! inspect`'s document) can name a trace's format without depending on the readers. Every
//! crate names it by this one path, `veer_base::format::Format`.

/// The source format a trace was read from (the format `veer-trace`'s detection named).
/// Serialised as [`Format::name`].
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub enum Format {
    /// Shadow's `.agentlog` JSON Lines (optionally gzip-compressed).
    #[serde(rename = "agentlog")]
    Agentlog,
    /// traxr trace JSON (a bare trace, or one run of a results / analyzer-case file).
    #[serde(rename = "traxr")]
    Traxr,
    /// OpenTelemetry spans as OTLP/JSON (GenAI conventions, OpenLLMetry, OpenInference).
    #[serde(rename = "otel")]
    Otel,
    /// OpenAI Agents SDK trace / span exports.
    #[serde(rename = "openai-agents")]
    AgentsSdk,
    /// Claude Code session log.
    #[serde(rename = "claude-code")]
    ClaudeCode,
    /// Langfuse trace export.
    #[serde(rename = "langfuse")]
    Langfuse,
    /// LangSmith run export.
    #[serde(rename = "langsmith")]
    Langsmith,
    /// MCP JSON-RPC session log.
    #[serde(rename = "mcp")]
    Mcp,
    /// Inspect AI eval log (`.eval` zip or `.json`): one trace per sample and epoch.
    #[serde(rename = "inspect-ai")]
    Inspect,
    /// Codex CLI session rollout.
    #[serde(rename = "codex")]
    Codex,
    /// OpenAI Evals run log (`oaieval --record_path`, JSON Lines): one session per sample.
    #[serde(rename = "openai-evals")]
    OpenaiEvals,
}

impl Format {
    /// Every format veer reads, in the order messages list them.
    pub const LISTED: [Format; 11] = [
        Format::Agentlog,
        Format::Traxr,
        Format::Otel,
        Format::AgentsSdk,
        Format::ClaudeCode,
        Format::Langfuse,
        Format::Langsmith,
        Format::Mcp,
        Format::Inspect,
        Format::Codex,
        Format::OpenaiEvals,
    ];

    /// The short name reports and `veer inspect` use (`agentlog`, `traxr`, `otel`,
    /// `openai-agents`, `claude-code`, `langfuse`, `langsmith`, `mcp`, `inspect-ai`, `codex`,
    /// `openai-evals`).
    pub fn name(self) -> &'static str {
        match self {
            Format::Agentlog => "agentlog",
            Format::Traxr => "traxr",
            Format::Otel => "otel",
            Format::AgentsSdk => "openai-agents",
            Format::ClaudeCode => "claude-code",
            Format::Langfuse => "langfuse",
            Format::Langsmith => "langsmith",
            Format::Mcp => "mcp",
            Format::Inspect => "inspect-ai",
            Format::Codex => "codex",
            Format::OpenaiEvals => "openai-evals",
        }
    }

    /// What the format is, for messages listing the formats veer reads.
    pub fn description(self) -> &'static str {
        match self {
            Format::Agentlog => "Shadow .agentlog JSON Lines, optionally gzip-compressed",
            Format::Traxr => "traxr trace, results or analyzer-case JSON",
            Format::Otel => {
                "OpenTelemetry spans as OTLP/JSON with GenAI, OpenLLMetry or OpenInference attributes"
            }
            Format::AgentsSdk => "OpenAI Agents SDK trace and span export (JSON or JSON Lines)",
            Format::ClaudeCode => "Claude Code session log (JSON Lines)",
            Format::Langfuse => "Langfuse trace export (JSON)",
            Format::Langsmith => "LangSmith run export (JSON or JSON Lines)",
            Format::Mcp => "MCP JSON-RPC session log (JSON Lines)",
            Format::Inspect => {
                "Inspect AI eval log (.eval zip or JSON), one trace per sample and epoch"
            }
            Format::Codex => "Codex CLI session rollout (JSON Lines)",
            Format::OpenaiEvals => "OpenAI Evals run log (JSON Lines), one session per sample",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_serialises_as_its_name() {
        for f in Format::LISTED {
            let json = serde_json::to_string(&f).unwrap();
            assert_eq!(json, format!("\"{}\"", f.name()));
            let back: Format = serde_json::from_str(&json).unwrap();
            assert_eq!(back, f);
            assert!(!f.description().is_empty());
        }
    }
}
