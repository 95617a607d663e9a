//! Shadow's `.agentlog` format: streaming reader, strict checks, writer.

pub mod envelope;
pub mod lines;
pub mod reader;
pub mod strict;
pub mod writer;
