//! `veer mcp`: veer's checks as Model Context Protocol tools over stdio — `diff`, `check`,
//! `inspect`, `explain` and `policy_validate` — for an AI assistant or editor that speaks MCP
//! (docs/mcp.md). A front end like the binary: each tool calls the veer-engine entry point the
//! matching command calls and answers with the document its `--format json` writes, plus a
//! short summary from veer-report's printers; it depends on no measure.
//!
//! Async code lives here and in veer-record only: the server runs on a tokio runtime that
//! [`serve_stdio`] builds and blocks on, so the binary stays synchronous, and each tool's work
//! runs on a blocking thread. Stdout carries the protocol and nothing else.

mod answer;
mod input;
mod server;
mod tools;

pub use server::VeerServer;

use rmcp::ServiceExt as _;
use veer_engine::{Error, ErrorKind};

/// Serves veer's tools on stdin/stdout until the client closes the connection (or stdin
/// ends); blocks the calling thread. An error here is the transport's (stdio closed before
/// the handshake, a runtime that cannot start), never a tool's: a tool's error is its result.
pub fn serve_stdio() -> Result<(), Error> {
    let failed = |what: &str, e: &dyn std::fmt::Display| {
        Error::new(ErrorKind::Output, format!("veer mcp: {what}: {e}"))
            .hint("veer mcp is started by an MCP client, which talks to it on stdin and stdout")
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| failed("cannot start the runtime", &e))?;
    runtime.block_on(async {
        let service = VeerServer::new()
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| failed("the client's handshake failed", &e))?;
        service
            .waiting()
            .await
            .map_err(|e| failed("the connection ended with an error", &e))?;
        Ok(())
    })
}
