#!/usr/bin/env bash
# Prepares this machine to build and test tcpsight: a fresh Debian root machine needs nothing
# else. Idempotent: on a reused machine every step that is already done is skipped, so a second
# run takes seconds.
#
#  1. Debian packages the build and the lab need, checked by package (dpkg), not by command:
#     a cross compiler can be on PATH without its libc headers. Then a Java 11 runtime, unpacked
#     into $TCPSIGHT_LAB_HOME/jre-11 from Debian bullseye (java11.sh).
#  2. dockerd on a private socket ($TCPSIGHT_LAB_HOME/docker.sock), no iptables, loopback only.
#  3. tcpsight-lab/jre:17, a JRE base image built from Debian packages (no registry needed),
#     from the Debian mirror this machine's apt uses (debian-mirror.sh).
#  4. tcpsight-lab/toxiproxy:2.12.0, Toxiproxy built from the Go module proxy into a scratch image.
#  5. (run right after step 1: no Docker needed) Go tools built from the Go module proxy into $TCPSIGHT_LAB_HOME/bin: kube-validate
#     (lab/kube-validate), which decodes the Kubernetes recipes strictly into Kubernetes' own API
#     types, and otelcol (lab/otelcol), an OpenTelemetry Collector with an OTLP receiver, the
#     attributes processor, and a file and a Prometheus exporter, for the OTLP export test; and zoo-go (lab/zoo-go), a consumer in franz-go,
#     sarama or segmentio/kafka-go, for the client zoo.
#  6. (with step 5) The zoo's other clients: kafka-python and confluent-kafka (librdkafka, with
#     client telemetry) from PyPI in a venv of Debian's python3 ($TCPSIGHT_LAB_HOME/zoo-python), KafkaJS from npm ($TCPSIGHT_LAB_HOME/zoo-node, Node.js
#     from Debian where the machine has none), each at the version its lab folder pins.
#
# TCPSIGHT_LAB_SETUP=packages stops after steps 1 and 5 (a chroot without a Docker engine, as in
# fresh-machine-check.sh).
#
# Kafka images are built by the tests themselves (standard Dockerfiles in docker/, from the
# Maven-resolved jars), with the JRE image above as their base.
#
# Usage (root): integration-tests/lab/setup.sh
# Then: export DOCKER_HOST=unix://$TCPSIGHT_LAB_HOME/docker.sock (default /var/lib/tcpsight-lab).
set -euo pipefail

LAB_HOME=${TCPSIGHT_LAB_HOME:-/var/lib/tcpsight-lab}
SOCKET=$LAB_HOME/docker.sock
JRE_IMAGE=tcpsight-lab/jre:17
TOXIPROXY_VERSION=v2.12.0
TOXIPROXY_IMAGE=tcpsight-lab/toxiproxy:2.12.0
export DEBIAN_FRONTEND=noninteractive
export PATH="$PATH:/usr/local/go/bin"

log() { echo "[lab setup] $*"; }

if [ "$(id -u)" != 0 ]; then
  echo "[lab setup] must run as root (network namespaces, TUN devices and dockerd need it)" >&2
  exit 1
fi
mkdir -p "$LAB_HOME"

# Build: the JNI shim for x86_64 and aarch64 (the cross compiler's libc headers are a package of
# their own, which --no-install-recommends leaves out), checked and run against musl (musl-tools:
# the library must load on Alpine too), its valgrind test, the JDK and Maven.
# Lab: network namespaces and sysctls, dockerd, debootstrap for the JRE image; a real Prometheus
# (and promtool) for the dashboards' queries, kcat as a librdkafka client.
packages=(
  ca-certificates gcc make libc6-dev gcc-aarch64-linux-gnu libc6-dev-arm64-cross musl-tools valgrind
  openjdk-17-jdk-headless maven
  iproute2 procps docker.io debootstrap curl openssl
  prometheus kcat python3-venv
)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'ok installed' || missing+=("$package")
done
if ((${#missing[@]})); then
  log "installing ${missing[*]}"
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# A Java 11 runtime for the lab's Java 11 client cell, unpacked from Debian bullseye (not installed).
"$(dirname "$0")/java11.sh"
# A Go tool of lab/<name>, built into $LAB_HOME/bin/<name> unless one newer than its sources is there.
build_go_tool() {
  local name=$1 binary=$LAB_HOME/bin/$1 source_dir
  source_dir="$(cd "$(dirname "$0")" && pwd)/$1"
  if [ -x "$binary" ] && [ -z "$(find "$source_dir" -newer "$binary" -type f)" ]; then
    log "$name present"
  else
    log "building $name from the Go module proxy"
    command -v go >/dev/null 2>&1 || { echo "[lab setup] go is needed to build $name (Go 1.26+, /usr/local/go on this machine image)" >&2; exit 1; }
    mkdir -p "$LAB_HOME/bin"
    (cd "$source_dir" && CGO_ENABLED=0 go build -o "$binary" .)
  fi
}
build_go_tool kube-validate
build_go_tool otelcol
build_go_tool zoo-go
# The zoo's Python and Node.js clients, each reinstalled only when its pinned version changes.
# The CA bundle is named: this network's egress re-signs TLS, and a fresh root has no pip or npm config.
lab_dir="$(cd "$(dirname "$0")" && pwd)"
cas=/etc/ssl/certs/ca-certificates.crt
if cmp -s "$lab_dir/zoo-python/requirements.txt" "$LAB_HOME/zoo-python/requirements.txt"; then
  log "zoo-python present"
else
  log "installing the zoo's kafka-python and confluent-kafka from PyPI"
  rm -rf "$LAB_HOME/zoo-python"
  /usr/bin/python3 -m venv "$LAB_HOME/zoo-python"
  "$LAB_HOME/zoo-python/bin/pip" install -q --disable-pip-version-check --cert "$cas" \
    -r "$lab_dir/zoo-python/requirements.txt"
  cp "$lab_dir/zoo-python/requirements.txt" "$LAB_HOME/zoo-python/"
fi
if ! command -v npm >/dev/null 2>&1; then
  log "installing Node.js and npm from Debian"
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi
if cmp -s "$lab_dir/zoo-node/package-lock.json" "$LAB_HOME/zoo-node/package-lock.json"; then
  log "zoo-node present"
else
  log "installing the zoo's KafkaJS from npm"
  rm -rf "$LAB_HOME/zoo-node"
  mkdir -p "$LAB_HOME/zoo-node"
  cp "$lab_dir/zoo-node/package.json" "$lab_dir/zoo-node/package-lock.json" "$LAB_HOME/zoo-node/"
  (cd "$LAB_HOME/zoo-node" && npm ci --no-audit --no-fund --cafile="$cas" >/dev/null)
fi
if [ "${TCPSIGHT_LAB_SETUP:-all}" = packages ]; then
  log "packages, Go tools and the zoo's clients ready (TCPSIGHT_LAB_SETUP=packages: no Docker engine or images)"
  exit 0
fi

# The docker.io client matches its daemon's API; a newer client elsewhere on PATH may not.
docker() { /usr/bin/docker -H "unix://$SOCKET" "$@"; }

if docker info >/dev/null 2>&1; then
  log "dockerd already running on $SOCKET"
else
  log "starting dockerd on $SOCKET"
  rm -f "$SOCKET" "$LAB_HOME/dockerd.pid"
  # After a reboot the exec root keeps the last boot's containerd.pid, and pids start again from
  # low: dockerd takes whatever process now has that pid for its containerd and waits for a socket
  # that never comes.
  # A pid that is not this lab's containerd (its command line names the lab's exec root) is stale.
  containerd_pid_file="$LAB_HOME/exec/containerd/containerd.pid"
  if [ -f "$containerd_pid_file" ] \
    && ! tr '\0' ' ' 2>/dev/null <"/proc/$(cat "$containerd_pid_file")/cmdline" | grep -q "containerd.*$LAB_HOME/exec"; then
    log "removing a stale containerd.pid ($(cat "$containerd_pid_file")) from an earlier boot"
    rm -f "$containerd_pid_file"
  fi
  nohup dockerd --iptables=false --ip6tables=false \
    --bip 10.99.0.1/24 --default-address-pool base=10.99.0.0/16,size=24 --ip 127.0.0.1 \
    --data-root "$LAB_HOME/data" --exec-root "$LAB_HOME/exec" --pidfile "$LAB_HOME/dockerd.pid" \
    --host "unix://$SOCKET" >"$LAB_HOME/dockerd.log" 2>&1 &
  for _ in $(seq 1 60); do
    docker info >/dev/null 2>&1 && break
    sleep 0.5
  done
  docker info >/dev/null 2>&1 || { echo "[lab setup] dockerd did not start; last log lines:" >&2; tail -20 "$LAB_HOME/dockerd.log" >&2; exit 1; }
fi

if docker image inspect "$JRE_IMAGE" >/dev/null 2>&1; then
  log "$JRE_IMAGE present"
else
  log "building $JRE_IMAGE with debootstrap (about 70 s)"
  rootfs=$LAB_HOME/jre-rootfs
  rm -rf "$rootfs"
  mirror=$("$(dirname "$0")/debian-mirror.sh")
  debootstrap --variant=minbase --include=openjdk-17-jre-headless bookworm "$rootfs" "$mirror" >"$LAB_HOME/debootstrap.log" 2>&1 \
    || { tail -20 "$LAB_HOME/debootstrap.log" >&2; exit 1; }
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" -c . | docker import -c 'ENV LANG=C.UTF-8' - "$JRE_IMAGE" >/dev/null
  rm -rf "$rootfs"
  # Not piped into head: with pipefail, head closing early makes docker's SIGPIPE (141) fail setup.
  version=$(docker run --rm "$JRE_IMAGE" java -version 2>&1)
  log "${version%%$'\n'*}"
fi

if docker image inspect "$TOXIPROXY_IMAGE" >/dev/null 2>&1; then
  log "$TOXIPROXY_IMAGE present"
else
  log "building toxiproxy $TOXIPROXY_VERSION from the Go module proxy"
  command -v go >/dev/null 2>&1 || { echo "[lab setup] go is needed to build toxiproxy (install Go 1.22+)" >&2; exit 1; }
  context=$LAB_HOME/toxiproxy-image
  mkdir -p "$context"
  GOBIN=$context CGO_ENABLED=0 go install "github.com/Shopify/toxiproxy/v2/cmd/server@$TOXIPROXY_VERSION"
  mv "$context/server" "$context/toxiproxy"
  cp "$(dirname "$0")/../docker/toxiproxy.Dockerfile" "$context/Dockerfile"
  DOCKER_BUILDKIT=0 docker build -q -t "$TOXIPROXY_IMAGE" "$context" >/dev/null
fi
log "ready: DOCKER_HOST=unix://$SOCKET"
