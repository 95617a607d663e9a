//! `veer baseline create|update|approve|verify|list|show`, and the hook `veer diff --baseline
//! NAME` uses: resolve a stored baseline to its verified directory of traces. The work is in
//! `veer_engine::baseline`; this file gathers provenance, maps errors and prints.

use super::provenance;
use crate::cli::{
    BaselineApproveArgs, BaselineCommand, BaselineCreateArgs, BaselineListArgs, BaselineRefArgs,
    DiffArgs, StandingFormat,
};
use crate::error::{CliError, EXIT_OK};
use crate::output::{emit, print_skipped};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use veer_engine::baseline::{self, BaselineError, Manifest};

/// Largest policy file hashed: 16 MiB (the policy reader's own cap).
const MAX_POLICY_BYTES: u64 = 16 << 20;

fn err(e: BaselineError) -> CliError {
    CliError::input(e.message).hint(e.hint)
}

/// Runs one `veer baseline` subcommand.
pub fn run(command: &BaselineCommand) -> Result<u8, CliError> {
    match command {
        BaselineCommand::Create(a) => create(a, false),
        BaselineCommand::Update(a) => create(a, true),
        BaselineCommand::Approve(a) => approve(a),
        BaselineCommand::Verify(a) => verify(a),
        BaselineCommand::List(a) => list(a),
        BaselineCommand::Show(a) => show(a),
    }
}

/// `veer diff --baseline SPEC CANDIDATE_DIR`: the same arguments with the verified baseline
/// directory as the baseline side and the one positional path as the candidate.
pub fn diff_args(args: &DiffArgs, spec: &str) -> Result<DiffArgs, CliError> {
    if !args.candidate.as_os_str().is_empty() {
        return Err(CliError::input(format!(
            "--baseline {spec} names the baseline, but two paths were given ({} and {})",
            args.baseline.display(),
            args.candidate.display()
        ))
        .hint(format!(
            "give only the candidate directory: veer diff --baseline {spec} runs/pr/"
        )));
    }
    let root = Path::new(crate::cli::DEFAULT_BASELINE_ROOT);
    let (dir, version) = baseline::resolve(root, spec).map_err(err)?;
    let verified = baseline::verify(&dir, version).map_err(err)?;
    warn_on_policy(&verified.opened.manifest, args.policy.as_deref());
    let mut resolved = args.clone();
    resolved.candidate = args.baseline.clone();
    resolved.baseline = verified.traces;
    if !resolved.candidate.is_dir() {
        return Err(CliError::input(format!(
            "{}: a stored baseline is a directory of traces, so the candidate must be one too",
            resolved.candidate.display()
        ))
        .hint("pass the directory of the candidate's runs, laid out like the baseline's"));
    }
    Ok(resolved)
}

/// A warning when the diff's policy is not the one the baseline was stored with.
fn warn_on_policy(m: &Manifest, policy: Option<&Path>) {
    let Some(stored) = &m.policy else { return };
    let Some(path) = policy else {
        crate::output::diag::warn(format!(
            "baseline {} was stored with policy {} (sha256 {}); this diff has no --policy",
            m.name, stored.path, stored.sha256
        ));
        return;
    };
    let now = veer_base::capped::read_capped(path, MAX_POLICY_BYTES)
        .map(|b| baseline::sha256_hex(&b))
        .unwrap_or_default();
    if now != stored.sha256 {
        crate::output::diag::warn(format!(
            "{}: not the policy baseline {} was stored with ({}, sha256 {})",
            path.display(),
            m.name,
            stored.path,
            stored.sha256
        ));
    }
}

fn create(a: &BaselineCreateArgs, update: bool) -> Result<u8, CliError> {
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
            Some(baseline::PolicyRef {
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
        source: baseline::Source {
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
    let m = &created.manifest;
    let text = match a.format {
        StandingFormat::Json => String::from_utf8_lossy(&m.to_bytes()).into_owned(),
        StandingFormat::Terminal => {
            let (stored, read) = m
                .files
                .iter()
                .fold((0u64, 0u64), |(s, r), f| (s + f.bytes, r + f.source_bytes));
            format!(
                "stored baseline {} version {} in {}: {} file{} in {} case{} ({} bytes read, {} stored)\n",
                m.name,
                m.version,
                created.version_dir.display(),
                m.files.len(),
                plural(m.files.len()),
                m.layout.cases.len(),
                plural(m.layout.cases.len()),
                read,
                stored
            )
        }
    };
    emit(&text, None)?;
    Ok(EXIT_OK)
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The directory and version a BASELINE argument names.
fn locate(spec: &str, root: &Path) -> Result<(PathBuf, Option<u32>), CliError> {
    baseline::resolve(root, spec).map_err(err)
}

fn approve(a: &BaselineApproveArgs) -> Result<u8, CliError> {
    let (dir, version) = locate(&a.baseline, &a.root.root)?;
    let by = a.by.clone().or_else(provenance::actor).ok_or_else(|| {
        CliError::input("who approves is not known").hint("say who with --by NAME")
    })?;
    if a.reason.trim().is_empty() {
        return Err(CliError::input("--reason is empty")
            .hint("say what was reviewed, e.g. --reason \"refund flows checked\""));
    }
    let approval = baseline::Approval {
        by,
        at: veer_trace::timefmt::format_epoch_ms(provenance::now_ms()),
        reason: a.reason.clone(),
    };
    let m = baseline::approve(&dir, version, approval).map_err(err)?;
    let text = match a.format {
        StandingFormat::Json => String::from_utf8_lossy(&m.to_bytes()).into_owned(),
        StandingFormat::Terminal => format!(
            "approved baseline {} version {} (manifest revision {}, {} approval{})\n",
            m.name,
            m.version,
            m.revision,
            m.approvals.len(),
            plural(m.approvals.len())
        ),
    };
    emit(&text, None)?;
    Ok(EXIT_OK)
}

fn verify(a: &BaselineRefArgs) -> Result<u8, CliError> {
    let (dir, version) = locate(&a.baseline, &a.root.root)?;
    let v = baseline::verify(&dir, version).map_err(err)?;
    let m = &v.opened.manifest;
    let text = match a.format {
        StandingFormat::Json => {
            let doc = serde_json::json!({
                "schema_version": 1,
                "baseline": m.name,
                "version": m.version,
                "revision": m.revision,
                "files": m.files.len(),
                "verified": true,
            });
            format!(
                "{}\n",
                serde_json::to_string_pretty(&doc).unwrap_or_default()
            )
        }
        StandingFormat::Terminal => format!(
            "baseline {} version {}: all {} file{} match the manifest (revision {})\n",
            m.name,
            m.version,
            m.files.len(),
            plural(m.files.len()),
            m.revision
        ),
    };
    emit(&text, a.out.output.as_deref())?;
    Ok(EXIT_OK)
}

fn list(a: &BaselineListArgs) -> Result<u8, CliError> {
    let all = baseline::list(&a.root.root).map_err(err)?;
    let text = match a.format {
        StandingFormat::Json => {
            let doc = serde_json::json!({ "schema_version": 1, "baselines": all });
            format!(
                "{}\n",
                serde_json::to_string_pretty(&doc).unwrap_or_default()
            )
        }
        StandingFormat::Terminal if all.is_empty() => format!(
            "no baselines in {} (create one: veer baseline create RUNS_DIR --name main)\n",
            a.root.root.display()
        ),
        StandingFormat::Terminal => {
            let mut t = String::new();
            let _ = writeln!(
                t,
                "{:<24} {:>8} {:>6} {:>6} {:>9}  created",
                "name", "version", "files", "cases", "approvals"
            );
            for b in &all {
                match &b.problem {
                    Some(p) => {
                        let _ = writeln!(t, "{:<24} unreadable: {p}", b.name);
                    }
                    None => {
                        let _ = writeln!(
                            t,
                            "{:<24} {:>8} {:>6} {:>6} {:>9}  {}",
                            b.name,
                            b.versions.last().copied().unwrap_or(0),
                            b.files,
                            b.cases,
                            b.approvals,
                            b.created_at
                        );
                    }
                }
            }
            t
        }
    };
    emit(&text, a.out.output.as_deref())?;
    Ok(EXIT_OK)
}

/// Cases listed by `show` before "… and N more".
const SHOWN_CASES: usize = 20;

fn show(a: &BaselineRefArgs) -> Result<u8, CliError> {
    let (dir, version) = locate(&a.baseline, &a.root.root)?;
    let opened = baseline::open(&dir, version).map_err(err)?;
    let m = &opened.manifest;
    let text = match a.format {
        StandingFormat::Json => String::from_utf8_lossy(&m.to_bytes()).into_owned(),
        StandingFormat::Terminal => render_show(m, &dir, &opened.versions),
    };
    crate::output::emit_metadata(&text, a.out.output.as_deref())?;
    Ok(EXIT_OK)
}

fn render_show(m: &Manifest, dir: &Path, versions: &[u32]) -> String {
    let mut t = String::new();
    let latest = versions.last().copied().unwrap_or(m.version);
    let _ = writeln!(
        t,
        "baseline {} ({}): version {} of {latest}, manifest revision {}",
        m.name,
        dir.display(),
        m.version,
        m.revision
    );
    let _ = writeln!(t, "created    {} by veer {}", m.created_at, m.veer_version);
    let s = &m.source;
    let _ = writeln!(
        t,
        "source     {}  commit {}  ci run {}",
        s.runs_dir,
        s.commit.as_deref().unwrap_or("unknown"),
        match (&s.ci_run, &s.ci_provider) {
            (Some(r), Some(p)) => format!("{r} ({p})"),
            (Some(r), None) => r.clone(),
            _ => "none".into(),
        }
    );
    match &m.policy {
        Some(p) => {
            let _ = writeln!(t, "policy     {} sha256 {}", p.path, p.sha256);
        }
        None => {
            let _ = writeln!(t, "policy     none");
        }
    }
    let (stored, read) = m
        .files
        .iter()
        .fold((0u64, 0u64), |(s, r), f| (s + f.bytes, r + f.source_bytes));
    let _ = writeln!(
        t,
        "files      {} ({read} bytes read, {stored} stored), {} case{}",
        m.files.len(),
        m.layout.cases.len(),
        plural(m.layout.cases.len())
    );
    if m.approvals.is_empty() {
        let _ = writeln!(
            t,
            "approvals  none (approve with: veer baseline approve {} --reason TEXT)",
            m.name
        );
    } else {
        let _ = writeln!(t, "approvals");
        for ap in &m.approvals {
            let _ = writeln!(t, "  {} at {}: {}", ap.by, ap.at, ap.reason);
        }
    }
    let _ = writeln!(t, "cases");
    for c in m.layout.cases.iter().take(SHOWN_CASES) {
        let _ = writeln!(
            t,
            "  {:<40} {} trial{}",
            c.case,
            c.trials.len(),
            plural(c.trials.len())
        );
    }
    if m.layout.cases.len() > SHOWN_CASES {
        let _ = writeln!(
            t,
            "  … and {} more (--format json lists every file)",
            m.layout.cases.len() - SHOWN_CASES
        );
    }
    t
}
