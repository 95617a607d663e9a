//! The body of the `perturb` fuzz target (`fuzz/fuzz_targets/perturb.rs`), kept in the library
//! so the fuzzer and the corpus-replay test run exactly the same code (docs/fuzzing.md). It
//! panics only when an invariant breaks.

use crate::{perturb, FileKind, Operator, PerturbOutcome};

/// The file kinds the fuzzer picks from.
const KINDS: [FileKind; 3] = [FileKind::Delimited, FileKind::JsonRows, FileKind::Text];

/// Any bytes as (kind, operator, seed, content): the first byte picks the file kind and the
/// operator, the next four the seed, the rest (when UTF-8) is the content. Every operator of the
/// kind must return (an error for unreadable content is fine), give the same result twice, skip
/// only for traxr's reasons (a text under 10 characters, a table without a data row, a JSON
/// array without a key), and
/// `null_content` must give the empty string.
pub fn perturb_any(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Some((seed, content)) = rest.split_first_chunk::<4>() else {
        return;
    };
    let Ok(content) = std::str::from_utf8(content) else {
        return;
    };
    let kind = KINDS[usize::from(pick) % KINDS.len()];
    let operators = kind.operators();
    let operator = operators[usize::from(pick / 3) % operators.len()];
    let seed = u32::from_le_bytes(*seed);
    let first = perturb(content, kind, operator, seed);
    let again = perturb(content, kind, operator, seed);
    assert_eq!(first, again, "{} is not deterministic", operator.name());
    if let Ok(PerturbOutcome::Skipped(reason)) = &first {
        let expected: &[&str] = match kind {
            FileKind::Text => &[crate::text::INSUFFICIENT_CONTENT],
            FileKind::Delimited => &[crate::tabular::INSUFFICIENT_DATA],
            FileKind::JsonRows => &[
                crate::tabular::INSUFFICIENT_DATA,
                crate::tabular::JSON_NOT_TABULAR,
            ],
        };
        assert!(
            expected.contains(&reason.as_str()),
            "{} skipped: {reason}",
            operator.name()
        );
    }
    if operator == Operator::NullContent {
        assert_eq!(first, Ok(PerturbOutcome::Applied(String::new())));
    }
}

#[cfg(test)]
mod tests {
    /// The committed corpus and crash regressions, through the fuzz body
    /// (`veer_trace::fuzzing::replay_corpus`, shared by every crate's replay test).
    #[test]
    fn corpus_replays() {
        veer_trace::fuzzing::replay_corpus("perturb", 20, super::perturb_any);
    }
}
