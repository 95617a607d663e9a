#!/usr/bin/env bash
# Reading OpenTelemetry OTLP/JSON in a fresh process: builds two ~200 MB inputs from a committed
# vector written by the real SDKs (bench/otel_input.py: the Collector's one-request-per-line
# shape, and one ExportTraceServiceRequest document), then reads each --runs times in a new
# process with bench/read.sh's `read_once` and reports the median rate, on all cores and on one,
# plus the peak resident memory of one all-cores run against the file size.
#
#   bench/otel.sh                 # 200 MB inputs, 3 runs
#   bench/otel.sh --mb 100 --runs 5
set -euo pipefail
cd "$(dirname "$0")/.."

MB=200
RUNS=3
while [ $# -gt 0 ]; do
  case "$1" in
    --mb) MB="$2"; shift 2 ;;
    --runs) RUNS="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done

dir=target/bench/otel
mkdir -p "$dir"
for shape in lines document; do
  f="$dir/$shape-$MB.otlp.json"
  [ -f "$f" ] || python3 bench/otel_input.py --mb "$MB" --shape "$shape" "$f"
done

bench/read.sh --runs "$RUNS" "$dir/lines-$MB.otlp.json" "$dir/document-$MB.otlp.json"

echo
printf '| file | MB | peak RSS MB | RSS / file | CPU s (user+sys) |\n|---|---:|---:|---:|---:|\n'
for shape in lines document; do
  f="$dir/$shape-$MB.otlp.json"
  out=$( { /usr/bin/time -f '%M %U %S' target/release/examples/read_once "$f" >/dev/null; } 2>&1 | tail -1)
  read -r kb user sys <<<"$out"
  bytes=$(stat -c %s "$f")
  awk -v f="$f" -v b="$bytes" -v kb="$kb" -v u="$user" -v s="$sys" \
    'BEGIN { printf "| %s | %.1f | %.0f | %.1fx | %.2f |\n", f, b / 1e6, kb * 1024 / 1e6, kb * 1024 / b, u + s }'
done
