#!/usr/bin/env python3
"""Discovery at scale: hdds vs Cyclone DDS 0.10.2, N participant processes with W writers and
R readers each, inside a network namespace this script creates (loopback with multicast on), so
nothing reaches a real network and the traffic counters see only the benchmark.

Per run and implementation: a fresh namespace; N peers started at once (hdds-scale-peer or
cyclone_scale_peer); time to full match = last peer's MATCHED time - launch time; then, after
--settle seconds, steady discovery traffic over --window seconds (lo tx packets and bytes of the
namespace, /proc/net/dev: every datagram any peer sends is counted once); then memory per idle
participant (Pss of /proc/PID/smaps_rollup, which includes its /dev/shm mappings; the shm part,
Pss_Shmem, is reported on its own). Runs interleave the implementations (order alternates);
the report gives medians.

Both sides use Cyclone 0.10's discovery timing: lease 10 s, SPDPInterval 30 s, which Cyclone caps
at lease - 2 s, so it announces every 8 s; hdds is given spdp_period 8 s and lease 10 s. Cyclone
otherwise runs with its defaults (AllowMulticast default = multicast for SPDP and SEDP/data where
it finds it useful); hdds with its defaults (SPDP multicast, SEDP/data unicast, shared memory on).

Needs root (ip netns). Usage:
  sudo bench/discovery_scale.py [--participants 50] [--writers 10] [--readers 10] [--runs 3]
                                [--settle 5] [--window 24] [--out results/discovery_scale]
"""

import argparse
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HDDS_PEER = os.path.join(ROOT, "target", "release", "hdds-scale-peer")
INTEROP_BUILD = os.environ.get("HDDS_INTEROP_BUILD", os.path.join(ROOT, "build", "interop"))
CYCLONE_PEER = os.path.join(INTEROP_BUILD, "cyclone_scale_peer")
LEASE_S = 10.0
CYCLONE_SPDP_INTERVAL_S = 30.0
# Cyclone 0.10 (q_xevent.c, handle_xevk_spdp): the next SPDP is due after min(SPDPInterval,
# lease - 2 s) for leases of 10 s and more.
EFFECTIVE_SPDP_PERIOD_S = min(CYCLONE_SPDP_INTERVAL_S, LEASE_S - 2.0)
CYCLONE_URI = (
    '<CycloneDDS><Domain id="any"><General><Interfaces><NetworkInterface name="lo" multicast="true"/>'
    "</Interfaces></General><Discovery>"
    f"<SPDPInterval>{CYCLONE_SPDP_INTERVAL_S:g}s</SPDPInterval><LeaseDuration>{LEASE_S:g}s</LeaseDuration>"
    "</Discovery></Domain></CycloneDDS>"
)


def sh(*cmd, check=True, **kw):
    return subprocess.run(list(cmd), check=check, text=True, capture_output=True, **kw)


def build():
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "hdds_tools", "--bin", "hdds-scale-peer"], cwd=ROOT, check=True)
    if not os.path.exists(os.path.join(INTEROP_BUILD, "build.ninja")):
        subprocess.run(["cmake", "-S", os.path.join(ROOT, "test", "interop"), "-B", INTEROP_BUILD, "-G", "Ninja",
                        "-DCMAKE_BUILD_TYPE=RelWithDebInfo"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", INTEROP_BUILD, "--target", "cyclone_scale_peer"], check=True, stdout=subprocess.DEVNULL)


def make_ns(name):
    sh("ip", "netns", "add", name)
    for cmd in (["ip", "link", "set", "lo", "up"], ["ip", "link", "set", "lo", "multicast", "on"],
                ["ip", "route", "add", "224.0.0.0/4", "dev", "lo"]):
        sh("ip", "netns", "exec", name, *cmd)


def lo_tx(ns):
    out = sh("ip", "netns", "exec", ns, "cat", "/proc/net/dev").stdout
    for line in out.splitlines():
        if line.strip().startswith("lo:"):
            f = line.split(":", 1)[1].split()
            return int(f[8]), int(f[9])  # tx bytes, tx packets
    raise RuntimeError("no lo line in the namespace's /proc/net/dev")


def memory_kib(pid):
    """PSS of the process and the part of it in shared memory (smaps_rollup's Pss_Shmem: /dev/shm
    mappings; per-mapping smaps lines would round each 4 KiB page shared by 50 processes to 0)."""
    fields = {}
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 2 and parts[0].endswith(":") and parts[1].isdigit():
                fields[parts[0][:-1]] = int(parts[1])
    threads = len(os.listdir(f"/proc/{pid}/task"))
    return fields["Pss"], fields.get("Pss_Shmem", 0), threads


def shm_leftovers(logs):
    """/dev/shm segments of this run's hdds peers (named hdds_<participant prefix>_...)."""
    prefixes = set()
    for path in logs:
        with open(path) as f:
            prefixes |= set(re.findall(r"^READY .*prefix=([0-9a-f]+)", f.read(), re.M))
    return sorted(f for f in os.listdir("/dev/shm") if any(f.startswith(f"hdds_{p}_") for p in prefixes))


def one_run(impl, args, run_idx, tmp):
    ns = f"hdds_scale_{os.getpid()}_{run_idx}_{impl}"
    make_ns(ns)
    procs = []
    logs = []
    try:
        env = dict(os.environ)
        env.pop("CYCLONEDDS_URI", None)
        if impl == "hdds":
            cmd = [HDDS_PEER, "--spdp-period", f"{EFFECTIVE_SPDP_PERIOD_S:g}", "--lease", f"{LEASE_S:g}"]
        else:
            cmd = [CYCLONE_PEER]
            env["CYCLONEDDS_URI"] = CYCLONE_URI
        cmd += ["--writers", str(args.writers), "--readers", str(args.readers), "--expect", str(args.participants),
                "--timeout", str(args.match_timeout + args.settle + args.window + 60)]
        tx0 = lo_tx(ns)
        t0 = time.time()
        for i in range(args.participants):
            path = os.path.join(tmp, f"{impl}_{run_idx}_{i}.log")
            log = open(path, "w")
            logs.append(path)
            procs.append(subprocess.Popen(["ip", "netns", "exec", ns, *cmd], stdout=log, stderr=subprocess.STDOUT, env=env))
        matched = {}
        deadline = t0 + args.match_timeout
        while len(matched) < len(procs) and time.time() < deadline:
            time.sleep(0.05)
            for i, path in enumerate(logs):
                if i in matched:
                    continue
                with open(path) as f:
                    m = re.search(r"MATCHED ms=(\d+)", f.read())
                if m:
                    matched[i] = int(m.group(1)) / 1000.0
            dead = [p for p in procs if p.poll() is not None]
            if dead:
                raise RuntimeError(f"{impl}: a peer exited early (code {dead[0].returncode}); see {tmp}")
        if len(matched) < len(procs):
            raise RuntimeError(f"{impl}: {len(matched)} of {len(procs)} peers fully matched within {args.match_timeout} s")
        match_s = max(matched.values()) - t0
        tx_after_match = lo_tx(ns)
        time.sleep(args.settle)
        a = lo_tx(ns)
        ta = time.time()
        time.sleep(args.window)
        b = lo_tx(ns)
        tb = time.time()
        mem = [memory_kib(p.pid) for p in procs]
        pss = [m[0] for m in mem]
        r = {
            "impl": impl,
            "run": run_idx,
            "time_to_full_match_s": round(match_s, 3),
            "discovery_bytes_to_match": tx_after_match[0] - tx0[0],
            "discovery_packets_to_match": tx_after_match[1] - tx0[1],
            "steady_packets_per_s": round((b[1] - a[1]) / (tb - ta), 1),
            "steady_bytes_per_s": round((b[0] - a[0]) / (tb - ta), 1),
            "pss_kib_median": statistics.median(pss),
            "pss_kib_mean": round(statistics.mean(pss), 1),
            "shm_pss_kib_median": statistics.median(m[1] for m in mem),
            "threads_median": statistics.median(m[2] for m in mem),
        }
        return r
    finally:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        end = time.time() + 10
        for p in procs:
            try:
                p.wait(timeout=max(0.1, end - time.time()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        sh("ip", "netns", "delete", ns, check=False)
        leftovers = shm_leftovers(logs)
        if leftovers:
            print(f"  WARNING: /dev/shm leftovers after {impl} run {run_idx}: {leftovers[:5]} ({len(leftovers)})",
                  file=sys.stderr)


def median_of(runs, impl, key):
    return statistics.median(r[key] for r in runs if r["impl"] == impl)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--participants", type=int, default=50)
    ap.add_argument("--writers", type=int, default=10)
    ap.add_argument("--readers", type=int, default=10)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--settle", type=float, default=5.0, help="seconds between full match and the traffic window")
    ap.add_argument("--window", type=float, default=3 * EFFECTIVE_SPDP_PERIOD_S, help="traffic window, seconds")
    ap.add_argument("--match-timeout", type=float, default=120.0)
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "discovery_scale"))
    ap.add_argument("--no-build", action="store_true")
    args = ap.parse_args()
    if os.geteuid() != 0 or not shutil.which("ip"):
        sys.exit("discovery_scale.py: needs root and iproute2 (it creates network namespaces); run it with sudo")
    if not args.no_build:
        build()
    tmp = os.path.join(ROOT, "build", "discovery_scale")
    os.makedirs(tmp, exist_ok=True)
    uptime_before = sh("uptime").stdout.strip()
    runs = []
    for k in range(args.runs):
        order = ["hdds", "cyclone"] if k % 2 == 0 else ["cyclone", "hdds"]
        for impl in order:
            r = one_run(impl, args, k, tmp)
            runs.append(r)
            print(json.dumps(r), flush=True)
    uptime_after = sh("uptime").stdout.strip()
    keys = ["time_to_full_match_s", "steady_packets_per_s", "steady_bytes_per_s", "pss_kib_median",
            "shm_pss_kib_median", "threads_median", "discovery_packets_to_match", "discovery_bytes_to_match"]
    med = {impl: {k: median_of(runs, impl, k) for k in keys} for impl in ("hdds", "cyclone")}
    ratio = {k: round(med["hdds"][k] / med["cyclone"][k], 3) if med["cyclone"][k] else None for k in keys}
    targets = {
        "time_to_full_match_s": 1.0,
        "steady_packets_per_s": 1.0,
        "steady_bytes_per_s": 1.0,
        "pss_kib_median": 0.7,
    }
    met = {k: ratio[k] is not None and ratio[k] <= t for k, t in targets.items()}
    command = "sudo " + " ".join([os.path.relpath(sys.argv[0], ROOT)] + sys.argv[1:])
    machine = f"{platform.node()} {platform.machine()}, {os.cpu_count()} cores, kernel {platform.release()}"
    report = {
        "command": command,
        "machine": machine,
        "uptime_before": uptime_before,
        "uptime_after": uptime_after,
        "participants": args.participants,
        "writers": args.writers,
        "readers": args.readers,
        "lease_s": LEASE_S,
        "spdp_period_s": EFFECTIVE_SPDP_PERIOD_S,
        "cyclone_uri": CYCLONE_URI,
        "window_s": args.window,
        "runs": runs,
        "median": med,
        "ratio_hdds_over_cyclone": ratio,
        "targets": targets,
        "met": met,
    }
    with open(args.out + ".json", "w") as f:
        json.dump(report, f, indent=2)
    labels = {
        "time_to_full_match_s": "time to full match (s)",
        "steady_packets_per_s": "steady discovery traffic (packets/s, all peers)",
        "steady_bytes_per_s": "steady discovery traffic (bytes/s, all peers)",
        "pss_kib_median": "memory per idle participant (PSS KiB, incl. /dev/shm)",
        "shm_pss_kib_median": "  of which /dev/shm mappings (PSS KiB)",
        "threads_median": "threads per participant",
        "discovery_packets_to_match": "packets sent until full match",
        "discovery_bytes_to_match": "bytes sent until full match",
    }
    lines = [
        "# Discovery at scale: hdds vs Cyclone DDS 0.10.2",
        "",
        f"{args.participants} participant processes x ({args.writers} writers + {args.readers} readers), writer i and "
        f"reader i of every process on topic i (reliable), so every writer matches {args.participants} readers. One "
        "network namespace per run (lo with multicast on); both sides with lease 10 s and an SPDP announcement every "
        f"{EFFECTIVE_SPDP_PERIOD_S:g} s (Cyclone 0.10: SPDPInterval 30 s capped at lease - 2 s). Traffic: lo tx of the "
        f"namespace over {args.window:g} s starting {args.settle:g} s after full match. Medians of {args.runs} interleaved runs.",
        "",
        f"Command: `{command}`  ",
        f"Machine: {machine}  ",
        f"Load: before `{uptime_before}`; after `{uptime_after}`",
        "",
        "| metric | hdds | Cyclone | hdds/Cyclone | target | met |",
        "|---|---|---|---|---|---|",
    ]
    for k in keys:
        t = targets.get(k)
        lines.append(f"| {labels[k]} | {med['hdds'][k]:g} | {med['cyclone'][k]:g} | {ratio[k]} | "
                     f"{'<= ' + str(t) if t else ''} | {('yes' if met[k] else 'NO') if t else ''} |")
    lines += ["", "Runs:", "", "| impl | run | match s | pkt/s | B/s | PSS KiB | shm KiB | threads |", "|---|---|---|---|---|---|---|---|"]
    for r in runs:
        lines.append(f"| {r['impl']} | {r['run']} | {r['time_to_full_match_s']} | {r['steady_packets_per_s']} | "
                     f"{r['steady_bytes_per_s']} | {r['pss_kib_median']} | {r['shm_pss_kib_median']} | {r['threads_median']} |")
    with open(args.out + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
