//! First-divergence alignment (spec `diff.md` §9): per-turn features interned once
//! ([`cost`]), the candidate side's shingles indexed by turn ([`shingle_index`]), veer's exact
//! three-state Gotoh DP in a band that widens until provably optimal ([`gotoh`]; the bands'
//! shapes in `band`), and the walk that turns the alignment into classified divergence events
//! (`divergence`).

pub(crate) mod anchored;
mod band;
pub mod cost;
pub(crate) mod divergence;
pub mod gotoh;
#[cfg(test)]
mod proptests;
#[cfg(test)]
pub(crate) mod reference;
pub mod shingle_index;

/// One step of an alignment path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Step {
    /// Baseline turn `.0` is paired with candidate turn `.1`.
    Match(usize, usize),
    /// The candidate inserted its turn `.0` (a gap in the baseline).
    Insert(usize),
    /// The candidate dropped baseline turn `.0` (a gap in the candidate).
    Delete(usize),
}

/// An optimal alignment: the steps from (0, 0) to (n, m) and their total cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Alignment {
    /// Steps in path order.
    pub steps: Vec<Step>,
    /// Sum of pair costs and gap penalties along the path (≥ 0).
    pub cost: f64,
}

/// Weight of the structural component of a pair cost.
pub(crate) const W_STRUCT: f64 = 0.40;
/// Weight of the text component.
pub(crate) const W_SEM: f64 = 0.25;
/// Weight of the stop-reason component.
pub(crate) const W_STOP: f64 = 0.15;
/// Weight of the argument-value component.
pub(crate) const W_ARGS: f64 = 0.20;
/// Cost of opening a gap run (veer's calibration, §9.5).
pub(crate) const GAP_OPEN: f64 = 0.60;
/// Cost of extending a gap run by one turn (veer's calibration, §9.5).
pub const GAP_EXTEND: f64 = 0.50;
/// Pair costs at or below this are noise, not divergences.
pub(crate) const NOISE_FLOOR: f64 = 0.12;
/// Text similarity at or above which a text-only change is cosmetic (style).
pub(crate) const STYLE_MIN_SIMILARITY: f64 = 0.90;
