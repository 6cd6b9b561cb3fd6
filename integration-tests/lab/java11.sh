#!/usr/bin/env bash
# A Java 11 runtime for the lab's Java 11 client cells (the reporter, Kafka's clients), unpacked
# into $TCPSIGHT_LAB_HOME/jre-11 and never installed: Debian bookworm has no Java 11, so its
# openjdk-11-jre-headless comes from bullseye on the same mirror, through apt with a private
# source list, private index and signature checking against the Debian archive keyring.
# Idempotent. Prints nothing when the runtime is already there.
set -euo pipefail
LAB_HOME=${TCPSIGHT_LAB_HOME:-/var/lib/tcpsight-lab}
TARGET=$LAB_HOME/jre-11
[ -x "$TARGET/bin/java" ] && exit 0

work=$LAB_HOME/apt-bullseye
rm -rf "$work" && mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/root"
mirror=$(bash "$(dirname "$0")/debian-mirror.sh")
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bullseye main" >"$work/sources.list"
apt=(apt-get -qq
  -o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/nonexistent
  -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o Debug::NoLocking=1)
echo "[lab setup] Java 11 runtime: openjdk-11-jre-headless from $mirror bullseye"
"${apt[@]}" update
(cd "$work" && "${apt[@]}" download openjdk-11-jre-headless 2>/dev/null)
dpkg-deb -x "$work"/openjdk-11-jre-headless_*.deb "$work/root"

jvm=$work/root/usr/lib/jvm/java-11-openjdk-amd64
# The package links its config to /etc/java-11-openjdk, which it ships but this host has not
# installed: each link becomes the unpacked copy (or goes, for the few its install script writes).
find "$jvm" -type l -lname '/etc/java-11-openjdk/*' | while read -r link; do
  shipped=$work/root$(readlink "$link")
  if [ -f "$shipped" ]; then cp --remove-destination "$shipped" "$link"; else rm "$link"; fi
done
rm -rf "$TARGET" && mv "$jvm" "$TARGET" && rm -rf "$work"
"$TARGET/bin/java" -version 2>&1 | head -1
