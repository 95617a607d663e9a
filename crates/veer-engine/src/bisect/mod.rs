//! `veer bisect`: which of the changes between two agent configurations caused the
//! behaviour change. Everything here is pure; the binary reads the files, runs the agents
//! (with `veer experiment run`'s machinery) and writes the results.
//!
//! - [`config`]: JSON, YAML, TOML and `.env` configurations, read and written;
//! - [`deltas`]: the atomic deltas between A and B and the factors (`--group`);
//! - [`design`]: full factorial, fold-over Plackett–Burman, Plackett–Burman;
//! - [`measure`]: each run against the baseline configuration's runs;
//! - `estimate`: effects by least squares, bootstrap intervals, shares;
//! - [`report`]: the `bisect.json` document, composed by [`compose`].

pub mod config;
pub mod deltas;
pub mod design;
pub(crate) mod estimate;
pub mod measure;

use crate::error::Error;
use config::ConfigFormat;
use deltas::{Factor, Group};
use design::Design;
use estimate::Term;
use serde_json::Value;
use veer_contract::bisect::{
    BisectReport, DesignBlock, Effect, FactorEntry, InteractionEntry, MeasureEntry, PointEntry,
    RunEntry, BISECT_SCHEMA_VERSION,
};
use veer_policy::Policy;
use veer_trace::Trace;

/// Default seed of the bootstrap.
pub const BISECT_DEFAULT_SEED: u64 = 31;

/// A bisect ready to run: the configurations, the factors and the design.
#[derive(Debug, Clone)]
pub struct Setup {
    /// The configurations' format.
    pub format: ConfigFormat,
    /// A's configuration.
    pub baseline: Value,
    /// The factors, in the order of their first delta.
    pub factors: Vec<Factor>,
    /// The design.
    pub design: Design,
    /// Runs per point.
    pub trials: usize,
}

/// Parses both configurations, finds the deltas and factors, and chooses the design within
/// `max_runs` runs.
pub fn prepare(
    (a_file, a_text): (&str, &str),
    (b_file, b_text): (&str, &str),
    groups: &[Group],
    trials: usize,
    max_runs: usize,
) -> Result<Setup, Error> {
    let format = ConfigFormat::from_file_name(a_file).ok_or_else(|| unknown_format(a_file))?;
    let b_format = ConfigFormat::from_file_name(b_file).ok_or_else(|| unknown_format(b_file))?;
    if format != b_format {
        return Err(Error::input(format!(
            "{a_file} is {} but {b_file} is {}: the two configurations must have the same format",
            format.name(),
            b_format.name()
        ))
        .hint("convert one so both are JSON, YAML, TOML or .env"));
    }
    if trials == 0 {
        return Err(Error::input("--trials: must be at least 1").hint("e.g. --trials 3"));
    }
    let a = config::parse(a_file, format, a_text)?;
    let b = config::parse(b_file, format, b_text)?;
    let factors = deltas::factors(deltas::deltas(&a, &b), groups)?;
    let design = design::choose(factors.len(), trials, max_runs)?;
    Ok(Setup {
        format,
        baseline: a,
        factors,
        design,
        trials,
    })
}

fn unknown_format(file: &str) -> Error {
    Error::input(format!(
        "{file}: veer bisect reads .json, .yaml/.yml, .toml and .env configurations"
    ))
    .hint("name the file by its format, e.g. agent.yaml")
}

/// The id of point `i` (0-based): `p001`, `p002`, …
pub fn point_id(i: usize) -> String {
    format!("p{:03}", i + 1)
}

impl Setup {
    /// Point `i`'s configuration file, relative to the bisect directory: `points/p001.json`.
    pub fn config_path(&self, i: usize) -> String {
        format!("points/{}{}", point_id(i), self.format.extension())
    }

    /// Point `i`'s configuration, written in the inputs' format.
    pub fn config_text(&self, i: usize) -> Result<String, Error> {
        let levels = self.design.points.get(i).cloned().unwrap_or_default();
        config::write(
            self.format,
            &deltas::apply(&self.baseline, &self.factors, &levels),
        )
    }

    /// The number of runs: points × trials.
    pub fn run_count(&self) -> usize {
        self.design.points.len() * self.trials
    }

    /// The design block (points with their configuration paths).
    pub(crate) fn design_block(&self) -> DesignBlock {
        let kind = self.design.kind;
        DesignBlock {
            kind: kind.name().into(),
            resolution: kind.resolution(),
            aliasing: kind.aliasing().into(),
            interactions_estimated: kind.resolves_interactions() && self.factors.len() > 1,
            point_count: self.design.points.len() as u32,
            run_count: self.run_count() as u64,
            points: self
                .design
                .points
                .iter()
                .enumerate()
                .map(|(i, p)| PointEntry {
                    id: point_id(i),
                    levels: p
                        .iter()
                        .map(|&b| if b { "B" } else { "A" }.to_string())
                        .collect(),
                    config: self.config_path(i),
                })
                .collect(),
        }
    }
}

/// The report of a plan (`--plan`): the design, the factors without effects, every run
/// `planned`.
pub fn planned(setup: &Setup, configs: (&str, &str), seed: u64) -> BisectReport {
    BisectReport {
        schema_version: BISECT_SCHEMA_VERSION.into(),
        baseline_config: configs.0.into(),
        candidate_config: configs.1.into(),
        config_format: setup.format.name().into(),
        seed,
        trials: setup.trials as u32,
        resamples: estimate::resamples(estimate::terms(&setup.design).len()) as u32,
        design: setup.design_block(),
        runs: (0..setup.design.points.len())
            .flat_map(|p| {
                (1..=setup.trials).map(move |t| RunEntry {
                    point: point_id(p),
                    trial: t as u32,
                    status: "planned".into(),
                    trace: String::new(),
                    warnings: Vec::new(),
                })
            })
            .collect(),
        measures: Vec::new(),
        factors: setup
            .factors
            .iter()
            .map(|f| FactorEntry {
                name: f.name.clone(),
                paths: f.paths(),
                effects: Vec::new(),
            })
            .collect(),
        interactions: Vec::new(),
        headline: None,
    }
}

/// One run as the report is composed from it.
#[derive(Debug)]
pub struct BisectRunInput {
    /// Index of its design point.
    pub point: usize,
    /// Its trial (1-based).
    pub trial: u32,
    /// Its status (`missing` when it has not finished: it is then not measured).
    pub status: String,
    /// Its trace file (relative), empty when none.
    pub trace_path: String,
    /// Its problems.
    pub warnings: Vec<String>,
    /// Its trace (an empty trace when it wrote none); `None` when it has not finished.
    pub trace: Option<Trace>,
}

/// What a composition needs besides the setup and the runs.
#[derive(Debug, Clone, Copy)]
pub struct ComposeOptions<'a> {
    /// The configuration files as given (A, B).
    pub configs: (&'a str, &'a str),
    /// The policy whose violations are measures.
    pub policy: Option<&'a Policy>,
    /// Seed of the bootstrap.
    pub seed: u64,
    /// Work budget of one structural comparison.
    pub max_align_cells: u64,
}

/// `x` as JSON can hold it: NaN is 0, infinities are the largest finite values (only
/// hostile numbers in a trace, e.g. 1e308 tokens, can get there).
fn finite(x: f64) -> f64 {
    if x.is_nan() {
        0.0
    } else {
        x.clamp(-f64::MAX, f64::MAX)
    }
}

fn finite2([lo, hi]: [f64; 2]) -> [f64; 2] {
    [finite(lo), finite(hi)]
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// Measures every finished run against the baseline point's runs, fits every measure and
/// writes the report. Every point needs at least one finished run (the error names those
/// without). The same runs give the same report, byte for byte, whatever the thread count.
pub fn compose(
    setup: &Setup,
    runs: &[BisectRunInput],
    options: ComposeOptions<'_>,
) -> Result<BisectReport, Error> {
    let points = setup.design.points.len();
    let missing: Vec<String> = (0..points)
        .filter(|&p| !runs.iter().any(|r| r.point == p && r.trace.is_some()))
        .map(point_id)
        .collect();
    if !missing.is_empty() {
        return Err(Error::input(format!(
            "no finished run for design point(s) {}",
            missing.join(", ")
        ))
        .hint("every point of the design needs at least one run; run them (or put their traces under --from-runs DIR/<point>/)"));
    }
    let finished: Vec<&BisectRunInput> = runs.iter().filter(|r| r.trace.is_some()).collect();
    let traces: Vec<&Trace> = finished.iter().filter_map(|r| r.trace.as_ref()).collect();
    let reference: Vec<usize> = finished
        .iter()
        .enumerate()
        .filter(|(_, r)| r.point == 0)
        .map(|(i, _)| i)
        .collect();
    let names = measure::measure_names(options.policy);
    let values =
        measure::measure_runs(&traces, &reference, options.policy, options.max_align_cells);
    let all_b = setup
        .design
        .points
        .iter()
        .position(|p| p.iter().all(|x| *x));

    let terms = estimate::terms(&setup.design);
    let mut measures = Vec::with_capacity(names.len());
    let mut per_term: Vec<Vec<Effect>> = vec![Vec::new(); terms.len()];
    let by_measure: Vec<Vec<Vec<f64>>> = (0..names.len())
        .map(|m| {
            (0..points)
                .map(|p| {
                    finished
                        .iter()
                        .zip(&values)
                        .filter(|(r, _)| r.point == p)
                        .map(|(_, v)| v.get(m).copied().unwrap_or(0.0))
                        .collect()
                })
                .collect()
        })
        .collect();
    // Each measure has its own seed (derived from its name): the same numbers whatever the
    // thread count.
    let fitted: Vec<Option<estimate::Estimates>> = {
        use rayon::prelude::*;
        names
            .par_iter()
            .zip(by_measure.par_iter())
            .map(|(name, by_point)| {
                estimate::estimate(&setup.design, by_point, options.seed, &name.name)
            })
            .collect()
    };
    for ((name, by_point), est) in names.iter().zip(&by_measure).zip(fitted) {
        let est = est.ok_or_else(|| {
            Error::input(format!(
                "the design cannot be fitted for {}: its runs do not separate the factors",
                name.name
            ))
            .hint("this happens when points have no runs; re-run the missing points")
        })?;
        measures.push(MeasureEntry {
            measure: name.name.clone(),
            unit: name.unit.into(),
            baseline: finite(mean(&by_point[0])),
            candidate: finite(all_b.map_or(0.0, |b| mean(&by_point[b]))),
            change: finite(est.change),
            change_ci: est.change_ci.map(finite2),
        });
        for (t, e) in est.terms.into_iter().enumerate() {
            per_term[t].push(Effect {
                measure: name.name.clone(),
                estimate: finite(e.estimate),
                ci: e.ci.map(finite2),
                share: e.share.map(finite),
                share_ci: e.share_ci.map(finite2),
                implicated: e.implicated,
            });
        }
    }
    let mut factors: Vec<FactorEntry> = setup
        .factors
        .iter()
        .map(|f| FactorEntry {
            name: f.name.clone(),
            paths: f.paths(),
            effects: Vec::new(),
        })
        .collect();
    let mut interactions = Vec::new();
    for (term, effects) in terms.iter().zip(per_term) {
        match *term {
            Term::Main(j) => {
                if let Some(f) = factors.get_mut(j) {
                    f.effects = effects;
                }
            }
            Term::Interaction(j, l) => interactions.push(InteractionEntry {
                factors: vec![setup.factors[j].name.clone(), setup.factors[l].name.clone()],
                effects,
            }),
        }
    }
    let headline = ["trajectory", "d_norm"]
        .into_iter()
        .find(|h| measures.iter().any(|m| m.measure == *h && m.change != 0.0))
        .map(str::to_string);
    Ok(BisectReport {
        schema_version: BISECT_SCHEMA_VERSION.into(),
        baseline_config: options.configs.0.into(),
        candidate_config: options.configs.1.into(),
        config_format: setup.format.name().into(),
        seed: options.seed,
        trials: setup.trials as u32,
        resamples: estimate::resamples(estimate::terms(&setup.design).len()) as u32,
        design: setup.design_block(),
        runs: runs
            .iter()
            .map(|r| RunEntry {
                point: point_id(r.point),
                trial: r.trial,
                status: r.status.clone(),
                trace: r.trace_path.clone(),
                warnings: r.warnings.clone(),
            })
            .collect(),
        measures,
        factors,
        interactions,
        headline,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A traxr trace calling `tools` in turn, with `tokens` completion tokens per call.
    fn trace(tools: &[&str], tokens: f64) -> Trace {
        let mut events = Vec::new();
        let mut push = |t: &str, step: usize, payload: Value| {
            let i = events.len();
            events.push(serde_json::json!({"agent_name": "external",
                "content_hash": format!("{i:016x}"), "event_type": t, "payload": payload,
                "sequence_index": i, "step_num": step}));
        };
        let usage = serde_json::json!({"prompt_tokens": 5, "completion_tokens": tokens});
        for (s, tool) in tools.iter().enumerate() {
            push(
                "llm_call",
                s + 1,
                serde_json::json!({"model": "m", "finish_reason": "tool_calls",
                "tool_call_names": [tool], "usage": usage}),
            );
            push(
                "tool_request",
                s + 1,
                serde_json::json!({"tool_name": tool}),
            );
            push("tool_result", s + 1, serde_json::json!({"tool_name": tool}));
        }
        push(
            "llm_call",
            tools.len() + 1,
            serde_json::json!({"model": "m",
            "finish_reason": "stop", "tool_call_names": [], "usage": usage}),
        );
        let doc = serde_json::json!({"event_count": events.len(), "events": events,
            "run_label": "r"});
        veer_trace::load_bytes("t.json", doc.to_string().as_bytes(), &Default::default())
            .unwrap()
            .into_trace("t.json")
            .unwrap()
    }

    fn setup() -> Setup {
        prepare(
            ("a.json", r#"{"prompt": "look up", "t": 0}"#),
            ("b.json", r#"{"prompt": "refund", "t": 1}"#),
            &[],
            2,
            100,
        )
        .unwrap()
    }

    fn runs(setup: &Setup, tokens: f64) -> Vec<BisectRunInput> {
        let mut out = Vec::new();
        for (p, levels) in setup.design.points.iter().enumerate() {
            for t in 1..=2u32 {
                let tools: &[&str] = if levels[0] {
                    &["refund"]
                } else {
                    &["lookup", "refund"]
                };
                out.push(BisectRunInput {
                    point: p,
                    trial: t,
                    status: "ok".into(),
                    trace_path: format!("{}/{t}.json", point_id(p)),
                    warnings: Vec::new(),
                    trace: Some(trace(tools, tokens)),
                });
            }
        }
        out
    }

    fn options() -> ComposeOptions<'static> {
        ComposeOptions {
            configs: ("a.json", "b.json"),
            policy: None,
            seed: 1,
            max_align_cells: 1 << 20,
        }
    }

    #[test]
    fn composes_the_culprit_and_round_trips() {
        let s = setup();
        let r = compose(&s, &runs(&s, 3.0), options()).unwrap();
        assert_eq!(r.headline.as_deref(), Some("trajectory"));
        let prompt = &r.factors[0];
        assert_eq!(prompt.paths, ["prompt"]);
        let traj = &prompt.effects[0];
        assert_eq!(traj.measure, "trajectory");
        assert_eq!(traj.estimate, 0.5);
        assert!(traj.implicated);
        assert_eq!(traj.share, Some(1.0));
        assert!(!r.factors[1].effects[0].implicated);
        assert_eq!(r.interactions.len(), 1);
        let json = serde_json::to_string(&r).unwrap();
        let back: BisectReport = serde_json::from_str(&json).unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn hostile_numbers_stay_finite_and_missing_points_are_named() {
        let s = setup();
        let r = compose(&s, &runs(&s, 1e308), options()).unwrap();
        let json = serde_json::to_value(&r).unwrap();
        let tokens = r
            .measures
            .iter()
            .find(|m| m.measure == "output_tokens")
            .unwrap();
        assert!(tokens.baseline.is_finite() && tokens.change.is_finite());
        for e in r.factors.iter().flat_map(|f| &f.effects) {
            assert!(e.estimate.is_finite(), "{e:?}");
            for x in e.ci.iter().chain(&e.share_ci).flatten() {
                assert!(x.is_finite(), "{e:?}");
            }
        }
        // Serialised and read back unchanged (no number became null).
        let back: BisectReport = serde_json::from_value(json).unwrap();
        assert_eq!(back, r);
        let mut few = runs(&s, 3.0);
        few.retain(|r| r.point != 2);
        let e = compose(&s, &few, options()).unwrap_err();
        assert!(e.message.contains("p003"), "{}", e.message);
        assert!(e.hint.is_some());
    }
}
