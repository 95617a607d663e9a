//! Any bytes given to format detection and the traxr readers (trace, results, analyzer case).
#![no_main]

use libfuzzer_sys::fuzz_target;
use veer_trace::{load_bytes, Document, ReadOptions};

fuzz_target!(|data: &[u8]| {
    for strict in [false, true] {
        let options = ReadOptions { strict, max_line_bytes: 1 << 16 };
        if let Ok(doc) = load_bytes("fuzz.json", data, &options) {
            let traces = match doc {
                Document::Trace(t) => vec![t],
                Document::Results(r) => r.traces.into_iter().map(|(_, t)| t).collect(),
                Document::AnalyzerCase(c) => vec![c.clean, c.perturbed],
            };
            for t in traces {
                let _ = t.features();
                let _ = t.turns();
                let mut out = Vec::new();
                let _ = veer_trace::agentlog::writer::write_agentlog(&t, &mut out);
            }
        }
    }
});
