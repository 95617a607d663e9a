//! Text operators (spec `experiment.md` §13.3). Being written.

use crate::{Operator, Outcome, PerturbRng};

/// Applies a text `operator` to `content`.
pub fn apply(content: &str, operator: Operator, rng: &mut PerturbRng) -> Outcome {
    let _ = (content, operator, rng);
    Outcome::Skipped("not written yet".into())
}
