#!/usr/bin/env python3
"""Endurance: 10 publishers and 10 subscribers at 1 kHz across processes, with participants
joining and leaving, on loopback (a domain tag of its own, so that nothing else on the host meets
it). Every process is an hdds-stress-peer (hdds_tools); every topic is reliable KEEP_ALL.

  main     10 writers e0..e9 (1,000 samples/s each) and readers e0..e2: the intra-process path
  shmsub   readers e3..e6 in another process: the shared-memory path
  udpsub   readers e7..e9 in another process with shared memory off: the UDP path
  churn    every --churn-period s a participant with readers e0..e9 joins (alternately over shared
           memory and UDP) and leaves --churn-life s later (SIGTERM, a clean exit)

Checks (each failure says which): no sample lost on any reliable topic (the long-lived readers get
counters 1..written with no gap or duplicate; every churn reader sees no gap or duplicate while it
lives; every writer's samples acknowledged); memory flat after warm-up: the heap in use (glibc
mallinfo2) grows by less than 1 % of the process's memory (RSS) between the median of the first
three and of the last three reports after max(60 s, a quarter of the run), on each long-lived
process (RSS is reported too, but it keeps the
high-water mark of a burst: a reader starved for a second by a loaded machine queues thousands of
samples, and freed pages mostly stay in the process); no file descriptor growth; no /dev/shm segment left by any participant of the run after it ends.

  test/endurance/run.py [--seconds 120] [--minutes M] [--peer PATH]
The 2-minute version runs in scripts/test.sh; --minutes 30 is the long one (loads 2 cores for the
whole time). Last line: "hdds-endurance: PASS|FAIL ..."; exit 0 on pass, 1 on failure.
"""

import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOPICS = [f"e{i}" for i in range(10)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=120.0)
    ap.add_argument("--minutes", type=float)
    ap.add_argument("--peer", default=os.path.join(ROOT, "target", "release", "hdds-stress-peer"))
    ap.add_argument("--churn-period", type=float, default=3.0)
    ap.add_argument("--churn-life", type=float, default=6.0)
    ap.add_argument("--rate", type=float, default=1000.0)
    ap.add_argument("--keep-logs", action="store_true", help="keep the peers' logs even when the run passes")
    args = ap.parse_args()
    duration = args.minutes * 60 if args.minutes else args.seconds
    if not os.access(args.peer, os.X_OK):
        sys.exit(f"run.py: no peer at {args.peer} (cargo build --release -p hdds_tools --bin hdds-stress-peer)")
    work = tempfile.mkdtemp(prefix="hdds_endurance_")
    tag = f"endurance{os.getpid()}"
    procs = {}
    problems = []

    def start(name, *extra):
        log = open(os.path.join(work, f"{name}.log"), "w")
        cmd = [args.peer, "--tag", tag, "--report", "5", "--max-blocking", "1", *extra]
        procs[name] = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        return procs[name]

    def text(name):
        with open(os.path.join(work, f"{name}.log")) as f:
            return f.read()

    def wait_text(name, pattern, seconds):
        end = time.time() + seconds
        while time.time() < end:
            if re.search(pattern, text(name), re.M):
                return True
            time.sleep(0.1)
        return False

    def stop(name, grace=15.0):
        p = procs[name]
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
        try:
            return p.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            problems.append(f"{name} did not exit within {grace} s of SIGTERM (killed)")
            return None

    life = duration + 60
    try:
        start("shmsub", "--readers", ",".join(TOPICS[3:7]), "--duration", str(life))
        start("udpsub", "--readers", ",".join(TOPICS[7:]), "--no-shm", "--duration", str(life))
        if not (wait_text("shmsub", "^READY", 20) and wait_text("udpsub", "^READY", 20)):
            raise RuntimeError("the subscriber processes did not start")
        start("main", "--writers", ",".join(TOPICS), "--readers", ",".join(TOPICS[:3]), "--rate", str(args.rate),
              "--wait-matched", "1", "--duration", str(duration + 30))
        for name, topics in (("main", TOPICS[:3]), ("shmsub", TOPICS[3:7]), ("udpsub", TOPICS[7:])):
            for t in topics:
                if not wait_text(name, rf"^MATCH ms=\d+ topic={t} writers=1$", 30):
                    raise RuntimeError(f"{name}'s reader of {t} did not match the writer within 30 s")
        t0 = time.time()
        churn = []
        k = 0
        next_churn = t0
        while time.time() < t0 + duration:
            now = time.time()
            for name, born in list(churn):
                if now >= born + args.churn_life:
                    code = stop(name)
                    churn.remove((name, born))
                    if code != 0:
                        problems.append(f"churn participant {name} exited {code}: {tail(text(name))}")
            if now >= next_churn and now + args.churn_life < t0 + duration:
                name = f"churn{k}"
                extra = ["--no-shm"] if k % 2 else []
                start(name, "--readers", ",".join(TOPICS), "--duration", str(args.churn_life + 30), *extra)
                churn.append((name, now))
                k += 1
                next_churn += args.churn_period
            if procs["main"].poll() is not None:
                raise RuntimeError(f"main exited early ({procs['main'].returncode}): {tail(text('main'))}")
            time.sleep(0.2)
        for name, _ in churn:
            if stop(name) != 0:
                problems.append(f"churn participant {name} exited nonzero: {tail(text(name))}")
        code = stop("main", grace=30)
        if code != 0:
            problems.append(f"main exited {code}: {tail(text('main'))}")
        time.sleep(1.0)
        for name in ("shmsub", "udpsub"):
            code = stop(name)
            if code != 0:
                problems.append(f"{name} exited {code}: {tail(text(name))}")
    except RuntimeError as e:
        problems.append(str(e))
    finally:
        for name, p in procs.items():
            if p.poll() is None:
                p.kill()
                p.wait()

    written = {m.group(1): int(m.group(2)) for m in re.finditer(r"^WRITER topic=(\S+) written=(\d+)", text("main"), re.M)}
    for m in re.finditer(r"^WRITER topic=(\S+) written=(\d+) timeouts=(\d+) max_write_ms=(\S+) acked=(\d)", text("main"), re.M):
        if m.group(5) != "1":
            problems.append(f"writer {m.group(1)}: not every sample acknowledged")
    if written and len(written) != len(TOPICS):
        problems.append(f"main reported {len(written)} writers of {len(TOPICS)}")
    total = sum(written.values())
    for name in ("main", "shmsub", "udpsub"):
        for m in re.finditer(r"^READER topic=(\S+) received=(\d+) writers=(\d+) first=(\d+) gaps=(\d+) dups=(\d+)",
                             text(name), re.M):
            topic, received, _, first, gaps, dups = m.group(1), *map(int, m.groups()[1:])
            if gaps or dups or first != 1 or received != written.get(topic, -1):
                problems.append(f"{name}'s reader of {topic}: received {received} of {written.get(topic)} "
                                f"(first {first}, {gaps} missing, {dups} duplicates)")
    # Heap high-water marks still rise in the first minute (histories peak when a joining reader
    # lags, maps reach their size): growth is measured from then on.
    warm = max(60.0, duration / 4)
    mem = []
    for name in ("main", "shmsub", "udpsub"):
        stats = [(float(s), int(r), int(p), int(f), int(h)) for s, r, p, f, h in
                 re.findall(r"^STATS s=(\S+) rss_kb=(\d+) pss_kb=(\d+) fds=(\d+) heap_kb=(\d+)", text(name), re.M)]
        after = [x for x in stats if x[0] >= warm]
        if len(after) < 6:
            problems.append(f"{name}: fewer than 6 memory reports after the {warm:g} s warm-up")
            continue
        # Medians of the first and last three reports: one report taken while a burst of samples
        # is queued does not decide.
        heap0 = statistics.median(x[4] for x in after[:3])
        heap1 = statistics.median(x[4] for x in after[-3:])
        # Growth of the heap in use, as a share of the process's memory (RSS after warm-up): a heap
        # of 600 KiB moves by 1 % (6 KiB) with the samples in flight at any moment.
        growth = (heap1 - heap0) / after[0][1] * 100
        rss_growth = (after[-1][1] - after[0][1]) / after[0][1] * 100
        mem.append(f"{name} heap {heap0:g}->{heap1:g} KiB ({growth:+.2f} % of RSS), RSS {after[0][1]}->{after[-1][1]} KiB "
                   f"({rss_growth:+.2f} %), fds {after[0][3]}->{after[-1][3]}")
        if growth >= 1.0:
            problems.append(f"{name}: heap in use grew by {growth:.2f} % of the process's memory after warm-up "
                            f"({heap0:g} -> {heap1:g} KiB, RSS {after[0][1]} KiB)")
        if after[-1][3] > after[0][3]:
            problems.append(f"{name}: file descriptors grew from {after[0][3]} to {after[-1][3]}")
    prefixes = set()
    for name in procs:
        prefixes |= set(re.findall(r"^READY .*prefix=([0-9a-f]+)", text(name), re.M))
    left = [f for f in os.listdir("/dev/shm") if any(f.startswith(f"hdds_{p}_") for p in prefixes)]
    if left:
        problems.append(f"/dev/shm leftovers of this run: {sorted(left)[:5]} ({len(left)} files)")
    churners = sum(1 for n in procs if n.startswith("churn"))
    achieved = total / len(TOPICS) / duration if written else 0.0
    if achieved < 0.9 * args.rate:
        # Not a failure (writes block while a reader lags on a loaded machine, which the test
        # allows up to max_blocking_time), but the run was lighter than asked: say so.
        print(f"  WARNING: the writers averaged {achieved:.0f} samples/s each, below the {args.rate:g} asked "
              f"(writes blocked on lagging readers; see the WRITER lines' timeouts in the logs)")
    print(f"endurance: {duration:g} s, {len(TOPICS)} writers at {args.rate:g} Hz ({achieved:.0f} achieved), "
          f"{total} samples written, "
          f"{churners} participants joined and left; " + "; ".join(mem))
    if problems:
        for p in problems:
            print(f"  FAIL: {p}")
        print(f"hdds-endurance: FAIL ({len(problems)} problems; logs in {work})")
        return 1
    if args.keep_logs:
        print(f"logs: {work}")
    else:
        subprocess.run(["rm", "-rf", work])
    print("hdds-endurance: PASS")
    return 0


def tail(s, n=3):
    return " | ".join(s.strip().splitlines()[-n:])


if __name__ == "__main__":
    sys.exit(main())
