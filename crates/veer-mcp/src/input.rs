//! What each tool takes: paths on the local machine and the options a user of the CLI would
//! set, as serde types whose JSON Schemas (schemars) are the tools' input schemas. Unknown keys
//! are refused, so a misspelt option is an error rather than silently ignored. Relative paths
//! resolve against the directory the server was started in. Each input becomes the same
//! engine request the matching `veer` command builds from its flags.

use schemars::JsonSchema;
use serde::Deserialize;
use std::path::PathBuf;
use veer_base::Level;
use veer_contract::divergence::PairBy;
use veer_engine::run::{Baseline, QuarantineFile, Settings};
use veer_engine::{Error, Request};

/// The quarantine file read when it exists, as `veer diff` reads it (relative to the
/// server's directory).
const DEFAULT_QUARANTINE: &str = ".veer/quarantine.yaml";

/// How a pair's turns are matched (`--pair-by`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PairByInput {
    /// Index when both sides have the same number of turns, else alignment.
    #[default]
    Auto,
    /// Turn i with turn i.
    Index,
    /// The turn alignment (insertions and deletions allowed).
    Alignment,
}

impl From<PairByInput> for PairBy {
    fn from(p: PairByInput) -> PairBy {
        match p {
            PairByInput::Auto => PairBy::Auto,
            PairByInput::Index => PairBy::Index,
            PairByInput::Alignment => PairBy::Alignment,
        }
    }
}

/// The gate's threshold (`--fail-on`): the lowest severity that trips it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FailOn {
    /// No gate.
    Never,
    /// Minor and above.
    Minor,
    /// Moderate and above.
    Moderate,
    /// Severe only.
    Severe,
}

impl From<FailOn> for Level {
    fn from(f: FailOn) -> Level {
        match f {
            FailOn::Never => Level::None,
            FailOn::Minor => Level::Minor,
            FailOn::Moderate => Level::Moderate,
            FailOn::Severe => Level::Severe,
        }
    }
}

/// `diff`: what changed between a baseline and a candidate run.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiffInput {
    /// The baseline: a trace file, an Inspect AI log, or a directory of traces.
    pub baseline: PathBuf,
    /// The candidate, of the same kind as the baseline.
    pub candidate: PathBuf,
    /// A policy file (YAML or JSON) whose rules are compared on both sides.
    #[serde(default)]
    pub policy: Option<PathBuf>,
    /// A pricing table (JSON) for the cost axis; without one cost is not priced.
    #[serde(default)]
    pub pricing: Option<PathBuf>,
    /// How a pair's turns are matched: auto (default), index or alignment.
    #[serde(default)]
    pub pair_by: PairByInput,
    /// Seed of every bootstrap and permutation draw (default 42): the same seed gives the
    /// same report.
    #[serde(default)]
    pub seed: Option<u64>,
    /// Ranked divergences kept per pair, at least 1 (default 5).
    #[serde(default)]
    pub top_k: Option<usize>,
    /// The gate (default never): a tripped gate is not an error, the report's verdict says
    /// it tripped.
    #[serde(default)]
    pub fail_on: Option<FailOn>,
}

impl DiffInput {
    /// The request `veer diff BASELINE CANDIDATE` makes with these options (its defaults
    /// otherwise; veer.toml is not read).
    pub fn request(&self) -> Result<Request, Error> {
        let defaults = Settings::default();
        let top_k = self.top_k.unwrap_or(defaults.top_k);
        if top_k == 0 {
            return Err(Error::input("top_k is 0: at least one divergence is kept")
                .hint("leave top_k out for the default of 5, or give 1 or more"));
        }
        Ok(Request {
            baseline: Baseline::Path(self.baseline.clone()),
            candidate: self.candidate.clone(),
            settings: Settings {
                seed: self.seed.unwrap_or(defaults.seed),
                top_k,
                pair_by: self.pair_by.into(),
                pricing: self.pricing.clone(),
                policy: self.policy.clone(),
                fail_on: self.fail_on.map_or(Level::None, Level::from),
                quarantine: QuarantineFile {
                    explicit: None,
                    default: Some(PathBuf::from(DEFAULT_QUARANTINE)),
                },
                ..defaults
            },
        })
    }
}

/// `check`: a policy's violations on one trace, or on every trace of a directory.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckInput {
    /// A trace file, or a directory of traces (each checked; one that cannot be read is an
    /// error row that fails the gate).
    pub trace: PathBuf,
    /// The policy file (YAML or JSON).
    pub policy: PathBuf,
    /// The gate (default severe): a tripped gate is not an error, the report's gate says it
    /// tripped.
    #[serde(default)]
    pub fail_on: Option<FailOn>,
    /// Calls the live policy blocked while recording stay in the report but do not gate.
    #[serde(default)]
    pub allow_prevented: bool,
}

impl CheckInput {
    /// The gate's threshold: `veer check`'s default is severe.
    pub fn fail_on(&self) -> Level {
        self.fail_on.map_or(Level::Severe, Level::from)
    }
}

/// `inspect`: one row per turn of a trace.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InspectInput {
    /// A trace file (a results file shows each of its runs) or a directory of traces.
    pub trace: PathBuf,
}

/// `explain`: a diff in a few sentences, from a saved report or from two traces.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExplainInput {
    /// A report `veer diff --format json` wrote for two trace files (or the `diff` tool's
    /// structured content saved to a file). Give this, or baseline and candidate.
    #[serde(default)]
    pub report: Option<PathBuf>,
    /// The baseline trace file, to diff now.
    #[serde(default)]
    pub baseline: Option<PathBuf>,
    /// The candidate trace file, to diff now.
    #[serde(default)]
    pub candidate: Option<PathBuf>,
    /// With baseline and candidate: a policy file whose rules are compared.
    #[serde(default)]
    pub policy: Option<PathBuf>,
    /// With baseline and candidate: how turns are matched (default auto).
    #[serde(default)]
    pub pair_by: PairByInput,
    /// With baseline and candidate: the seed (default 42).
    #[serde(default)]
    pub seed: Option<u64>,
    /// With baseline and candidate: the gate (default never); its line ends the explanation.
    #[serde(default)]
    pub fail_on: Option<FailOn>,
}

/// Where an explanation comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum ExplainSource {
    /// A saved report.
    Report(PathBuf),
    /// A diff run now.
    Diff(Box<DiffInput>),
}

impl ExplainInput {
    /// A saved report, or two traces to diff: exactly one of the two.
    pub fn source(&self) -> Result<ExplainSource, Error> {
        let diff_options = self.policy.is_some() || self.seed.is_some() || self.fail_on.is_some();
        match (&self.report, &self.baseline, &self.candidate) {
            (Some(report), None, None) if !diff_options => {
                Ok(ExplainSource::Report(report.clone()))
            }
            (Some(_), None, None) => Err(Error::input(
                "policy, seed and fail_on apply to a diff run now, not to a saved report",
            )
            .hint("give baseline and candidate instead of report, or leave those options out")),
            (None, Some(b), Some(c)) => Ok(ExplainSource::Diff(Box::new(DiffInput {
                baseline: b.clone(),
                candidate: c.clone(),
                policy: self.policy.clone(),
                pricing: None,
                pair_by: self.pair_by,
                seed: self.seed,
                top_k: None,
                fail_on: self.fail_on,
            }))),
            (Some(_), _, _) => Err(Error::input(
                "both a saved report and traces were given: explain reads one of them",
            )
            .hint("give report alone, or baseline and candidate")),
            _ => Err(
                Error::input("explain needs a saved report or two traces, and got neither").hint(
                    "give report (a `veer diff --format json` file), or baseline and candidate",
                ),
            ),
        }
    }
}

/// `policy_validate`: a policy file loads, and optionally every rule can fire on some traces.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PolicyValidateInput {
    /// The policy file (YAML or JSON).
    pub file: PathBuf,
    /// Trace files or directories every rule is watched on; a rule that can never fire on
    /// them is named with a hint.
    #[serde(default)]
    pub against: Vec<PathBuf>,
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;
    use serde_json::json;

    fn diff(value: serde_json::Value) -> DiffInput {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn a_diff_with_only_paths_is_the_clis_default_request() {
        let r = diff(json!({"baseline": "a.agentlog", "candidate": "b.agentlog"}))
            .request()
            .unwrap();
        let d = Settings::default();
        assert!(matches!(&r.baseline, Baseline::Path(p) if p == &PathBuf::from("a.agentlog")));
        assert_eq!(r.candidate, PathBuf::from("b.agentlog"));
        assert_eq!(
            (r.settings.seed, r.settings.top_k, r.settings.pair_by),
            (d.seed, d.top_k, d.pair_by)
        );
        assert_eq!(r.settings.fail_on, Level::None);
        assert_eq!(r.settings.policy, None);
        assert_eq!(
            r.settings.quarantine.default,
            Some(PathBuf::from(DEFAULT_QUARANTINE))
        );
    }

    #[test]
    fn diff_options_reach_the_request() {
        let r = diff(json!({
            "baseline": "a", "candidate": "b", "policy": "p.yaml", "pricing": "prices.json",
            "pair_by": "alignment", "seed": 7, "top_k": 2, "fail_on": "moderate"
        }))
        .request()
        .unwrap();
        let s = &r.settings;
        assert_eq!(s.policy, Some(PathBuf::from("p.yaml")));
        assert_eq!(s.pricing, Some(PathBuf::from("prices.json")));
        assert_eq!(s.pair_by, PairBy::Alignment);
        assert_eq!((s.seed, s.top_k, s.fail_on), (7, 2, Level::Moderate));
    }

    #[test]
    fn a_zero_top_k_is_an_input_error_with_a_hint() {
        let e = diff(json!({"baseline": "a", "candidate": "b", "top_k": 0}))
            .request()
            .unwrap_err();
        assert_eq!(e.kind, veer_engine::ErrorKind::Input);
        assert!(e.hint.is_some());
    }

    #[test]
    fn unknown_keys_and_bad_levels_are_refused() {
        let typo = json!({"baseline": "a", "candidate": "b", "pairby": "index"});
        assert!(serde_json::from_value::<DiffInput>(typo).is_err());
        let level = json!({"baseline": "a", "candidate": "b", "fail_on": "high"});
        assert!(serde_json::from_value::<DiffInput>(level).is_err());
        let missing = json!({"baseline": "a"});
        assert!(serde_json::from_value::<DiffInput>(missing).is_err());
    }

    #[test]
    fn check_gates_at_severe_unless_told() {
        let c: CheckInput = serde_json::from_value(json!({"trace": "t", "policy": "p"})).unwrap();
        assert_eq!(c.fail_on(), Level::Severe);
        assert!(!c.allow_prevented);
        let c: CheckInput =
            serde_json::from_value(json!({"trace": "t", "policy": "p", "fail_on": "never"}))
                .unwrap();
        assert_eq!(c.fail_on(), Level::None);
    }

    #[test]
    fn explain_takes_a_report_or_two_traces() {
        let e = |v| serde_json::from_value::<ExplainInput>(v).unwrap().source();
        assert_eq!(
            e(json!({"report": "r.json"})).unwrap(),
            ExplainSource::Report(PathBuf::from("r.json"))
        );
        let ExplainSource::Diff(d) =
            e(json!({"baseline": "a", "candidate": "b", "seed": 3})).unwrap()
        else {
            panic!("two traces are a diff");
        };
        assert_eq!(d.seed, Some(3));
        for bad in [
            json!({}),
            json!({"baseline": "a"}),
            json!({"report": "r", "baseline": "a", "candidate": "b"}),
            json!({"report": "r", "seed": 1}),
        ] {
            let err = e(bad.clone()).unwrap_err();
            assert!(err.hint.is_some(), "{bad}: {err:?}");
        }
    }

    #[test]
    fn every_input_schema_is_an_object_with_its_required_paths() {
        let schema = |s: schemars::Schema| serde_json::to_value(s).unwrap();
        let cases = [
            (
                schema(schemars::schema_for!(DiffInput)),
                vec!["baseline", "candidate"],
            ),
            (
                schema(schemars::schema_for!(CheckInput)),
                vec!["trace", "policy"],
            ),
            (schema(schemars::schema_for!(InspectInput)), vec!["trace"]),
            (schema(schemars::schema_for!(ExplainInput)), vec![]),
            (
                schema(schemars::schema_for!(PolicyValidateInput)),
                vec!["file"],
            ),
        ];
        for (s, required) in cases {
            assert_eq!(s["type"], "object", "{s}");
            let got: Vec<&str> = s["required"]
                .as_array()
                .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
                .unwrap_or_default();
            assert_eq!(got, required, "{s}");
        }
    }
}
