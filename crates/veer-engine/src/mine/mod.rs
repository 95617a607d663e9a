//! `veer mine` composed: a corpus of production traces turned into a regression suite. Each
//! trace is read, reduced at once to its behaviour signature (tool calls with their argument
//! shapes, stop reasons, error and policy outcome — never values) and dropped; identical
//! signatures are merged with a count and a few member paths; the distinct signatures are
//! clustered by `veer-diff`'s k-medoids; the medoids, the rare and the failing signatures become
//! the suite's cases. The clustering itself is `veer_diff::cluster`; this module only reads,
//! merges, picks and copies files.
//!
//! Bounded memory: at most [`SIGNATURE_CAP`] distinct signatures are held. Beyond it a
//! seeded bottom-k sample is kept — the signatures with the smallest seeded hashes — which is
//! a uniform sample of the distinct signatures whatever the read order, and the counts of the
//! kept ones stay exact (a signature once refused can never be admitted later, since the
//! admission threshold only falls). Work depends on the number of files and signatures, never
//! on values.

use crate::Error;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use veer_contract::mine::{
    BehaviourSignature, CallShape, CaseFile, CaseKind, ClusteringSummary, CorpusSummary, KScore,
    MineCase, MineCluster, MineReport, ReasonCount, SkippedTrace, MINE_SCHEMA_VERSION,
};
use veer_diff::cluster::{distance_matrix, pam, MAX_POINTS};
use veer_trace::{Kind, ReadOptions, Trace};

/// The most distinct signatures kept (and clustered): beyond it, a seeded bottom-k sample.
pub const SIGNATURE_CAP: usize = MAX_POINTS;
/// The most cases `--cases` may ask for.
pub const MAX_CASES: usize = 100;
/// The most members `--per-case` may copy per case.
pub const MAX_PER_CASE: usize = 100;
/// The most failing signatures made cases of (most traces first).
pub const MAX_FAILING_CASES: usize = 20;
/// The most rare signatures made cases of (farthest first).
pub const MAX_RARE_CASES: usize = 10;
/// A signature seen once is rare when its distance to the nearest medoid is at least this.
pub const RARE_DISTANCE: f64 = 0.30;
/// Files read at a time (in parallel) before their signatures are merged.
const CHUNK: usize = 256;
/// Longest tool name, argument key or stop reason kept in a signature, in bytes.
const MAX_NAME_BYTES: usize = 128;
/// Most argument keys kept in one call's shape.
const MAX_KEYS: usize = 64;

/// Stop reasons that end a turn normally (every other one makes a trace failing).
pub const NORMAL_STOPS: &[&str] = &[
    "end_turn",
    "stop",
    "tool_use",
    "tool_calls",
    "stop_sequence",
    "function_call",
    "pause_turn",
    "STOP",
    "completed",
];

/// The knobs of one `veer mine` run.
#[derive(Debug, Clone)]
pub struct MineOptions<'a> {
    /// K, the number of clusters; `None`: chosen by the best average silhouette.
    pub cases: Option<usize>,
    /// Members copied per case (medoid first), 1..=[`MAX_PER_CASE`].
    pub per_case: usize,
    /// Seed of the signature sample.
    pub seed: u64,
    /// The policy whose violations count as failures, and its name for the report.
    pub policy: Option<(String, &'a veer_policy::Policy)>,
    /// How traces are read.
    pub read: ReadOptions,
    /// The most distinct signatures kept, 1..=[`SIGNATURE_CAP`] (tests lower it).
    pub signature_cap: usize,
}

/// The trace files of a corpus, listed before reading (so a front end can size a progress bar).
#[derive(Debug)]
pub struct Corpus {
    dir: PathBuf,
    files: Vec<PathBuf>,
    /// Entries that are not regular files (never opened), for the front end to name.
    pub skipped_entries: Vec<veer_trace::load::SkippedEntry>,
}

impl Corpus {
    /// The trace files under `dir` (recursive, sorted; at most
    /// [`veer_trace::load::MAX_DIRECTORY_FILES`]).
    pub fn list(dir: &Path) -> Result<Corpus, Error> {
        let source = dir.display().to_string();
        if !dir.is_dir() {
            return Err(Error::input(format!("{source}: not a directory"))
                .hint("veer mine reads a directory of traces: veer mine traces/ --out suite/"));
        }
        let listed = veer_trace::load::list_trace_files(dir)?;
        Ok(Corpus {
            dir: dir.to_path_buf(),
            files: listed.files,
            skipped_entries: listed.skipped,
        })
    }

    /// Number of trace files.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether there is no trace file.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

/// `s` cut to at most `max` bytes on a character boundary.
fn cut(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_string()
}

fn type_name(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "bool",
        serde_json::Value::Number(_) => "number",
        serde_json::Value::String(_) => "string",
        serde_json::Value::Array(_) => "array",
        serde_json::Value::Object(_) => "object",
    }
}

/// Why a corpus file was skipped, without its path (the report names the file beside it):
/// `line N, FIELD: message (hint: …)`.
fn skip_reason(e: &veer_trace::TraceError) -> String {
    let mut out = match e.line {
        Some(line) => format!("line {line}, {}: {}", e.field, e.message),
        None => format!("{}: {}", e.field, e.message),
    };
    if let Some(h) = &e.hint {
        out.push_str(&format!(" (hint: {h})"));
    }
    out
}

/// Whether a stop reason ends a turn normally ([`NORMAL_STOPS`]).
pub fn is_normal_stop(reason: &str) -> bool {
    NORMAL_STOPS.contains(&reason)
}

/// Whether a signature is failing: an error, a policy violation or a non-normal stop.
pub fn is_failing(s: &BehaviourSignature) -> bool {
    s.error || s.violation || s.stop_reasons.iter().any(|r| !is_normal_stop(r))
}

/// A trace's behaviour signature, and whether it had more calls than a signature keeps.
pub fn signature(
    trace: &Trace,
    policy: Option<&veer_policy::Policy>,
) -> (BehaviourSignature, bool) {
    let calls = trace.tool_calls();
    let truncated = calls.len() > BehaviourSignature::MAX_CALLS;
    let calls = calls
        .iter()
        .take(BehaviourSignature::MAX_CALLS)
        .map(|c| {
            let mut keys: Vec<(&String, &serde_json::Value)> = c.arguments.iter().collect();
            keys.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            let more = keys.len().saturating_sub(MAX_KEYS);
            let mut shape: Vec<String> = keys
                .iter()
                .take(MAX_KEYS)
                .map(|(k, v)| format!("{}:{}", cut(k, MAX_NAME_BYTES), type_name(v)))
                .collect();
            if more > 0 {
                shape.push(format!("+{more} keys"));
            }
            CallShape {
                tool: cut(&c.name, MAX_NAME_BYTES),
                shape: shape.join(","),
            }
        })
        .collect();
    let mut stops: Vec<String> = trace
        .responses()
        .iter()
        .filter_map(|r| r.stop_reason())
        .map(|s| cut(s, MAX_NAME_BYTES))
        .collect();
    stops.sort_unstable();
    stops.dedup();
    stops.truncate(BehaviourSignature::MAX_STOPS);
    let error = trace.records.iter().any(|r| {
        r.kind == Kind::Error
            || (r.kind == Kind::ToolResult
                && matches!(r.field("is_error"), Some(veer_trace::Json::Bool(true))))
    });
    let violation = policy.is_some_and(|p| {
        !veer_policy::evaluate_with_warnings(p, trace)
            .violations
            .is_empty()
    });
    (
        BehaviourSignature {
            calls,
            stop_reasons: stops,
            error,
            violation,
        },
        truncated,
    )
}

/// A stable seeded hash of a signature (FNV-1a over its JSON, then a SplitMix64 finaliser).
fn seeded_hash(s: &BehaviourSignature, seed: u64) -> u64 {
    let bytes = serde_json::to_vec(s).unwrap_or_default();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed;
    for b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    let mut z = h.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A trace's signature and whether it was truncated, or why the file could not be read.
type SignatureOrError = Result<(BehaviourSignature, bool), String>;

/// One distinct signature's tally.
#[derive(Debug, Clone)]
struct Group {
    count: u64,
    /// The first member paths in corpus order (relative), at most `per_case`.
    members: Vec<String>,
}

/// The distinct signatures of a corpus with their counts (the streamed, bounded half of a run).
struct Tally {
    kept: BTreeMap<(u64, BehaviourSignature), Group>,
    cap: usize,
    keep_members: usize,
    not_sampled: u64,
}

impl Tally {
    fn add(&mut self, sig: BehaviourSignature, hash: u64, path: &str) {
        let key = (hash, sig);
        if let Some(g) = self.kept.get_mut(&key) {
            g.count += 1;
            if g.members.len() < self.keep_members {
                g.members.push(path.to_string());
            }
            return;
        }
        if self.kept.len() >= self.cap {
            let Some(max) = self.kept.keys().next_back() else {
                return;
            };
            if key >= *max {
                self.not_sampled += 1;
                return;
            }
            if let Some((_, evicted)) = self.kept.pop_last() {
                self.not_sampled += evicted.count;
            }
        }
        self.kept.insert(
            key,
            Group {
                count: 1,
                members: vec![path.to_string()],
            },
        );
    }
}

/// Reads the corpus and builds the report: signatures, clusters and the chosen cases. `tick`
/// is called once per file read (from any thread). Unreadable traces are listed in the
/// report's `skipped`, not fatal; a corpus with no readable trace is an error.
pub fn mine(
    corpus: &Corpus,
    options: &MineOptions<'_>,
    tick: &(dyn Fn() + Sync),
) -> Result<MineReport, Error> {
    use rayon::prelude::*;
    if options.per_case == 0 || options.per_case > MAX_PER_CASE {
        return Err(Error::input(format!(
            "--per-case {}: must be 1..={MAX_PER_CASE}",
            options.per_case
        ))
        .hint("--per-case N copies N traces of each case"));
    }
    if let Some(k) = options.cases {
        if k == 0 || k > MAX_CASES {
            return Err(
                Error::input(format!("--cases {k}: must be 1..={MAX_CASES}"))
                    .hint("leave --cases out to choose K by the silhouette"),
            );
        }
    }
    let cap = options.signature_cap.clamp(1, SIGNATURE_CAP);
    let mut tally = Tally {
        kept: BTreeMap::new(),
        cap,
        keep_members: options.per_case,
        not_sampled: 0,
    };
    let policy = options.policy.as_ref().map(|(_, p)| *p);
    let (mut read, mut skipped_count, mut truncated) = (0u64, 0u64, 0u64);
    let mut skipped = Vec::new();
    for chunk in corpus.files.chunks(CHUNK) {
        let results: Vec<(String, SignatureOrError)> = chunk
            .par_iter()
            .map(|path| {
                let relative = veer_trace::load::relative_name(&corpus.dir, path);
                let result = veer_trace::load_trace(path, &options.read)
                    .map(|t| signature(&t, policy))
                    .map_err(|e| skip_reason(&e));
                tick();
                (relative, result)
            })
            .collect();
        for (relative, result) in results {
            match result {
                Ok((sig, cut)) => {
                    read += 1;
                    truncated += u64::from(cut);
                    let hash = seeded_hash(&sig, options.seed);
                    tally.add(sig, hash, &relative);
                }
                Err(error) => {
                    skipped_count += 1;
                    if skipped.len() < MineReport::SKIPPED_LISTED {
                        skipped.push(SkippedTrace {
                            path: relative,
                            error,
                        });
                    }
                }
            }
        }
    }
    if read == 0 {
        let mut e = Error::input(format!(
            "{}: none of the {} trace files could be read",
            corpus.dir.display(),
            corpus.files.len()
        ))
        .hint("check the files with `veer inspect FILE`; the first errors follow");
        e.more = skipped
            .iter()
            .take(5)
            .map(|s| format!("{}: {}", s.path, s.error))
            .collect();
        return Err(e);
    }
    // Signature order: the signatures' own order, whatever the hash.
    let mut groups: Vec<(BehaviourSignature, Group)> =
        tally.kept.into_iter().map(|((_, s), g)| (s, g)).collect();
    groups.sort_by(|a, b| a.0.cmp(&b.0));
    let summary = CorpusSummary {
        trace_files: corpus.files.len() as u64,
        traces_read: read,
        traces_skipped: skipped_count,
        unique_signatures: groups.len() as u64,
        signature_cap: cap as u64,
        traces_not_sampled: tally.not_sampled,
        traces_truncated: truncated,
    };
    let mut report = cluster_and_pick(groups, options)?;
    report.corpus = corpus.dir.display().to_string();
    report.corpus_summary = summary;
    report.skipped = skipped;
    Ok(report)
}

/// Kaufman and Rousseeuw's reading of an average silhouette.
pub fn structure(silhouette: Option<f64>) -> &'static str {
    match silhouette {
        Some(s) if s > 0.70 => "strong",
        Some(s) if s > 0.50 => "reasonable",
        Some(s) if s > 0.25 => "weak",
        _ => "none",
    }
}

/// The file extension of a trace file kept in its copies (`agentlog.gz`, `jsonl`, …).
fn extension(path: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    if name.ends_with(".agentlog.gz") {
        return "agentlog.gz".into();
    }
    match name.rsplit_once('.') {
        Some((_, ext)) if !ext.is_empty() => ext.to_string(),
        _ => "agentlog".into(),
    }
}

fn files(members: &[String]) -> Vec<CaseFile> {
    members
        .iter()
        .enumerate()
        .map(|(i, m)| CaseFile {
            trial: format!("trial-{}.{}", i + 1, extension(m)),
            source: m.clone(),
        })
        .collect()
}

fn tools(s: &BehaviourSignature) -> Vec<String> {
    s.calls.iter().map(|c| c.tool.clone()).collect()
}

/// What makes a signature failing, in words.
fn failure_words(s: &BehaviourSignature) -> String {
    let mut parts = Vec::new();
    if s.error {
        parts.push("an error".to_string());
    }
    if s.violation {
        parts.push("a policy violation".to_string());
    }
    let odd: Vec<&str> = s
        .stop_reasons
        .iter()
        .filter(|r| !is_normal_stop(r))
        .map(String::as_str)
        .collect();
    if !odd.is_empty() {
        parts.push(format!("stop reason {}", odd.join(", ")));
    }
    parts.join(", ")
}

fn plural(n: u64, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// Clusters the distinct signatures (in signature order) and picks the cases.
fn cluster_and_pick(
    groups: Vec<(BehaviourSignature, Group)>,
    options: &MineOptions<'_>,
) -> Result<MineReport, Error> {
    let sigs: Vec<BehaviourSignature> = groups.iter().map(|(s, _)| s.clone()).collect();
    let w: Vec<f64> = groups.iter().map(|(_, g)| g.count as f64).collect();
    let n = sigs.len();
    let d = distance_matrix(&sigs).map_err(|e| Error::input(e.to_string()))?;
    let (clustering, chosen_by, scores) = match options.cases {
        Some(k) => (pam::pam(&d, &w, k), "--cases", Vec::new()),
        None => match pam::choose_k(&d, &w) {
            Some((c, scores)) => (c, "silhouette", scores),
            None => (pam::pam(&d, &w, n), "all", Vec::new()),
        },
    };
    let silhouette = pam::silhouette(&d, &w, &clustering);
    let k = clustering.medoids.len();
    // Clusters: largest first, ties in medoid (signature) order.
    let mut slots: Vec<usize> = (0..k).collect();
    let traces_of = |slot: usize| -> u64 {
        (0..n)
            .filter(|&i| clustering.assignment[i] == slot)
            .map(|i| groups[i].1.count)
            .sum()
    };
    slots.sort_by(|&a, &b| traces_of(b).cmp(&traces_of(a)).then(a.cmp(&b)));
    let mut cluster_of_slot = vec![0usize; k];
    for (pos, &slot) in slots.iter().enumerate() {
        cluster_of_slot[slot] = pos + 1;
    }
    let mut clusters = Vec::with_capacity(k);
    let mut cases = Vec::new();
    for (pos, &slot) in slots.iter().enumerate() {
        let medoid = clustering.medoids[slot];
        let mut members: Vec<usize> = (0..n)
            .filter(|&i| clustering.assignment[i] == slot)
            .collect();
        // Medoid first, then the nearest signatures.
        members.sort_by(|&a, &b| {
            (a != medoid)
                .cmp(&(b != medoid))
                .then(d.get(a, medoid).total_cmp(&d.get(b, medoid)))
                .then(a.cmp(&b))
        });
        let traces: u64 = members.iter().map(|&i| groups[i].1.count).sum();
        let mut stops: BTreeMap<&str, u64> = BTreeMap::new();
        for &i in &members {
            for r in &sigs[i].stop_reasons {
                *stops.entry(r).or_default() += groups[i].1.count;
            }
        }
        let failing_traces = members
            .iter()
            .filter(|&&i| is_failing(&sigs[i]))
            .map(|&i| groups[i].1.count)
            .sum();
        let mean_distance = members
            .iter()
            .map(|&i| groups[i].1.count as f64 * d.get(i, medoid))
            .sum::<f64>()
            / traces.max(1) as f64;
        let chosen: Vec<String> = members
            .iter()
            .flat_map(|&i| groups[i].1.members.iter().cloned())
            .take(options.per_case)
            .collect();
        let id = pos + 1;
        let mut why = format!(
            "medoid of cluster {id}: the typical behaviour of {} ({})",
            plural(traces, "trace"),
            plural(members.len() as u64, "signature")
        );
        if is_failing(&sigs[medoid]) {
            why.push_str(&format!("; it fails: {}", failure_words(&sigs[medoid])));
        }
        cases.push(MineCase {
            name: format!("cluster-{id:02}"),
            kind: CaseKind::Medoid,
            cluster: id,
            why,
            distance_to_medoid: 0.0,
            signature_traces: groups[medoid].1.count,
            tool_sequence: tools(&sigs[medoid]),
            files: files(&chosen),
        });
        clusters.push(MineCluster {
            id,
            traces,
            signatures: members.len(),
            medoid: sigs[medoid].clone(),
            medoid_traces: groups[medoid].1.count,
            tool_sequence: tools(&sigs[medoid]),
            stop_reasons: stops
                .into_iter()
                .map(|(reason, traces)| ReasonCount {
                    reason: reason.to_string(),
                    traces,
                })
                .collect(),
            failing_traces,
            mean_distance,
            members: chosen,
        });
    }
    let is_medoid = |i: usize| clustering.medoids.contains(&i);
    let to_medoid = |i: usize| d.get(i, clustering.medoids[clustering.assignment[i]]);
    // Failing signatures: most traces first, then signature order.
    let mut failing: Vec<usize> = (0..n)
        .filter(|&i| !is_medoid(i) && is_failing(&sigs[i]))
        .collect();
    failing.sort_by(|&a, &b| groups[b].1.count.cmp(&groups[a].1.count).then(a.cmp(&b)));
    failing.truncate(MAX_FAILING_CASES);
    // Rare signatures: seen once, far from every medoid; farthest first.
    let mut rare: Vec<usize> = (0..n)
        .filter(|&i| {
            !is_medoid(i)
                && !failing.contains(&i)
                && groups[i].1.count == 1
                && to_medoid(i) >= RARE_DISTANCE
        })
        .collect();
    rare.sort_by(|&a, &b| to_medoid(b).total_cmp(&to_medoid(a)).then(a.cmp(&b)));
    rare.truncate(MAX_RARE_CASES);
    for (no, &i) in rare.iter().enumerate() {
        cases.push(MineCase {
            name: format!("rare-{:02}", no + 1),
            kind: CaseKind::Rare,
            cluster: cluster_of_slot[clustering.assignment[i]],
            why: format!(
                "rare: seen once, at distance {:.2} from the nearest medoid (at least {RARE_DISTANCE:.2})",
                to_medoid(i)
            ),
            distance_to_medoid: to_medoid(i),
            signature_traces: groups[i].1.count,
            tool_sequence: tools(&sigs[i]),
            files: files(&groups[i].1.members),
        });
    }
    for (no, &i) in failing.iter().enumerate() {
        cases.push(MineCase {
            name: format!("failing-{:02}", no + 1),
            kind: CaseKind::Failing,
            cluster: cluster_of_slot[clustering.assignment[i]],
            why: format!(
                "fails: {} ({})",
                failure_words(&sigs[i]),
                plural(groups[i].1.count, "trace")
            ),
            distance_to_medoid: to_medoid(i),
            signature_traces: groups[i].1.count,
            tool_sequence: tools(&sigs[i]),
            files: files(&groups[i].1.members),
        });
    }
    Ok(MineReport {
        schema_version: MINE_SCHEMA_VERSION.into(),
        written_by: "veer mine".into(),
        corpus: String::new(),
        seed: options.seed,
        policy: options.policy.as_ref().map(|(name, _)| name.clone()),
        corpus_summary: CorpusSummary {
            trace_files: 0,
            traces_read: 0,
            traces_skipped: 0,
            unique_signatures: 0,
            signature_cap: 0,
            traces_not_sampled: 0,
            traces_truncated: 0,
        },
        clustering: ClusteringSummary {
            method: "k-medoids (PAM BUILD + SWAP, FastPAM1)".into(),
            k,
            k_chosen_by: chosen_by.into(),
            silhouette,
            structure: structure(silhouette).into(),
            silhouette_by_k: scores
                .into_iter()
                .map(|(k, silhouette)| KScore { k, silhouette })
                .collect(),
            total_deviation: clustering.total_deviation,
        },
        clusters,
        cases,
        skipped: Vec::new(),
    })
}

/// Whether `name` is one plain path component (a case directory name read back from a
/// previous suite.json must not reach outside the suite).
fn plain_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && !name.contains(['/', '\\'])
        && Path::new(name).components().count() == 1
}

fn io_error(path: &Path, e: &std::io::Error) -> Error {
    Error::output(&path.display().to_string(), e)
}

/// Writes the suite: `SUITE/CASE/trial-N.EXT` (copies of the corpus files, byte for byte) and
/// `SUITE/suite.json` (`suite_json`, the report as the front end prints it). `SUITE` must be
/// new, empty, or a previous `veer mine` output (whose case directories are replaced); it must
/// not lie inside the corpus, which is never modified.
pub fn write_suite(
    suite: &Path,
    corpus: &Path,
    report: &MineReport,
    suite_json: &str,
) -> Result<(), Error> {
    let shown = suite.display().to_string();
    let corpus_abs = std::fs::canonicalize(corpus).map_err(|e| io_error(corpus, &e))?;
    // The nearest existing ancestor of SUITE decides whether it lies inside the corpus.
    let mut probe = suite.to_path_buf();
    let mut tail = Vec::new();
    let existing = loop {
        match std::fs::canonicalize(&probe) {
            Ok(p) => break p,
            Err(_) => {
                let Some(name) = probe.file_name().map(|n| n.to_os_string()) else {
                    break std::env::current_dir().map_err(|e| io_error(suite, &e))?;
                };
                tail.push(name);
                if !probe.pop() || probe.as_os_str().is_empty() {
                    break std::env::current_dir().map_err(|e| io_error(suite, &e))?;
                }
            }
        }
    };
    let mut suite_abs = existing;
    for name in tail.iter().rev() {
        suite_abs.push(name);
    }
    if suite_abs.starts_with(&corpus_abs) || corpus_abs.starts_with(&suite_abs) {
        return Err(Error::input(format!(
            "--out {shown}: the suite would overlap the corpus {}",
            corpus.display()
        ))
        .hint(
            "write the suite outside the corpus directory; veer mine never modifies the corpus",
        ));
    }
    if suite.exists() {
        if !suite.is_dir() {
            return Err(
                Error::input(format!("--out {shown}: exists and is not a directory"))
                    .hint("pass a new or empty directory"),
            );
        }
        clear_previous(suite)?;
    }
    for case in &report.cases {
        if !plain_name(&case.name) {
            return Err(Error::new(
                crate::ErrorKind::Internal,
                format!("case name `{}` is not a plain name", case.name),
            ));
        }
        let dir = suite.join(&case.name);
        std::fs::create_dir_all(&dir).map_err(|e| io_error(&dir, &e))?;
        for f in &case.files {
            let from = corpus.join(&f.source);
            let to = dir.join(&f.trial);
            std::fs::copy(&from, &to).map_err(|e| io_error(&to, &e))?;
        }
    }
    let path = suite.join("suite.json");
    std::fs::write(&path, suite_json).map_err(|e| io_error(&path, &e))
}

/// Empties a previous `veer mine` output (the case directories its suite.json names and the
/// file itself); refuses any other non-empty directory.
fn clear_previous(suite: &Path) -> Result<(), Error> {
    let shown = suite.display().to_string();
    let is_empty = |p: &Path| -> Result<bool, Error> {
        Ok(std::fs::read_dir(p)
            .map_err(|e| io_error(p, &e))?
            .next()
            .is_none())
    };
    if is_empty(suite)? {
        return Ok(());
    }
    let refuse = |why: &str| {
        Error::input(format!("--out {shown}: {why}"))
            .hint("pass a new or empty directory, or a previous `veer mine` output to replace it")
    };
    let json = suite.join("suite.json");
    let bytes = veer_base::capped::read_capped(&json, 64 << 20)
        .map_err(|_| refuse("the directory is not empty and holds no suite.json of veer mine"))?;
    let previous: MineReport = serde_json::from_slice(&bytes)
        .map_err(|_| refuse("the directory is not empty and its suite.json is not veer mine's"))?;
    if previous.written_by != "veer mine" {
        return Err(refuse(
            "the directory is not empty and its suite.json is not veer mine's",
        ));
    }
    if previous.cases.iter().any(|c| !plain_name(&c.name)) {
        return Err(refuse("its suite.json names a case outside the directory"));
    }
    // Everything in it must be the previous output: nothing is removed otherwise.
    for entry in std::fs::read_dir(suite).map_err(|e| io_error(suite, &e))? {
        let entry = entry.map_err(|e| io_error(suite, &e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let ours = name == "suite.json"
            || (entry.path().is_dir() && previous.cases.iter().any(|c| c.name == name));
        if !ours {
            return Err(refuse(&format!(
                "it holds `{name}`, which is not part of the previous veer mine output"
            )));
        }
    }
    for case in &previous.cases {
        let dir = suite.join(&case.name);
        if dir.is_dir() {
            std::fs::remove_dir_all(&dir).map_err(|e| io_error(&dir, &e))?;
        }
    }
    std::fs::remove_file(&json).map_err(|e| io_error(&json, &e))
}

#[cfg(test)]
mod tests;
