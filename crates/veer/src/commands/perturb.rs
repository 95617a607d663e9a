//! `veer experiment perturb` (spec `experiment.md` §13.6): read one input file, apply one
//! operator from `veer-perturb` with the seed derived for (base seed, file name, operator), and
//! write the perturbed copy atomically. The input file is never written.

use crate::cli::{ExperimentPerturbArgs, ExperimentPerturbFormat};
use crate::error::{CliError, EXIT_OK};
use crate::output::emit;
use serde::Serialize;
use std::path::Path;
use veer_perturb::{derive_seed, perturb, FileKind, Operator, Outcome, PerturbError};

/// Largest input read (documents, not traces): 256 MiB.
const MAX_INPUT_BYTES: u64 = 256 << 20;

/// What the command did, as printed (`--format json`: schema_version 1).
#[derive(Debug, Serialize)]
struct Summary<'a> {
    schema_version: u32,
    file: String,
    operator: &'a str,
    base_seed: u64,
    /// The operator's own seed, in `0..2^32`.
    seed: u32,
    /// `applied` or `skipped`.
    status: &'static str,
    /// Why the operator did not apply (`null` when applied).
    reason: Option<String>,
    /// The file written (`null` when skipped).
    out: Option<String>,
    bytes_in: usize,
    /// Size of the perturbed copy (`null` when skipped).
    bytes_out: Option<usize>,
}

/// Runs `veer experiment perturb`.
pub fn run(args: &ExperimentPerturbArgs) -> Result<u8, CliError> {
    let file = args.file.display().to_string();
    let operator = Operator::from_name(&args.operator).ok_or_else(|| {
        CliError::input(format!("unknown operator `{}`", args.operator))
            .hint(format!("operators: {}", Operator::all_names().join(", ")))
    })?;
    let name = args
        .file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let kind = FileKind::from_file_name(&name).ok_or_else(|| {
        CliError::input(format!("{file}: veer has no perturbation operators for this file type"))
            .hint("perturb .csv, .tsv, .json (an array of objects), .txt or .md files; PDF, .xlsx, image and audio operators are not implemented")
    })?;
    refuse_overwriting_input(&args.file, &args.out)?;
    let content = read_text(&args.file)?;
    let seed = derive_seed(args.seed, &name, operator.name());
    let outcome = perturb(&content, kind, operator, seed).map_err(|e| match e {
        PerturbError::WrongModality { .. } => CliError::input(format!("{file}: {e}")).hint(
            format!(
                "operators for this file: {}",
                kind.operators()
                    .iter()
                    .map(|op| op.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ),
        PerturbError::BadInput(msg) => CliError::input(format!("{file}: {msg}"))
            .hint("the file must hold what its extension says: delimited rows, a JSON array of objects, or text"),
    })?;
    let mut summary = Summary {
        schema_version: 1,
        file: file.clone(),
        operator: operator.name(),
        base_seed: args.seed,
        seed,
        status: "applied",
        reason: None,
        out: None,
        bytes_in: content.len(),
        bytes_out: None,
    };
    match outcome {
        Outcome::Applied(text) => {
            veer_trace::atomic::write_atomic(&args.out, text.as_bytes())
                .map_err(|e| CliError::output(&args.out.display().to_string(), &e))?;
            summary.out = Some(args.out.display().to_string());
            summary.bytes_out = Some(text.len());
        }
        Outcome::Skipped(reason) => {
            summary.status = "skipped";
            summary.reason = Some(reason);
        }
    }
    let text = match args.format {
        ExperimentPerturbFormat::Json => {
            let mut s = serde_json::to_string_pretty(&summary)
                .map_err(|e| CliError::input(format!("cannot render the summary: {e}")))?;
            s.push('\n');
            s
        }
        ExperimentPerturbFormat::Terminal => match &summary.reason {
            None => format!(
                "{}: {} applied (seed {}) -> {} ({} bytes)\n",
                summary.file,
                summary.operator,
                summary.seed,
                args.out.display(),
                summary.bytes_out.unwrap_or(0)
            ),
            Some(reason) => format!(
                "{}: {} skipped (seed {}): {reason}; nothing written\n",
                summary.file, summary.operator, summary.seed
            ),
        },
    };
    emit(&text, None)?;
    Ok(EXIT_OK)
}

/// Refuses an output path that is the input file (or a directory).
fn refuse_overwriting_input(input: &Path, out: &Path) -> Result<(), CliError> {
    if out.is_dir() {
        return Err(CliError::input(format!(
            "{}: cannot write output: is a directory",
            out.display()
        ))
        .hint("--out takes a file path, e.g. --out perturbed/sales.csv"));
    }
    let same = match (std::fs::canonicalize(input), std::fs::canonicalize(out)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same {
        return Err(CliError::input(format!(
            "{}: --out is the input file; veer never rewrites its input",
            out.display()
        ))
        .hint("write the perturbed copy elsewhere, e.g. --out perturbed/<name>"));
    }
    Ok(())
}

/// The whole input as UTF-8 text, with file-level errors and hints.
fn read_text(path: &Path) -> Result<String, CliError> {
    let shown = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|e| io_error(&shown, &e))?;
    if meta.is_dir() {
        return Err(
            CliError::input(format!("{shown}: is a directory, expected a file"))
                .hint("pass the input file to perturb"),
        );
    }
    if meta.len() > MAX_INPUT_BYTES {
        return Err(
            CliError::input(format!("{shown}: larger than {MAX_INPUT_BYTES} bytes"))
                .hint("perturbation inputs are documents an agent reads; split the file"),
        );
    }
    let bytes = std::fs::read(path).map_err(|e| io_error(&shown, &e))?;
    String::from_utf8(bytes).map_err(|e| {
        CliError::input(format!(
            "{shown}: not valid UTF-8 (byte {})",
            e.utf8_error().valid_up_to() + 1
        ))
        .hint("veer perturbs UTF-8 text files; convert the file first")
    })
}

fn io_error(shown: &str, e: &std::io::Error) -> CliError {
    match e.kind() {
        std::io::ErrorKind::NotFound => {
            CliError::input(format!("{shown}: no such file or directory")).hint("check the path")
        }
        std::io::ErrorKind::PermissionDenied => {
            CliError::input(format!("{shown}: permission denied"))
                .hint("check the file's permissions")
        }
        _ => CliError::input(format!("{shown}: cannot read: {e}"))
            .hint("check that the file is readable"),
    }
}
