//! veer's output contract: the types every report is made of, as plain data with
//! `Serialize + Deserialize` and a JSON Schema (`veer schema NAME`). The measures fill them,
//! `veer-engine` composes them into whole reports and decides the verdict, and the printers in
//! `veer-report` render them — so a printer never needs a measure crate, and no measure needs
//! another for a type. Nothing here measures, reads files or prints.

pub mod axis;
pub mod baseline;
pub mod diff;
pub mod divergence;
pub mod fingerprint;
pub mod lanes;
pub mod policy;
pub mod policy_validation;
pub mod quarantine;
pub mod recommend;
pub mod replay;
pub mod report;

pub mod bisect;
pub mod check;
pub mod config;
pub mod eval;
pub mod experiment;
pub mod gate;
pub mod history;
pub mod inspect;
pub mod mine;
pub mod perturb;
pub mod scan;
pub mod structural;
pub mod suggestion;
pub mod tool_schema;
pub mod trials;
pub mod verdict;
