//! Redaction of a trace's records (docs/redaction.md), for every front end that writes records
//! back out: `veer convert` and the Python package's `read`/`convert`. Secrets in payloads,
//! `meta` and unknown envelope keys become `[REDACTED:<kind>]`; a record whose payload changed
//! gets the content id of its redacted payload and its children's `parent` follows, so the
//! output reads back under `--strict`.

use std::collections::HashMap;
use veer_secrets::Detector;
use veer_trace::{Record, RecordId};

/// `records` with their secrets replaced by `detector` (returned unchanged for `None`, i.e.
/// `--no-redact` / `redact=False`): payload, `meta` and unknown envelope keys. A record whose
/// payload changed gets the content id of the redacted payload (computed after redaction), and
/// every later `parent` naming an old id names the new one; records with nothing to redact keep
/// their ids byte for byte. Records must come parents first (as a trace's records do).
pub fn redact_records(mut records: Vec<Record>, detector: Option<&Detector>) -> Vec<Record> {
    let Some(detector) = detector else {
        return records;
    };
    let mut renamed: HashMap<RecordId, RecordId> = HashMap::new();
    for r in &mut records {
        if let Some(p) = r.parent.as_ref().and_then(|p| renamed.get(p)) {
            r.parent = Some(p.clone());
        }
        for map in [r.meta.as_mut(), r.extra_envelope.as_mut()]
            .into_iter()
            .flatten()
        {
            for v in map.values_mut() {
                detector.redact_json(v);
            }
        }
        let before = r.payload.to_value();
        let mut after = before.clone();
        detector.redact_json(&mut after);
        if after != before {
            let id = RecordId::from(veer_trace::canonical::content_id(&after));
            renamed.insert(r.id.clone(), id.clone());
            r.id = id;
            r.payload = after.into();
        }
    }
    records
}

/// The records `veer convert` and the Python package's `convert` write for `traces`: one
/// `.agentlog` of the traces in order ([`records_for_agentlog`]: later traces follow as
/// sessions, their clocks moved so timestamps never go backwards), every placeholder id replaced
/// by its content id ([`with_content_ids`]), then redacted by `detector` — so the output reads
/// back under `--strict`.
///
/// [`records_for_agentlog`]: veer_trace::agentlog::writer::records_for_agentlog
/// [`with_content_ids`]: veer_trace::agentlog::writer::with_content_ids
pub fn converted_records(traces: &[veer_trace::Trace], detector: Option<&Detector>) -> Vec<Record> {
    use veer_trace::agentlog::writer::{records_for_agentlog, with_content_ids};
    redact_records(with_content_ids(records_for_agentlog(traces)), detector)
}

#[cfg(test)]
mod tests {
    use super::*;
    use veer_trace::agentlog::writer::records_for_agentlog;
    use veer_trace::ReadOptions;

    fn records(text: &str) -> Vec<Record> {
        let doc =
            veer_trace::load_bytes("t.agentlog", text.as_bytes(), &ReadOptions::default()).unwrap();
        records_for_agentlog(&doc.into_traces())
    }

    /// The candidate of the refund agent, with a key in its first record's payload (the
    /// session's metadata record, the parent of the next one).
    fn leaky() -> Vec<Record> {
        let text = include_str!("../../../examples/refund-agent/candidate.agentlog");
        let leaky = text.replacen("\"env\":\"demo\"", "\"env\":\"AKIAIOSFODNN7EXAMPLE\"", 1);
        assert_ne!(leaky, text, "the first record has no `env` tag");
        records(&leaky)
    }

    #[test]
    fn no_detector_keeps_every_record() {
        let r = leaky();
        assert_eq!(redact_records(r.clone(), None), r);
    }

    #[test]
    fn a_redacted_payload_gets_its_new_content_id_and_its_child_follows() {
        let before = leaky();
        let detector = Detector::builtin();
        let after = redact_records(before.clone(), Some(&detector));
        assert_eq!(after.len(), before.len());
        let (b0, a0) = (&before[0], &after[0]);
        assert_ne!(a0.id, b0.id, "the redacted record keeps its old id");
        let text = serde_json::to_string(&a0.payload.to_value()).unwrap();
        assert!(text.contains("[REDACTED:aws_access_key_id]"), "{text}");
        assert_eq!(
            a0.id,
            RecordId::from(veer_trace::canonical::content_id(&a0.payload.to_value()))
        );
        // Children of the renamed record name its new id; the others keep theirs byte for byte.
        let children: Vec<usize> = (1..before.len())
            .filter(|&k| before[k].parent.as_ref() == Some(&b0.id))
            .collect();
        assert!(!children.is_empty(), "no child of the first record");
        for k in 1..before.len() {
            assert_eq!(after[k].id, before[k].id);
            if children.contains(&k) {
                assert_eq!(after[k].parent.as_ref(), Some(&a0.id));
            } else {
                assert_eq!(after[k].parent, before[k].parent);
            }
        }
    }
}
