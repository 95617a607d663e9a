//! `veer baseline create|update|approve|verify|list|show`. The work is in
//! `veer_engine::baseline` (which also resolves `veer diff --baseline NAME`), the printers in
//! `veer_report::baseline`; this file gathers provenance, maps errors and builds what is
//! printed.

use super::provenance;
use crate::cli::{
    BaselineApproveArgs, BaselineCommand, BaselineCreateArgs, BaselineListArgs, BaselineRefArgs,
};
use crate::error::{CliError, Exit};
use crate::output::{emit, print_skipped};
use std::path::{Path, PathBuf};
use veer_contract::baseline::{BaselineApproval, BaselineManifest, BaselinePolicy, BaselineSource};
use veer_engine::baseline::{self, BaselineError};
use veer_report::baseline::{
    BaselineApproved, BaselineCreated, BaselineList, BaselineShown, BaselineVerified, StoredBytes,
};
use veer_report::printer::OutputFormat as _;
use veer_report::style::Style;

/// Colour is off in every baseline printer.
const PLAIN: Style = Style { colour: false };

use veer_engine::policy::MAX_POLICY_BYTES;

fn err(e: BaselineError) -> CliError {
    CliError::input(e.message).hint(e.hint)
}

/// Runs one `veer baseline` subcommand.
pub fn run(command: &BaselineCommand) -> Result<Exit, CliError> {
    match command {
        BaselineCommand::Create(a) => create(a, false),
        BaselineCommand::Update(a) => create(a, true),
        BaselineCommand::Approve(a) => approve(a),
        BaselineCommand::Verify(a) => verify(a),
        BaselineCommand::List(a) => list(a),
        BaselineCommand::Show(a) => show(a),
    }
}

fn create(a: &BaselineCreateArgs, update: bool) -> Result<Exit, CliError> {
    let (dir, name) = match (&a.path, &a.name) {
        (Some(path), _) => {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            (path.clone(), name)
        }
        (None, Some(name)) => (
            baseline::dir_of(&a.root.root, name).map_err(err)?,
            name.clone(),
        ),
        (None, None) => {
            return Err(
                CliError::input("a baseline needs a name").hint("add --name main (or --path DIR)")
            )
        }
    };
    let policy = match &a.policy {
        Some(path) => {
            super::policy::load(path)?;
            let bytes = veer_base::capped::read_capped(path, MAX_POLICY_BYTES).map_err(|e| {
                CliError::input(format!("{}: cannot read the policy: {e:?}", path.display()))
            })?;
            Some(BaselinePolicy {
                path: path.display().to_string(),
                sha256: baseline::sha256_hex(&bytes),
            })
        }
        None => None,
    };
    let (env_run, provider) = provenance::ci_run();
    let options = baseline::CreateOptions {
        name,
        veer_version: env!("CARGO_PKG_VERSION").to_string(),
        created_at: veer_trace::timefmt::format_epoch_ms(provenance::now_ms()),
        source: BaselineSource {
            runs_dir: a.runs.display().to_string(),
            commit: a.commit.clone().or_else(provenance::commit),
            ci_run: a.ci_run.clone().or(env_run),
            ci_provider: provider,
        },
        policy,
        read: a.read.options(),
        update,
    };
    let created = baseline::create(&dir, &a.runs, &options).map_err(err)?;
    print_skipped(&created.skipped);
    let doc = BaselineCreated {
        bytes: stored_bytes(&created.manifest),
        version_dir: created.version_dir.display().to_string(),
        manifest: created.manifest,
    };
    let text = a.format.print(&doc, PLAIN);
    emit(&text, None)?;
    Ok(Exit::done())
}

/// The total size of a version's files, as read and as stored.
fn stored_bytes(m: &BaselineManifest) -> StoredBytes {
    let (stored, read) = m
        .files
        .iter()
        .fold((0u64, 0u64), |(s, r), f| (s + f.bytes, r + f.source_bytes));
    StoredBytes { read, stored }
}

/// The directory and version a BASELINE argument names.
fn locate(spec: &str, root: &Path) -> Result<(PathBuf, Option<u32>), CliError> {
    baseline::resolve(root, spec).map_err(err)
}

fn approve(a: &BaselineApproveArgs) -> Result<Exit, CliError> {
    let (dir, version) = locate(&a.baseline, &a.root.root)?;
    let by = a.by.clone().or_else(provenance::actor).ok_or_else(|| {
        CliError::input("who approves is not known").hint("say who with --by NAME")
    })?;
    if a.reason.trim().is_empty() {
        return Err(CliError::input("--reason is empty")
            .hint("say what was reviewed, e.g. --reason \"refund flows checked\""));
    }
    let approval = BaselineApproval {
        by,
        at: veer_trace::timefmt::format_epoch_ms(provenance::now_ms()),
        reason: a.reason.clone(),
    };
    let m = baseline::approve(&dir, version, approval).map_err(err)?;
    let text = a.format.print(&BaselineApproved { manifest: m }, PLAIN);
    emit(&text, None)?;
    Ok(Exit::done())
}

fn verify(a: &BaselineRefArgs) -> Result<Exit, CliError> {
    let (dir, version) = locate(&a.baseline, &a.root.root)?;
    let v = baseline::verify(&dir, version).map_err(err)?;
    let doc = BaselineVerified {
        manifest: v.opened.manifest,
    };
    let text = a.format.print(&doc, PLAIN);
    emit(&text, a.out.output.as_deref())?;
    Ok(Exit::done())
}

fn list(a: &BaselineListArgs) -> Result<Exit, CliError> {
    let all = baseline::list(&a.root.root).map_err(err)?;
    let doc = BaselineList {
        root: a.root.root.display().to_string(),
        baselines: all,
    };
    let text = a.format.print(&doc, PLAIN);
    emit(&text, a.out.output.as_deref())?;
    Ok(Exit::done())
}

fn show(a: &BaselineRefArgs) -> Result<Exit, CliError> {
    let (dir, version) = locate(&a.baseline, &a.root.root)?;
    let opened = baseline::open(&dir, version).map_err(err)?;
    let doc = BaselineShown {
        bytes: stored_bytes(&opened.manifest),
        dir: dir.display().to_string(),
        versions: opened.versions,
        manifest: opened.manifest,
    };
    let text = a.format.print(&doc, PLAIN);
    crate::output::emit_metadata(&text, a.out.output.as_deref())?;
    Ok(Exit::done())
}
