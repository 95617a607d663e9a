//! Any bytes as a response payload (JSON), response text and a number token for the behaviour
//! fingerprint. The body lives in `veer_diff::fingerprint::fuzzing` so the corpus replay test
//! runs it too.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| veer_diff::fingerprint::fuzzing::fingerprint_any(data));
