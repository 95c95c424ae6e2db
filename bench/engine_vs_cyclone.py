#!/usr/bin/env python3
"""The hdds engine side by side with Cyclone DDS (issue 3): a benchmark, not a test.

Runs, interleaved, --repeats times, over loopback and across a veth pair (MTU 1500) between two
network namespaces it creates:
  latency (round trip, reliable, 64 B / 1 KiB / 8 KiB / 64 KiB):
    - `ddsperf ping` against `ddsperf pong` (Cyclone) and against `hdds-latency-probe pong`;
    - `hdds-latency-probe ping`/`pong` against `ddsperf ping`/`pong`;
    - the raw UDP floor `hdds-udp-floor` at 64 B;
  throughput (reliable, KEEP_ALL, 64 B / 1 KiB): `hdds-perf pub`/`sub` against `ddsperf pub`/`sub`.
Writes a table with medians over the repeats of each run's p50 and p99, the ratios hdds/Cyclone
and hdds/floor, machine info and the command, into results/engine_vs_cyclone.md.

Every process runs inside a namespace this script creates (nothing reaches the host's network):
"loopback" is the `lo` of namespace A (both sides there), "veth" is A to B. Needs root (ip netns).
The namespaces and every process started are removed on exit, also on Ctrl-C or SIGTERM.

The hdds tools run UDP only (--no-shm): hdds would otherwise talk to an hdds peer on the same
host through shared memory, across namespaces too. On loopback the shared-memory figures are
measured as well, for information (`hdds-shm`).
"""

import argparse
import atexit
import datetime
import json
import os
import platform
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NS_A, NS_B = "hddsb-a", "hddsb-b"
VETH_A, VETH_B = "hddsb-va", "hddsb-vb"
IP_A, IP_B = "10.213.0.1", "10.213.0.2"
DOMAIN = "57"
SIZES = [64, 1024, 8192, 65536]
TPUT_SIZES = [64, 1024]
FLOOR_PORT = 7399

# ddsperf reports half the round trip ((tnow - ping's timestamp) / 2); the tables show round trips.
DDSPERF_HALF_RTT = 2.0

children = []
created_ns = []


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def sh(*cmd, check=True):
    return subprocess.run(cmd, check=check, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def cleanup():
    for p in children:
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()
    children.clear()
    for ns in reversed(created_ns):
        sh("ip", "netns", "del", ns, check=False)
    created_ns.clear()


def on_signal(signum, _frame):
    cleanup()
    sys.exit(128 + signum)


def setup_namespaces():
    for ns in (NS_A, NS_B):
        sh("ip", "netns", "del", ns, check=False)  # a leftover of an interrupted run
        sh("ip", "netns", "add", ns)
        created_ns.append(ns)
        sh("ip", "-n", ns, "link", "set", "lo", "up")
    # Created in A with its peer moved to B: deleting the namespaces deletes the pair.
    sh("ip", "-n", NS_A, "link", "add", VETH_A, "mtu", "1500", "type", "veth", "peer", "name", VETH_B, "netns", NS_B)
    for ns, dev, ip in ((NS_A, VETH_A, IP_A), (NS_B, VETH_B, IP_B)):
        sh("ip", "-n", ns, "addr", "add", f"{ip}/24", "dev", dev)
        sh("ip", "-n", ns, "link", "set", dev, "mtu", "1500", "up")


def cyclone_config(tmp, name, interface, peer):
    path = os.path.join(tmp, f"cyclone-{name}.xml")
    with open(path, "w") as f:
        f.write(f"""<CycloneDDS><Domain id="any">
  <General><Interfaces><NetworkInterface name="{interface}"/></Interfaces>
    <AllowMulticast>false</AllowMulticast></General>
  <Discovery><ParticipantIndex>auto</ParticipantIndex><Peers><Peer address="{peer}"/></Peers>
    <MaxAutoParticipantIndex>20</MaxAutoParticipantIndex></Discovery>
</Domain></CycloneDDS>
""")
    return "file://" + path


class Side:
    """Where one end of a pair runs: its namespace, and how each implementation joins the network."""

    def __init__(self, ns, hdds_net, cyclone_uri, addr):
        self.ns, self.hdds_net, self.cyclone_uri, self.addr = ns, hdds_net, cyclone_uri, addr


def start(side, argv, logpath):
    env = dict(os.environ, CYCLONEDDS_URI=side.cyclone_uri)
    out = open(logpath, "w")
    p = subprocess.Popen(["ip", "netns", "exec", side.ns] + argv, stdout=out, stderr=subprocess.STDOUT,
                         env=env, start_new_session=True)
    p.logpath = logpath
    children.append(p)
    return p


def stop(p):
    if p.poll() is None:
        try:
            os.killpg(p.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            p.wait(timeout=3)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    children.remove(p)


def wait(p, limit):
    try:
        p.wait(timeout=limit)
    except subprocess.TimeoutExpired:
        log(f"  ! {p.args[3:]} still running after {limit:.0f} s: killed")
    stop(p)
    with open(p.logpath) as f:
        return f.read()


def run_pair(server, server_argv, client, client_argv, limit, logdir, name):
    """Starts the server side, then the client; returns the client's output once it ends."""
    srv = start(server, server_argv, os.path.join(logdir, name + ".server.log"))
    time.sleep(0.3)
    cli = start(client, client_argv, os.path.join(logdir, name + ".client.log"))
    out = wait(cli, limit)
    stop(srv)
    return out


# --- parsing ---------------------------------------------------------------------------------

DDSPERF_LAT = re.compile(r"size (\d+) mean [\d.]+us min [\d.]+us 50% ([\d.]+)us 90% [\d.]+us 99% ([\d.]+)us "
                         r"max [\d.]+us cnt (\d+)")
DDSPERF_SUB = re.compile(r"size (\d+) total \d+ lost (\d+) delta (\d+) lost \d+ rate ([\d.]+) kS/s ([\d.]+) Mb/s")


def parse_ddsperf_ping(out, warmup_lines=1):
    """Round trips: the median over the per-second lines (after the warm-up) of p50 and p99."""
    rows = [(float(m[2]), float(m[3]), int(m[4])) for m in DDSPERF_LAT.finditer(out)]
    rows = [r for r in rows[warmup_lines:] if r[2] >= 10]
    if not rows:
        return None
    return {"p50": statistics.median(r[0] for r in rows) * DDSPERF_HALF_RTT,
            "p99": statistics.median(r[1] for r in rows) * DDSPERF_HALF_RTT,
            "count": sum(r[2] for r in rows)}


def parse_ddsperf_sub(out):
    """Throughput: the median of the per-second rates, the first and last (partial) seconds left out."""
    rows = [(float(m[4]) * 1e3, float(m[5]), int(m[2])) for m in DDSPERF_SUB.finditer(out) if int(m[3]) > 0]
    lost = max((r[2] for r in rows), default=0)
    rows = rows[1:-1]
    if not rows:
        return None
    return {"rate": statistics.median(r[0] for r in rows), "mbit": statistics.median(r[1] for r in rows),
            "lost": lost}


def last_json(out):
    for line in reversed(out.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                return None
    return None


def parse_rtt_json(out):
    j = last_json(out)
    if not j or "rtt" not in j or not j["rtt"]["count"]:
        return None
    return {"p50": j["rtt"]["p50_us"], "p99": j["rtt"]["p99_us"], "count": j["rtt"]["count"]}


def parse_perf_sub(out):
    j = last_json(out)
    if not j or not j.get("received"):
        return None
    r = {"rate": j["samples_per_s"], "mbit": j["mbit_per_s"], "lost": j["lost"]}
    # What the engine counted (hdds-perf --json "protocol"): a run slowed by repairs shows samples
    # beyond the reader's window, duplicates or socket drops here.
    p = j.get("protocol", {})
    for name, key in (("beyond", "beyond_window"), ("dup", "duplicates"), ("rcvbuf_drops", "udp_rcvbuf_errors")):
        if key in p:
            r[name] = p[key]
    return r


# --- the runs --------------------------------------------------------------------------------

class Bench:
    def __init__(self, args, tools, logdir):
        self.a, self.tools, self.logdir = args, tools, logdir
        self.results = {}  # (path, kind, case, size) -> [result per repeat]

    def record(self, key, r):
        self.results.setdefault(key, []).append(r)
        shown = "no result" if r is None else ", ".join(f"{k} {v:.1f}" for k, v in r.items() if k != "count")
        log(f"  {key[0]:8} {key[1]:4} {key[2]:22} {key[3]:6} B: {shown}")

    def latency(self, path, ping_side, pong_side, size, rep):
        s, w = self.a.seconds, self.a.warmup
        mode = self.a.mode
        dur = str(int(w + s + 1))
        name = lambda case: f"{path}-lat-{case}-{size}-r{rep}"
        limit = w + s + 15
        ping_dds = ["ddsperf", "-i", DOMAIN, "-D", dur, "ping", "size", str(size), mode]
        pong_dds = ["ddsperf", "-i", DOMAIN, "pong", mode]
        probe = self.tools["hdds-latency-probe"]
        common = ["--domain", DOMAIN, "--mode", mode]
        pong_hdds = [probe, "pong"] + common + pong_side.hdds_net
        ping_hdds = [probe, "ping", "--size", str(size), "--duration", str(s), "--warmup", str(w),
                     "--json"] + common + ping_side.hdds_net
        udp = ["--no-shm"]
        cases = [
            ("cyclone", pong_dds, ping_dds, parse_ddsperf_ping),
            ("hdds-pong", pong_hdds + udp, ping_dds, parse_ddsperf_ping),
            ("hdds", pong_hdds + udp, ping_hdds + udp, parse_rtt_json),
        ]
        if path == "loopback" and self.a.shm:
            cases.append(("hdds-shm", pong_hdds, ping_hdds, parse_rtt_json))
        for case, srv, cli, parse in cases:
            out = run_pair(pong_side, srv, ping_side, cli, limit, self.logdir, name(case))
            self.record((path, "lat", case, size), parse(out))

    def floor(self, path, ping_side, pong_side, rep):
        s, w = self.a.seconds, self.a.warmup
        floor = self.tools["hdds-udp-floor"]
        to = f"{pong_side.addr}:{FLOOR_PORT}"
        srv = [floor, "pong", "--bind", to]
        cli = [floor, "ping", "--to", to, "--size", "64", "--duration", str(s), "--warmup", str(w), "--json"]
        out = run_pair(pong_side, srv, ping_side, cli, w + s + 10, self.logdir, f"{path}-floor-r{rep}")
        self.record((path, "lat", "udp-floor", 64), parse_rtt_json(out))

    def throughput(self, path, pub_side, sub_side, size, rep):
        s = self.a.seconds + 2  # the first and last second are left out
        limit = s + 20
        name = lambda case: f"{path}-tput-{case}-{size}-r{rep}"
        mode = self.a.mode
        sub_dds = ["ddsperf", "-i", DOMAIN, "-D", str(s + 4), "sub", mode]
        pub_dds = ["ddsperf", "-i", DOMAIN, "-D", str(s), "pub", "size", str(size)]
        perf = self.tools["hdds-perf"]
        sub_hdds = [perf, "sub", "--domain", DOMAIN, "--duration", str(s + 8), "--idle", "1", "--json",
                    "--mode", mode] + sub_side.hdds_net
        pub_hdds = [perf, "pub", "--domain", DOMAIN, "--size", str(size), "--duration", str(s), "--json"] + pub_side.hdds_net
        udp = ["--no-shm"]
        cases = [("cyclone", sub_dds, pub_dds, parse_ddsperf_sub),
                 ("hdds", sub_hdds + udp, pub_hdds + udp, parse_perf_sub)]
        if path == "loopback" and self.a.shm:
            cases.append(("hdds-shm", sub_hdds, pub_hdds, parse_perf_sub))
        # The subscriber is the "server" (started first); its output is what counts.
        for case, sub, pub, parse in cases:
            srv = start(sub_side, sub, os.path.join(self.logdir, name(case) + ".sub.log"))
            time.sleep(0.3)
            cli = start(pub_side, pub, os.path.join(self.logdir, name(case) + ".pub.log"))
            wait(cli, limit)
            out = wait(srv, 12)
            self.record((path, "tput", case, size), parse(out))


# --- the report ------------------------------------------------------------------------------

def med(rs, key):
    vals = [r[key] for r in rs if r is not None]
    return statistics.median(vals) if vals else None


def fmt(v, digits=1):
    return "n/a" if v is None else f"{v:.{digits}f}"


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def verdict(r, limit, at_most=True):
    if r is None:
        return "not measured"
    ok = r <= limit if at_most else r >= limit
    # Three decimals: a ratio of 1.004 is missed, and must not read "1.00x MISSED".
    return f"{r:.3f}x {'met' if ok else 'MISSED'}"


def report(bench, args, paths, command, started, elapsed, tools_commit, load_after=None):
    R = bench.results
    lines = []
    add = lines.append
    add("# hdds engine vs Cyclone DDS: latency and throughput")
    add("")
    add(f"Reproduce (root, from the repository root): `{command}`")
    add("")
    add(f"Run {started:%Y-%m-%d %H:%M} UTC, {elapsed / 60:.1f} min, {args.repeats} interleaved repeats, "
        f"{args.seconds} s measured per run after {args.warmup} s warm-up, delivery mode `{args.mode}` on both sides.")
    add("")
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    if load_after is None:
        load_after = " ".join(open("/proc/loadavg").read().split()[:3])
    ddsperf_ver = sh("dpkg-query", "-W", "-f", "${Version}", "cyclonedds-tools", check=False).stdout or "?"
    add(f"- Machine: {cpu}, {os.cpu_count()} CPUs, Linux {platform.release()}, `uptime` before the run "
        f"`{args.uptime_before}`, load average after it {load_after} (a shared VM: other work runs beside it).")
    add(f"- hdds: commit {tools_commit}, release build. Cyclone DDS: `ddsperf` from Debian cyclonedds-tools {ddsperf_ver}.")
    add(f"- Paths: `loopback` = both processes on `lo` of one network namespace; `veth` = two namespaces "
        f"joined by a veth pair, MTU 1500 ({IP_A} to {IP_B}). Unicast discovery, multicast off, for both. "
        f"The hdds tools run UDP only (`--no-shm`) except in the shared-memory section.")
    add(f"- Both sides speak ddsperf's protocol (topics DDSPerfR*KS, keyed KeyedSeq, reliable, ping/pong "
        f"KEEP_LAST 1, data KEEP_ALL), and both take samples the same way (`{args.mode}`: "
        + ("in the reader's listener, on the receive thread" if args.mode == "listener"
           else "on an application thread woken by a wait set") + "). hdds-perf pub batches writes as "
        f"ddsperf pub does (`dds_write_set_batch`).")
    add("- Latency is the round-trip time in microseconds: the median over the repeats of each run's p50 and "
        "p99. `ddsperf ping` prints half round trips per second; its values are doubled here, and a run's "
        "p50/p99 is the median of its per-second values (the first second left out). hdds-latency-probe and "
        "hdds-udp-floor report the whole run's percentiles.")
    add("- Throughput is what the subscriber receives, samples per second (reliable, KEEP_ALL): ddsperf sub's "
        "per-second rates (median, first and last second left out); hdds-perf sub's rate after 1 s warm-up.")
    add("")
    add("## Round-trip latency (µs, p50 / p99)")
    add("")
    add("| path | size | ddsperf ping → Cyclone pong | ddsperf ping → hdds pong | hdds/Cyclone | ddsperf ping/pong "
        "| hdds-latency-probe ping/pong | hdds/Cyclone | target ≤ 1.0x |")
    add("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for path in paths:
        for size in SIZES:
            c = R.get((path, "lat", "cyclone", size), [])
            hp = R.get((path, "lat", "hdds-pong", size), [])
            h = R.get((path, "lat", "hdds", size), [])
            c50, c99, hp50, hp99, h50, h99 = (med(c, "p50"), med(c, "p99"), med(hp, "p50"), med(hp, "p99"),
                                              med(h, "p50"), med(h, "p99"))
            r_pong, r_probe = ratio(hp50, c50), ratio(h50, c50)
            worst = max((r for r in (r_pong, r_probe) if r is not None), default=None)
            add(f"| {path} | {size} | {fmt(c50)} / {fmt(c99)} | {fmt(hp50)} / {fmt(hp99)} | {fmt(r_pong, 2)} "
                f"| {fmt(c50)} / {fmt(c99)} | {fmt(h50)} / {fmt(h99)} | {fmt(r_probe, 2)} | {verdict(worst, 1.0)} |")
    add("")
    add("The Cyclone reference is one and the same run for both comparisons: `ddsperf ping` against `ddsperf pong`.")
    add("")
    add("## Against the raw UDP floor, 64 B (µs, p50 / p99)")
    add("")
    add("| path | hdds-udp-floor | hdds-latency-probe | hdds/floor | ddsperf ping/pong | Cyclone/floor | target ≤ 1.5x |")
    add("|---|---:|---:|---:|---:|---:|---|")
    for path in paths:
        f = R.get((path, "lat", "udp-floor", 64), [])
        h = R.get((path, "lat", "hdds", 64), [])
        c = R.get((path, "lat", "cyclone", 64), [])
        f50, h50, c50 = med(f, "p50"), med(h, "p50"), med(c, "p50")
        add(f"| {path} | {fmt(f50)} / {fmt(med(f, 'p99'))} | {fmt(h50)} / {fmt(med(h, 'p99'))} | "
            f"{fmt(ratio(h50, f50), 2)} | {fmt(c50)} / {fmt(med(c, 'p99'))} | {fmt(ratio(c50, f50), 2)} | "
            f"{verdict(ratio(h50, f50), 1.5)} |")
    add("")
    add("## Throughput (samples/s received, reliable KEEP_ALL)")
    add("")
    add("| path | size | ddsperf pub → sub | Mb/s | hdds-perf pub → sub | Mb/s | hdds/Cyclone | target ≥ 1.0x |")
    add("|---|---:|---:|---:|---:|---:|---:|---|")
    for path in paths:
        for size in TPUT_SIZES:
            c = R.get((path, "tput", "cyclone", size), [])
            h = R.get((path, "tput", "hdds", size), [])
            cr, hr = med(c, "rate"), med(h, "rate")
            add(f"| {path} | {size} | {fmt(cr, 0)} | {fmt(med(c, 'mbit'))} | {fmt(hr, 0)} | {fmt(med(h, 'mbit'))} "
                f"| {fmt(ratio(hr, cr), 2)} | {verdict(ratio(hr, cr), 1.0, at_most=False)} |")
    add("")
    if any(k[2] == "hdds-shm" for k in R):
        add("## Same host, hdds over shared memory (information, not a target)")
        add("")
        add("hdds uses shared memory with hdds peers on the same host by default; Cyclone here uses UDP.")
        add("")
        add("| path | what | size | hdds over shared memory | hdds over UDP | Cyclone over UDP |")
        add("|---|---|---:|---:|---:|---:|")
        for size in SIZES:
            m, h, c = (R.get(("loopback", "lat", case, size), []) for case in ("hdds-shm", "hdds", "cyclone"))
            add(f"| loopback | round trip µs p50 / p99 | {size} | {fmt(med(m, 'p50'))} / {fmt(med(m, 'p99'))} "
                f"| {fmt(med(h, 'p50'))} / {fmt(med(h, 'p99'))} | {fmt(med(c, 'p50'))} / {fmt(med(c, 'p99'))} |")
        for size in TPUT_SIZES:
            m, h, c = (R.get(("loopback", "tput", case, size), []) for case in ("hdds-shm", "hdds", "cyclone"))
            add(f"| loopback | samples/s | {size} | {fmt(med(m, 'rate'), 0)} | {fmt(med(h, 'rate'), 0)} "
                f"| {fmt(med(c, 'rate'), 0)} |")
        add("")
    missing = sorted({k for k, v in R.items() if all(r is None for r in v)})
    if missing:
        add("## Runs without a result")
        add("")
        for k in missing:
            add(f"- {k[0]} {k[2]} {k[3]} B: no result in any repeat (logs: {bench.logdir})")
        add("")
    add("## Every repeat")
    add("")
    add("| path | what | case | size | repeat results |")
    add("|---|---|---|---:|---|")
    for k in sorted(R, key=lambda k: (k[0], k[1], k[2], k[3])):
        rs = "; ".join("—" if r is None else ", ".join(f"{n} {v:.1f}" for n, v in r.items() if n != "count")
                       for r in R[k])
        add(f"| {k[0]} | {k[1]} | {k[2]} | {k[3]} | {rs} |")
    return "\n".join(lines) + "\n"


def summary(bench, args, paths, command, started, elapsed, commit):
    """The machine-readable twin of the report: every repeat, the medians and the ratios."""
    R = bench.results
    medians = {}
    for k, rs in R.items():
        keys = ("p50", "p99") if k[1] == "lat" else ("rate", "mbit", "lost")
        medians["/".join(map(str, k))] = {n: med(rs, n) for n in keys}
    ratios = {}
    for path in paths:
        for size in SIZES:
            c = med(R.get((path, "lat", "cyclone", size), []), "p50")
            for case in ("hdds-pong", "hdds"):
                ratios[f"{path}/lat/{case}/{size}/hdds_over_cyclone"] = ratio(
                    med(R.get((path, "lat", case, size), []), "p50"), c)
        ratios[f"{path}/lat/hdds/64/hdds_over_floor"] = ratio(
            med(R.get((path, "lat", "hdds", 64), []), "p50"), med(R.get((path, "lat", "udp-floor", 64), []), "p50"))
        for size in TPUT_SIZES:
            ratios[f"{path}/tput/hdds/{size}/hdds_over_cyclone"] = ratio(
                med(R.get((path, "tput", "hdds", size), []), "rate"),
                med(R.get((path, "tput", "cyclone", size), []), "rate"))
    return {
        "command": command,
        "started_utc": started.isoformat(),
        "minutes": elapsed / 60,
        "commit": commit,
        "repeats": args.repeats,
        "seconds": args.seconds,
        "mode": args.mode,
        "warmup": args.warmup,
        "uptime_before": args.uptime_before,
        "loadavg_after": open("/proc/loadavg").read().split()[:3],
        "targets": {"latency_hdds_over_cyclone_at_most": 1.0, "latency_hdds_over_floor_64B_at_most": 1.5,
                    "throughput_hdds_over_cyclone_at_least": 1.0},
        "ratios": ratios,
        "medians": medians,
        "repeats_raw": {"/".join(map(str, k)): v for k, v in R.items()},
    }


def render(args):
    """Rewrites the markdown report from a run's .json (every repeat is in it)."""
    with open(args.render) as f:
        j = json.load(f)
    bench = Bench(args, {}, "(not kept)")
    for key, rs in j["repeats_raw"].items():
        path, kind, case, size = key.split("/")
        bench.results[(path, kind, case, int(size))] = rs
    for name in ("repeats", "seconds", "mode"):
        setattr(args, name, j[name])
    args.warmup = j.get("warmup", args.warmup)
    args.uptime_before = j["uptime_before"]
    paths = [p for p in ("loopback", "veth") if any(k[0] == p for k in bench.results)]
    started = datetime.datetime.fromisoformat(j["started_utc"])
    text = report(bench, args, paths, j["command"], started, j["minutes"] * 60, j["commit"],
                  load_after=" ".join(j["loadavg_after"]))
    with open(args.out, "w") as f:
        f.write(text)
    log(f"wrote {args.out} from {args.render}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=3, help="measured seconds per run (default 3)")
    ap.add_argument("--warmup", type=float, default=1, help="warm-up seconds per latency run (default 1)")
    ap.add_argument("--mode", choices=["waitset", "listener"], default="listener",
                    help="delivery mode of both sides (ddsperf's modes; the hdds tools have the same two)")
    ap.add_argument("--no-shm", dest="shm", action="store_false",
                    help="leave out the hdds-over-shared-memory runs on loopback")
    ap.add_argument("--paths", default="loopback,veth")
    ap.add_argument("--parts", default="latency,throughput",
                    help="which measurements: latency and/or throughput (the other's tables read n/a)")
    ap.add_argument("--out", default=os.path.join(REPO, "results", "engine_vs_cyclone.md"))
    ap.add_argument("--no-build", action="store_true", help="use the tools in target/release as they are")
    ap.add_argument("--render", metavar="JSON",
                    help="run nothing: rewrite the report (--out) from a .json this script wrote")
    args = ap.parse_args()
    if args.render:
        render(args)
        return
    if args.repeats < 1:
        ap.error("--repeats must be at least 1")
    paths = [p for p in args.paths.split(",") if p]
    if any(p not in ("loopback", "veth") for p in paths):
        ap.error("--paths takes loopback and/or veth")
    parts = [p for p in args.parts.split(",") if p]
    if not parts or any(p not in ("latency", "throughput") for p in parts):
        ap.error("--parts takes latency and/or throughput")
    if os.geteuid() != 0:
        sys.exit("error: needs root to create network namespaces (ip netns); run it with sudo")
    command = "bench/engine_vs_cyclone.py" + "".join(f" {a}" for a in sys.argv[1:])

    if not args.no_build:
        log("building the hdds tools (release)")
        subprocess.run(["cargo", "build", "--release", "-p", "hdds_tools", "-q"], cwd=REPO, check=True)
    tools = {t: os.path.join(REPO, "target", "release", t) for t in ("hdds-latency-probe", "hdds-perf", "hdds-udp-floor")}
    for t in tools.values():
        if not os.access(t, os.X_OK):
            sys.exit(f"error: {t} is missing: build it with cargo build --release -p hdds_tools")
    if subprocess.run(["which", "ddsperf"], stdout=subprocess.DEVNULL).returncode != 0:
        sys.exit("error: ddsperf is missing: apt-get install cyclonedds-tools")
    commit = sh("git", "-C", REPO, "rev-parse", "--short", "HEAD").stdout.strip()
    if sh("git", "-C", REPO, "status", "--porcelain", "--untracked-files=no").stdout.strip():
        commit += " (with uncommitted changes)"

    atexit.register(cleanup)
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    setup_namespaces()
    tmp = tempfile.mkdtemp(prefix="hdds-bench-")
    logdir = os.path.join(tmp, "logs")
    os.makedirs(logdir)
    lo_uri = "file://" + os.path.join(REPO, "test", "interop", "config", "cyclonedds_loopback.xml")
    sides = {
        "loopback": (Side(NS_A, [], lo_uri, "127.0.0.1"), Side(NS_A, [], lo_uri, "127.0.0.1")),
        "veth": (Side(NS_A, ["--interface", IP_A, "--peer", IP_B], cyclone_config(tmp, "a", VETH_A, IP_B), IP_A),
                 Side(NS_B, ["--interface", IP_B, "--peer", IP_A], cyclone_config(tmp, "b", VETH_B, IP_A), IP_B)),
    }

    started = datetime.datetime.now(datetime.timezone.utc)
    args.uptime_before = sh("uptime").stdout.strip()
    log(f"uptime: {args.uptime_before}")
    t0 = time.monotonic()
    bench = Bench(args, tools, logdir)
    for rep in range(args.repeats):
        for path in paths:
            a, b = sides[path]
            log(f"repeat {rep + 1}/{args.repeats}, {path}")
            if "latency" in parts:
                for size in SIZES:
                    bench.latency(path, a, b, size, rep)
                bench.floor(path, a, b, rep)
            if "throughput" in parts:
                for size in TPUT_SIZES:
                    bench.throughput(path, a, b, size, rep)
    elapsed = time.monotonic() - t0
    cleanup()
    text = report(bench, args, paths, command, started, elapsed, commit)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        f.write(text)
    json_out = os.path.splitext(args.out)[0] + ".json"
    with open(json_out, "w") as f:
        json.dump(summary(bench, args, paths, command, started, elapsed, commit), f, indent=1)
        f.write("\n")
    log(f"wrote {args.out} and {json_out} ({elapsed / 60:.1f} min); logs in {logdir}")
    print(text)


if __name__ == "__main__":
    main()
