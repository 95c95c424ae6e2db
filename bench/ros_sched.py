#!/usr/bin/python3
"""Where a performance_test cell's time goes between its threads, as the scheduler sees it (issue 6)

Not a benchmark of its own: it explains cells of bench/ros_compare.py. It runs each cell (the same
perf_test command lines, environment and domain) under each RMW, interleaved, --repeats times, and
records the whole machine's `sched:sched_switch` and `sched:sched_wakeup` events with `perf record
-a` for --seconds inside the measured window. For every thread of the measured processes that slept
at least --min-runs times it reports:
- how often it went to sleep (per second) and how long it had run since it last started
  (p50 / p90 µs): what one sample costs the thread, cold or warm;
- how long it waited between being woken and running (p50 / p90 µs), how often it ran on the CPU
  its waker was on, and which thread woke it most.
Medians over the repeats of each repeat's percentiles. A two-process cell at 1 kHz read, for
example, "the publisher wakes the subscriber's executor on its own CPU, yields, and the executor
runs 47 µs per sample" (results/ros_sched.md, session 34).

Needs what ros_compare.py needs (a sourced ROS 2 Humble with performance_test and the RMWs) and
`perf` with the scheduler's tracepoints (root, or perf_event_paranoid <= -1; tracefs mounted):
    /usr/bin/python3 bench/ros_sched.py --cells 'Array1k 1000Hz 2p BE 1sub,Array1k 100Hz 1p BE 1sub'
"""

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ros_compare as rc  # noqa: E402  (next to this script)
from ros_compare_process import Run  # noqa: E402
from ros_compare_report import fmt, median, percentile  # noqa: E402

EVENTS = "sched:sched_switch,sched:sched_wakeup"
# The numeric figures of a thread in a run, each a median over the repeats in the table.
FIGURES = ("runs", "run50", "run90", "wake50", "wake90", "same_cpu")
LINE = re.compile(r"\s*(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+sched:(\w+):\s+(.*)")
SWITCH = re.compile(r"prev_comm=(.*?) prev_pid=(\d+) .*prev_state=(\S+) ==> next_comm=(.*?) next_pid=(\d+)")
WAKEUP = re.compile(r"comm=(.*?) pid=(\d+) ")


def check_perf():
    """Exits with what to do when perf cannot record the scheduler's tracepoints."""
    if not shutil.which("perf"):
        sys.exit("ros_sched: perf is not installed (Debian: apt-get install linux-perf)")
    probe = subprocess.run(
        ["perf", "record", "-q", "-e", EVENTS, "-a", "-o", os.devnull, "--", "true"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    if probe.returncode != 0:
        sys.exit(
            "ros_sched: perf cannot record sched:sched_switch / sched:sched_wakeup here: "
            f"{probe.stderr.strip()[-300:]}\nRun as root (or set kernel.perf_event_paranoid=-1) "
            "with tracefs mounted (mount -t tracefs nodev /sys/kernel/tracing)."
        )


def threads(pids):
    """{tid: (pid, comm)} of the live threads of `pids`."""
    out = {}
    for pid in pids:
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/comm") as f:
                    out[int(tid)] = (pid, f.read().strip())
            except OSError:
                pass
    return out


def parse(text, tids):
    """Per measured thread: its run lengths (µs) that ended with the thread asleep, and per wake-up
    (delay µs until it ran, whether on the waker's CPU, the waker's tid)."""
    running = {}  # tid -> when it started running
    woken = {}  # tid -> (time, cpu, waker)
    runs = {t: [] for t in tids}
    wakes = {t: [] for t in tids}
    for line in text.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        cur, cpu, t, event, rest = int(m[1]), int(m[2]), float(m[3]), m[4], m[5]
        if event == "sched_wakeup":
            w = WAKEUP.search(rest)
            if w and int(w[2]) in tids:
                woken[int(w[2])] = (t, cpu, cur)
            continue
        s = SWITCH.search(rest)
        if not s:
            continue
        prev, state, nxt = int(s[2]), s[3], int(s[5])
        if prev in running:
            start = running.pop(prev)
            if state.startswith(("S", "D")):
                runs[prev].append((t - start) * 1e6)
        if nxt in tids:
            running[nxt] = t
            if nxt in woken:
                tw, wcpu, waker = woken.pop(nxt)
                wakes[nxt].append(((t - tw) * 1e6, wcpu == cpu, waker))
    return runs, wakes


def most_common(values):
    """The value that occurs most often (None if none)."""
    return collections.Counter(values).most_common(1)[0][0] if values else None


def record(cell, label, env, seconds, workdir):
    """One run of the cell under `label`: its threads' figures, keyed by (role, name)."""
    run = Run(workdir, rc.rmw_env(env, label))
    warmup = 2
    runtime = seconds + warmup + 2
    cmds = rc.perf_test_commands(cell, runtime, warmup, workdir)
    limit = runtime + rc.SUB_HEAD_START_S + 20
    for role, argv in cmds:
        if role == "pub":
            time.sleep(rc.SUB_HEAD_START_S)
        run.start(role, argv, limit)
    time.sleep(warmup + 0.5)
    roles = {pid: role for role, _, pid, _, _ in run.procs if pid}
    tids = threads(roles)
    data = os.path.join(workdir, "sched.data")
    rec = subprocess.run(
        ["perf", "record", "-q", "-e", EVENTS, "-a", "-o", data, "--", "sleep", str(seconds)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    results = run.wait(limit + 10)
    failed = [f"{role}: exit {p['rc']}" for role, p in results.items() if p["rc"] != 0]
    if rec.returncode != 0 or failed:
        return None, "; ".join(failed + ([f"perf record: {rec.stderr.strip()[-200:]}"] if rec.returncode else []))
    text = subprocess.run(
        ["perf", "script", "-i", data, "-F", "tid,cpu,time,event,trace"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    ).stdout
    runs, wakes = parse(text, set(tids))
    out = {}
    for tid, (pid, comm) in tids.items():
        key = (roles[pid], f"{comm} ({tid - pid:+d})" if tid != pid else f"{comm} (main)")
        w = wakes[tid]
        top = most_common([x[2] for x in w])
        out[key] = dict(
            runs=len(runs[tid]) / seconds,
            run50=percentile(runs[tid], 50),
            run90=percentile(runs[tid], 90),
            wake50=percentile([x[0] for x in w], 50),
            wake90=percentile([x[0] for x in w], 90),
            same_cpu=(sum(1 for x in w if x[1]) / len(w)) if w else None,
            waker=(
                f"{tids[top][1]} ({roles[tids[top][0]]})"
                if top in tids
                else "an interrupt" if top == 0 else "another process" if top is not None else None
            ),
        )
    return out, None


def section(cell, labels, args, env):
    """Runs `cell` under each of `labels`, interleaved; its Markdown section and its failures."""
    per = {label: [] for label in labels}
    failures = []
    for i in range(args.repeats):
        for label in labels:
            with tempfile.TemporaryDirectory(prefix="ros_sched_") as workdir:
                res, why = record(cell, label, env, args.seconds, workdir)
            rc.log(f"[{i + 1}/{args.repeats}] {cell.key} {label}: " + (why or "ok"))
            if res is None:
                failures.append(f"{label}, repeat {i + 1}: {why}")
            else:
                per[label].append(res)
    lines = [
        f"## {cell.key}",
        "",
        "| RMW | process | thread | sleeps/s | run before sleeping p50 | p90 | woken → running p50 | p90 "
        "| on the waker's CPU % | woken most by |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for label in labels:
        for key in sorted({k for r in per[label] for k in r}):
            rows = [r[key] for r in per[label] if key in r]
            med = {f: median([x[f] for x in rows if x[f] is not None]) for f in FIGURES}
            if (med["runs"] or 0) * args.seconds < args.min_runs:
                continue
            same_cpu = med["same_cpu"] and 100 * med["same_cpu"]
            lines.append(
                f"| {label} | {key[0]} | {key[1]} | {fmt(med['runs'], 0)} | {fmt(med['run50'])} | "
                f"{fmt(med['run90'])} | {fmt(med['wake50'])} | {fmt(med['wake90'])} | "
                f"{fmt(same_cpu, 0)} | {most_common([x['waker'] for x in rows if x['waker']]) or ''} |"
            )
    if failures:
        lines += ["", "Failed runs: " + "; ".join(failures)]
    return lines + [""], failures, any(per.values())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--cells",
        default="Array1k 1000Hz 2p BE 1sub",
        help="comma-separated cell keys as ros_compare.py names them",
    )
    ap.add_argument("--rmws", default="rmw_hdds,rmw_cyclonedds_cpp", help="as ros_compare.py's --rmws")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=3, help="seconds recorded per run (default 3)")
    ap.add_argument("--min-runs", type=int, default=20, help="threads that slept fewer times are left out")
    ap.add_argument("--out", help="also write the Markdown to this file")
    args = ap.parse_args()
    cells = [rc.Cell.parse(k.strip()) for k in args.cells.split(",") if k.strip()]
    if not cells or not all(cells):
        sys.exit(f"ros_sched: {args.cells!r} is not a list of cell keys (e.g. 'Array1k 1000Hz 2p BE 1sub')")
    labels = rc.parse_rmws(args.rmws)
    rc.add_tool_dirs_to_path()
    rc.check_environment(labels)
    check_perf()
    rc.detect_domain_flag()
    env = dict(os.environ, ROS_LOCALHOST_ONLY="1", ROS_DOMAIN_ID=rc.DOMAIN)
    lines = [
        "# Scheduler timelines of performance_test cells (bench/ros_sched.py)",
        "",
        f"`/usr/bin/python3 bench/ros_sched.py --cells '{args.cells}' --rmws '{args.rmws}' --repeats "
        f"{args.repeats} --seconds {args.seconds}`, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"{len(os.sched_getaffinity(0))} CPUs; the cells' perf_test command lines are "
        "results/ros_compare.md's. Each thread of the measured processes that slept at least "
        f"{args.min_runs} times in a run: how often it went to sleep, how long it had run since it last "
        "started, how long it waited from its wake-up to running, how often it ran on its waker's CPU, "
        "and who woke it most (\"an interrupt\": a timer or device, on an idle CPU). Medians over the "
        "repeats of each run's percentiles; µs. Threads are named by their name and their id's "
        "offset from their process's.",
        "",
    ]
    failed, any_ok = [], False
    for cell in cells:
        part, failures, ok = section(cell, labels, args, env)
        lines += part
        failed += failures
        any_ok |= ok
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    return 0 if any_ok and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
