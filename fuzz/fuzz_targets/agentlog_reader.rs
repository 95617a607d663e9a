//! Any bytes given to the `.agentlog` reader, permissive and strict: an error is fine, a panic
//! is a bug. A trace that loads must also write and load back to the same records.
#![no_main]

use libfuzzer_sys::fuzz_target;
use veer_trace::agentlog::reader::read_agentlog_bytes;
use veer_trace::agentlog::writer::write_agentlog;
use veer_trace::ReadOptions;

fuzz_target!(|data: &[u8]| {
    let small = ReadOptions { strict: false, max_line_bytes: 1 << 16 };
    if let Ok(trace) = read_agentlog_bytes("fuzz.agentlog", data, &small) {
        let _ = trace.features();
        let _ = trace.tool_calls();
        let _ = trace.turns();
        let _ = trace.policy_sessions();
        let _ = trace.recorded_sessions();
        let mut out = Vec::new();
        if write_agentlog(&trace, &mut out).is_ok() {
            let back = read_agentlog_bytes("fuzz.agentlog", &out, &small);
            assert!(back.is_ok(), "a written trace must read back");
        }
    }
    let strict = ReadOptions { strict: true, max_line_bytes: 1 << 16 };
    let _ = read_agentlog_bytes("fuzz.agentlog", data, &strict);
});
