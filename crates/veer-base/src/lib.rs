//! The basics below every veer measure, so no measure needs another for them: today the
//! special functions of the statistics (`ln Γ`, the regularized incomplete beta, the central and
//! non-central F), each with a documented bound on its work whatever values it is given
//! (docs/limits.md, "Numeric routines: work bounds"). `veer-diff`'s fingerprint test and
//! `veer-trials`' Student t both read them from here.

pub mod fdist;
