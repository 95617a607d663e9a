//! `veer experiment perturb` composed: one operator applied to one input file's text with the
//! seed the spec derives from (base seed, file name, operator) — experiment.md §11.1. The
//! binary names the operators, the file kinds and the outcome through this module, so it does
//! not depend on `veer-perturb`.

/// The operators, the file kinds they apply to, an application's outcome (the perturbed text,
/// or the reason it was skipped), its error, and the default base seed (42).
pub use veer_perturb::{FileKind, Operator, PerturbError, PerturbOutcome, DEFAULT_BASE_SEED};

/// Applies `operator` to `content` (the text of the file named `file_name`, of `kind`) with
/// the seed derived from (`base_seed`, `file_name`, the operator's name). Returns that seed
/// (in `0..2^32`) and the outcome. Work is linear in the content's length.
pub fn apply(
    content: &str,
    kind: FileKind,
    operator: Operator,
    base_seed: u64,
    file_name: &str,
) -> Result<(u32, PerturbOutcome), PerturbError> {
    let seed = veer_perturb::derive_seed(base_seed, file_name, operator.name());
    veer_perturb::perturb(content, kind, operator, seed).map(|outcome| (seed, outcome))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apply_uses_the_seed_derived_from_base_file_and_operator() {
        let text = "alpha beta gamma delta epsilon zeta eta theta\n".repeat(20);
        let op = FileKind::Text.operators()[0];
        let (seed, outcome) = apply(&text, FileKind::Text, op, 7, "doc.txt").unwrap();
        assert_eq!(seed, veer_perturb::derive_seed(7, "doc.txt", op.name()));
        let direct = veer_perturb::perturb(&text, FileKind::Text, op, seed).unwrap();
        assert_eq!(format!("{outcome:?}"), format!("{direct:?}"));
        let (other, _) = apply(&text, FileKind::Text, op, 8, "doc.txt").unwrap();
        assert_ne!(seed, other, "the base seed feeds the derived seed");
    }
}
