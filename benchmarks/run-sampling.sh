#!/usr/bin/env bash
# Sampling cost per socket: C floor loop, batched JNI, one JNI call per socket, ss -tin.
# The C loop runs before and after JMH, so machine noise shows up as a spread, not a bias.
# Usage: benchmarks/run-sampling.sh   (after: mvn -B -DskipTests package)
set -euo pipefail
cd "$(dirname "$0")"
ulimit -n "$(ulimit -Hn)"  # 10,000 sockets need 10,000 descriptors
sizes=(100 1000 10000)
: > target/c-loop.txt
for n in "${sizes[@]}"; do ./target/tcpinfo-loop "$n" | tee -a target/c-loop.txt; done
java -jar target/benchmarks.jar SamplingBenchmark -rf csv -rff target/sampling.csv
for n in "${sizes[@]}"; do ./target/tcpinfo-loop "$n" | tee -a target/c-loop.txt; done

echo
echo "per socket (ns): sockets | C loop (mean of 2 runs) | C loop + fstat | batched (with fstat) | JNI per socket | ss -tin | batched/(C+fstat) | ss/batched"
for n in "${sizes[@]}"; do
  c=$(awk -v n="$n" -F'[ =]' '$1=="c-loop" && $3==n {s+=$5; k++} END {printf "%.1f", s/k}' target/c-loop.txt)
  ci=$(awk -v n="$n" -F'[ =]' '$1=="c-loop-inode" && $3==n {s+=$5; k++} END {printf "%.1f", s/k}' target/c-loop.txt)
  per() { awk -v n="$n" -v b="$1" -F',' '{sub(/\r$/, "")} $1 ~ b && $NF==n {gsub(/"/,"",$5); printf "%.1f", $5*1000/n}' target/sampling.csv; }
  batched=$(per batched); single=$(per jniCallPerSocket); ss=$(per ssWholeHost)
  awk -v n="$n" -v c="$c" -v ci="$ci" -v b="$batched" -v j="$single" -v s="$ss" \
    'BEGIN {printf "%7d | %7.1f | %7.1f | %7.1f | %7.1f | %7.1f | %.2fx | %.1fx\n", n, c, ci, b, j, s, b/ci, s/b}'
done
