//! Writes a repeated-trials corpus of stochastic scripted agents for the bench
//! (`bench/trials.sh`): `OUT/baseline/CASE/run-N.agentlog` and `OUT/candidate/…`, CASES cases of
//! TRIALS trials a side; the candidate skips a tool in the first 1% of cases.
//!
//! `cargo run --release -p veer-engine --example trials_corpus -- OUT CASES TRIALS`

use std::path::PathBuf;
use std::process::ExitCode;
use veer_engine::trials::scripted::{agentlog, Script};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let (Some(out), Some(cases), Some(trials)) = (
        args.get(1).map(PathBuf::from),
        args.get(2).and_then(|s| s.parse::<usize>().ok()),
        args.get(3).and_then(|s| s.parse::<u32>().ok()),
    ) else {
        eprintln!("usage: trials_corpus OUT CASES TRIALS");
        return ExitCode::from(2);
    };
    let changed = Script {
        skip_tool: Some(1),
        ..Script::default()
    };
    for (side, seed) in [("baseline", 1u64), ("candidate", 2u64)] {
        for c in 0..cases {
            let key = format!("case-{c:05}");
            let dir = out.join(side).join(&key);
            if let Err(e) = std::fs::create_dir_all(&dir) {
                eprintln!("{}: {e}", dir.display());
                return ExitCode::from(2);
            }
            let script = if side == "candidate" && c < cases / 100 {
                changed.clone()
            } else {
                Script::default()
            };
            for t in 1..=trials {
                let path = dir.join(format!("run-{t}.agentlog"));
                if let Err(e) = std::fs::write(&path, agentlog(&key, t, seed, &script)) {
                    eprintln!("{}: {e}", path.display());
                    return ExitCode::from(2);
                }
            }
        }
    }
    ExitCode::SUCCESS
}
