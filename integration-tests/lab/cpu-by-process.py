#!/usr/bin/env python3
"""Where a suite run's CPU goes, process by process (docs/lab.md, "Where the suite's time goes").

  cpu-by-process.py sample OUT.json      # beside `bash .ci/run`; stop it when the run ends
  cpu-by-process.py report OUT.json [RUN_LOG]

`sample` reads every process's /proc/PID/stat once a second and keeps, per process, its kind
(a JVM by its main class, with "+agent" and "+C1" for -javaagent and -XX:TieredStopAtLevel=1;
else its program's name), when it was first seen and its CPU time (user + system) at its last
sample; it rewrites OUT.json every 10 s. A process that lives under a second may be missed.
`report` prints the CPU seconds by kind and, given the run's log (its SlowestTests timeline), by
the test classes running when each process started.
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


def sample(out):
    seen = {}  # "pid@starttime" -> [kind, first seen, cpu ticks, last seen]
    last_write = 0
    while True:
        now = time.time()
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
        if now - last_write >= 10:
            with open(out + ".tmp", "w") as tmp:
                json.dump(seen, tmp)
            os.replace(out + ".tmp", out)
            last_write = now
        time.sleep(1)


def report(path, run_log=None):
    seen = json.load(open(path))
    by_kind, count = collections.Counter(), collections.Counter()
    for what, _, ticks, _ in seen.values():
        by_kind[what] += ticks / TICKS
        count[what] += 1
    total = sum(by_kind.values())
    print(f"{total:.0f} CPU-s over {len(seen)} processes")
    for what, seconds in by_kind.most_common(25):
        print(f"{seconds:8.0f} s {100 * seconds / total:5.1f} %  x{count[what]:<4d} {what}")
    if run_log is None:
        return
    log = open(run_log).read()
    timeline = re.findall(r"^\s+(\d+):(\d+)-(\d+):(\d+)\s+(\S+)$", log[log.index("Every class from"):], re.M)
    classes = [(int(a) * 60 + int(b), int(c) * 60 + int(d), name) for a, b, c, d, name in timeline]
    # the integration tests' clock starts with the failsafe JVM, the last test JVM to start
    zero = max(first for what, first, _, _ in seen.values() if what == "java:test-jvm")
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


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "sample":
        sample(sys.argv[2])
    elif len(sys.argv) >= 3 and sys.argv[1] == "report":
        report(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
    else:
        sys.exit(__doc__)
