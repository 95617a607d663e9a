#!/usr/bin/env bash
# The HTML report of a long pair: its size and how long headless Chromium takes to open it.
#
#   bench/html.sh                  # 10,000-turn near and divergent pairs, 5 runs each
#   bench/html.sh --runs 9 --turns 20000
#
# For each pair: `veer diff --format html` (release build, with a one-rule policy so a
# regression is drawn), the page size, the render time of the command, and the time the page
# takes to open: parsed, scripts run, laid out (a copy of the page gets a load handler that
# forces layout and records performance.now(), milliseconds since navigation start; Chromium's
# --dump-dom returns it; a run whose DOM comes back without it is counted, not timed). Inputs are
# generated with `veer synth` under target/bench/inputs when missing. Needs `chromium`.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=5
TURNS=10000
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS="$2"; shift 2 ;;
    --turns) TURNS="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
command -v chromium >/dev/null || { echo "bench/html.sh needs chromium" >&2; exit 2; }

cargo build --release --locked --quiet -p veer-cli
VEER=target/release/veer
OUT=target/bench/html
mkdir -p "$OUT"
POLICY="$OUT/policy.yaml"
printf 'rules:\n  - id: no-escalation\n    kind: no_call\n    severity: error\n    params: {tool: escalate}\n' >"$POLICY"
PROFILE=$(mktemp -d)
trap 'rm -rf "$PROFILE"' EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf '| pair | turns | page MB | rows drawn | render s (median of %s) | open ms in Chromium (median) | runs without a figure |\n|---|---:|---:|---:|---:|---:|---:|\n' "$RUNS"
for kind in near divergent; do
  dir=target/bench/inputs/$kind-$TURNS
  if [ ! -f "$dir/baseline.agentlog" ]; then
    "$VEER" synth --turns "$TURNS" --kind "$kind" --out-dir "$dir" >/dev/null
  fi
  page="$OUT/$kind-$TURNS.html"
  render=()
  for _ in $(seq "$RUNS"); do
    start=$(date +%s.%N)
    "$VEER" diff "$dir/baseline.agentlog" "$dir/candidate.agentlog" --policy "$POLICY" \
      --format html -o "$page" 2>/dev/null || true
    end=$(date +%s.%N)
    render+=("$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')")
  done
  timed="$OUT/$kind-$TURNS.timed.html"
  sed 's|</body>|<script>addEventListener("load",function(){document.body.offsetHeight;document.documentElement.setAttribute("data-open-ms",performance.now().toFixed(0));});</script></body>|' "$page" >"$timed"
  open=()
  missed=0
  for _ in $(seq "$RUNS"); do
    ms=$(chromium --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$PROFILE" \
      --dump-dom "file://$PWD/$timed" 2>/dev/null | grep -o 'data-open-ms="[0-9]*"' | grep -o '[0-9]*' || true)
    if [ -n "$ms" ]; then open+=("$ms"); else missed=$((missed + 1)); fi
  done
  bytes=$(wc -c <"$page")
  rows=$( (grep -o 'class="st-[a-z]*\|class="collapsed' "$page" || true) | wc -l)
  printf '| %s | %s | %.2f | %s | %.2f | %s | %s |\n' "$kind" "$TURNS" "$(awk -v b="$bytes" 'BEGIN { print b / 1000000 }')" "$rows" \
    "$(printf '%s\n' "${render[@]}" | median)" "$( [ ${#open[@]} -gt 0 ] && printf '%s\n' "${open[@]}" | median || echo n/a)" "$missed"
done
