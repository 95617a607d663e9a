//! Any bytes given to format detection and the traxr readers (trace, results, analyzer case).
//! The body lives in `veer_trace::fuzzing` so the corpus replay tests run it too.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| veer_trace::fuzzing::traxr_reader(data));
