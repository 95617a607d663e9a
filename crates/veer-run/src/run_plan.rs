//! The plan of an experiment: its runs (the clean baseline, N clean re-runs, one run per
//! applicable operator with `veer experiment perturb`'s seed), the operators skipped with their
//! reason, and where each run's files go inside the experiment directory.

use sha2::{Digest, Sha256};
use veer_perturb::{derive_seed, perturb, FileKind, Operator, PerturbError, PerturbOutcome};

/// What a run is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunRole {
    /// The clean input, compared with every other run.
    Baseline,
    /// A clean re-run (1-based); the noise floor.
    Rerun(usize),
    /// The input perturbed by this operator.
    Perturbed(Operator),
}

/// One agent run of the plan.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedRun {
    /// What the run is for.
    pub role: RunRole,
    /// traxr's run label: `baseline`, `noise_floor_<i>`, `<item_id>::<operator>`.
    pub label: String,
    /// Where its trace goes, relative to the experiment directory and without extension:
    /// `baseline`, `reruns/rerun-001`, `perturbed/<operator>` (the layout `experiment
    /// analyze` reads).
    pub trace_stem: String,
    /// Its own directory, relative to the experiment directory: the input copy, stdout,
    /// stderr and the finished-run marker (`runs/baseline`, `runs/reruns/rerun-001`,
    /// `runs/perturbed/<operator>`).
    pub run_dir: String,
    /// The operator's seed (perturbed runs only), in `0..2^32`.
    pub seed: Option<u32>,
    /// The content of this run's copy of the input.
    pub input: String,
    /// Lower-case hex SHA-256 of `input`.
    pub input_sha256: String,
    /// A perturbed run whose copy equals the clean input byte for byte (the operator applied,
    /// as traxr counts it, but had nothing to change): [`veer_perturb::UNCHANGED_NOTE`].
    pub note: Option<&'static str>,
}

/// An operator that does not apply to this input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedOperator {
    /// The operator.
    pub operator: Operator,
    /// Its seed.
    pub seed: u32,
    /// Why it does not apply (the operator's own words).
    pub reason: String,
}

/// The runs of one experiment, in the order they are started.
#[derive(Debug, Clone, PartialEq)]
pub struct RunPlan {
    /// The input's file name: `item_id` of every pair, and part of each operator's seed.
    pub file_name: String,
    /// The experiment's base seed.
    pub base_seed: u64,
    /// The operators asked for that belong to this kind of file, in matrix order.
    pub operators: Vec<Operator>,
    /// Baseline, re-runs, then the applicable operators in matrix order.
    pub runs: Vec<PlannedRun>,
    /// Operators that do not apply to this content.
    pub skipped: Vec<SkippedOperator>,
}

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The file name of re-run `i` (1-based) without extension: `rerun-001`; at least three
/// digits so that names sort in run order.
pub(crate) fn rerun_name(i: usize) -> String {
    format!("rerun-{i:03}")
}

fn planned(
    role: RunRole,
    label: String,
    stem: String,
    seed: Option<u32>,
    input: String,
) -> PlannedRun {
    PlannedRun {
        role,
        label,
        run_dir: format!("runs/{stem}"),
        trace_stem: stem,
        seed,
        input_sha256: sha256_hex(input.as_bytes()),
        input,
        note: None,
    }
}

/// Plans an experiment on `content` (the input file named `file_name`, of `kind`): the
/// baseline, `reruns` clean re-runs, and one run per operator of `operators` that applies, with
/// the seed [`derive_seed`]`(base_seed, file_name, operator)` — exactly what `veer experiment
/// perturb` writes. Operators of another kind of file are an error; operators that do not apply
/// to this content are listed in [`RunPlan::skipped`].
pub fn plan(
    file_name: &str,
    content: &str,
    kind: FileKind,
    operators: &[Operator],
    reruns: usize,
    base_seed: u64,
) -> Result<RunPlan, PerturbError> {
    let mut runs = vec![planned(
        RunRole::Baseline,
        "baseline".into(),
        "baseline".into(),
        None,
        content.to_string(),
    )];
    for i in 1..=reruns {
        runs.push(planned(
            RunRole::Rerun(i),
            format!("noise_floor_{i}"),
            format!("reruns/{}", rerun_name(i)),
            None,
            content.to_string(),
        ));
    }
    let mut skipped = Vec::new();
    for &op in operators {
        let seed = derive_seed(base_seed, file_name, op.name());
        let outcome = perturb(content, kind, op, seed)?;
        let note = outcome.unchanged_note(content);
        match outcome {
            PerturbOutcome::Applied(text) => runs.push(PlannedRun {
                note,
                ..planned(
                    RunRole::Perturbed(op),
                    format!("{file_name}::{}", op.name()),
                    format!("perturbed/{}", op.name()),
                    Some(seed),
                    text,
                )
            }),
            PerturbOutcome::Skipped(reason) => skipped.push(SkippedOperator {
                operator: op,
                seed,
                reason,
            }),
        }
    }
    Ok(RunPlan {
        file_name: file_name.to_string(),
        base_seed,
        operators: operators.to_vec(),
        runs,
        skipped,
    })
}
