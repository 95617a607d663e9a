//! Per-stage cost of `veer diff` on the harness inputs (`bench/run.sh` writes them with
//! `veer synth` under `target/bench/inputs/<kind>-<turns>/`): how long each stage takes at each
//! size, for the growth exponents in docs/performance.md. Each stage runs alone, on all cores,
//! `VEER_STAGE_RUNS` times (default 3); the medians are printed as TSV:
//! `input  stage  wall-seconds  cpu-seconds` (CPU: user + system of the whole process, Linux
//! only — the figure that bounds wall time on a shared or 2-core machine).
//! `VEER_STAGES=align,structural` (keys: read, features, axes, align, structural) runs only
//! those stages. What a stage returns is freed outside its timing, as `veer` leaves
//! its data to the process exit. The first row reads one side on one thread (reading speed).
//!
//! cargo bench -p veer-diff --bench stages -- target/bench/inputs/near-1000 target/bench/inputs/near-10000

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::hint::black_box;
use std::path::Path;
use std::time::Instant;
use veer_diff::axes::{compute_axes, TurnPair};
use veer_diff::turn::diff_turn_pair;
use veer_diff::{divergences_anchored, Pricing};
use veer_trace::{load_trace, ReadOptions};

/// CPU seconds (user + system) this process has used so far, from `/proc/self/stat` (Linux;
/// 0 elsewhere). Clock ticks are 1/100 s on Linux.
fn cpu_secs() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
        return 0.0;
    };
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |k: usize| f.get(k).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

/// Median wall seconds and median CPU seconds of `runs` runs of `f`.
fn median_secs<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, f64) {
    let mut times: Vec<(f64, f64)> = (0..runs)
        .map(|_| {
            let (t, cpu) = (Instant::now(), cpu_secs());
            let out = black_box(f());
            let secs = (t.elapsed().as_secs_f64(), cpu_secs() - cpu);
            drop(out);
            secs
        })
        .collect();
    let mid = times.len() / 2;
    times.sort_by(|a, b| a.0.total_cmp(&b.0));
    let wall = times[mid].0;
    times.sort_by(|a, b| a.1.total_cmp(&b.1));
    (wall, times[mid].1)
}

fn main() {
    let runs: usize = std::env::var("VEER_STAGE_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let dirs: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    for dir in dirs {
        let d = Path::new(&dir);
        let name = d.file_name().unwrap().to_string_lossy().into_owned();
        let (bp, cp) = (d.join("baseline.agentlog"), d.join("candidate.agentlog"));
        let opts = ReadOptions::default();
        let row = |stage: &str, (secs, cpu): (f64, f64)| {
            println!("{name}\t{stage}\t{secs:.4}\t{cpu:.2}");
        };
        // `VEER_STAGES=align,structural` runs only the named stages (after reading the inputs
        // once), to time or profile one stage alone.
        let only = std::env::var("VEER_STAGES").ok();
        let wanted = |key: &str| {
            only.as_deref()
                .is_none_or(|o| o.split(',').any(|k| k == key))
        };
        let bytes = std::fs::metadata(&bp).unwrap().len() as f64;
        if wanted("read") {
            let one_side = median_secs(runs, || load_trace(&bp, &opts).unwrap());
            row(
                &format!(
                    "read (one side, one thread: {:.0} MB/s)",
                    bytes / one_side.0 / 1e6
                ),
                one_side,
            );
            row(
                "read (both sides)",
                median_secs(runs, || {
                    rayon::join(
                        || load_trace(&bp, &opts).unwrap(),
                        || load_trace(&cp, &opts).unwrap(),
                    )
                }),
            );
        }
        let (b, c) = (
            load_trace(&bp, &opts).unwrap(),
            load_trace(&cp, &opts).unwrap(),
        );
        if wanted("features") {
            row("features", median_secs(runs, || diff_turn_pair(&b, &c)));
        }
        let (tb, tc) = diff_turn_pair(&b, &c);
        let pairs: Vec<TurnPair<'_>> = tb.iter().zip(tc.iter()).collect();
        if wanted("axes") {
            row(
                "axes + bootstrap",
                median_secs(runs, || compute_axes(&pairs, &Pricing::none(), 42)),
            );
        }
        if wanted("align") {
            row(
                "turn alignment (Gotoh; anchored past the budget)",
                median_secs(runs, || divergences_anchored(&tb, &tc, 5, 1 << 26)),
            );
        }
        if wanted("structural") {
            row(
                "structural (event edit script)",
                median_secs(runs, || veer_experiment::structural_within(&b, &c, 1 << 26)),
            );
        }
    }
}
