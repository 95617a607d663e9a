#!/usr/bin/env bash
# Runs each fuzz target until its fuzzing process has used CPU_SECONDS of CPU time (user + sys,
# from /proc/PID/stat), then stops it with SIGINT so libFuzzer prints its final stats. Unlike
# run-all.sh (libFuzzer's -max_total_time counts wall time), the budget holds on a busy machine.
# Usage: fuzz/run-cpu.sh CPU_SECONDS TARGET...   (scratch corpus under $WORK, default /tmp/veer-fuzz)
set -u
cd "$(dirname "$0")"
cpu="${1:?usage: fuzz/run-cpu.sh CPU_SECONDS TARGET...}"
shift
work="${WORK:-/tmp/veer-fuzz}"
hz=$(getconf CLK_TCK)
for t in "$@"; do
    mkdir -p "$work/$t" "artifacts/$t"
    echo "== $t: ${cpu} CPU-seconds"
    RUSTC_BOOTSTRAP=1 cargo fuzz run -s none -a "$t" "$work/$t" "corpus/$t" -- \
        -max_total_time=86400 -rss_limit_mb=2048 -timeout=10 -max_len=65536 \
        -print_final_stats=1 >"$work/$t.log" 2>&1 &
    runner=$!
    pid=""
    while kill -0 "$runner" 2>/dev/null; do
        [ -z "$pid" ] && pid=$(pgrep -f -n "release/$t " || true)
        if [ -n "$pid" ] && [ -r "/proc/$pid/stat" ]; then
            ticks=$(awk '{print $14 + $15}' "/proc/$pid/stat")
            [ $((ticks / hz)) -ge "$cpu" ] && kill -INT "$pid"
        fi
        sleep 5
    done
    wait "$runner"
    grep -E "^(#[0-9]+ +DONE|stat::|==[0-9]+== ERROR|SUMMARY)|Test unit written" "$work/$t.log" || true
done
