#!/usr/bin/env bash
# Installs the Debian packages named on the command line that are not yet
# installed; does nothing (and needs no network) when all are present.
set -euo pipefail
missing=()
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "deps: installing ${missing[*]}" >&2
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
# Packages of another architecture (make deps ARCH=arm64: "libopenblas-dev:arm64") need it added first.
for p in "${missing[@]}"; do
  case "$p" in *:*)
    a=${p##*:}
    dpkg --print-foreign-architectures | grep -qx "$a" || $SUDO dpkg --add-architecture "$a" ;;
  esac
done
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
