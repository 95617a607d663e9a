//! Any text as an LTLf formula; what parses is evaluated on a few fixed states.
//! The body lives in `veer_policy::fuzzing` so the corpus replay tests run it too.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| veer_policy::fuzzing::ltl_parser(data));
