//! The one integration-test binary: drives the `veer` executable on fixtures and snapshots its
//! output with insta. One module per command.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod action;
mod bad_input;
mod bad_inputs;
mod baseline;
mod bisect;
mod common;
mod config;
mod corpus;
mod diff;
mod diff_policy;
mod enforcement;
mod experiment;
mod experiment_run;
mod fingerprint;
mod formats_more;
mod formats_otel;
mod gate_typed;
mod gitlab;
mod golden;
mod history;
mod history_browser;
mod history_drift;
mod history_export;
mod hostile;
mod html;
mod inspect;
mod inspect_ai;
mod limits;
mod long_traces;
mod near_singular;
mod no_network;
mod output_safety;
mod pairing;
mod perturb;
mod policy;
mod quarantine;
mod record;
mod redaction_layout;
mod scan;
mod secrets_in_messages;
mod trials;
mod trials_outcome;
mod trials_quarantine;
mod unreadable;
