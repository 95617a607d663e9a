//! A `when:` condition (path, operator, literal) against a pair context built from JSON.
//! The body lives in `veer_policy::fuzzing` so the corpus replay tests run it too.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| veer_policy::fuzzing::when_resolver(data));
