#!/usr/bin/env bash
# Reading in a fresh process: reads each FILE once per run in a new process (the example
# `read_once`, with the allocator of the `veer` binary) and prints the median rate of --runs runs,
# on all cores and on one (RAYON_NUM_THREADS=1).
#
#   bench/read.sh                                    # one side of the near-10000 and near-100000 pairs, and a 300,000-event traxr trace
#   bench/read.sh --runs 9 FILE...
#   READ_ONCE=path/to/an/older/read_once bench/read.sh FILE...   # the same, with another build
#
# A second table gives the peak resident memory of one all-cores run against the file size and
# its CPU seconds (user+sys): steadier than wall time when the machine is shared.
#
# Unlike criterion's warm loop (`cargo bench -p veer-trace --bench read`), every run here gets
# the trace's memory from the kernel, as a user's `veer` run does. Inputs default to those of
# bench/run.sh (generated with `veer synth` when missing).
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=5
FILES=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS="$2"; shift 2 ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) FILES+=("$1"); shift ;;
  esac
done

if [ -n "${READ_ONCE:-}" ]; then
  READ=$READ_ONCE
else
  cargo build --release --locked --quiet -p veer-trace --example read_once
  READ=target/release/examples/read_once
fi
if [ ${#FILES[@]} -eq 0 ]; then
  cargo build --release --locked --quiet
  for n in 10000 100000; do
    dir=target/bench/inputs/near-$n
    if [ ! -f "$dir/baseline.agentlog" ]; then
      target/release/veer synth --turns "$n" --kind near --out-dir "$dir" >/dev/null
    fi
    FILES+=("$dir/baseline.agentlog")
  done
  # A large bare traxr trace: one JSON document of 300,000 events (bench/traxr_input.py).
  traxr=target/bench/inputs/traxr-300000/trace.json
  if [ ! -f "$traxr" ]; then
    python3 bench/traxr_input.py 300000 "$traxr"
  fi
  FILES+=("$traxr")
fi

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf '| file | MB | records | MB/s, all cores (median of %s) | MB/s, one thread |\n|---|---:|---:|---:|---:|\n' "$RUNS"
for f in "${FILES[@]}"; do
  all=(); one=()
  for _ in $(seq "$RUNS"); do
    # interleaved, so both see the machine in the same state
    all+=("$("$READ" "$f")")
    one+=("$(RAYON_NUM_THREADS=1 "$READ" "$f")")
  done
  bytes=$(cut -f1 <<<"${all[0]}"); records=$(cut -f2 <<<"${all[0]}")
  rate_all=$(printf '%s\n' "${all[@]}" | cut -f4 | median)
  rate_one=$(printf '%s\n' "${one[@]}" | cut -f4 | median)
  printf '| %s | %s | %s | %s | %s |\n' "$f" "$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e6 }')" "$records" "$rate_all" "$rate_one"
done

echo
printf '| file | MB | peak RSS MB | RSS / file | CPU s (user+sys) |\n|---|---:|---:|---:|---:|\n'
for f in "${FILES[@]}"; do
  out=$( { /usr/bin/time -f '%M %U %S' "$READ" "$f" >/dev/null; } 2>&1 | tail -1)
  read -r kb user sys <<<"$out"
  bytes=$(stat -c %s "$f")
  awk -v f="$f" -v b="$bytes" -v kb="$kb" -v u="$user" -v s="$sys" \
    'BEGIN { printf "| %s | %.1f | %.0f | %.2fx | %.2f |\n", f, b / 1e6, kb * 1024 / 1e6, kb * 1024 / b, u + s }'
done
