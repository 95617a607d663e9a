//! Tabular operators (spec `experiment.md` §13.2). Being written.

use crate::{Operator, Outcome, PerturbError, PerturbRng};

/// Applies a tabular `operator` to `content` (`json`: an array of objects, else delimited).
pub fn apply(
    content: &str,
    json: bool,
    operator: Operator,
    rng: &mut PerturbRng,
) -> Result<Outcome, PerturbError> {
    let _ = (content, json, operator, rng);
    Err(PerturbError::BadInput("not written yet".into()))
}
