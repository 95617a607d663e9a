#!/usr/bin/env bash
# The Python package's overhead over the CLI on a corpus: `veer diff DIR DIR
# --format json` against the same pairs diffed from Python (a thread pool over the pairs, the
# JSON reports parsed into dicts, the summaries merged and finished into the aggregate), median
# of --runs runs each; also the share of json.loads in a diff call.
#
#   bench/python.sh                      # 1,000 pairs × 20 turns, 3 runs
#   bench/python.sh --pairs 200 --turns 50 --runs 5
#
# Needs the package installed in $VEER_PYTHON (default target/py-veer/bin/python, as .ci/run
# makes it; rebuild with `target/py-veer/bin/pip install --no-build-isolation .`). The corpus
# is generated with `veer synth` under target/bench/inputs/ when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

PAIRS=1000
TURNS=20
RUNS=3
while [ $# -gt 0 ]; do
  case "$1" in
    --pairs) PAIRS="$2"; shift 2 ;;
    --turns) TURNS="$2"; shift 2 ;;
    --runs) RUNS="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
PY="${VEER_PYTHON:-target/py-veer/bin/python}"

cargo build --release --locked --quiet -p veer-cli
dir="target/bench/inputs/corpus-near-$PAIRS-$TURNS"
if [ ! -d "$dir/baseline" ]; then
  target/release/veer synth --kind near --turns "$TURNS" --pairs "$PAIRS" --out-dir "$dir" >/dev/null
fi
"$PY" bench/python_bench.py --cli target/release/veer --runs "$RUNS" "$dir/baseline" "$dir/candidate"
