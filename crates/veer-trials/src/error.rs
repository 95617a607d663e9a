//! Why a statistics function refused its input. Every limit is checked before any work starts,
//! so a refused call costs nothing and an accepted one is bounded by its sizes.

use std::fmt;

/// The largest number of trials on one side of a case (rates and per-trial values).
pub(crate) const MAX_TRIALS_PER_SIDE: usize = 10_000;
/// The largest number of pooled trials (both sides) in one pairwise-distance matrix: 4,000
/// trials are ~8 million pairs (64 MB of `f64`).
pub(crate) const MAX_POOLED_TRIALS_FOR_DISTANCES: usize = 4_000;
/// The largest number of cases in one suite-level computation.
pub(crate) const MAX_CASES: usize = 10_000_000;

/// A refused input. The message names the quantity and the limit.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TrialsError {
    /// A side has no trials where at least one is needed.
    NoTrials {
        /// `baseline` or `candidate`.
        side: String,
    },
    /// More trials than the documented limit.
    TooManyTrials {
        /// The count given.
        trials: usize,
        /// The limit.
        limit: usize,
    },
    /// More cases than the documented limit.
    TooManyCases {
        /// The count given.
        cases: usize,
        /// The limit.
        limit: usize,
    },
    /// A success count larger than its trial count.
    CountExceedsTrials {
        /// Successes (or violations) given.
        successes: u32,
        /// Trials given.
        trials: u32,
    },
    /// A pairwise table whose length does not match its trial count.
    WrongPairCount {
        /// `n·(n−1)/2` for the pooled trial count.
        expected: usize,
        /// Length given.
        found: usize,
    },
    /// A distance or value that is NaN or infinite (distances must also be ≥ 0).
    NotFinite {
        /// What the number was (`distance`, `value`, `p-value`, …).
        what: String,
        /// Its position in the input.
        index: usize,
    },
    /// A negative distance.
    NegativeDistance {
        /// Its position in the condensed table.
        index: usize,
    },
    /// A probability, level or power outside its open interval (0, 1), or a p-value outside [0, 1].
    OutOfRange {
        /// The parameter's name.
        what: String,
        /// The value given.
        value: f64,
    },
    /// Two inputs that must have the same length do not.
    LengthMismatch {
        /// The first length.
        left: usize,
        /// The second length.
        right: usize,
    },
}

impl fmt::Display for TrialsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrialsError::NoTrials { side } => write!(f, "the {side} side has no trials"),
            TrialsError::TooManyTrials { trials, limit } => {
                write!(f, "{trials} trials is more than the limit of {limit}")
            }
            TrialsError::TooManyCases { cases, limit } => {
                write!(f, "{cases} cases is more than the limit of {limit}")
            }
            TrialsError::CountExceedsTrials { successes, trials } => {
                write!(f, "{successes} successes out of only {trials} trials")
            }
            TrialsError::WrongPairCount { expected, found } => write!(
                f,
                "the pairwise table has {found} entries; {expected} expected (n·(n−1)/2)"
            ),
            TrialsError::NotFinite { what, index } => {
                write!(f, "{what} #{index} is not a finite number")
            }
            TrialsError::NegativeDistance { index } => {
                write!(f, "distance #{index} is negative")
            }
            TrialsError::OutOfRange { what, value } => {
                write!(f, "{what} = {value} is out of range")
            }
            TrialsError::LengthMismatch { left, right } => {
                write!(f, "lengths differ: {left} and {right}")
            }
        }
    }
}

impl std::error::Error for TrialsError {}

/// Checks a level, power or probability lies strictly inside (0, 1).
pub(crate) fn check_open_unit(what: &str, value: f64) -> Result<(), TrialsError> {
    if value.is_finite() && value > 0.0 && value < 1.0 {
        Ok(())
    } else {
        Err(TrialsError::OutOfRange {
            what: what.to_string(),
            value,
        })
    }
}

/// Checks every p-value is a number in [0, 1].
pub(crate) fn check_p_values(p: &[f64]) -> Result<(), TrialsError> {
    for &v in p {
        if !(0.0..=1.0).contains(&v) {
            return Err(TrialsError::OutOfRange {
                what: "p-value".to_string(),
                value: v,
            });
        }
    }
    Ok(())
}

/// Checks a side's trial count against `MAX_TRIALS_PER_SIDE` and that it is not zero.
pub(crate) fn check_trials(side: &str, k: usize) -> Result<(), TrialsError> {
    if k == 0 {
        return Err(TrialsError::NoTrials {
            side: side.to_string(),
        });
    }
    if k > MAX_TRIALS_PER_SIDE {
        return Err(TrialsError::TooManyTrials {
            trials: k,
            limit: MAX_TRIALS_PER_SIDE,
        });
    }
    Ok(())
}

/// Checks a case count against `MAX_CASES`.
pub(crate) fn check_cases(n: usize) -> Result<(), TrialsError> {
    if n > MAX_CASES {
        return Err(TrialsError::TooManyCases {
            cases: n,
            limit: MAX_CASES,
        });
    }
    Ok(())
}
