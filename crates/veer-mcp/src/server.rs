//! The MCP server: five tools, each a thin async shell that runs its synchronous work
//! ([`crate::tools`]) on a blocking thread and turns the outcome into a result
//! ([`crate::answer`]). Input schemas come from the input types ([`crate::input`]); output
//! schemas from the report types in veer-contract, the same types `veer schema` publishes.

use crate::answer;
use crate::input::{CheckInput, DiffInput, ExplainInput, InspectInput, PolicyValidateInput};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::schema_for_output;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, JsonObject, ServerCapabilities, ServerConfig,
};
use rmcp::{tool, tool_handler, tool_router, ServerHandler};
use std::sync::Arc;
use veer_contract::check::CheckDocument;
use veer_contract::diff::{DiffReport, DirectoryDiffDocument};
use veer_contract::inspect::InspectDocument;
use veer_contract::policy_validation::PolicyValidation;
use veer_contract::trials::TrialsReport;

/// What the `diff` tool returns: the document `veer diff --format json` writes for the inputs
/// given (only its schema is used here).
#[derive(schemars::JsonSchema)]
#[schemars(untagged)]
#[allow(dead_code)]
enum DiffDocument {
    /// Two trace files.
    Pair(Box<DiffReport>),
    /// Two directories, paired by path.
    Directory(Box<DirectoryDiffDocument>),
    /// Cases with repeated trials.
    Trials(Box<TrialsReport>),
}

/// The `diff` tool's output schema: any of its three documents, each an object (said at the
/// root too: a client of an older protocol version drops an output schema that does not).
fn diff_output_schema() -> Arc<JsonObject> {
    let mut schema = (*schema_for_output::<DiffDocument>()).clone();
    schema.insert("type".into(), serde_json::Value::String("object".into()));
    Arc::new(schema)
}

/// What the server tells a client on connecting.
const INSTRUCTIONS: &str = "veer compares AI-agent traces. `diff` says what changed between a \
baseline and a candidate run (trace files or directories) and where it first changed; `explain` \
puts a diff in a few sentences; `check` finds a policy's violations in traces; `inspect` lists a \
trace's turns; `policy_validate` checks a policy file. Inputs are paths on this machine; \
relative paths resolve against the directory the server was started in. A tripped gate is not \
an error: the report's verdict says it tripped.";

/// veer's MCP server.
#[derive(Debug, Clone)]
pub struct VeerServer {
    tool_router: ToolRouter<Self>,
}

impl Default for VeerServer {
    fn default() -> Self {
        Self::new()
    }
}

/// Runs `work` on a blocking thread: a panic in it becomes an error result, never the end of
/// the server.
async fn blocking<I, F>(input: I, work: F) -> CallToolResult
where
    I: Send + 'static,
    F: FnOnce(&I) -> Result<crate::tools::ToolAnswer, veer_engine::Error> + Send + 'static,
{
    match tokio::task::spawn_blocking(move || work(&input)).await {
        Ok(run) => answer::result(run),
        Err(e) => CallToolResult::error(vec![ContentBlock::text(format!(
            "error: veer stopped on an internal error: {e}\nhint: report this as a bug\n"
        ))]),
    }
}

#[tool_router]
impl VeerServer {
    /// A server with the five tools.
    pub fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }

    /// `veer diff`.
    #[tool(
        name = "diff",
        description = "What changed in an agent's behaviour between a baseline and a candidate run: per-axis changes with intervals, the first divergence, policy regressions and the gate's verdict. Takes two trace files, two Inspect AI logs or two directories of traces. The structured content is the report `veer diff --format json` writes.",
        output_schema = diff_output_schema(),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn diff(&self, Parameters(input): Parameters<DiffInput>) -> CallToolResult {
        blocking(input, crate::tools::diff).await
    }

    /// `veer check`.
    #[tool(
        name = "check",
        description = "A policy's violations on one trace or on every trace of a directory, and whether they trip the gate (default: severe). The structured content is the report `veer check --format json` writes.",
        output_schema = schema_for_output::<CheckDocument>(),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn check(&self, Parameters(input): Parameters<CheckInput>) -> CallToolResult {
        blocking(input, crate::tools::check).await
    }

    /// `veer inspect`.
    #[tool(
        name = "inspect",
        description = "One row per turn of a trace (or of every trace in a directory): model, tool calls, token counts, latency, stop reason, text. The structured content is the document `veer inspect --format json` writes.",
        output_schema = schema_for_output::<InspectDocument>(),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn inspect(&self, Parameters(input): Parameters<InspectInput>) -> CallToolResult {
        blocking(input, crate::tools::inspect).await
    }

    /// A diff in words.
    #[tool(
        name = "explain",
        description = "A diff of two trace files in a few sentences: the verdict's headline, the first divergence (which turns, what changed) and the axes that moved most. Give a saved report (`veer diff --format json`), or baseline and candidate to diff now. Text only.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn explain(&self, Parameters(input): Parameters<ExplainInput>) -> CallToolResult {
        blocking(input, crate::tools::explain).await
    }

    /// `veer policy validate`.
    #[tool(
        name = "policy_validate",
        description = "Whether a policy file loads (every problem named with its line and a hint) and, with traces given in `against`, whether every rule can fire on them.",
        output_schema = schema_for_output::<PolicyValidation>(),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn policy_validate(
        &self,
        Parameters(input): Parameters<PolicyValidateInput>,
    ) -> CallToolResult {
        blocking(input, crate::tools::policy_validate).await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for VeerServer {
    fn get_info(&self) -> ServerConfig {
        let mut config = ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_instructions(INSTRUCTIONS);
        config.server_info = Implementation::new("veer", env!("CARGO_PKG_VERSION"));
        config
    }
}

/// The tools the server lists (for the unit tests).
#[cfg(test)]
fn tools() -> Vec<rmcp::model::Tool> {
    VeerServer::new().tool_router.list_all()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn five_tools_each_with_an_object_input_schema() {
        let tools = tools();
        let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        names.sort_unstable();
        assert_eq!(
            names,
            ["check", "diff", "explain", "inspect", "policy_validate"]
        );
        for t in &tools {
            assert_eq!(
                t.input_schema.get("type"),
                Some(&serde_json::json!("object")),
                "{}",
                t.name
            );
            assert!(t.description.is_some(), "{}", t.name);
        }
    }

    #[test]
    fn the_report_tools_publish_their_documents_schemas() {
        let tools = tools();
        let schema = |name: &str| {
            let t = tools.iter().find(|t| t.name == name).unwrap();
            t.output_schema
                .as_ref()
                .map(|s| serde_json::Value::Object((**s).clone()))
        };
        let diff = schema("diff").unwrap();
        assert_eq!(diff["anyOf"].as_array().unwrap().len(), 3, "{diff}");
        // Every output schema says it is an object: older clients drop the others.
        for t in &tools {
            if let Some(s) = &t.output_schema {
                assert_eq!(
                    s.get("type"),
                    Some(&serde_json::json!("object")),
                    "{}",
                    t.name
                );
            }
        }
        let check = schema("check").unwrap();
        assert!(check["properties"]["gate"].is_object(), "{check}");
        let inspect = schema("inspect").unwrap();
        assert!(inspect["properties"]["traces"].is_object(), "{inspect}");
        let policy = schema("policy_validate").unwrap();
        assert!(policy["properties"]["rules"].is_object(), "{policy}");
        assert!(schema("explain").is_none());
    }
}
