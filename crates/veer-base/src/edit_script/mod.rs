//! Wagner–Fischer edit distance with unit costs and traxr's single backtrack (spec
//! `experiment.md` §2): the decomposition into substitutions, insertions and deletions and the
//! alignment come from one walk back from (m, n) where, at each cell, match beats substitution
//! beats insertion beats deletion. That order anchors equal tails first and pushes gaps toward
//! the front of the alignment (the suffix-anchored tie-break t* depends on).
//!
//! Memory: two rows of DP values plus one byte per cell for the backtrack decision, so a pair
//! of 10,000-event traces needs about 100 MB; traces with millions of events per side are out
//! of scope.

pub mod anchored;
mod validate;

pub use validate::validate;

/// One step of the alignment, in forward order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditOp {
    /// `seq1[i] == seq2[j]`.
    Match {
        /// Index in the clean (baseline) sequence.
        i: usize,
        /// Index in the perturbed sequence.
        j: usize,
    },
    /// `seq1[i]` replaced by `seq2[j]`.
    Substitution {
        /// Index in the clean sequence.
        i: usize,
        /// Index in the perturbed sequence.
        j: usize,
    },
    /// `seq2[j]` present only in the perturbed sequence.
    Insertion {
        /// Index in the perturbed sequence.
        j: usize,
    },
    /// `seq1[i]` present only in the clean sequence.
    Deletion {
        /// Index in the clean sequence.
        i: usize,
    },
}

impl EditOp {
    /// Where a backtrack standing at cell (i, j) goes by taking this step, and whether the step
    /// costs an edit (all but a match). Every backtrack of traxr's walk moves by this rule.
    pub fn step_back(self, i: usize, j: usize) -> (usize, usize, bool) {
        match self {
            EditOp::Match { .. } => (i - 1, j - 1, false),
            EditOp::Substitution { .. } => (i - 1, j - 1, true),
            EditOp::Insertion { .. } => (i, j - 1, true),
            EditOp::Deletion { .. } => (i - 1, j, true),
        }
    }
}

/// The result of one comparison: distance, its decomposition and the alignment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditScript {
    /// Levenshtein distance, in edits; in [0, max(m, n)].
    pub distance: usize,
    /// Substitutions on the backtrack path.
    pub substitutions: usize,
    /// Insertions (present only in the perturbed sequence).
    pub insertions: usize,
    /// Deletions (present only in the clean sequence).
    pub deletions: usize,
    /// Length of the clean sequence (m).
    pub baseline_length: usize,
    /// Length of the perturbed sequence (n).
    pub perturbed_length: usize,
    /// The alignment in forward order; its length L is in [max(m, n), m + n].
    pub ops: Vec<EditOp>,
}

impl EditScript {
    /// The script of an alignment given backwards (as a backtrack from (m, n) emits it);
    /// the substitution, insertion and deletion counts are read off the operations.
    pub fn from_backtrack(distance: usize, m: usize, n: usize, mut ops: Vec<EditOp>) -> Self {
        ops.reverse();
        let count = |f: fn(&EditOp) -> bool| ops.iter().filter(|o| f(o)).count();
        EditScript {
            distance,
            substitutions: count(|o| matches!(o, EditOp::Substitution { .. })),
            insertions: count(|o| matches!(o, EditOp::Insertion { .. })),
            deletions: count(|o| matches!(o, EditOp::Deletion { .. })),
            baseline_length: m,
            perturbed_length: n,
            ops,
        }
    }

    /// distance / max(m, n), in [0, 1]; 0.0 when both sequences are empty.
    pub fn normalized(&self) -> f64 {
        let longer = self.baseline_length.max(self.perturbed_length);
        if longer == 0 {
            0.0
        } else {
            self.distance as f64 / longer as f64
        }
    }
}

const MATCH: u8 = 0;
const SUB: u8 = 1;
const INS: u8 = 2;
const DEL: u8 = 3;

/// Compares `seq1` (clean) with `seq2` (perturbed).
pub fn edit_script<T: PartialEq>(seq1: &[T], seq2: &[T]) -> EditScript {
    let (m, n) = (seq1.len(), seq2.len());
    let width = n + 1;
    // decisions[i * width + j]: the rule the backtrack applies at cell (i, j).
    let mut decisions = vec![0u8; (m + 1) * width];
    let mut prev: Vec<usize> = (0..=n).collect();
    let mut cur = vec![0usize; width];
    for d in decisions.iter_mut().take(width).skip(1) {
        *d = INS;
    }
    for i in 1..=m {
        cur[0] = i;
        decisions[i * width] = DEL;
        let a = &seq1[i - 1];
        for j in 1..=n {
            let diag = prev[j - 1];
            if *a == seq2[j - 1] {
                cur[j] = diag;
                decisions[i * width + j] = MATCH;
                continue;
            }
            let left = cur[j - 1];
            let up = prev[j];
            let v = 1 + diag.min(left).min(up);
            cur[j] = v;
            decisions[i * width + j] = if v == diag + 1 {
                SUB
            } else if v == left + 1 {
                INS
            } else {
                DEL
            };
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    let distance = prev[n];
    let mut ops = Vec::with_capacity(m.max(n));
    let (mut i, mut j) = (m, n);
    while i > 0 || j > 0 {
        match decisions[i * width + j] {
            MATCH => {
                i -= 1;
                j -= 1;
                ops.push(EditOp::Match { i, j });
            }
            SUB => {
                i -= 1;
                j -= 1;
                ops.push(EditOp::Substitution { i, j });
            }
            INS => {
                j -= 1;
                ops.push(EditOp::Insertion { j });
            }
            _ => {
                i -= 1;
                ops.push(EditOp::Deletion { i });
            }
        }
    }
    EditScript::from_backtrack(distance, m, n, ops)
}

/// Python `round(x, 4)`: round half to even on the exact binary value (`1/32` → 0.0312,
/// `3/32` → 0.0938), used only for the `normalized` key of the edit-distance dictionary.
pub fn round4(x: f64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    // Formatting with 4 decimals rounds the exact binary value half-to-even, as Python does.
    format!("{x:.4}").parse().unwrap_or(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(a: &[&str], b: &[&str]) -> (usize, usize, usize, usize) {
        let e = edit_script(a, b);
        (e.distance, e.substitutions, e.insertions, e.deletions)
    }

    #[test]
    fn spec_concrete_cases() {
        assert_eq!(counts(&["a", "b", "c"], &["a", "b", "c"]), (0, 0, 0, 0));
        let e = edit_script::<&str>(&[], &[]);
        assert_eq!((e.distance, e.normalized(), e.ops.len()), (0, 0.0, 0));
        let e = edit_script(&[], &["a", "b", "c"]);
        assert_eq!((e.distance, e.insertions, e.normalized()), (3, 3, 1.0));
        let e = edit_script(&["a", "b"], &[]);
        assert_eq!((e.distance, e.deletions, e.normalized()), (2, 2, 1.0));
        let e = edit_script(&["a", "b", "c"], &["a", "x", "c"]);
        assert_eq!((e.distance, e.substitutions), (1, 1));
        assert_eq!(e.normalized(), 1.0 / 3.0);
        assert_eq!(counts(&["a", "b"], &["a", "b", "c"]), (1, 0, 1, 0));
        assert_eq!(counts(&["a", "b", "c"], &["a", "c"]), (1, 0, 0, 1));
        let k: Vec<char> = "kitten".chars().collect();
        let s: Vec<char> = "sitting".chars().collect();
        let e = edit_script(&k, &s);
        assert_eq!((e.distance, e.substitutions, e.insertions), (3, 2, 1));
        assert_eq!(round4(e.normalized()), 0.4286);
        assert_eq!(counts(&["a", "b"], &["x", "y", "z"]), (3, 2, 1, 0));
        let e = edit_script(
            &["route:a", "tool:t:read:ok", "final_answer"],
            &[
                "route:b",
                "tool:t:read:fail",
                "mem_write:note",
                "final_answer",
            ],
        );
        assert_eq!((e.distance, e.substitutions, e.insertions), (3, 2, 1));
        assert_eq!(e.normalized(), 0.75);
        assert_eq!(counts(&["A", "B"], &["B", "A"]), (2, 2, 0, 0));
    }

    #[test]
    fn gaps_go_to_the_front() {
        let e = edit_script(&["A"], &["A", "A"]);
        assert_eq!(e.ops[0], EditOp::Insertion { j: 0 });
        let e = edit_script(&["A", "B"], &["A", "B", "C"]);
        assert_eq!(e.ops[2], EditOp::Insertion { j: 2 });
    }

    #[test]
    fn python_round() {
        assert_eq!(round4(1.0 / 32.0), 0.0312);
        assert_eq!(round4(3.0 / 32.0), 0.0938);
        assert_eq!(round4(0.125), 0.125);
        assert_eq!(round4(1.0 / 3.0), 0.3333);
    }
}
