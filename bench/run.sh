#!/usr/bin/env bash
# veer's benchmark harness: times `veer diff` and, on the same inputs in the same run, the
# reference `shadow diff` (shadow-diff 3.2.5 from PyPI, in a private virtualenv under target/).
#
#   bench/run.sh                      # all sizes: 10 100 1000 10000 100000 turns, dirs 1000x20 and 10000x20
#   bench/run.sh --sizes "10 100 1000" --runs 3 --no-reference
#   bench/run.sh --runs 5 --ref-runs 1  # the reference takes minutes per run: time it once
#   bench/run.sh --ref-max 1000         # the reference only up to 1,000 turns
#   bench/run.sh --sizes "" --dir-pairs "1000 10000" --no-reference   # directory rows only
#
# Inputs come from `veer synth` (deterministic): per size a near pair (~1% of turns changed),
# a changed pair (~10%: edited, dropped and inserted turns) and a divergent (unrelated) pair,
# and a truncated pair (the near candidate's first third against the whole baseline, veer
# only). Each measurement is the median of --runs runs (--ref-runs for the reference, default
# the same) of wall time and peak RSS from /usr/bin/time -v. The reference is skipped where one run exceeds 5 minutes, and at every
# larger size of that kind after it; the table says so. Output: bench/out/results.md (+ raw TSV).
set -euo pipefail
cd "$(dirname "$0")/.."

SIZES="10 100 1000 10000 100000"
RUNS=3
REF_RUNS=
REF_MAX=
REFERENCE=1
DIR_PAIRS="1000 10000"
DIR_TURNS=20
REF_TIMEOUT=300
while [ $# -gt 0 ]; do
  case "$1" in
    --sizes) SIZES="$2"; shift 2 ;;
    --runs) RUNS="$2"; shift 2 ;;
    --ref-runs) REF_RUNS="$2"; shift 2 ;;
    --ref-max) REF_MAX="$2"; shift 2 ;;
    --no-reference) REFERENCE=0; shift ;;
    --dir-pairs) DIR_PAIRS="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done

REF_RUNS=${REF_RUNS:-$RUNS}
OUT=bench/out
IN=target/bench/inputs
mkdir -p "$OUT" "$IN"
cargo build --release --locked --quiet
VEER=target/release/veer

if [ "$REFERENCE" = 1 ]; then
  VENV=target/bench/shadow-venv
  if [ ! -x "$VENV/bin/shadow" ]; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet shadow-diff==3.2.5
  fi
  SHADOW="$VENV/bin/shadow"
fi

RAW="$OUT/raw.tsv"
printf 'input\ttool\trun\tseconds\tmax_rss_kb\tstatus\n' > "$RAW"

# measure NAME TOOL TIMEOUT CMD... : one run, appends a row to raw.tsv
measure() {
  local name=$1 tool=$2 limit=$3 run=$4; shift 4
  local log; log=$(mktemp)
  local status=ok
  if ! timeout "$limit" /usr/bin/time -v "$@" > /dev/null 2> "$log"; then
    if grep -q "Command terminated by signal\|timed out" "$log" || [ ! -s "$log" ]; then status=timeout; else status=exit$( (grep -o 'Exit status: [0-9]*' "$log" || echo 'Exit status: ?') | awk '{print $3}'); fi
  fi
  local secs rss
  secs=$(awk -F': ' '/Elapsed \(wall clock\)/{n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$log")
  rss=$(awk -F': ' '/Maximum resident set size/{print $2}' "$log")
  [ "$status" = timeout ] && secs=$limit
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$tool" "$run" "${secs:-0}" "${rss:-0}" "$status" >> "$RAW"
  rm -f "$log"
  [ "$status" != timeout ]
}

declare -A REF_GAVE_UP=()
for n in $SIZES; do
  for kind in near changed divergent; do
    d="$IN/$kind-$n"
    [ -f "$d/candidate.agentlog" ] || "$VEER" synth --turns "$n" --kind "$kind" --out-dir "$d"
    for r in $(seq 1 "$RUNS"); do
      measure "$kind-$n" veer 600 "$r" "$VEER" diff "$d/baseline.agentlog" "$d/candidate.agentlog" --format json -o "$OUT/last-veer.json" || true
    done
    if [ "$REFERENCE" = 1 ] && [ -n "$REF_MAX" ] && [ "$n" -gt "$REF_MAX" ]; then
      :  # not timed (--ref-max)
    elif [ "$REFERENCE" = 1 ] && [ -z "${REF_GAVE_UP[$kind]:-}" ]; then
      for r in $(seq 1 "$REF_RUNS"); do
        if ! measure "$kind-$n" shadow "$REF_TIMEOUT" "$r" "$SHADOW" diff "$d/baseline.agentlog" "$d/candidate.agentlog" --output-json "$OUT/last-shadow.json"; then
          REF_GAVE_UP[$kind]=$n
          break
        fi
      done
    elif [ "$REFERENCE" = 1 ]; then
      printf '%s\tshadow\t1\t%s\t0\ttimeout\n' "$kind-$n" "$REF_TIMEOUT" >> "$RAW"
    fi
  done
done

# Runs of very different lengths: the near pair's candidate cut to its first third (a run that
# stopped early), against the whole baseline. veer only: the first band of the exact search
# already holds the whole length difference, so this row measures the anchored fallback's
# linear bands (docs/diff.md, "Anchored alignment").
for n in $SIZES; do
  src="$IN/near-$n"
  d="$IN/truncated-$n"
  if [ ! -f "$d/candidate.agentlog" ]; then
    mkdir -p "$d"
    lines=$(wc -l < "$src/candidate.agentlog")
    head -n $((lines / 3)) "$src/candidate.agentlog" > "$d/candidate.agentlog"
    cp "$src/baseline.agentlog" "$d/baseline.agentlog"
  fi
  for r in $(seq 1 "$RUNS"); do
    measure "truncated-$n" veer 600 "$r" "$VEER" diff "$d/baseline.agentlog" "$d/candidate.agentlog" --format json -o "$OUT/last-veer.json" || true
  done
done

# Directory mode at corpus scale: one row per --dir-pairs count (pairs × DIR_TURNS turns), so
# the peak RSS of 1,000 and 10,000 pairs shows whether memory grows with the number of pairs.
for pairs in $DIR_PAIRS; do
  d="$IN/dir-${pairs}x${DIR_TURNS}"
  [ -d "$d/candidate" ] || "$VEER" synth --turns "$DIR_TURNS" --pairs "$pairs" --out-dir "$d"
  for r in $(seq 1 "$RUNS"); do
    measure "dir-${pairs}x${DIR_TURNS}" veer 600 "$r" "$VEER" diff "$d/baseline" "$d/candidate" --format json -o "$OUT/last-veer-dir.json" || true
  done
  if [ "$REFERENCE" = 1 ]; then
    # shadow has no directory mode: time 20 pairs one by one and scale to the whole set.
    # (a glob, not `ls | head`: under pipefail, head closing the pipe would end the script)
    files=("$d"/baseline/*)
    start=$(date +%s.%N)
    for path in "${files[@]:0:20}"; do
      f=$(basename "$path")
      "$SHADOW" diff "$d/baseline/$f" "$d/candidate/$f" --output-json /dev/null > /dev/null 2>&1 || true
    done
    end=$(date +%s.%N)
    echo "$start $end $pairs" | awk '{printf "dir-%sx'"$DIR_TURNS"'\tshadow\t1\t%.3f\t0\textrapolated\n", $3, ($2-$1)/20*$3}' >> "$RAW"
  fi
done

python3 bench/summarize.py "$RAW" > "$OUT/results.md"
cat "$OUT/results.md"
