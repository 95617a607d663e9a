#!/usr/bin/env bash
# Repeated trials at scale (issue 28, item 7): CASES cases × TRIALS trials a side of stochastic
# scripted agents (crates/veer-engine/examples/trials_corpus.rs), one `veer diff` of the two
# directories; prints wall seconds and peak RSS (MB). Usage: bench/trials.sh [CASES] [TRIALS]
set -euo pipefail
CASES="${1:-1000}"
TRIALS="${2:-10}"
cd "$(dirname "$0")/.."
cargo build --release -p veer --bin veer
cargo build --release -p veer-engine --example trials_corpus
DIR="target/bench-trials/${CASES}x${TRIALS}"
[ -d "$DIR/candidate" ] || target/release/examples/trials_corpus "$DIR" "$CASES" "$TRIALS"
/usr/bin/time -f "trials-${CASES}x${TRIALS}	%e s	%M KB" \
  target/release/veer diff "$DIR/baseline" "$DIR/candidate" --format json -o "$DIR/report.json" || true
