//! Shadow's `.agentlog` format: streaming reader, strict checks, writer.

mod batch;
pub(crate) mod envelope;
pub mod lines;
pub mod reader;
#[cfg(test)]
mod reader_tests;
pub(crate) mod strict;
pub mod writer;
