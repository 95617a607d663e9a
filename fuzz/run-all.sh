#!/usr/bin/env bash
# Runs every fuzz target in turn for SECONDS each (default 600 = 10 CPU-minutes, one process),
# growing a scratch corpus under $WORK (default /tmp/veer-fuzz) from the committed seeds.
# Usage: fuzz/run-all.sh [SECONDS] [TARGET...]   (see docs/fuzzing.md)
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-600}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(agentlog_reader traxr_reader policy_loader when_resolver ltl_parser perturb
        otel_reader agents_sdk_reader claude_code_reader codex_reader langfuse_reader langsmith_reader
        mcp_reader sse_stream fingerprint run_outputs distributions)
fi
work="${WORK:-/tmp/veer-fuzz}"
for t in "${targets[@]}"; do
    mkdir -p "$work/$t" "artifacts/$t"
    echo "== $t: ${seconds}s"
    RUSTC_BOOTSTRAP=1 cargo fuzz run -s none -a "$t" "$work/$t" "corpus/$t" -- \
        -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -max_len=65536 \
        -print_final_stats=1 2>&1 | tee "$work/$t.log" | grep -E "^(#[0-9]+ +DONE|stat::|==[0-9]+== ERROR|SUMMARY)" || true
done
