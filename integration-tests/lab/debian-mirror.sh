#!/usr/bin/env bash
# Prints the Debian mirror this machine's apt already uses for bookworm, so the lab fetches
# from wherever apt works here. TCPSIGHT_DEBIAN_MIRROR overrides it.
# apt reads both sources.list and deb822 *.sources; --no-release-info answers before any update.
set -euo pipefail
if [ -n "${TCPSIGHT_DEBIAN_MIRROR:-}" ]; then
  echo "$TCPSIGHT_DEBIAN_MIRROR"
  exit 0
fi
mirror=$(apt-get indextargets --no-release-info --format '$(TARGET_OF) $(RELEASE) $(REPO_URI)' 2>/dev/null \
  | awk '$1 == "deb" && $2 == "bookworm" { print $3; exit }')
if [ -z "$mirror" ]; then
  echo "[lab] no apt source serves Debian bookworm here (checked /etc/apt/sources.list and" \
    "sources.list.d/*.sources); set TCPSIGHT_DEBIAN_MIRROR to a Debian mirror URL" >&2
  exit 1
fi
echo "$mirror"
