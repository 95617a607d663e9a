//! Any bytes as five doubles for the F, non-central F and incomplete beta functions (each
//! within its iteration bound), the rest as small fingerprint samples for the Hotelling test.
//! The body lives in `veer_diff::hotelling::fuzzing` so the corpus replay test runs it too.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| veer_diff::hotelling::fuzzing::distributions(data));
