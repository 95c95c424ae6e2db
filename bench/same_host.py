#!/usr/bin/env python3
"""Same-host benchmark of issue 4, side by side in one go: intra-process, shared memory (sleeping
and busy-polling readers), loans, Cyclone DDS over UDP loopback (ddsperf), and our floors.

    python3 bench/same_host.py [--repeats 3] [--quick] [--no-build] [--out results/same_host]

Every configuration runs once per repeat, the repeats interleaved (repeat 1 of everything, then
repeat 2, ... each repeat in a rotated order), so that the machine's load drifts over all of them
alike. Reported: the median over the repeats of each run's median one-way latency, of its p99,
and of its CPU per message. Writes OUT.json (every run) and OUT.md (tables, ratios against the
issue's targets, the command, the machine and its load).

Latency is one-way: ping-pong round trips halved, except for loans (the reader reads
CLOCK_MONOTONIC as soon as it holds the sample, against the stamp the writer put in it just
before publishing). ddsperf's ping already prints (now - ping's source timestamp) / 2, i.e. the
round trip halved (cyclonedds src/tools/ddsperf/ddsperf.c, update_roundtrip): reported as is.

CPU per message: our binaries take getrusage(RUSAGE_SELF) of both processes around the measured
loop (every thread) and divide by the messages (two per round trip). ddsperf: getrusage of the
reaped children (both processes, their whole life, start-up and discovery included) divided by
twice the round trips it reported: an overestimate for Cyclone of a few percent.

The Rust half is hdds_tools/src/bin/hdds-samehost-bench.rs (it says what each mode measures).
Loopback only: our participants use a domain tag of their own, ddsperf the loopback-only Cyclone
config of test/interop/config.
"""

import argparse
import json
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ros_compare_report import shown_ratio  # noqa: E402  (next to this script)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KIB, MIB = 1024, 1024 * 1024
SIZES = [64, 4 * KIB, MIB, 4 * MIB]
PACED_GAP_US = 1000
CYCLONE_URI = "file://" + os.path.join(ROOT, "test/interop/config/cyclonedds_loopback.xml")
CYCLONE_DOMAIN = 87


def count_for(size, quick):
    n = 3000 if size <= 4 * KIB else (300 if size <= MIB else 150)
    return max(50, n // 5) if quick else n


def two_cpus():
    """The CPUs the two processes of a two-process row run on: the first two this script may use
    (None on a one-CPU machine: unpinned)."""
    cpus = sorted(os.sched_getaffinity(0))
    return (cpus[0], cpus[1]) if len(cpus) >= 2 else None


def configs(quick, cpus=None):
    """(name, kind, size, args): every run of one repeat. Two-process rows run pinned to `cpus`,
    one process per CPU (HOW says why)."""
    pin = ["--cpus", f"{cpus[0]},{cpus[1]}"] if cpus else []
    c = [
        ("intra", "hdds", 64, ["intra", "--size", "64", "--count", str(10 * count_for(64, quick))]),
        ("intra-nospin", "hdds", 64, ["intra", "--size", "64", "--count", str(10 * count_for(64, quick)), "--spin-us", "0"]),
        ("intra-floor", "hdds", 64, ["intra-floor", "--size", "64", "--count", str(10 * count_for(64, quick))]),
        ("intra-floor-condvar", "hdds", 64, ["intra-floor-condvar", "--size", "64", "--count", str(10 * count_for(64, quick))]),
        ("intra-same-thread", "hdds", 64, ["intra-same-thread", "--size", "64", "--count", "20000"]),
        ("intra-net", "hdds", 64, ["intra", "--size", "64", "--count", str(10 * count_for(64, quick)), "--network"]),
        ("intra-same-thread-net", "hdds", 64, ["intra-same-thread", "--size", "64", "--count", "20000", "--network"]),
        ("floor-futex", "hdds", 0, ["floor-futex", "--count", str(count_for(64, quick))] + pin),
        ("floor-cacheline", "hdds", 0, ["floor-cacheline", "--count", str(5 * count_for(64, quick))] + pin),
        ("floor-cacheline-copy-64", "hdds", 64,
         ["floor-cacheline-copy", "--size", "64", "--count", str(5 * count_for(64, quick))] + pin),
    ]
    for s in SIZES:
        n = str(count_for(s, quick))
        c.append((f"shm-sleep-{s}", "hdds", s, ["shm", "--size", str(s), "--count", n, "--spin-us", "0"] + pin))
        if s == 64:
            c.append(("shm-default-64", "hdds", s, ["shm", "--size", str(s), "--count", n] + pin))
        c.append((f"shm-busy-{s}", "hdds", s, ["shm", "--size", str(s), "--count", n, "--busy"] + pin))
        c.append((f"floor-futex-copy-{s}", "hdds", s, ["floor-futex-copy", "--size", str(s), "--count", n] + pin))
        c.append((f"cyclone-udp-{s}", "ddsperf", s, []))
    for s in (64, 4 * MIB):
        c.append((f"loan-{s}", "hdds", s,
                  ["loan", "--size", str(s), "--count", str(count_for(s, quick)), "--spin-us", "0"] + pin))
    # 4 MiB with every byte written before the stamp, as an application fills its sample: the
    # reader sleeps through the fill (the row above writes only what the reader reads back).
    c.append((f"loan-{4 * MIB}-filled", "hdds", 4 * MIB,
              ["loan", "--size", str(4 * MIB), "--count", str(count_for(4 * MIB, quick)), "--fill", "--spin-us", "0"]
              + pin))
    # 64 B with the reader left idle as long as filling 4 MiB leaves it (the writer works 1 ms
    # before each loan): tells the size's cost from the idle reader's slower wake-up.
    c.append(("loan-64-paced", "hdds", 64,
              ["loan", "--size", "64", "--count", str(count_for(MIB, quick)), "--gap-us", str(PACED_GAP_US),
               "--spin-us", "0"] + pin))
    return c


def run_hdds(binary, args):
    out = subprocess.run([binary] + args, capture_output=True, text=True, timeout=180)
    lines = [l for l in out.stdout.splitlines() if l.startswith("{")]
    if out.returncode != 0 or not lines:
        raise RuntimeError(f"{' '.join(args)}: exit {out.returncode}: {out.stderr.strip()[-500:]}")
    return json.loads(lines[-1])


LINE = re.compile(r"size (\d+) mean [\d.]+us min [\d.]+us 50% ([\d.]+)us 90% [\d.]+us 99% ([\d.]+)us .* cnt (\d+)")


def run_ddsperf(size, quick, cpus=None):
    """One ddsperf ping/pong run (waitset triggering on both sides, reliable, KEEP_LAST 1), ping on
    the first of `cpus` and pong on the second, as our two-process rows."""
    ping_on, pong_on = (["taskset", "-c", str(c)] for c in cpus) if cpus else ([], [])
    secs = 3 if quick else (4 if size <= MIB else 6)
    env = dict(os.environ, CYCLONEDDS_URI=CYCLONE_URI)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    pong = subprocess.Popen(pong_on + ["ddsperf", "-i", str(CYCLONE_DOMAIN), "-D", str(secs + 3), "pong", "waitset"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.3)
    ping = subprocess.run(ping_on + ["ddsperf", "-i", str(CYCLONE_DOMAIN), "-D", str(secs), "ping", "size", str(size), "waitset"],
                          env=env, capture_output=True, text=True, timeout=secs + 30)
    pong.terminate()
    pong.wait(timeout=30)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    rows = [(float(m.group(2)), float(m.group(3)), int(m.group(4))) for m in LINE.finditer(ping.stdout)]
    if len(rows) < 2:
        raise RuntimeError(f"ddsperf size {size}: no round trips reported:\n{ping.stdout[-500:]}{ping.stderr[-300:]}")
    measured = rows[1:]  # the first second holds discovery and warm-up
    trips = sum(r[2] for r in rows)
    return {
        "mode": "cyclone-udp", "size": size, "n": sum(r[2] for r in measured),
        "p50_us": statistics.median(r[0] for r in measured),
        "p99_us": statistics.median(r[1] for r in measured),
        "cpu_us_per_msg": cpu * 1e6 / max(1, 2 * trips),
        "per_second": rows,
    }


def load():
    return open("/proc/loadavg").read().split()[:3]


def machine():
    model = ""
    for l in open("/proc/cpuinfo"):
        if l.startswith("model name"):
            model = l.split(":", 1)[1].strip()
            break
    return {"cpu": model, "cores": os.cpu_count(), "kernel": platform.release(),
            "uptime_start": subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()}


def med(runs, key):
    v = [r[key] for r in runs if r.get(key) is not None]
    return statistics.median(v) if v else float("nan")


def fmt(x):
    if x != x:
        return "n/a"
    return f"{x:.2f}" if x < 100 else f"{x:.0f}"


def human(s):
    return f"{s // MIB} MiB" if s >= MIB else (f"{s // KIB} KiB" if s >= KIB else f"{s} B")


def targets(agg):
    """(what, ratio, limit) of every target of issue 4 that this benchmark measures."""
    p = lambda name: agg[name]["p50_us"] if name in agg else float("nan")
    t = [("intra-process across threads / its floor (crossbeam + timestamp + mutex)", p("intra") / p("intra-floor"), 1.5),
         ("shm sleeping 64 B / futex wake-up floor", p("shm-sleep-64") / p("floor-futex"), 1.3)]
    for s in SIZES:
        t.append((f"shm sleeping {human(s)} / Cyclone UDP {human(s)}", p(f"shm-sleep-{s}") / p(f"cyclone-udp-{s}"),
                  0.2 if s == 4 * MIB else 0.5))
    for s in SIZES:
        t.append((f"shm sleeping {human(s)} / futex + two copies floor", p(f"shm-sleep-{s}") / p(f"floor-futex-copy-{s}"), 1.3))
    t.append(("loan 4 MiB / loan 64 B", p(f"loan-{4 * MIB}") / p("loan-64"), 1.3))
    t.append(("shm busy-polling 64 B / cache-line floor", p("shm-busy-64") / p("floor-cacheline"), 2.0))
    return t


def information(agg):
    """Ratios the issue sets no target for, shown beside the targets."""
    p = lambda name: agg[name]["p50_us"] if name in agg else float("nan")
    return [("intra-process across threads on a participant on the network (an rmw_hdds node's) / its floor",
             p("intra-net") / p("intra-floor")),
            ("intra-process across threads / std mutex + condvar hand-off", p("intra") / p("intra-floor-condvar")),
            ("intra-process with wait_spin = 0 (sleeping at once) / its floor", p("intra-nospin") / p("intra-floor")),
            ("shm 64 B with the default wait_spin / futex wake-up floor", p("shm-default-64") / p("floor-futex")),
            ("shm busy-polling 64 B / cache-line + two copies floor (the counter's line and the payload's cross)",
             p("shm-busy-64") / p("floor-cacheline-copy-64")),
            ("loan 64 B / shm sleeping 64 B by copy", p("loan-64") / p("shm-sleep-64")),
            ("loan 4 MiB, every byte written first / loan 64 B", p(f"loan-{4 * MIB}-filled") / p("loan-64")),
            ("loan 4 MiB, every byte written first / loan 64 B after 1 ms of writer work (the reader idle as long)",
             p(f"loan-{4 * MIB}-filled") / p("loan-64-paced")),
            ("loan 4 MiB / shm sleeping 4 MiB by copy", p(f"loan-{4 * MIB}") / p(f"shm-sleep-{4 * MIB}"))]


def write_md(path, doc):
    agg = doc["aggregate"]
    L = ["# Same-host latency: intra-process, shared memory, loans, vs Cyclone DDS and our floors", "",
         f"Command: `{doc['command']}`  ", f"Date: {doc['date']}  ",
         f"Machine: {doc['machine']['cpu']}, {doc['machine']['cores']} cores, Linux {doc['machine']['kernel']} (a VM shared with other jobs)  ",
         f"Load (`uptime`) at start: `{doc['machine']['uptime_start']}`; load averages before each repeat: "
         + ", ".join("/".join(l) for l in doc["load_per_repeat"]) + f"; at the end: `{doc['uptime_end']}`  ",
         f"Repeats: {doc['repeats']}, interleaved. Each figure is the median over the repeats of that run's median "
         "(p50), p99 and CPU per message. One-way latency in µs. CPU per message: user + system time of both "
         "processes (all threads) per message sent, µs. "
         + (f"Two-process rows (ours, the floors, ddsperf): one process on CPU {doc['cpus'][0]}, the other on "
            f"CPU {doc['cpus'][1]}." if doc.get("cpus") else "Two-process rows unpinned (one CPU)."), "",
         "## Targets (issue 4), as ratios of p50", "", "| ratio | measured | target | met |", "|---|---|---|---|"]
    for what, r, lim in doc["targets"]:
        L.append(f"| {what} | {shown_ratio(r, lim)} | ≤ {lim} | {'yes' if r <= lim else 'NO'} |")
    L += ["", "Other ratios (no target): " + "; ".join(f"{w} {r:.2f}" for w, r in information(agg)), ""]
    L += ["", "## Intra-process (one process, two threads; 64 B)", "",
          "| run | p50 | p99 | CPU/msg | p50 per repeat |", "|---|---|---|---|---|"]
    for name, label in [("intra", "hdds write → take across threads (ping-pong / 2), default wait_spin (5 µs)"),
                        ("intra-nospin", "the same, wait_spin = 0 (the reader sleeps at once)"),
                        ("intra-floor", "floor: crossbeam hand-off of the payload + timestamp + mutex"),
                        ("intra-floor-condvar", "second floor (information): std mutex + condvar hand-off + timestamp"),
                        ("intra-same-thread", "hdds write then take, same thread (per pair)"),
                        ("intra-net", "hdds write → take across threads, participant on the network (as an rmw_hdds node's)"),
                        ("intra-same-thread-net", "hdds write then take, same thread, participant on the network")]:
        a = agg.get(name)
        if not a:
            continue
        L.append(f"| {label} | {fmt(a['p50_us'])} | {fmt(a['p99_us'])} | {fmt(a['cpu_us_per_msg'])} | {' '.join(fmt(x) for x in a['p50s'])} |")
    L += ["", "## Two processes (one-way µs; CPU/msg µs)", "",
          "| size | shm sleeping p50 / p99 / CPU | shm busy-poll p50 / p99 / CPU | Cyclone UDP p50 / p99 / CPU | floor futex+2 copies p50 / p99 / CPU |",
          "|---|---|---|---|---|"]
    for s in SIZES:
        cells = []
        for k in (f"shm-sleep-{s}", f"shm-busy-{s}", f"cyclone-udp-{s}", f"floor-futex-copy-{s}"):
            a = agg.get(k)
            cells.append(f"{fmt(a['p50_us'])} / {fmt(a['p99_us'])} / {fmt(a['cpu_us_per_msg'])}" if a else "n/a")
        L.append(f"| {human(s)} | " + " | ".join(cells) + " |")
    L += ["", "Shared memory 64 B with the default `wait_spin` (5 µs, spinning while samples come often; the "
          "sleeping column above uses `wait_spin = 0`): " + (lambda a: f"{fmt(a['p50_us'])} / {fmt(a['p99_us'])} / "
          f"{fmt(a['cpu_us_per_msg'])}" if a else "n/a")(agg.get("shm-default-64"))]
    L += ["", "| floor (two processes, no payload) | p50 | p99 | CPU/msg |", "|---|---|---|---|"]
    for k, label in [("floor-futex", "futex wake-up"), ("floor-cacheline", "cache-line ping-pong (both spin)"),
                     ("floor-cacheline-copy-64", "cache-line ping-pong + two copies of a 64 B payload (both spin)")]:
        a = agg.get(k)
        if not a:
            continue
        L.append(f"| {label} | {fmt(a['p50_us'])} | {fmt(a['p99_us'])} | {fmt(a['cpu_us_per_msg'])} |")
    L += ["", "## Loans (publish of a loaned sample → reader holds it; two processes, sleeping reader)", "",
          "| size | p50 | p99 | CPU/msg (per message, pong included) |", "|---|---|---|---|"]
    for key, label in [("loan-64", human(64)), (f"loan-{4 * MIB}", human(4 * MIB)),
                       (f"loan-{4 * MIB}-filled", f"{human(4 * MIB)}, every byte written before the stamp"),
                       ("loan-64-paced", f"{human(64)}, writer works {PACED_GAP_US} µs before each loan")]:
        if key not in agg:
            continue
        a = agg[key]
        L.append(f"| {label} | {fmt(a['p50_us'])} | {fmt(a['p99_us'])} | {fmt(a['cpu_us_per_msg'])} |")
    L += ["", "## How", "", doc["how"], ""]
    open(path, "w").write("\n".join(L))


HOW = """- `intra`: one participant without network, a writer and reader on `ping` and on `pong`, one
  thread echoing; both threads wait in `Reader::wait_for_data`, which spins up to the
  participant's `wait_spin` (5 µs by default; only while samples come often:
  `hdds_core/src/spin.rs`) and then sleeps; `intra-nospin`: `wait_spin = 0`, sleeping at once. The floor does per hop what any
  DDS write must: one mutex, one `Instant::now()`, then a crossbeam channel send of the payload
  buffer itself (moved, no copy); the receiver blocks in `recv` (crossbeam spins, yields, then
  parks). The second floor hands the buffer over through a std `Mutex<Option<Vec>>` + `Condvar`.
  `intra-net`, `intra-same-thread-net` (`--network`): the same on a participant on loopback with
  shared memory on, as every rmw_hdds node's participant is: each write also runs the RTPS machine
  (which only numbers the sample while no remote reader is matched) and the ring's checks.
- `shm`: two processes (the second is the first started again), shared memory on by default,
  KEEP_LAST 4 reliable; both sides take with `Reader::take_timeout`. Sleeping readers have
  `wait_spin = 0` (doorbell futex, no spin; the futex floors do not spin either); `shm-default-64`
  keeps the default 5 µs spin; busy-polling readers use `ParticipantConfig::busy_polling()` (poll
  up to 10 ms, then sleep; a sample found while polling is read from the ring straight into the
  taken sample). By copy: the writer copies into its ring, the reader copies out into the sample.
- floors: a shared mapping under /dev/shm with two 32-bit words; `futex`: each side sleeps in
  FUTEX_WAIT until the other's FUTEX_WAKE; `cacheline`: each side spins on the word;
  `futex-copy`: as `futex`, with the payload copied into the mapping by the sender and out of it
  by the receiver; `cacheline-copy`: as `cacheline`, with those copies (the payload's line crosses
  besides the counter's, as a sample's must: a 64 B payload and the flag saying it is there do not
  fit one 64-byte line).
- `loan`: the writer loans `size` bytes (`Writer::loan`: a slot of its shared-memory ring, lent
  as an earlier sample left it, not zeroed), writes one byte and CLOCK_MONOTONIC into its last 8
  bytes, publishes; the reader takes a loan (`Reader::take_loan`: the payload read in place in the
  writer's ring, pinned, no copy), reads the clock when it returns, and returns the loan
  (`wait_spin = 0`: a sleeping reader). A 64 B pong paces the pings. `every byte written before
  the stamp` (`--fill`): the writer fills the whole loan first, as an application does; the reader
  sleeps meanwhile. `loan 64 B, writer works ...`: the writer spins that long before each loan, so
  that the reader has slept at least as long as through a 4 MiB fill (an idle vCPU wakes slower
  than a busy one).
- Cyclone DDS: `ddsperf ping size S waitset` / `ddsperf pong waitset` (Cyclone's default,
  reliable, KS topic) over UDP loopback with test/interop/config/cyclonedds_loopback.xml; the
  first second of each run is dropped; p50 and p99 are the medians of its per-second figures.
  ddsperf's ping prints (now - the ping's source timestamp) / 2: one-way = RTT/2, as ours.
- Pinned: the two processes of every two-process row (ours, the floors, ddsperf's ping and pong)
  run on two different CPUs (`--cpus A,B`, `taskset`). A wake-up costs 2-5 µs when the scheduler
  puts both processes on one vCPU and 15-28 µs when the woken one is on the other, and unpinned the
  scheduler chose per run: in session 11's report two of the three futex-floor repeats shared a
  vCPU and all of ours crossed (7.7x "the floor"), in the run before it the other way round
  (0.6x). Pinned, every row of a comparison pays the same, crossing, wake-up.
- Every ping-pong figure is one-way = RTT/2; loans are measured one-way directly."""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="fewer round trips (a smoke run, not for results)")
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--out", default=os.path.join(ROOT, "results/same_host"))
    ap.add_argument("--only", help="run only configurations whose name contains this")
    ap.add_argument("--render", action="store_true", help="only rewrite OUT.md from OUT.json")
    a = ap.parse_args()
    if a.render:
        doc = json.load(open(a.out + ".json"))
        doc["how"] = HOW
        write_md(a.out + ".md", doc)
        return
    target_dir = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    binary = os.path.join(target_dir, "release", "hdds-samehost-bench")
    if not a.no_build:
        subprocess.run(["cargo", "build", "--release", "-p", "hdds_tools", "--bin", "hdds-samehost-bench"], cwd=ROOT, check=True)
    cpus = two_cpus()
    cfgs = configs(a.quick, cpus)
    if a.only:
        cfgs = [c for c in cfgs if a.only in c[0]]
    doc = {"command": "python3 bench/same_host.py " + " ".join(sys.argv[1:]), "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
           "machine": machine(), "cpus": list(cpus) if cpus else None, "repeats": a.repeats, "load_per_repeat": [], "runs": {c[0]: [] for c in cfgs}}
    t0 = time.time()
    for rep in range(a.repeats):
        doc["load_per_repeat"].append(load())
        k = rep * len(cfgs) // max(1, a.repeats)
        for name, kind, size, args in cfgs[k:] + cfgs[:k]:
            try:
                r = run_hdds(binary, args) if kind == "hdds" else run_ddsperf(size, a.quick, cpus)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                print(f"  {name}: FAILED: {e}", file=sys.stderr)
                r = {"failed": str(e)}
            r["repeat"] = rep
            doc["runs"][name].append(r)
            if "p50_us" in r:
                print(f"[{rep + 1}/{a.repeats} {time.time() - t0:5.0f}s] {name:24} p50 {r['p50_us']:10.2f}  p99 {r['p99_us']:10.2f}  cpu/msg {r['cpu_us_per_msg']:9.2f}", flush=True)
    doc["uptime_end"] = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    doc["wall_s"] = round(time.time() - t0)
    agg = {}
    for name, runs in doc["runs"].items():
        ok = [r for r in runs if "p50_us" in r]
        if ok:
            agg[name] = {"p50_us": med(ok, "p50_us"), "p99_us": med(ok, "p99_us"), "cpu_us_per_msg": med(ok, "cpu_us_per_msg"),
                         "p50s": [r["p50_us"] for r in ok], "repeats_ok": len(ok)}
    doc["aggregate"] = agg
    doc["targets"] = targets(agg)
    doc["how"] = HOW
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    with open(a.out + ".json", "w") as f:
        json.dump(doc, f, indent=1)
    if not a.only:
        write_md(a.out + ".md", doc)
    print(f"wrote {a.out}.json" + ("" if a.only else f" and {a.out}.md") + f" in {doc['wall_s']} s")
    for what, r, lim in doc["targets"]:
        print(f"  {what}: {shown_ratio(r, lim)} (target ≤ {lim}) {'met' if r <= lim else 'MISSED'}")


if __name__ == "__main__":
    main()
