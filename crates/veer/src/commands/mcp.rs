//! `veer mcp`: starts veer's MCP server on stdin and stdout (crates/veer-mcp) and returns when
//! the client disconnects. The server builds its own runtime, so the binary stays synchronous.

use crate::cli::McpArgs;
use crate::error::{CliError, Exit};

/// Runs `veer mcp`.
pub fn run(_args: &McpArgs) -> Result<Exit, CliError> {
    veer_mcp::serve_stdio()?;
    Ok(Exit::done())
}
