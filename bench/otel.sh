#!/usr/bin/env bash
# Reading OpenTelemetry OTLP/JSON in a fresh process: builds two ~200 MB inputs from a committed
# vector written by the real SDKs (bench/otel_input.py: the Collector's one-request-per-line
# shape, and one ExportTraceServiceRequest document), then reads each --runs times in a new
# process with bench/read.sh's `read_once` and reports the median rate, on all cores and on one,
# plus the peak resident memory of one all-cores run against the file size (read.sh's second table).
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
