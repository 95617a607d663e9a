//! Any bytes given to the OpenTelemetry OTLP/JSON reader; a trace that loads must read the same
//! twice and convert to an `.agentlog` the strict reader accepts. The body lives in
//! `veer_trace::fuzzing` so the corpus replay tests run it too.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| veer_trace::fuzzing::otel_reader(data));
