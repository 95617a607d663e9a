//! veer's engine: the only code that composes measures into reports and decides the verdict.
//!
//! Every front end (the `veer` binary, the Python package, the Spark job, the experiment
//! runner) asks this crate, so a report says the same thing and the gate trips on the same
//! evidence wherever it is computed. Measures (`veer-diff`, `veer-experiment`, `veer-policy`,
//! `veer-perturb`, `veer-trials`) stay pure and independent; printers (`veer-report`) only
//! format what this crate decides. The binary and the Python package depend on no measure crate:
//! they call the functions here and name the option and input types re-exported by
//! [`options`], [`policy`], [`perturb`] and [`experiment`] (report types are `veer-contract`'s).
//! See docs/architecture.md.

pub mod baseline;
pub mod bisect;
pub mod check;
pub mod diff;
pub mod directory;
pub mod error;
pub mod experiment;
pub mod inspect;
pub mod mine;
pub mod options;
pub mod perturb;
pub mod policy;
pub mod quarantine;
pub mod redact;
pub mod run;
pub mod suggest;
pub mod trials;
pub mod verdict;

pub use error::{Error, ErrorKind};
pub use options::DiffOptions;
pub use run::{regate, run, Outcome, Request};
