#!/usr/bin/env bash
# Packs one release build: `veer-VERSION-TARGET/` with the binary, README.md and the licence
# files, as a .tar.gz (a .zip for Windows targets) in OUT_DIR, and adds its line to
# OUT_DIR/SHA256SUMS (kept sorted, one line per archive). The release workflow runs it once per
# target; the tests run it on the binary they built.
#
#   scripts/package.sh BINARY VERSION TARGET OUT_DIR
set -euo pipefail

[ $# -eq 4 ] || { echo "usage: scripts/package.sh BINARY VERSION TARGET OUT_DIR" >&2; exit 2; }
bin=$1 version=${2#v} target=$3 out=$4
root=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$bin" ] || { echo "package.sh: $bin: no such binary" >&2; exit 2; }

name="veer-$version-$target"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/$name" "$out"
exe=veer
case "$target" in *windows*) exe=veer.exe ;; esac
cp "$bin" "$stage/$name/$exe"
cp "$root/README.md" "$stage/$name/"
for f in "$root"/LICENSE*; do [ -e "$f" ] && cp "$f" "$stage/$name/"; done

case "$target" in
  *windows*) archive="$name.zip"; (cd "$stage" && zip -qr "$out/$archive.tmp" "$name") ;;
  *) archive="$name.tar.gz"
     # Reproducible: sorted names, fixed owner and time.
     tar --sort=name --owner=0 --group=0 --numeric-owner --mtime='2000-01-01 00:00:00Z' \
       -C "$stage" -cf - "$name" | gzip -n > "$out/$archive.tmp" ;;
esac
mv -f "$out/$archive.tmp" "$out/$archive"

sum=$( (command -v sha256sum >/dev/null && sha256sum "$out/$archive" || shasum -a 256 "$out/$archive") | awk '{print $1}')
touch "$out/SHA256SUMS"
{ grep -v "  $archive\$" "$out/SHA256SUMS" || true; echo "$sum  $archive"; } | sort -k2 > "$out/SHA256SUMS.tmp"
mv -f "$out/SHA256SUMS.tmp" "$out/SHA256SUMS"
echo "$out/$archive"
