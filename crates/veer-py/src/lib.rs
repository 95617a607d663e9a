//! veer as a Python import (`import veer`): the diff, the policy check, the perturbation pair,
//! the readers and the corpus summaries, computed by the same library crates as the CLI and
//! returned as the same JSON objects. `api` holds the computations (plain Rust, tested by
//! `cargo test`); `python` the pyo3 bindings, built by maturin with the `python` feature.

pub mod api;
pub mod error;
#[doc(hidden)]
pub mod fuzzing;
#[cfg(feature = "python")]
mod python;

pub use api::{DiffParams, Input};
pub use error::{ApiError, ErrorKind};
