//! Per-stage cost of `veer diff` on the harness inputs (`bench/run.sh` writes them with
//! `veer synth` under `target/bench/inputs/<kind>-<turns>/`): how long each stage takes at each
//! size, for the growth exponents in docs/performance.md. Each stage runs alone, on all cores,
//! `VEER_STAGE_RUNS` times (default 3); the median is printed as TSV:
//! `input  stage  seconds`. What a stage returns is freed outside its timing, as `veer` leaves
//! its data to the process exit. The first row reads one side on one thread (reading speed).
//!
//! cargo bench -p veer-diff --bench stages -- target/bench/inputs/near-1000 target/bench/inputs/near-10000
//!
//! `VEER_STAGES=axes,features` (comma-separated words) times only the stages whose names
//! contain one of them.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::hint::black_box;
use std::path::Path;
use std::time::Instant;
use veer_diff::axes::{compute_axes, TurnPair};
use veer_diff::turn::diff_turns;
use veer_diff::{divergences_anchored, Pricing};
use veer_trace::{load_trace, ReadOptions};

fn median_secs<T>(runs: usize, mut f: impl FnMut() -> T) -> f64 {
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            let out = black_box(f());
            let secs = t.elapsed().as_secs_f64();
            drop(out);
            secs
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
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
        // `VEER_STAGES=axes,features` times only the stages whose names contain one of the words.
        let only: Option<Vec<String>> = std::env::var("VEER_STAGES")
            .ok()
            .map(|v| v.split(',').map(str::to_string).collect());
        let stage = |stage: &str, f: &mut dyn FnMut() -> f64| {
            if only
                .as_ref()
                .is_none_or(|w| w.iter().any(|x| stage.contains(x.as_str())))
            {
                println!("{name}\t{stage}\t{:.4}", f());
            }
        };
        let bytes = std::fs::metadata(&bp).unwrap().len() as f64;
        let mut one_side = 0.0;
        stage("read (one side, one thread)", &mut || {
            one_side = median_secs(runs, || load_trace(&bp, &opts).unwrap());
            one_side
        });
        if one_side > 0.0 {
            println!(
                "{name}\tread speed (one side, one thread)\t{:.0} MB/s",
                bytes / one_side / 1e6
            );
        }
        stage("read (both sides)", &mut || {
            median_secs(runs, || {
                rayon::join(
                    || load_trace(&bp, &opts).unwrap(),
                    || load_trace(&cp, &opts).unwrap(),
                )
            })
        });
        let (b, c) = (
            load_trace(&bp, &opts).unwrap(),
            load_trace(&cp, &opts).unwrap(),
        );
        stage("features", &mut || {
            median_secs(runs, || rayon::join(|| diff_turns(&b), || diff_turns(&c)))
        });
        let (tb, tc) = (diff_turns(&b), diff_turns(&c));
        let pairs: Vec<TurnPair<'_>> = tb.iter().zip(tc.iter()).collect();
        stage("axes + bootstrap", &mut || {
            median_secs(runs, || compute_axes(&pairs, &Pricing::none(), 42))
        });
        stage(
            "turn alignment (Gotoh; anchored past the budget)",
            &mut || median_secs(runs, || divergences_anchored(&tb, &tc, 5, 1 << 26)),
        );
        stage("structural (event edit script)", &mut || {
            median_secs(runs, || veer_experiment::structural_within(&b, &c, 1 << 26))
        });
    }
}
