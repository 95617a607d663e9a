#!/usr/bin/env bash
# Regenerates the README's screenshot (docs/img/html-report.png): the HTML report of
# `veer demo`, rendered by headless Chromium at 1200×900. Needs chromium on PATH.
#
#   scripts/screenshot.sh [VEER_BINARY]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
veer=${1:-$root/target/release/veer}
[ -x "$veer" ] || { cargo build --release --locked --quiet -p veer-cli; veer=$root/target/release/veer; }
command -v chromium >/dev/null || { echo "screenshot.sh: chromium is not installed" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$veer" demo --format html -o "$work/demo.html" || [ $? -eq 1 ]   # the demo's gate trips: exit 1
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,900 \
  --screenshot="$work/shot.png" "file://$work/demo.html" >/dev/null 2>&1
mv -f "$work/shot.png" "$root/docs/img/html-report.png"
echo "wrote docs/img/html-report.png"
