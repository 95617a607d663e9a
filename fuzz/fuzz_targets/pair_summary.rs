//! Any bytes as a pair summary from Python (`veer.merge_summaries`, `veer.finish_summary`).
//! The body lives in `veer_py::fuzzing` so the corpus replay test runs it too.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| veer_py::fuzzing::pair_summary(data));
