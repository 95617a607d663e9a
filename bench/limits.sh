#!/usr/bin/env bash
# Hostile inputs against the reading limits (docs/limits.md): each row is one fresh `veer` run
# (or `read_once` for a bare read) under `/usr/bin/time`, with its exit code, wall time and
# peak RSS, at the default limits unless the row says otherwise.
#
#   bench/limits.sh                       # builds the release binaries, generates the inputs
#   VEER=path/to/veer READ_ONCE=path/to/read_once bench/limits.sh
#
# Inputs are generated under target/bench/inputs/limits/ (never committed): a gzip file that
# expands to ~10 GiB of blank lines and one that expands to 10,000,000 records, a 200 MB line, a
# traxr results file of 1,000,000 events (10 runs of 100,000) and /dev/zero as a policy, a
# pricing file, a patterns file and a saved report.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${VEER:-}" ]; then
  cargo build --release --locked --quiet -p veer-cli
  VEER=target/release/veer
fi
if [ -z "${READ_ONCE:-}" ]; then
  cargo build --release --locked --quiet -p veer-trace --example read_once
  READ_ONCE=target/release/examples/read_once
fi
dir=target/bench/inputs/limits
mkdir -p "$dir"
ok=tests/bad_inputs/_shared/ok.agentlog

python3 - "$dir" <<'EOF'
import gzip, json, os, sys
d = sys.argv[1]
def repeated(path, member, times):
    if os.path.exists(path):
        return
    with open(path, "wb") as f:
        for _ in range(times):
            f.write(member)
# ~10 GiB of newlines: 1280 gzip members of 8 MiB each.
repeated(f"{d}/blank-bomb.agentlog.gz", gzip.compress(b"\n" * (8 << 20), 9), 1280)
# 10,000,000 records of 108 bytes (~1 GiB).
record = b'{"version":"0.1","id":"x","kind":"tool_result","ts":"2026-11-20T10:00:00.137Z","parent":null,"payload":{}}\n'
repeated(f"{d}/record-bomb.agentlog.gz", gzip.compress(record * 10000, 9), 1000)
# One 200 MB line: a valid record whose payload holds a 200 MB string.
p = f"{d}/line-200mb.agentlog"
if not os.path.exists(p):
    with open(p, "wb") as f:
        f.write(record[:-4] + b'{"output":"' + b"y" * (200 << 20) + b'"}}\n')
p = f"{d}/garbage-200mb.agentlog"
if not os.path.exists(p):
    with open(p, "wb") as f:
        f.write(b"{" + b"#" * (200 << 20) + b"\n")
# A traxr results file of 1,000,000 events (the external_mock golden's events repeated).
p = f"{d}/results-1m.json"
if not os.path.exists(p):
    g = json.load(open("tests/fixtures/traxr/goldens/external_mock.json"))
    ev = g["traces"]["baseline"]["events"]
    runs = {}
    for r in range(10):
        out = []
        for i in range(100000):
            e = dict(ev[i % len(ev)]); e["sequence_index"] = i
            e["step_num"] = i // len(ev) * 2 + e["step_num"]; out.append(e)
        runs[f"run{r}"] = {"run_label": f"run{r}", "events": out}
    with open(p, "w") as f:
        json.dump({"traces": runs, "pairs": []}, f, separators=(",", ":"))
EOF

row() {
  local name=$1; shift
  local secs kb code msg
  /usr/bin/time -o "$dir/time" -f '%e %M %x' "$@" >/dev/null 2>"$dir/stderr" || true
  read -r secs kb code < <(tail -1 "$dir/time")
  msg=$(grep -m1 '^error' "$dir/stderr" | cut -c1-120 || true)
  printf '| %s | %s | %s | %.0f | %s |\n' "$name" "$code" "$secs" "$(awk -v k="$kb" 'BEGIN { print k / 1024 }')" "$msg"
}

printf '| input | exit | wall s | peak RSS MB | message |\n|---|---:|---:|---:|---|\n'
row "gzip → ~10 GiB of blank lines (inspect)" "$VEER" inspect "$dir/blank-bomb.agentlog.gz"
row "gzip → 10,000,000 records (inspect)" "$VEER" inspect "$dir/record-bomb.agentlog.gz"
row "200 MB line, --max-line-bytes 300000000 (inspect --format json)" "$VEER" inspect "$dir/line-200mb.agentlog" --format json --max-line-bytes 300000000
row "200 MB line of garbage, --max-line-bytes 300000000 (inspect)" "$VEER" inspect "$dir/garbage-200mb.agentlog" --max-line-bytes 300000000
row "200 MB line of garbage, default limit (inspect)" "$VEER" inspect "$dir/garbage-200mb.agentlog"
row "traxr results, 1,000,000 events (read_once)" "$READ_ONCE" "$dir/results-1m.json"
row "traxr results, 1,000,000 events (inspect --format json)" "$VEER" inspect "$dir/results-1m.json" --format json
row "/dev/zero as --policy (check)" "$VEER" check "$ok" --policy /dev/zero
row "/dev/zero to policy validate" "$VEER" policy validate /dev/zero
row "/dev/zero as --pricing (diff)" "$VEER" diff "$ok" "$ok" --pricing /dev/zero
row "/dev/zero as --patterns (scan)" "$VEER" scan "$ok" --patterns /dev/zero
row "/dev/zero as the report (gate)" "$VEER" gate /dev/zero
row "/dev/zero as a trace (inspect)" "$VEER" inspect /dev/zero
