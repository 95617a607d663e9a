//! Reads one trace file once, in this (fresh) process, and prints its size, the time the read
//! took and the rate: `cargo run --release --example read_once -p veer-trace -- FILE`.
//! `bench/read.sh` runs it in a new process each time, so the rate includes getting the trace's
//! memory from the kernel — what a user's `veer` run pays — unlike criterion's warm loop.

use std::time::Instant;

// The allocator the `veer` binary uses.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: read_once FILE");
        std::process::exit(2);
    };
    let path = std::path::PathBuf::from(path);
    let bytes = match std::fs::metadata(&path) {
        Ok(m) => m.len(),
        Err(e) => {
            eprintln!("{}: {e}", path.display());
            std::process::exit(2);
        }
    };
    let start = Instant::now();
    let document = match veer_trace::load_file(&path, &veer_trace::ReadOptions::default()) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let seconds = start.elapsed().as_secs_f64();
    let traces = document.into_traces();
    let records: usize = traces.iter().map(|t| t.records.len()).sum();
    println!(
        "{bytes}\t{records}\t{seconds:.4}\t{:.1}",
        bytes as f64 / seconds / 1e6
    );
    // The trace is dropped by the OS at exit, as `veer` itself does with its inputs.
    std::mem::forget(traces);
}
