//! Any bytes given to the Codex rollout reader (and to format detection), permissive and strict.
//! The body lives in `veer_trace::fuzzing` so the corpus replay tests run it too.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| veer_trace::fuzzing::foreign_reader(
    veer_trace::formats::Foreign::Codex,
    data
));
