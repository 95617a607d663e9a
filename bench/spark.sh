#!/usr/bin/env bash
# The Spark example against the CLI: examples/spark/diff_corpus.py on Spark
# local[2] over N pairs × 20 turns, against `veer diff DIR DIR --format json` on the same corpus
# (one run each: minutes at 10,000 pairs), and the driver's peak memory at two corpus sizes.
#
#   bench/spark.sh                       # 10,000 pairs (time) and 1,000 / 10,000 (driver memory)
#   bench/spark.sh --pairs 2000 --small 200
#
# Needs PySpark, Java and the package in $VEER_PYTHON (default target/py-veer/bin/python, as
# .ci/run makes it). Corpora go under target/bench/inputs/ (about 70 MB per 1,000 pairs; delete
# them when done).
set -euo pipefail
cd "$(dirname "$0")/.."

PAIRS=10000
SMALL=1000
TURNS=20
while [ $# -gt 0 ]; do
  case "$1" in
    --pairs) PAIRS="$2"; shift 2 ;;
    --small) SMALL="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
PY="${VEER_PYTHON:-target/py-veer/bin/python}"
export PYSPARK_PYTHON="$PY"

cargo build --release --locked --quiet -p veer-cli
corpus() {
  local dir="target/bench/inputs/corpus-near-$1-$TURNS"
  if [ ! -d "$dir/baseline" ]; then
    target/release/veer synth --kind near --turns "$TURNS" --pairs "$1" --out-dir "$dir" >/dev/null
  fi
  echo "$dir"
}

seconds() { local s; s=$(date +%s.%N); "$@" >/dev/null; echo "$(date +%s.%N) - $s" | bc; }

echo "| pairs | CLI \`veer diff DIR DIR\` s | Spark local[2] s | Spark / CLI | driver peak RSS (Python process) MB |"
echo "|---:|---:|---:|---:|---:|"
for n in "$SMALL" "$PAIRS"; do
  dir=$(corpus "$n")
  cat "$dir"/baseline/* "$dir"/candidate/* >/dev/null  # warm the page cache
  out=$(mktemp -d)
  cli=$(seconds target/release/veer diff "$dir/baseline" "$dir/candidate" --format json -o "$out/cli.json")
  start=$(date +%s.%N)
  VEER_REPORT_DRIVER_RSS=1 "$PY" examples/spark/diff_corpus.py "$dir/baseline" "$dir/candidate" \
    --out "$out" --master 'local[2]' 2>"$out/stderr" >/dev/null
  spark=$(echo "$(date +%s.%N) - $start" | bc)
  # Spark's progress bar precedes the line on the same terminal line.
  rss=$(sed -n 's/.*driver peak RSS: \([0-9]*\) kB$/\1/p' "$out/stderr")
  # The run only counts if summary.json is the CLI's aggregate.
  "$PY" -c 'import json, sys; a = json.load(open(sys.argv[1]))["aggregate"]; b = json.load(open(sys.argv[2])); d = lambda o: json.dumps(o, sort_keys=True); sys.exit(0 if d(a) == d(b) else "summary.json differs from the CLI aggregate")' "$out/cli.json" "$out/summary.json"
  rm -rf "$out"
  printf '| %s | %.1f | %.1f | %.2f | %.0f |\n' "$n" "$cli" "$spark" "$(echo "$spark / $cli" | bc -l)" "$(echo "$rss / 1024" | bc -l)"
done
