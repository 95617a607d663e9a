//! veer's trace model and its readers and writers.
//!
//! Bytes come in through [`load`] (format detected by content), become one format-neutral
//! [`Trace`] of [`Record`]s, and are seen through typed views ([`views`]) and per-turn
//! [`features`] that every measure shares. Nothing here prints or measures.

pub mod agentlog;
pub mod canonical;
pub(crate) mod envelope_fields;
pub(crate) mod error;
pub mod features;
pub mod formats;
#[doc(hidden)]
pub mod fuzzing;
pub mod json;
pub mod limits;
pub mod load;
pub mod model;
pub mod options;
pub mod strict_json;
pub mod timefmt;
pub mod traxr;
mod traxr_event;
pub(crate) mod traxr_origin;
mod traxr_payload;
mod traxr_read;
pub(crate) mod value_builder;
pub mod views;

#[cfg(test)]
mod conformance_tests;
#[cfg(test)]
mod fuzz_replay_tests;
#[cfg(test)]
mod proptests;

pub use envelope_fields::{RecordId, Timestamp, Version};
pub use error::{TraceError, Warning};
pub use json::Json;
pub use load::{load_bytes, load_directory, load_file, load_trace, Document};
pub use model::{Kind, Record, Trace, TraxrOrigin};
pub use options::ReadOptions;
