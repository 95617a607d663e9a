//! Any bytes as a server-sent-event stream (and as a request body) for the recording proxy's
//! reassembly. The body lives in `veer_record::fuzzing` so the corpus replay test runs it too.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| veer_record::fuzzing::sse_stream(data));
