//! Any bytes as what `veer experiment run` reads back from a run: the agent's stdout, an answer
//! file, a run marker. The body lives in `veer_run::fuzzing` so the corpus replay test runs it
//! too.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| veer_run::fuzzing::run_outputs(data));
