//! The `veer experiment perturb --format json` document: each operator applied to the input,
//! its seed, whether it applied and the file it wrote.

use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// Version of the summary's JSON document: "2" since it is a string like every other
/// document's (version 1 was the integer 1).
pub const PERTURB_SCHEMA_VERSION: &str = "2";

/// What `veer experiment perturb` did, as printed (`--format json`). One shape for one operator and for
/// `--all`.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Summary {
    /// JSON schema version ([`PERTURB_SCHEMA_VERSION`]).
    pub schema_version: Cow<'static, str>,
    /// The input file, as given.
    pub file: String,
    /// The seed every operator's own seed is derived from.
    pub base_seed: u64,
    /// Size of the input, in bytes.
    pub bytes_in: usize,
    /// One entry per operator applied, in matrix order.
    pub perturbations: Vec<Applied>,
}

/// One operator's result.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(transform = applied_schema)]
pub struct Applied {
    /// The operator's name.
    pub operator: Cow<'static, str>,
    /// The operator's own seed, in `0..2^32`.
    pub seed: u32,
    /// `applied` or `skipped`.
    pub status: Cow<'static, str>,
    /// Why the operator did not apply (`null` when applied).
    pub reason: Option<String>,
    /// The file written (`null` when skipped).
    pub out: Option<String>,
    /// Size of the perturbed copy (`null` when skipped).
    pub bytes_out: Option<usize>,
    /// Set when the operator applied but its copy equals the input byte for byte (traxr
    /// counts such an operator as applied: one column to swap, no numeric column, fewer than 3
    /// paragraphs, …); `null` otherwise.
    pub note: Option<Cow<'static, str>>,
}

/// What the field types cannot say: `status` is `applied` or `skipped`; a skipped operator
/// wrote no file (`out` and `bytes_out` null), an applied one has no `reason`.
fn applied_schema(schema: &mut schemars::Schema) {
    if let Some(status) = schema
        .get_mut("properties")
        .and_then(|p| p.get_mut("status"))
        .and_then(|s| s.as_object_mut())
    {
        status.insert("enum".into(), serde_json::json!(["applied", "skipped"]));
    }
    schema.insert(
        "if".into(),
        serde_json::json!({"properties": {"status": {"const": "skipped"}}}),
    );
    schema.insert(
        "then".into(),
        serde_json::json!({"properties": {"out": {"type": "null"}, "bytes_out": {"type": "null"}}}),
    );
    schema.insert(
        "else".into(),
        serde_json::json!({"properties": {"reason": {"type": "null"}}}),
    );
}
