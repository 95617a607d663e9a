#!/usr/bin/env bash
# Repeated trials at scale: CASES cases × TRIALS trials a side of stochastic
# scripted agents (crates/veer-engine/examples/trials_corpus.rs), one `veer diff` of the two
# directories; prints wall seconds and peak RSS (KB, /usr/bin/time's %M).
#
# Usage: bench/trials.sh [CASES] [TRIALS]   one row (default 1000 × 10 = 20,000 traces)
#        bench/trials.sh flat [TRIALS]      the rows 1,000 and 10,000 cases, then the growth of
#                                           peak RSS per case between them (memory flat in the
#                                           number of cases)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p veer-cli --bin veer
cargo build --release -p veer-engine --example trials_corpus

# One row: writes the corpus once under target/bench-trials/, times one diff to JSON.
row() {
  local cases="$1" trials="$2"
  local dir="target/bench-trials/${cases}x${trials}"
  [ -d "$dir/candidate" ] || target/release/examples/trials_corpus "$dir" "$cases" "$trials"
  /usr/bin/time -o "$dir/time.txt" -f "%e %M" \
    target/release/veer diff "$dir/baseline" "$dir/candidate" --format json -o "$dir/report.json" \
    >/dev/null 2>"$dir/stderr.txt" || true
  read -r wall rss <"$dir/time.txt"
  printf 'trials-%sx%s\t%s s\t%s KB\n' "$cases" "$trials" "$wall" "$rss" >&2
  echo "$rss"
}

if [ "${1:-}" = "flat" ]; then
  TRIALS="${2:-10}"
  small=$(row 1000 "$TRIALS")
  large=$(row 10000 "$TRIALS")
  awk -v s="$small" -v l="$large" 'BEGIN {
    printf "peak RSS growth: %.0f KB over 9,000 more cases = %.2f KB a case (%.2fx the 1,000-case peak)\n",
      l - s, (l - s) / 9000, l / s }' >&2
else
  row "${1:-1000}" "${2:-10}" >/dev/null
fi
