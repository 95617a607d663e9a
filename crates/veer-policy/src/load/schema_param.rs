//! The JSON Schema of a `must_match_json_schema` rule: compiling an inline `schema`, or reading
//! a `schema_path` (beside the policy first, then the current directory). Nothing is fetched.

use super::{Loader, RuleRef};
use crate::model::Check;
use crate::node::PolicyNode;
use crate::schema::Schema;
use serde_json::Value;
use std::path::{Path as FsPath, PathBuf};

impl Loader<'_> {
    pub(super) fn compile_schema(
        &mut self,
        v: &Value,
        origin: &str,
        at: &PolicyNode,
        r: &RuleRef,
    ) -> Option<Check> {
        match Schema::compile(v, origin) {
            Ok(s) => Some(Check::MustMatchJsonSchema(s)),
            Err(e) => {
                let hint = if e.contains("refusing to fetch") {
                    "veer never fetches schemas; put the referenced schema under $defs and use \"$ref\": \"#/$defs/<name>\"".to_string()
                } else {
                    "check the schema against the JSON Schema specification (draft 2020-12 unless $schema says otherwise)".to_string()
                };
                self.problem(
                    at,
                    Some(r),
                    format!("{origin}: schema is invalid: {e}"),
                    Some(hint),
                );
                None
            }
        }
    }

    pub(super) fn schema_file(&mut self, p: &str, at: &PolicyNode, r: &RuleRef) -> Option<Check> {
        let beside = self.base_dir.join(p);
        let path = if beside.is_file() {
            beside
        } else if FsPath::new(p).is_file() {
            self.warn(format!(
                "{}: schema_path '{p}' not found next to the policy; using '{p}' relative to the current directory",
                r.label()
            ));
            PathBuf::from(p)
        } else {
            self.problem(
                at,
                Some(r),
                format!("schema_path not found: {}", beside.display()),
                Some("schema_path is resolved relative to the policy file's directory".into()),
            );
            return None;
        };
        let shown = path.display().to_string();
        let cap = veer_base::capped::MAX_CONFIG_FILE_BYTES;
        let read = veer_base::capped::read_capped(&path, cap).map_err(|e| match e {
            veer_base::capped::CappedError::Io(e) => e.to_string(),
            other => other
                .too_large_message("schema file", None)
                .map(|(m, _)| m)
                .unwrap_or_default(),
        });
        let read = read.and_then(|bytes| {
            String::from_utf8(bytes).map_err(|_| "stream did not contain valid UTF-8".to_string())
        });
        let text = match read {
            Ok(t) => t,
            Err(e) => {
                self.problem(
                    at,
                    Some(r),
                    format!("could not read schema_path {shown}: {e}"),
                    Some("check that the schema file is readable UTF-8".into()),
                );
                return None;
            }
        };
        let v = match veer_trace::strict_json::parse_strict(&text) {
            Ok(v) => v,
            Err(e) => {
                self.problem(
                    at,
                    Some(r),
                    format!("schema_path {shown} is not valid JSON: {e}"),
                    Some("a schema file must be one strict JSON object (no duplicate keys)".into()),
                );
                return None;
            }
        };
        self.compile_schema(&v, &shown, at, r)
    }
}
