//! Any bytes given to the Inspect AI log reader (`.eval` zip or JSON log), permissive and
//! strict. The body lives in `veer_trace::fuzzing` so the corpus replay tests run it too.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| veer_trace::fuzzing::inspect_reader(data));
