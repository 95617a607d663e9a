//! `veer experiment perturb` (spec `experiment.md` §13.6): read one input file, apply one
//! operator (the engine's `perturb::apply`) (or, with `--all`, every operator of the file's kind) with the
//! seed derived for (base seed, file name, operator), and write each perturbed copy atomically.
//! The input file is never written.

use crate::cli::ExperimentPerturbArgs;
use crate::error::{CliError, Exit};
use crate::output::emit;
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use veer_contract::perturb::{Applied, Summary, PERTURB_SCHEMA_VERSION};
use veer_engine::perturb::{FileKind, Operator, PerturbError, PerturbOutcome};
use veer_report::printer::OutputFormat as _;
use veer_report::style::Style;

/// Largest input read (documents, not traces): 256 MiB.
const MAX_INPUT_BYTES: u64 = veer_base::capped::MAX_PERTURB_INPUT_BYTES;

/// Runs `veer experiment perturb`.
pub fn run(args: &ExperimentPerturbArgs) -> Result<Exit, CliError> {
    let file = args.file.display().to_string();
    let name = args
        .file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let kind = FileKind::from_file_name(&name).ok_or_else(|| {
        CliError::input(format!("{file}: veer has no perturbation operators for this file type"))
            .hint("perturb .csv, .tsv, .json (an array of objects), .txt or .md files; PDF, .xlsx, image and audio operators are not implemented")
    })?;
    let operators: Vec<Operator> = match &args.operator {
        Some(op) => vec![Operator::from_name(op).ok_or_else(|| {
            CliError::input(format!("unknown operator `{op}`"))
                .hint(format!("operators: {}", Operator::all_names().join(", ")))
        })?],
        None => kind.operators().to_vec(),
    };
    // Each operator's destination: --out itself, or <out>/<operator>/<file name> with --all.
    let targets: Vec<PathBuf> = operators
        .iter()
        .map(|op| {
            if args.all {
                args.out.join(op.name()).join(&name)
            } else {
                args.out.clone()
            }
        })
        .collect();
    if args.all && args.out.exists() && !args.out.is_dir() {
        return Err(CliError::input(format!(
            "{}: --all writes one copy per operator under a directory, but this is a file",
            args.out.display()
        ))
        .hint("give --out a directory (created when missing), e.g. --out perturbed-inputs/"));
    }
    for target in &targets {
        refuse_overwriting_input(&args.file, target)?;
    }
    let content = read_text(&args.file)?;
    let mut summary = Summary {
        schema_version: PERTURB_SCHEMA_VERSION.into(),
        file: file.clone(),
        base_seed: args.seed,
        bytes_in: content.len(),
        perturbations: Vec::new(),
    };
    for (operator, target) in operators.iter().zip(&targets) {
        let (seed, outcome) =
            veer_engine::perturb::apply(&content, kind, *operator, args.seed, &name)
                .map_err(|e| perturb_error(&file, kind, e))?;
        let mut applied = Applied {
            operator: operator.name().into(),
            seed,
            status: "applied".into(),
            reason: None,
            out: None,
            bytes_out: None,
            note: outcome.unchanged_note(&content).map(Cow::Borrowed),
        };
        match outcome {
            PerturbOutcome::Applied(text) => {
                if let Some(dir) = target.parent().filter(|_| args.all) {
                    std::fs::create_dir_all(dir)
                        .map_err(|e| CliError::output(&dir.display().to_string(), &e))?;
                }
                crate::output::write_file(target, text.as_bytes())?;
                applied.out = Some(target.display().to_string());
                applied.bytes_out = Some(text.len());
            }
            PerturbOutcome::Skipped(reason) => {
                applied.status = "skipped".into();
                applied.reason = Some(reason);
            }
        }
        summary.perturbations.push(applied);
    }
    emit(&args.format.print(&summary, Style { colour: false }), None)?;
    Ok(Exit::done())
}

pub(crate) fn perturb_error(file: &str, kind: FileKind, e: PerturbError) -> CliError {
    match e {
        PerturbError::WrongModality { .. } => CliError::input(format!("{file}: {e}")).hint(format!(
            "operators for this file: {}",
            kind.operators()
                .iter()
                .map(|op| op.name())
                .collect::<Vec<_>>()
                .join(", ")
        )),
        PerturbError::BadInput(msg) => CliError::input(format!("{file}: {msg}")).hint(
            "the file must hold what its extension says: delimited rows, a JSON array of objects, or text",
        ),
    }
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
    crate::output::inputs::refuse_overwriting_inputs(out, &[input])
}

/// The whole input as UTF-8 text, with file-level errors and hints.
pub(crate) fn read_text(path: &Path) -> Result<String, CliError> {
    let shown = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|e| io_error(&shown, &e))?;
    if meta.is_dir() {
        return Err(
            CliError::input(format!("{shown}: is a directory, expected a file"))
                .hint("pass the input file to perturb"),
        );
    }
    let too_large = || {
        CliError::input(format!("{shown}: larger than {MAX_INPUT_BYTES} bytes"))
            .hint("perturbation inputs are documents an agent reads; split the file")
    };
    if meta.len() > MAX_INPUT_BYTES {
        return Err(too_large());
    }
    // Capped as read too: a FIFO or device has no length to check first.
    let bytes = veer_base::capped::read_capped(path, MAX_INPUT_BYTES).map_err(|e| match e {
        veer_base::capped::CappedError::Io(e) => io_error(&shown, &e),
        veer_base::capped::CappedError::TooLarge(_) => too_large(),
        other => {
            let (message, hint) = other.too_large_message("input", None).unwrap_or_default();
            CliError::input(format!("{shown}: {message}")).hint(hint)
        }
    })?;
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
