#!/usr/bin/env bash
# Linear work in every input dimension (docs/limits.md, "Work per input dimension"): writes the
# hostile pairs of bench/hostile_input.py at two scales and times `veer diff` (JSON; with the
# example policy; with bench/hostile_policy.yaml and --max-align-cells at its maximum),
# `veer inspect` and `veer check --policy` on each, printing wall seconds and peak RSS
# (/usr/bin/time). Doubling the scale should about double the time. Not a test.
#
#   bench/hostile.sh                       # every case at its two default scales
#   bench/hostile.sh tools 20000 40000     # one case at the given scales
#
# Inputs go to target/bench/inputs/hostile-CASE-N/ (regenerated when missing).
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --locked --quiet -p veer-cli
VEER=target/release/veer
MAX=18446744073709551615

declare -A SCALES=(
  [tools]="100000 200000" [openai]="100000 200000" [blocks]="100000 200000"
  [deep]="100000 200000" [wide]="50000 100000" [array]="50000 100000" [longline]="100000 200000"
)
CASES=(tools openai blocks deep wide array longline)
if [ $# -gt 0 ]; then
  CASES=("$1"); shift
  [ $# -gt 0 ] && SCALES[${CASES[0]}]="$*"
fi

# run LABEL CMD... : one row, wall seconds and peak RSS of CMD (its stdout dropped).
TIMES=$(mktemp)
trap 'rm -f "$TIMES"' EXIT
run() {
  local label=$1; shift
  # exit 1 (a policy gate) is fine; the time file's last line is "%e %M"
  /usr/bin/time -o "$TIMES" -f '%e %M' "$@" >/dev/null 2>&1 || true
  read -r secs kb < <(tail -1 "$TIMES")
  printf '| %s | %s | %s |\n' "$label" "$secs" "$((kb / 1024))"
}

printf '| case, scale, command | wall s | peak RSS MiB |\n|---|---:|---:|\n'
for c in "${CASES[@]}"; do
  for n in ${SCALES[$c]}; do
    dir=target/bench/inputs/hostile-$c-$n
    ext=agentlog; [ "$c" = openai ] && ext=jsonl
    if [ ! -f "$dir/candidate.$ext" ]; then
      python3 bench/hostile_input.py "$c" "$n" "$dir"
    fi
    b=$dir/baseline.$ext; k=$dir/candidate.$ext
    mb=$(awk -v s="$(stat -c %s "$b")" 'BEGIN { printf "%.1f", s / 1e6 }')
    run "$c $n ($mb MB) diff" $VEER diff "$b" "$k" --format json
    run "$c $n diff --policy examples/refund-agent/policy.yaml" $VEER diff "$b" "$k" --format json --policy examples/refund-agent/policy.yaml
    run "$c $n diff --policy bench/hostile_policy.yaml --max-align-cells max" $VEER diff "$b" "$k" --format json --policy bench/hostile_policy.yaml --max-align-cells $MAX
    run "$c $n inspect" $VEER inspect "$k"
    run "$c $n check --policy bench/hostile_policy.yaml" $VEER check "$k" --policy bench/hostile_policy.yaml
  done
done
