#!/usr/bin/env sh
# Installs a released veer binary: downloads the archive for this machine and the release's
# SHA256SUMS, checks the archive's checksum, and puts `veer` in the install directory. Nothing
# is installed when the checksum does not match.
#
#   curl -fsSL https://github.com/OWNER/REPO/releases/download/vX.Y.Z/install.sh | sh -s -- --version X.Y.Z
#   scripts/install.sh --version 0.1.0 --repo OWNER/REPO --dir ~/.local/bin
#   scripts/install.sh --version 0.1.0 --from ./dist          # a local release folder
#
# Options: --version V (required), --repo OWNER/REPO (the GitHub repository of the release;
# default $VEER_REPO), --from URL|DIR (where the release's files are; default the GitHub
# release of --repo), --dir DIR (default ~/.local/bin), --target TRIPLE (default: detected).
set -eu

version="" repo="${VEER_REPO:-}" from="" dir="${HOME}/.local/bin" target=""
while [ $# -gt 0 ]; do
  case "$1" in
    --version) version="${2#v}"; shift 2 ;;
    --repo) repo="$2"; shift 2 ;;
    --from) from="$2"; shift 2 ;;
    --dir) dir="$2"; shift 2 ;;
    --target) target="$2"; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ -n "$version" ] || { echo "install.sh: --version is required, e.g. --version 0.1.0" >&2; exit 2; }

if [ -z "$target" ]; then
  os=$(uname -s) arch=$(uname -m)
  case "$arch" in
    x86_64|amd64) arch=x86_64 ;;
    aarch64|arm64) arch=aarch64 ;;
    *) echo "install.sh: no release build for the $arch architecture; build from source (docs/install.md)" >&2; exit 2 ;;
  esac
  case "$os" in
    Linux) target="$arch-unknown-linux-musl" ;;
    Darwin) target="$arch-apple-darwin" ;;
    *) echo "install.sh: no release build for $os here; on Windows download the .zip (docs/install.md)" >&2; exit 2 ;;
  esac
fi

if [ -z "$from" ]; then
  [ -n "$repo" ] || { echo "install.sh: name the release's repository with --repo OWNER/REPO (or VEER_REPO)" >&2; exit 2; }
  from="https://github.com/$repo/releases/download/v$version"
fi

archive="veer-$version-$target.tar.gz"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

fetch() { # fetch NAME: the release file NAME into $work
  case "$from" in
    http://*|https://*|file://*)
      curl -fsSL --retry 3 -o "$work/$1" "$from/$1" || { echo "install.sh: cannot download $from/$1" >&2; exit 1; } ;;
    *)
      [ -f "$from/$1" ] || { echo "install.sh: $from/$1: no such file" >&2; exit 1; }
      cp "$from/$1" "$work/$1" ;;
  esac
}
fetch "$archive"
fetch SHA256SUMS

want=$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1 }' "$work/SHA256SUMS")
[ -n "$want" ] || { echo "install.sh: SHA256SUMS lists no $archive" >&2; exit 1; }
if command -v sha256sum >/dev/null 2>&1; then
  got=$(sha256sum "$work/$archive" | awk '{print $1}')
else
  got=$(shasum -a 256 "$work/$archive" | awk '{print $1}')
fi
if [ "$got" != "$want" ]; then
  echo "install.sh: checksum mismatch for $archive (expected $want, got $got); nothing installed" >&2
  exit 1
fi

tar -xzf "$work/$archive" -C "$work"
mkdir -p "$dir"
# Written beside the target and renamed, so a running veer is never half-replaced.
cp "$work/veer-$version-$target/veer" "$dir/.veer.new"
chmod 755 "$dir/.veer.new"
mv -f "$dir/.veer.new" "$dir/veer"
echo "installed veer $version ($target) to $dir/veer"
