//! Any bytes as a perturbation input: a file kind, an operator, a seed and the content. The
//! body lives in `veer_perturb::fuzzing` so the corpus replay test runs it too.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| veer_perturb::fuzzing::perturb_any(data));
