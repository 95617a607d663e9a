//! `clap` definitions of `veer record` and `veer record serve`: the recording proxy's address,
//! output, case name and tags, and the live policy it enforces.

use clap::{Args, Subcommand};
use std::path::PathBuf;

/// `veer record`.
#[derive(Debug, Args)]
pub struct RecordArgs {
    /// `serve`: the proxy alone.
    #[command(subcommand)]
    pub serve: Option<RecordCommand>,
    #[command(flatten)]
    pub proxy: ProxyArgs,
    /// The agent to run, after `--`, e.g. `-- python my_agent.py`.
    #[arg(last = true, required = true, value_name = "CMD")]
    pub command: Vec<std::ffi::OsString>,
}

/// `veer record` subcommands.
#[derive(Debug, Subcommand)]
pub enum RecordCommand {
    /// Run the proxy alone for an agent started elsewhere: prints the base URLs to use and
    /// records until Ctrl-C (SIGINT) or SIGTERM.
    #[command(
        after_help = "Example:\n  veer record serve --port 8089 -o run.agentlog\n  # in another shell:\n  OPENAI_BASE_URL=http://127.0.0.1:8089/openai/v1 python my_agent.py"
    )]
    Serve(ServeArgs),
}

/// `veer record serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Port to listen on (127.0.0.1 only); 0 picks a free one.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub port: u16,
    #[command(flatten)]
    pub proxy: ProxyArgs,
}

/// What `veer record` and `veer record serve` share.
#[derive(Debug, Args)]
pub struct ProxyArgs {
    /// The .agentlog to write: a new (or empty) file, appended one whole call at a time; an
    /// existing non-empty file is never overwritten.
    #[arg(short = 'o', long = "output", value_name = "FILE", required = true)]
    pub output: Option<PathBuf>,
    /// OpenAI upstream base URL (what OPENAI_BASE_URL would be, ending in /v1). Default: the agent's own OPENAI_BASE_URL when set, else https://api.openai.com/v1.
    #[arg(long, value_name = "URL")]
    pub openai_upstream: Option<String>,
    /// Anthropic upstream base URL (what ANTHROPIC_BASE_URL would be). Default: the agent's own ANTHROPIC_BASE_URL when set, else https://api.anthropic.com.
    #[arg(long, value_name = "URL")]
    pub anthropic_upstream: Option<String>,
    /// Azure OpenAI endpoint (what AZURE_OPENAI_ENDPOINT would be, e.g. https://NAME.openai.azure.com). Default: the agent's own AZURE_OPENAI_ENDPOINT when set; without either, Azure is not proxied.
    #[arg(long, value_name = "URL")]
    pub azure_upstream: Option<String>,
    /// A behaviour policy to enforce while the agent runs.
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// What a violation does: warn (pass, warn on stderr), replace (answer with a policy
    /// message in the provider's shape), raise (answer with an HTTP 422 error the SDKs raise).
    #[arg(long, value_enum, default_value_t = Enforce::Warn, requires = "policy")]
    pub enforce: Enforce,
    /// Seconds to wait for the upstream's answer, and at most between two chunks of a stream.
    #[arg(long, value_name = "SECONDS", default_value_t = 600.0)]
    pub timeout: f64,
    /// Largest request body accepted from the agent; larger ones are refused with HTTP 413.
    #[arg(long, value_name = "BYTES", default_value_t = veer_record::proxy::MAX_REQUEST_BYTES)]
    pub max_body_bytes: usize,
    /// Write the recording with secrets found in prompts, answers and tool results (API keys,
    /// tokens, e-mail addresses, …; see docs/secrets.md) replaced by `[REDACTED:<kind>]`. The
    /// agent and the upstream still see the real content; a --policy judges it too.
    #[arg(long)]
    pub redact: bool,
    /// The eval case this recording is a run of, written into the metadata record; `veer diff`
    /// pairs cases by it and compares their trials (docs/trials.md).
    #[arg(long, value_name = "NAME", value_parser = parse_case_name)]
    pub case: Option<String>,
    /// The trial number of this run of the case (written into the metadata record).
    #[arg(long, value_name = "N", requires = "case")]
    pub trial: Option<u64>,
    /// A tag for the metadata record, as KEY=VALUE (repeatable), e.g. --tag branch=main.
    #[arg(long, value_name = "KEY=VALUE", value_parser = parse_tag)]
    pub tag: Vec<(String, String)>,
}

/// `--case`: a non-empty name without control characters.
fn parse_case_name(s: &str) -> Result<String, String> {
    if s.trim().is_empty() || s.chars().any(char::is_control) {
        return Err(
            "must be a non-empty name without control characters, e.g. --case refund-42".into(),
        );
    }
    Ok(s.to_string())
}

/// `--tag KEY=VALUE`: a non-empty key.
fn parse_tag(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.to_string())),
        _ => Err(format!("`{s}` is not KEY=VALUE, e.g. --tag branch=main")),
    }
}

/// `--enforce` modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Enforce {
    /// Pass the answer and print a warning.
    Warn,
    /// Answer with the policy's replacement message.
    Replace,
    /// Answer with an error.
    Raise,
}
