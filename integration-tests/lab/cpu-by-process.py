#!/usr/bin/env python3
"""Where a suite run's CPU goes, process by process (docs/lab.md, "Where the suite's time goes").

  cpu-by-process.py sample OUT.json      # beside `bash .ci/run`; stop it when the run ends
  cpu-by-process.py report OUT.json [RUN_LOG]

`sample` reads every process's /proc/PID/stat once a second and keeps, per process, its kind
(a JVM by its main class, with "+agent" and "+C1" for -javaagent and -XX:TieredStopAtLevel=1;
else its program's name), when it was first seen and its CPU time (user + system) at its last
sample; every 5 s it also keeps the host's CPU time and idle time (/proc/stat); it rewrites
OUT.json every 10 s. A process that lives under a second may be missed.
`report` prints the CPU seconds by kind and, given the run's log (its SlowestTests timeline), by
the test classes running when each process started, and how busy the host's CPUs were over
each class's span. Every 5 s `sample` also reads each Java thread's CPU time
(/proc/PID/task/TID/stat) and `report` prints each kind's CPU by thread name, the JIT's compiler
threads and the collector's counted as one each (docs/lab.md, "The JIT of the build's own JVMs"); a
thread's CPU after its last reading, up to 5 s, is not counted.
"""
import collections
import json
import os
import re
import sys
import time

TICKS = os.sysconf("SC_CLK_TCK")
TAKES_A_VALUE = {"-cp", "-classpath", "--class-path", "-p", "--module-path", "--add-opens", "--add-exports"}


def kind(command):
    program = os.path.basename(command[0])
    if not program.startswith("java"):
        return program
    line = " ".join(command)
    if "surefire" in line or "failsafe" in line:
        return "java:test-jvm"
    if "plexus-classworlds" in line:
        return "java:maven"
    main, args, i = "?", command[1:], 0
    while i < len(args):
        if args[i] in TAKES_A_VALUE:
            i += 2
        elif args[i] == "-jar":
            main = "jar:" + os.path.basename(args[i + 1]) if i + 1 < len(args) else "jar"
            break
        elif args[i].startswith("-"):
            i += 1
        else:
            main = args[i]
            break
    return ("java:" + main + ("+agent" if "-javaagent" in line else "")
            + ("+C1" if "TieredStopAtLevel=1" in line else ""))


def host_ticks():
    """The host's CPU time and its idle part (idle and iowait), in ticks, from /proc/stat."""
    with open("/proc/stat") as stat:
        fields = [int(value) for value in stat.readline().split()[1:9]]
    return sum(fields), fields[3] + fields[4]


def sample(out):
    seen = {}  # "pid@starttime" -> [kind, first seen, cpu ticks, last seen]
    host = []  # [time, cpu ticks, idle ticks] every 5 s
    threads = {}  # "pid@starttime/tid" -> [kind, thread name, cpu ticks] of Java processes, every 5 s
    last_write = 0
    while True:
        now = time.time()
        if not host or now - host[-1][0] >= 5:
            host.append([now, *host_ticks()])
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{pid}/stat") as stat:
                    text = stat.read()
                fields = text[text.rindex(")") + 2:].split()
                key = pid + "@" + fields[19]
                if key not in seen:
                    with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                        command = [part.decode(errors="replace") for part in cmdline.read().split(b"\0") if part]
                    if not command:
                        continue
                    seen[key] = [kind(command), now, 0, now]
                seen[key][2] = int(fields[11]) + int(fields[12])
                seen[key][3] = now
            except (OSError, ValueError, IndexError):
                continue  # ended meanwhile
        if host[-1][0] == now:
            read_threads(seen, now, threads)
        if now - last_write >= 10:
            with open(out + ".tmp", "w") as tmp:
                json.dump({"processes": seen, "host": host, "threads": threads}, tmp)
            os.replace(out + ".tmp", out)
            last_write = now
        time.sleep(1)


def read_threads(seen, now, threads):
    """Each thread's CPU time of the Java processes seen alive at `now`."""
    for key, (what, _, _, last) in seen.items():
        if last != now or not what.startswith("java"):
            continue
        pid = key.split("@")[0]
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/stat") as stat:
                    text = stat.read()
                fields = text[text.rindex(")") + 2:].split()
                threads[f"{key}/{tid}"] = [what, text[text.index("(") + 1:text.rindex(")")],
                                           int(fields[11]) + int(fields[12])]
            except (OSError, ValueError, IndexError):
                continue  # ended meanwhile


def thread_group(name):
    if "C2 Compiler" in name:
        return "JIT C2"
    if "C1 Compiler" in name:
        return "JIT C1"
    if name.startswith(("GC Thread", "G1 ", "VM Thread")):
        return "collector and VM"
    return re.sub(r"[0-9]+", "N", name)


def busy(host, start, end):
    """The share of the host's CPU time that was not idle from start to end, or None."""
    inside = [row for row in host if start <= row[0] <= end]
    if len(inside) < 2 or inside[-1][1] == inside[0][1]:
        return None
    return 1 - (inside[-1][2] - inside[0][2]) / (inside[-1][1] - inside[0][1])


def report(path, run_log=None):
    data = json.load(open(path))
    seen, host = (data["processes"], data["host"]) if "processes" in data else (data, [])
    by_kind, count = collections.Counter(), collections.Counter()
    for what, _, ticks, _ in seen.values():
        by_kind[what] += ticks / TICKS
        count[what] += 1
    total = sum(by_kind.values())
    print(f"{total:.0f} CPU-s over {len(seen)} processes")
    for what, seconds in by_kind.most_common(25):
        print(f"{seconds:8.0f} s {100 * seconds / total:5.1f} %  x{count[what]:<4d} {what}")
    by_thread = collections.defaultdict(collections.Counter)
    for what, name, ticks in data.get("threads", {}).values():
        by_thread[what][thread_group(name)] += ticks / TICKS
    if by_thread:
        print("by thread, the Java kinds that took most:")
    for what, groups in sorted(by_thread.items(), key=lambda item: -sum(item[1].values()))[:8]:
        top = ", ".join(f"{name} {seconds:.1f}" for name, seconds in groups.most_common(6))
        print(f"{sum(groups.values()):8.0f} s  {what}: {top}")
    if run_log is None:
        return
    log = open(run_log).read()
    timeline = re.findall(r"^\s+(\d+):(\d+)-(\d+):(\d+)\s+(\S+)$", log[log.index("Every class from"):], re.M)
    classes = [(int(a) * 60 + int(b), int(c) * 60 + int(d), name) for a, b, c, d, name in timeline]
    # the integration tests' clock starts with the failsafe JVM, the test JVM that ran longest
    zero = max((last - first, first) for what, first, _, last in seen.values() if what == "java:test-jvm")[1]
    by_class = collections.defaultdict(collections.Counter)
    for what, first, ticks, _ in seen.values():
        at = first - zero
        if what in ("java:test-jvm", "java:maven") or at < -5:
            continue
        running = sorted(name for start, end, name in classes if start - 2 <= at <= end)
        by_class["|".join(running) or "?"][what] += ticks / TICKS
    for name, kinds in sorted(by_class.items(), key=lambda item: -sum(item[1].values())):
        top = ", ".join(f"{what.split(':', 1)[-1]} {seconds:.0f}" for what, seconds in kinds.most_common(3))
        print(f"{sum(kinds.values()):7.0f}  {name}: {top}")
    if host:
        print("the host's CPUs busy over each class's span:")
        for start, end, name in classes:
            share = busy(host, zero + start, zero + end)
            print(f"  {start // 60}:{start % 60:02d}-{end // 60}:{end % 60:02d}  {name:45s} "
                  + ("-" if share is None else f"{100 * share:3.0f} %"))
        share = busy(host, host[0][0], zero)
        if share is not None:
            print(f"  before the integration tests: {100 * share:.0f} %")


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "sample":
        sample(sys.argv[2])
    elif len(sys.argv) >= 3 and sys.argv[1] == "report":
        report(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
    else:
        sys.exit(__doc__)
