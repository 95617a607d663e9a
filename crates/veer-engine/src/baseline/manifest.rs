//! The manifest of one baseline version: what was stored (each file's sha256 before and after
//! compression), how it is laid out in cases and trials, where it came from, who approved it.
//! Serialized as pretty JSON with its own `schema_version`; the same manifest gives the same
//! bytes.

use super::BaselineError;
use std::collections::BTreeMap;
use std::path::Path;

pub(crate) use veer_contract::baseline::MANIFEST_SCHEMA_VERSION;
pub(crate) use veer_contract::baseline::{
    BaselineApproval as Approval, BaselineCase as CaseLayout, BaselineFile as FileEntry,
    BaselineLayout as Layout, BaselineManifest as Manifest, BaselinePolicy as PolicyRef,
    BaselineSource as Source,
};

/// Reads a manifest file, naming it (and the JSON path) in errors.
pub(crate) fn read_manifest(path: &Path, bytes: &[u8]) -> Result<Manifest, BaselineError> {
    let de = &mut serde_json::Deserializer::from_slice(bytes);
    let m: Manifest = serde_path_to_error::deserialize(de).map_err(|e| {
        BaselineError::new(
            format!("{}: ({}): not a baseline manifest: {}", path.display(), e.path(), e.inner()),
            "the manifest was changed or damaged; restore the baseline from a copy or create a new version",
        )
    })?;
    if m.schema_version != MANIFEST_SCHEMA_VERSION || m.kind != "veer-baseline" {
        return Err(BaselineError::new(
            format!(
                "{}: (schema_version): manifest schema version {} of kind `{}` is not one this veer reads (version {MANIFEST_SCHEMA_VERSION}, kind veer-baseline)",
                path.display(),
                m.schema_version,
                m.kind
            ),
            "use the veer that created the baseline, or create a new one",
        ));
    }
    Ok(m)
}

/// The trace extensions stripped from a top-level file's name to make its case name.
const EXTENSIONS: [&str; 5] = [".agentlog.gz", ".jsonl.gz", ".agentlog", ".jsonl", ".json"];

/// The layout of `paths` (relative, `/`-separated): a file under a directory belongs to the
/// case named by that directory; a top-level file is a case of its own.
pub(crate) fn infer_layout(paths: &[String]) -> Layout {
    let mut cases: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for p in paths {
        let case = match p.rsplit_once('/') {
            Some((dir, _)) => dir.to_string(),
            None => EXTENSIONS
                .iter()
                .find_map(|ext| p.strip_suffix(ext))
                .unwrap_or(p)
                .to_string(),
        };
        cases.entry(case).or_default().push(p.clone());
    }
    Layout {
        cases: cases
            .into_iter()
            .map(|(case, mut trials)| {
                trials.sort();
                CaseLayout { case, trials }
            })
            .collect(),
    }
}
