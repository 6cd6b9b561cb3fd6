#!/usr/bin/env bash
# Rehearses CI on a clean root filesystem: a Debian bookworm minbase (debootstrap, from the
# mirror this machine's apt uses), a clean checkout of HEAD copied in with ../shared beside it,
# and `.ci/run -pl client-metrics,broker-agent` inside it with CI=true. That is CI's own install step
# (setup.sh, packages and the Go tools built from the module proxy with an empty module cache; a
# chroot has no Docker engine) followed by the client-metrics build,
# both native libraries checked against musl, the valgrind and musl runs of the shim's test and
# the unit tests, and the broker agent's (prlimit,
# curl, openssl and keytool against its endpoint). The lab needs namespaces and a
# Docker engine and stays on the host.
#
# Usage (root): integration-tests/lab/fresh-machine-check.sh
# TCPSIGHT_FRESH_ROOT (default /var/tmp/tcpsight-fresh-machine) is wiped and rebuilt each run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
root=${TCPSIGHT_FRESH_ROOT:-/var/tmp/tcpsight-fresh-machine}
log() { echo "[fresh-machine] $*"; }

[ "$(id -u)" = 0 ] || { echo "[fresh-machine] must run as root (debootstrap, chroot, mounts)" >&2; exit 1; }
command -v debootstrap >/dev/null 2>&1 || { apt-get update -qq; apt-get install -y -qq --no-install-recommends debootstrap >/dev/null; }

mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null || true; done
}
trap cleanup EXIT
mount_into() { mkdir -p "$root$2"; mount "${@:3}" "$1" "$root$2"; mounted+=("$root$2"); }

start=$(date +%s)
rm -rf "$root"
mirror=$("$here/debian-mirror.sh")
log "debootstrap bookworm minbase from $mirror into $root"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.debootstrap.log" 2>&1 \
  || { tail -20 "$root.debootstrap.log" >&2; exit 1; }
# What the machine image itself carries and a root filesystem from debootstrap lacks: its DNS
# setup and its local CAs (this network's egress re-signs TLS; Maven needs to trust it). The CAs
# are in place before setup.sh installs ca-certificates, whose hooks add them to Java's store.
cp /etc/resolv.conf "$root/etc/resolv.conf"
if [ -d /usr/local/share/ca-certificates ]; then
  mkdir -p "$root/usr/local/share/ca-certificates"
  cp -r /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/"
fi

mkdir -p "$root/work/main"
git -C "$repo" archive HEAD | tar -x -C "$root/work/main"
[ -d "$repo/../shared" ] && cp -r "$repo/../shared" "$root/work/shared"
log "copied $(git -C "$repo" rev-parse --short HEAD) (clean checkout of HEAD)"

# Go ships with the machine image under /usr/local/go (not a Debian package): the same, read-only.
[ -d /usr/local/go ] && mount_into /usr/local/go /usr/local/go --bind -o ro
mount_into proc /proc -t proc
mount_into /sys /sys --rbind  # with /sys/fs/cgroup, as on the machine (ss -e looks for cgroup2)
mount_into /dev /dev --bind
mount_into devpts /dev/pts -t devpts

log "chroot: CI=true .ci/run -pl client-metrics,broker-agent"
status=0
chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  HOME=/root LANG=C.UTF-8 CI=true TCPSIGHT_LAB_SETUP=packages \
  bash -c 'cd /work/main && .ci/run -pl client-metrics,broker-agent' || status=$?
log "exit $status after $(($(date +%s) - start)) s"
exit "$status"
