//! `clap` definitions of `veer diff`: inputs, pairing, policy, gate, fingerprint and output
//! flags, and the formats it offers.

use super::{ReadArgs, DEFAULT_HISTORY_DB};
use clap::Args;
use std::path::PathBuf;

/// `veer diff`.
#[derive(Debug, Clone, Args)]
pub struct DiffArgs {
    /// The baseline: a trace file (.agentlog, optionally .gz, or traxr JSON), or a directory of
    /// traces. With `--baseline NAME`, the only path given: the candidate directory.
    pub baseline: PathBuf,
    /// The candidate: a trace file of the same format, or a directory whose traces are paired
    /// with the baseline's by relative path. Required unless a stored baseline is named
    /// (`--baseline NAME`, or `baseline = "…"` in veer.toml).
    #[arg(
        default_value = "",
        hide_default_value = true,
        value_parser = clap::builder::TypedValueParser::map(clap::builder::OsStringValueParser::new(), PathBuf::from)
    )]
    pub candidate: PathBuf,
    /// Compare against a stored baseline (`veer baseline create`): NAME under .veer/baselines,
    /// or a path to one, `@N` for version N. Every file is verified first; a changed baseline
    /// is exit 2 naming the file. Give only the candidate directory.
    #[arg(long = "baseline", id = "stored_baseline", value_name = "NAME")]
    pub stored_baseline: Option<String>,
    /// Add this comparison's summary to the history database (default .veer/history.sqlite;
    /// another path as --history=PATH).
    #[arg(long, value_name = "PATH", num_args = 0..=1, require_equals = true, default_missing_value = DEFAULT_HISTORY_DB)]
    pub history: Option<PathBuf>,
    /// Quarantined cases (YAML: `case`, `reason`, `expires`): directory pairs by relative path
    /// and repeated-trials cases by case key are still measured and shown, marked quarantined,
    /// but never trip the gate; an expired
    /// entry is a warning and gates again. Default: .veer/quarantine.yaml when it exists. See
    /// docs/history.md (Quarantine).
    #[arg(long, value_name = "FILE")]
    pub quarantine: Option<PathBuf>,
    /// Model prices for the cost axis: a JSON object mapping model name to
    /// {input, output, cached_input, cached_write_5m, cached_write_1h, reasoning,
    /// batch_discount} in USD per token, or to [input, output]. Without it cost is not
    /// compared.
    #[arg(long, value_name = "FILE")]
    pub pricing: Option<PathBuf>,
    /// Seed of the bootstrap confidence intervals (same seed, same bytes).
    #[arg(long, value_name = "N", default_value_t = 42)]
    pub seed: u64,
    /// Number of ranked divergences in the report (terminal and Markdown show the first 3;
    /// at least 1).
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = parse_top_k)]
    pub top_k: usize,
    /// How responses are paired: `auto` (index where the alignment pairs every turn
    /// one-to-one in order, alignment otherwise), `index` (i-th with i-th, within each
    /// recorded session: the reference tool's numbers) or `alignment` (the turns the
    /// first-divergence alignment pairs). With auto and alignment a dropped or added tool call
    /// counts as a trajectory change of 1 at its turn. The report names the pairing used.
    #[arg(long, value_enum, value_name = "HOW", default_value_t = PairByArg::Auto)]
    pub pair_by: PairByArg,
    /// A behaviour policy (.yaml/.yml or .json) evaluated on both sides: violations the
    /// candidate introduced are regressions, those it cleared are fixes.
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// Exit 1 when the worst signal (the severity of an axis that changed in its worse
    /// direction — an improvement never counts —, a powered rejection of the behaviour-
    /// fingerprint test → moderate, or policy regression: info → minor, warning → moderate,
    /// error and critical → severe) reaches this level; `never` (or `none`) never trips.
    /// With repeated trials (docs/trials.md): a statistically supported regression beyond its
    /// margin, a deterministic rule break or an unmeasurable case trips any level, and
    /// `inconclusive` also trips on inconclusive cases (acts as `minor` without trials).
    #[arg(long, value_name = "LEVEL", default_value = "never", value_parser = crate::cli::parse_diff_fail_on)]
    pub fail_on: crate::cli::DiffFailOn,
    /// Exit 1 when the tools offered to the model changed by at least this class between the
    /// baseline's and the candidate's requests (docs/tool-schema.md): `breaking` (a removed or
    /// renamed tool or parameter, a changed type, a new required parameter), `compatible`
    /// (also a new tool or optional parameter, a widened enum) or `cosmetic` (also a
    /// description edit); `never` shows the tool-schema block without gating on it.
    #[arg(long, value_enum, value_name = "CLASS", default_value_t = SchemaGateArg::Never)]
    pub fail_on_schema: SchemaGateArg,
    /// Work budget of the exact turn alignment, in DP cells per round; beyond it the turn
    /// alignment is anchored on identical turns (the report says `alignment: "anchored"`).
    /// The structural block is the same at every budget; its own, fixed, budget and the
    /// other comparisons' are in docs/limits.md ("Work per input dimension").
    #[arg(long, value_name = "N", default_value_t = veer_engine::options::DEFAULT_MAX_ALIGN_CELLS, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_align_cells: u64,
    /// Saturation point of a log-scaled fingerprint dimension, as KEY=VALUE (repeatable):
    /// output_tokens (default 4096), latency_ms (30000), tool_calls (8), text_chars (16384),
    /// arg_keys (32). Raise them for long-context or slow thinking models.
    #[arg(long, value_name = "KEY=VALUE", value_parser = parse_fingerprint_scale)]
    pub fingerprint_scale: Vec<(FingerprintScaleKey, f64)>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = DiffFormat::Terminal)]
    pub format: DiffFormat,
    #[command(flatten)]
    pub trials: crate::cli::TrialsArgs,
    #[command(flatten)]
    pub read: ReadArgs,
    #[command(flatten)]
    pub out: DiffOutputArgs,
}

/// Where `veer diff` writes: `-o FILE` for the `--format` document, and any number of
/// `-o FORMAT=PATH` for other documents of the same run.
#[derive(Debug, Clone, Default, Args)]
pub struct DiffOutputArgs {
    /// Write the report to FILE instead of stdout (replaced atomically; see docs/output.md).
    /// Repeat as FORMAT=PATH to write other formats of the same run too, e.g.
    /// `-o json=report.json -o sarif=veer.sarif` (FORMAT is a --format value); the diff runs
    /// once.
    #[arg(short = 'o', long = "output", value_name = "FILE|FORMAT=PATH", value_parser = parse_output_target)]
    pub output: Vec<OutputTarget>,
}

/// One `-o` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutputTarget {
    /// The `--format` document's file.
    File(PathBuf),
    /// Another format's document, and its file.
    Format(DiffFormat, PathBuf),
}

impl DiffOutputArgs {
    /// The `--format` document's file (the last plain `-o FILE`); None: stdout.
    pub fn file(&self) -> Option<&std::path::Path> {
        self.output.iter().rev().find_map(|t| match t {
            OutputTarget::File(p) => Some(p.as_path()),
            OutputTarget::Format(..) => None,
        })
    }

    /// The other documents wanted, in the order given.
    pub fn extras(&self) -> Vec<(DiffFormat, &std::path::Path)> {
        self.output
            .iter()
            .filter_map(|t| match t {
                OutputTarget::Format(f, p) => Some((*f, p.as_path())),
                OutputTarget::File(_) => None,
            })
            .collect()
    }

    /// Every file written.
    pub fn paths(&self) -> Vec<&std::path::Path> {
        self.output
            .iter()
            .map(|t| match t {
                OutputTarget::File(p) | OutputTarget::Format(_, p) => p.as_path(),
            })
            .collect()
    }
}

/// `-o`: `FORMAT=PATH` when the part before the first `=` is a format's name, else a file.
fn parse_output_target(s: &str) -> Result<OutputTarget, String> {
    if let Some((name, path)) = s.split_once('=') {
        if let Ok(format) = <DiffFormat as clap::ValueEnum>::from_str(name, false) {
            if path.is_empty() {
                return Err(format!("`{s}` names no file after `{name}=`"));
            }
            return Ok(OutputTarget::Format(format, PathBuf::from(path)));
        }
    }
    if s.is_empty() {
        return Err("an empty file name".into());
    }
    Ok(OutputTarget::File(PathBuf::from(s)))
}

/// The scales `--fingerprint-scale` sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FingerprintScaleKey {
    /// Output tokens.
    OutputTokens,
    /// Latency in milliseconds.
    LatencyMs,
    /// Tool calls in one response.
    ToolCalls,
    /// Characters of response text.
    TextChars,
    /// Argument keys over a response's tool calls.
    ArgKeys,
}

/// `--fingerprint-scale KEY=VALUE`: a known key and a positive finite number.
fn parse_fingerprint_scale(s: &str) -> Result<(FingerprintScaleKey, f64), String> {
    const KEYS: &str = "output_tokens, latency_ms, tool_calls, text_chars, arg_keys";
    let (key, value) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not KEY=VALUE (keys: {KEYS})"))?;
    let key = match key.trim() {
        "output_tokens" => FingerprintScaleKey::OutputTokens,
        "latency_ms" => FingerprintScaleKey::LatencyMs,
        "tool_calls" => FingerprintScaleKey::ToolCalls,
        "text_chars" => FingerprintScaleKey::TextChars,
        "arg_keys" => FingerprintScaleKey::ArgKeys,
        other => return Err(format!("unknown scale `{other}` (keys: {KEYS})")),
    };
    match value.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok((key, v)),
        _ => Err(format!("`{value}` is not a positive number")),
    }
}

/// `--top-k`: a whole number of at least 1.
fn parse_top_k(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("must be at least 1 (the number of ranked divergences to report)".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("`{s}` is not a whole number")),
    }
}

/// `--fail-on-schema` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SchemaGateArg {
    /// The tool schema never gates.
    Never,
    /// Breaking changes trip the gate.
    Breaking,
    /// Breaking and compatible changes trip the gate.
    Compatible,
    /// Any change trips the gate, descriptions included.
    Cosmetic,
}

impl SchemaGateArg {
    /// The threshold class (None for `never`).
    pub fn class(self) -> Option<veer_contract::tool_schema::SchemaClass> {
        use veer_contract::tool_schema::SchemaClass;
        match self {
            SchemaGateArg::Never => None,
            SchemaGateArg::Breaking => Some(SchemaClass::Breaking),
            SchemaGateArg::Compatible => Some(SchemaClass::Compatible),
            SchemaGateArg::Cosmetic => Some(SchemaClass::Cosmetic),
        }
    }
}

/// `--pair-by` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PairByArg {
    /// Index where the alignment pairs every turn one-to-one in order, alignment otherwise.
    Auto,
    /// The i-th response with the i-th, within each recorded session.
    Index,
    /// The turns paired by the first-divergence alignment.
    Alignment,
}

pub use veer_report::diff::output::DiffFormat;
