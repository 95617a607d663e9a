//! Any bytes as a policy file (first byte: YAML or JSON), evaluated on a bundled trace when it
//! loads. The body lives in `veer_policy::fuzzing` so the corpus replay tests run it too.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use veer_trace::agentlog::reader::read_agentlog_bytes;
use veer_trace::{ReadOptions, Trace};

fn trace() -> &'static Trace {
    static TRACE: OnceLock<Trace> = OnceLock::new();
    TRACE.get_or_init(|| {
        let bytes = include_bytes!("../../examples/refund-agent/candidate.agentlog");
        read_agentlog_bytes("candidate.agentlog", bytes, &ReadOptions::default())
            .expect("the bundled example trace reads")
    })
}

fuzz_target!(|data: &[u8]| veer_policy::fuzzing::policy_loader(data, trace()));
