//! `DIR/bisect.json` and `veer bisect --format json`: plain serde data, field order fixed;
//! printers format it and never compute a number.

use serde::{Deserialize, Serialize};

/// The `schema_version` of a bisect document.
pub const BISECT_SCHEMA_VERSION: &str = "1";

/// A bisect: the design, every run, and what each factor explains.
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BisectReport {
    /// Layout version of this document (`"1"`).
    pub schema_version: String,
    /// The baseline configuration (A) as given.
    pub baseline_config: String,
    /// The candidate configuration (B) as given.
    pub candidate_config: String,
    /// Their format: `json`, `yaml`, `toml` or `env`.
    pub config_format: String,
    /// Seed of the bootstrap (and of nothing else).
    pub seed: u64,
    /// Runs per design point asked for (≥ 1).
    pub trials: u32,
    /// Bootstrap resamples per measure (2 000).
    pub resamples: u32,
    /// The design.
    pub design: DesignBlock,
    /// Every run, point by point, trial by trial.
    pub runs: Vec<RunEntry>,
    /// Per measure: the A→B change the model attributes.
    pub measures: Vec<MeasureEntry>,
    /// Per factor: its deltas and its effect on every measure.
    pub factors: Vec<FactorEntry>,
    /// Two-factor interactions (full factorial designs only; empty otherwise).
    pub interactions: Vec<InteractionEntry>,
    /// The measure the answer sentence is about: `trajectory` when it changed, else `d_norm`
    /// when it changed, else none.
    pub headline: Option<String>,
}

/// The design block.
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DesignBlock {
    /// `full_factorial`, `fold_over_plackett_burman` or `plackett_burman`.
    pub kind: String,
    /// Resolution (3 or 4); null for a full factorial (nothing aliased).
    pub resolution: Option<u8>,
    /// What is aliased with what.
    pub aliasing: String,
    /// Whether two-factor interactions are estimated.
    pub interactions_estimated: bool,
    /// Number of points.
    pub point_count: u32,
    /// Number of runs: points × trials.
    pub run_count: u64,
    /// The points, the all-A (baseline) point first.
    pub points: Vec<PointEntry>,
}

/// One design point.
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointEntry {
    /// Its id: `p001`, `p002`, … (the all-A point is `p001`).
    pub id: String,
    /// Per factor (in `factors` order): `A` or `B`.
    pub levels: Vec<String>,
    /// Its configuration file, relative to the bisect directory.
    pub config: String,
}

/// One run.
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunEntry {
    /// The design point's id.
    pub point: String,
    /// The trial, 1-based.
    pub trial: u32,
    /// `ok`, `empty`, `crashed`, `error`, `timeout` (as in `veer experiment run`); `planned`
    /// in a plan.
    pub status: String,
    /// The trace, relative to the bisect directory (or the `--from-runs` directory); empty when
    /// there is none.
    pub trace: String,
    /// Problems of this run, one line each.
    pub warnings: Vec<String>,
}

/// The change a measure shows from A to B.
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MeasureEntry {
    /// `trajectory`, `d_norm`, `first_divergence`, an axis or `policy:RULE_ID`.
    pub measure: String,
    /// Its unit.
    pub unit: String,
    /// Mean over the all-A point's runs.
    pub baseline: f64,
    /// Mean over the all-B point's runs.
    pub candidate: f64,
    /// The A→B change the model attributes (sum of the main effects).
    pub change: f64,
    /// Its bootstrap interval, same level as the effects' (null with one trial per point).
    pub change_ci: Option<[f64; 2]>,
}

/// One factor.
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FactorEntry {
    /// Its name (`--group` name, else the delta's key path).
    pub name: String,
    /// The key paths of its deltas (keys joined by `.`).
    pub paths: Vec<String>,
    /// Its effect on each measure, in `measures` order.
    pub effects: Vec<Effect>,
}

/// A two-factor interaction.
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InteractionEntry {
    /// The two factors' names.
    pub factors: Vec<String>,
    /// The interaction effect on each measure (`share` is always null).
    pub effects: Vec<Effect>,
}

/// An effect on one measure.
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Effect {
    /// The measure.
    pub measure: String,
    /// The change in the measure when this factor alone switches from A to B (averaged over
    /// the other factors), in the measure's unit; for an interaction, half the difference of
    /// one factor's effect between the other's B and A.
    pub estimate: f64,
    /// Bootstrap interval over trials at level 1 − 0.05/terms (Bonferroni over the measure's
    /// terms); null with one trial per point.
    pub ci: Option<[f64; 2]>,
    /// Share of the measure's A→B change this factor explains (null unless that change's
    /// interval excludes 0, and for interactions).
    pub share: Option<f64>,
    /// The share's 95% interval.
    pub share_ci: Option<[f64; 2]>,
    /// The interval excludes 0.
    pub implicated: bool,
}
