#!/usr/bin/env python3
"""Where the build's Java processes spend their CPU, thread by thread (docs/lab.md, "The JIT of the
build's own JVMs").

  cpu-by-thread.py sample OUT.json      # beside a Maven run; stop it when the run ends
  cpu-by-thread.py report OUT.json

`sample` reads, every 2 s, the CPU time (user + system) of every thread of every Java process
(/proc/PID/task/TID/stat) and keeps each thread's last reading, with its process's kind (Maven, a
test JVM, a broker, a Connect worker, another Java) and its name; it rewrites OUT.json every 10 s
and once more when stopped (SIGTERM or Ctrl-C). A thread's CPU after its last reading, up to 2 s,
is not counted, and a thread that lives under 2 s may be missed. `report` prints each kind's CPU seconds by thread
name, the JIT's compiler threads and the collector's threads each counted as one.
"""
import collections
import json
import os
import re
import signal
import sys
import time

TICKS = os.sysconf("SC_CLK_TCK")


def kind(pid):
    try:
        command = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
    except OSError:
        return None
    if not os.path.basename(command[0].decode(errors="replace")).startswith("java"):
        return None
    line = b" ".join(command).decode(errors="replace")
    if "plexus-classworlds" in line:
        return "maven"
    if "surefirebooter" in line:
        return "test JVM"
    if "kafka.Kafka" in line:
        return "broker"
    if "ConnectDistributed" in line:
        return "worker"
    return "other Java"


def write(seen, out):
    with open(out + ".part", "w") as file:
        json.dump(seen, file)
    os.replace(out + ".part", out)


def sample(out):
    seen = {}  # "pid/tid@start" -> [kind, thread name, cpu ticks]

    def stop(signum, frame):
        write(seen, out)
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    written = 0.0
    while True:
        for pid in filter(str.isdigit, os.listdir("/proc")):
            what = kind(pid)
            if what is None:
                continue
            try:
                threads = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue
            for tid in threads:
                try:
                    stat = open(f"/proc/{pid}/task/{tid}/stat").read()
                except OSError:
                    continue
                name = stat[stat.index("(") + 1:stat.rindex(")")]
                fields = stat[stat.rindex(")") + 2:].split()
                # fields[0] is stat's third field: utime and stime are its 14th and 15th, the start its 22nd
                seen[f"{pid}/{tid}@{fields[19]}"] = [what, name, int(fields[11]) + int(fields[12])]
        if time.time() - written > 10:
            write(seen, out)
            written = time.time()
        time.sleep(2)


def group(name):
    if "C2 Compiler" in name:
        return "JIT C2"
    if "C1 Compiler" in name:
        return "JIT C1"
    if name.startswith(("GC Thread", "G1 ", "VM Thread")):
        return "collector and VM"
    return re.sub(r"[0-9]+", "N", name)


def report(path):
    by_kind = collections.defaultdict(collections.Counter)
    for what, name, ticks in json.load(open(path)).values():
        by_kind[what][group(name)] += ticks / TICKS
    for what, threads in sorted(by_kind.items(), key=lambda item: -sum(item[1].values())):
        top = ", ".join(f"{name} {seconds:.1f}" for name, seconds in threads.most_common(6))
        print(f"{sum(threads.values()):7.0f} CPU-s  {what}: {top}")


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "sample":
        sample(sys.argv[2])
    elif len(sys.argv) >= 3 and sys.argv[1] == "report":
        report(sys.argv[2])
    else:
        sys.exit(__doc__)
