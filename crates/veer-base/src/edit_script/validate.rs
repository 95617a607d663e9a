//! The one checker of an edit script's validity, shared by the tests of every crate that builds
//! scripts (veer-base's exact and anchored scripts, veer-experiment's budgeted structural
//! script): public, not behind `cfg(test)`, because another crate's tests cannot see a
//! `cfg(test)` item.

use super::{EditOp, EditScript};

/// Checks that `script` is a valid forward alignment of `a` (clean) with `b` (perturbed):
/// every index of each side appears exactly once and in order, a `Match` pairs equal items,
/// the substitution, insertion and deletion counts are the operations' own counts, `distance`
/// is their sum, and the recorded lengths are `a.len()` and `b.len()`.
///
/// Optimality is not checked (the anchored script may be longer than the exact one). Work is
/// one pass over `script.ops`; an index out of range is an error, never a panic.
///
/// # Errors
///
/// The first violation found, as a sentence naming the operation's position in `ops`.
pub fn validate<T: PartialEq>(a: &[T], b: &[T], script: &EditScript) -> Result<(), String> {
    let (mut ni, mut nj) = (0usize, 0usize);
    let (mut subs, mut ins, mut dels) = (0usize, 0usize, 0usize);
    for (k, op) in script.ops.iter().enumerate() {
        match *op {
            EditOp::Match { i, j } | EditOp::Substitution { i, j } => {
                if (i, j) != (ni, nj) {
                    return Err(format!("op {k}: {op:?} where ({ni}, {nj}) comes next"));
                }
                let (Some(x), Some(y)) = (a.get(i), b.get(j)) else {
                    return Err(format!(
                        "op {k}: {op:?} past the ends ({} and {} items)",
                        a.len(),
                        b.len()
                    ));
                };
                if matches!(op, EditOp::Match { .. }) {
                    if x != y {
                        return Err(format!("op {k}: {op:?} matches unequal items"));
                    }
                } else {
                    subs += 1;
                }
                (ni, nj) = (i + 1, j + 1);
            }
            EditOp::Insertion { j } => {
                if j != nj || j >= b.len() {
                    return Err(format!("op {k}: {op:?} where j = {nj} comes next"));
                }
                ins += 1;
                nj += 1;
            }
            EditOp::Deletion { i } => {
                if i != ni || i >= a.len() {
                    return Err(format!("op {k}: {op:?} where i = {ni} comes next"));
                }
                dels += 1;
                ni += 1;
            }
        }
    }
    if (ni, nj) != (a.len(), b.len()) {
        return Err(format!(
            "the ops stop at ({ni}, {nj}), not at the ends ({}, {})",
            a.len(),
            b.len()
        ));
    }
    let counted = (script.substitutions, script.insertions, script.deletions);
    if counted != (subs, ins, dels) {
        return Err(format!(
            "counts (substitutions, insertions, deletions) {counted:?}, the ops give {:?}",
            (subs, ins, dels)
        ));
    }
    if script.distance != subs + ins + dels {
        return Err(format!(
            "distance {} is not the {} edits of the ops",
            script.distance,
            subs + ins + dels
        ));
    }
    if (script.baseline_length, script.perturbed_length) != (a.len(), b.len()) {
        return Err(format!(
            "lengths ({}, {}) recorded for sequences of {} and {} items",
            script.baseline_length,
            script.perturbed_length,
            a.len(),
            b.len()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit_script::edit_script;

    fn script(a: &[u32], b: &[u32]) -> EditScript {
        edit_script(a, b)
    }

    #[test]
    fn exact_scripts_are_valid() {
        let cases: [(&[u32], &[u32]); 5] = [
            (&[], &[]),
            (&[1, 2, 3], &[1, 2, 3]),
            (&[1, 2, 3], &[]),
            (&[], &[4, 5]),
            (&[1, 2, 3, 4], &[2, 9, 4, 7]),
        ];
        for (a, b) in cases {
            assert_eq!(validate(a, b, &script(a, b)), Ok(()), "{a:?} {b:?}");
        }
    }

    #[test]
    fn each_broken_script_is_refused() {
        let (a, b) = ([1u32, 2, 3], [1u32, 9, 3]);
        let good = script(&a, &b);
        assert_eq!(good.substitutions, 1);

        // A match of unequal items.
        let mut s = good.clone();
        s.ops[1] = EditOp::Match { i: 1, j: 1 };
        s.substitutions = 0;
        s.distance = 0;
        assert!(validate(&a, &b, &s).unwrap_err().contains("unequal"));

        // An operation out of order.
        let mut s = good.clone();
        s.ops.swap(0, 1);
        assert!(validate(&a, &b, &s).unwrap_err().contains("comes next"));

        // A missing last operation.
        let mut s = good.clone();
        s.ops.pop();
        assert!(validate(&a, &b, &s)
            .unwrap_err()
            .contains("not at the ends"));

        // Counts that are not the operations' counts.
        let mut s = good.clone();
        s.insertions += 1;
        assert!(validate(&a, &b, &s).unwrap_err().contains("counts"));

        // A distance that is not the sum.
        let mut s = good.clone();
        s.distance = 2;
        assert!(validate(&a, &b, &s).unwrap_err().contains("distance"));

        // Lengths of other sequences.
        let mut s = good.clone();
        s.baseline_length = 4;
        assert!(validate(&a, &b, &s).unwrap_err().contains("lengths"));

        // Indices past the ends refuse instead of panicking.
        let mut s = good;
        s.ops.push(EditOp::Insertion { j: 3 });
        assert!(validate(&a, &b, &s).is_err());
        let s = EditScript {
            ops: vec![EditOp::Substitution { i: 0, j: 0 }],
            ..script(&[], &[])
        };
        assert!(validate(&a[..0], &b, &s)
            .unwrap_err()
            .contains("past the ends"));
    }
}
