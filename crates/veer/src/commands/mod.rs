//! One module per subcommand: read inputs, call measures, pick a printer.

pub mod baseline;
pub mod bisect;
pub mod check;
pub mod config;
pub mod convert;
pub mod demo;
pub mod diff;
pub mod eval;
pub mod experiment;
pub mod experiment_run;
pub mod experiment_run_agent;
pub mod gate;
pub mod history;
pub mod history_drift;
pub mod init;
pub mod inspect;
pub mod inspect_log;
pub mod mcp;
pub mod mine;
pub mod perturb;
pub mod plan;
pub mod policy;
pub mod provenance;
pub mod quarantine;
pub mod record;
pub mod replay;
pub mod scan;
pub mod schema;
pub mod synth;
pub mod upstream;

#[cfg(test)]
mod roundtrip_tests;
