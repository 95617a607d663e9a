#!/usr/bin/env bash
# Power and false alarms of the repeated-trials gate at full count: planted changes (argument
# renamed, argument value changed, call dropped, call added) in 4 of 12 cases at k = 3, 5, 10
# for a noisy and a deterministic scripted agent, and ≥ 500 same-agent comparisons per agent
# and k. Prints the Markdown table of docs/trials.md ("Power, measured").
#
#   bench/trials_power.sh            # 100 planted comparisons per row, 500 null
#   VEER_POWER_RUNS=200 bench/trials_power.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export VEER_POWER_RUNS="${VEER_POWER_RUNS:-100}"
cargo test -p veer-engine --release --test power planted_changes -- --nocapture --test-threads 1 2>&1 \
  | grep -E '^\||^\(' 
