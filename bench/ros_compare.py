#!/usr/bin/python3
"""rmw_hdds against rmw_cyclonedds_cpp and rmw_fastrtps_cpp under Apex.AI performance_test (issue 6)

A benchmark, not a test: it runs the same matrix under each RMW, interleaved (A B C A B C ...),
--repeats times, with a fixed warm-up that is ignored and a fixed run time, plus our floor program
(hdds_ros_floor: an rclcpp executor woken by a guard condition, no data path) at the same rates.
It writes results/ros_compare.md (machine, versions, the exact commands, the table, the targets of
the issue), results/ros_compare.json (every run) and PNG plots (bench/ros_compare_report.py).

Needs a ROS 2 environment (Humble) with performance_test (perf_test, 1.x: `-c
rclcpp-single-threaded-executor`), the RMWs and rmw_hdds (with hdds_ros_floor) sourced:
    source /opt/ros/humble/setup.bash && source <ws>/install/setup.bash
    /usr/bin/python3 bench/ros_compare.py            # the whole report, < 45 min
    /usr/bin/python3 bench/ros_compare.py --quick    # a smaller matrix, 1 repeat: a check
    /usr/bin/python3 bench/ros_compare.py --probe    # where a one-process sample's time goes

After the matrix it runs the engine-level benchmarks (bench/engine_vs_cyclone.py and
bench/same_host.py, see bench/ros_compare_engine.py; --no-engine leaves them out) into the same
folder, and the report gathers their headline ratios and the time each part took.

Measured per run: performance_test's own rows after the warm-up (samples sent/received/lost per
second; latency mean and max over the whole run: performance_test 1.2.1's latency figures are
cumulative, see latency_totals), the CPU time of the measured processes over the same window (in % of
one core, from each thread's /proc/PID/task/TID/schedstat in ns; from /proc/PID/stat's 10 ms ticks
when a thread ended within the window), and memory: PSS (/proc/PID/smaps_rollup, which counts mapped
/dev/shm segments) plus the size of /dev/shm files created during the run that no measured process
maps. Every process runs with ROS_LOCALHOST_ONLY=1 in its own ROS domain and is bounded by
`timeout`. A run that fails (exit code, time-out, nothing received) is recorded as failed, with its
reason, and shown as such in the report.
"""

import argparse
import datetime
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import ros_compare_engine  # noqa: E402  (next to this script)
import ros_compare_probe  # noqa: E402
from ros_compare_process import Run, measure  # noqa: E402
import ros_compare_report  # noqa: E402

RMWS = ["rmw_hdds", "rmw_cyclonedds_cpp", "rmw_fastrtps_cpp"]
# --rmws entries LABEL=RMW:VAR=VALUE[:VAR=VALUE...]: RMW run with those variables, reported as
# LABEL (an A/B of one setting, interleaved with the others). Filled by parse_rmws.
VARIANTS = {}
DOMAIN = "61"
DOMAIN_FLAG = ["--dds-domain_id", DOMAIN]  # performance_test 1.x; detect_domain_flag() updates it
HISTORY = ["--history", "KEEP_LAST", "--history-depth", "16"]
SUB_HEAD_START_S = 1.0  # two processes: the subscriber starts this long before the publisher
OVERHEAD_S = 1.5  # per run, measured here: process start, discovery, shutdown


def parse_rmws(spec):
    """The labels of --rmws, recording each variant's RMW and variables in VARIANTS."""
    labels = []
    for entry in filter(None, (e.strip() for e in spec.split(","))):
        label, _, variant = entry.partition("=")
        if variant:
            rmw, *assignments = variant.split(":")
            extra = dict(a.split("=", 1) for a in assignments if "=" in a)
            if not rmw or len(extra) != len(assignments):
                sys.exit(f"ros_compare: --rmws entry {entry!r} is not LABEL=RMW:VAR=VALUE[:VAR=VALUE...]")
            VARIANTS[label] = (rmw, extra)
        labels.append(label)
    return labels


def rmw_env(env, label):
    """The environment of a run of `label` (an RMW, or a variant of one). A variable given as
    VAR+=VALUE gets VALUE in front of its value (a build of the RMW in another workspace:
    LD_LIBRARY_PATH+=WS/install/rmw_hdds/lib, since rmw_implementation loads the RMW by name)."""
    rmw, extra = VARIANTS.get(label, (label, {}))
    out = dict(env, RMW_IMPLEMENTATION=rmw)
    for var, value in extra.items():
        if var.endswith("+"):
            var = var[:-1]
            value = os.pathsep.join(filter(None, [value, out.get(var, "")]))
        out[var] = value
    return out


def log(msg):
    print(msg, file=sys.stderr, flush=True)


class Cell:
    """One cell of the matrix: a message type at a rate, a layout, a reliability, subscribers."""

    def __init__(self, msg, rate, procs, reliability, subs=1, zero_copy=False):
        self.msg, self.rate, self.procs, self.reliability, self.subs = (
            msg,
            rate,
            procs,
            reliability,
            subs,
        )
        # perf_test's --zero-copy (loaned messages): only where a row says so (no matrix row does).
        self.zero_copy = zero_copy

    @property
    def key(self):
        rate = "max" if self.rate == 0 else f"{self.rate}Hz"
        rel = "BE" if self.reliability == "BEST_EFFORT" else "REL"
        return f"{self.msg} {rate} {self.procs}p {rel} {self.subs}sub" + (" zero-copy" if self.zero_copy else "")

    @classmethod
    def parse(cls, key):
        """The cell a key names ("BoundedSequence4m 20Hz 2p BE 1sub", with " zero-copy" after it
        for perf_test's --zero-copy): any message perf_test has, in or out of the matrix; None if
        the key is not of that form."""
        parts = key.split()
        zero_copy = parts[5:] == ["zero-copy"]
        if len(parts) != 5 + zero_copy:
            return None
        msg, rate, procs, rel, subs = parts[:5]
        if rate == "max":
            hz = 0
        elif rate.endswith("Hz") and rate[:-2].isdigit():
            hz = int(rate[:-2])
        else:
            return None
        reliability = {"BE": "BEST_EFFORT", "REL": "RELIABLE"}.get(rel)
        if procs not in ("1p", "2p") or not reliability or not (subs.endswith("sub") and subs[:-3].isdigit()):
            return None
        return cls(msg, hz, int(procs[0]), reliability, int(subs[:-3]), zero_copy)

    def as_dict(self):
        return dict(
            msg=self.msg,
            rate=self.rate,
            procs=self.procs,
            reliability=self.reliability,
            subs=self.subs,
            key=self.key,
        ) | ({"zero_copy": True} if self.zero_copy else {})


def matrix(quick):
    """The issue's matrix; --quick keeps one rate per size, best effort, one subscriber."""
    if quick:
        rows = [("Array1k", 1000), ("Array4m", 20)]
        return [Cell(m, r, p, "BEST_EFFORT") for m, r in rows for p in (1, 2)] + [
            Cell("Array1k", 1000, 1, "RELIABLE", 3)
        ]
    rows = [
        ("Array1k", 100),
        ("Array1k", 1000),
        ("Array1k", 0),
        ("Array64k", 100),
        ("Array4m", 20),
        ("PointCloud4m", 20),
    ]
    cells = []
    for msg, rate in rows:
        for procs in (1, 2):
            for rel in ("BEST_EFFORT", "RELIABLE"):
                cells.append(Cell(msg, rate, procs, rel))
                if msg == "Array1k" and rate == 1000:
                    cells.append(Cell(msg, rate, procs, rel, subs=3))
    return cells


def floor_rates(cells):
    return sorted({c.rate for c in cells}, key=lambda r: (r == 0, r))


def message_args(msg):
    """perf_test's arguments for a cell's message. "UnboundedSequenceN" (N bytes, or Nk / Nm) is
    perf_test's UnboundedSequence (a byte sequence) filled with N bytes: perf_test's bounded
    sequences go out empty (it resizes them to the capacity of a new, empty one)."""
    base, size = "UnboundedSequence", msg[len("UnboundedSequence"):]
    if msg.startswith(base) and size:
        scale = {"k": 1024, "m": 1024 * 1024}.get(size[-1], 1)
        digits = size[:-1] if scale != 1 else size
        if digits.isdigit():
            return ["-m", base, "--unbounded-msg-size", str(int(digits) * scale)]
    return ["-m", msg]


def perf_test_commands(cell, runtime, warmup, logdir):
    """The exact perf_test command lines of a cell: [(role, argv)], subscriber first."""
    common = [
        "perf_test",
        "-c",
        "rclcpp-single-threaded-executor",
        *message_args(cell.msg),
        "-r",
        str(cell.rate),
        "--reliability",
        cell.reliability,
        *HISTORY,
        *DOMAIN_FLAG,
        *(["--zero-copy"] if cell.zero_copy else []),
    ]
    if cell.procs == 1:
        return [
            (
                "pubsub",
                common
                + [
                    "-p",
                    "1",
                    "-s",
                    str(cell.subs),
                    "--max-runtime",
                    str(runtime),
                    "--ignore",
                    str(warmup),
                    "-l",
                    f"{logdir}/pubsub.json",
                ],
            )
        ]
    # The subscriber starts SUB_HEAD_START_S earlier and stops as much later: its measured window
    # is the publisher's.
    head = int(SUB_HEAD_START_S)
    return [
        (
            "sub",
            common
            + [
                "-p",
                "0",
                "-s",
                str(cell.subs),
                "--max-runtime",
                str(runtime + head),
                "--ignore",
                str(warmup + head),
                "-l",
                f"{logdir}/sub.json",
            ],
        ),
        (
            "pub",
            common
            + [
                "-p",
                "1",
                "-s",
                "0",
                "--max-runtime",
                str(runtime),
                "--ignore",
                str(warmup),
                "-l",
                f"{logdir}/pub.json",
            ],
        ),
    ]


def floor_command(rate, runtime, warmup):
    return [
        "hdds_ros_floor",
        "--rate",
        str(rate),
        "--runtime",
        str(runtime),
        "--warmup",
        str(warmup),
    ]


# ---- parsing ---------------------------------------------------------------------------------

PERF_TEST_BUILD = {}  # the "perf_test_version" (git hash) its logs carry


def perf_rows(path):
    with open(path) as f:
        log_ = json.load(f)
    PERF_TEST_BUILD.setdefault("version", log_.get("perf_test_version"))
    return log_["analysis_results"]


def latency_totals(rows):
    """(samples, mean s, max s) of a run's latency, from performance_test's rows after the warm-up.

    performance_test 1.2.1 never clears its list of latencies after the ignored seconds
    (DataStats::reset runs only during them), so each row's latency_n, mean and max cover every
    sample since the warm-up, not that second: the last row is the whole run's. (A mean weighted
    over the rows counted the first second's samples once per row: up to 35 % off in a run.) Rows
    that are per second (latency_n near each second's received count) are summed instead.
    """
    rows = [r for r in rows if r["latency_n"]]
    if not rows:
        return 0, None, None
    ns = [r["latency_n"] for r in rows]
    received = sum(r["num_samples_received"] for r in rows)
    cumulative = len(rows) > 1 and all(a <= b for a, b in zip(ns, ns[1:])) and ns[-1] > 0.75 * received
    if cumulative:
        last = rows[-1]
        return last["latency_n"], last["latency_mean"], last["latency_max"]
    n = sum(ns)
    return n, sum(r["latency_mean"] * r["latency_n"] for r in rows) / n, max(r["latency_max"] for r in rows)


def summarize_perf_test(cell, logdir):
    """Latency (µs), samples per second, lost, from performance_test's JSON logs."""
    if cell.procs == 1:
        pub_rows = sub_rows = perf_rows(f"{logdir}/pubsub.json")
    else:
        pub_rows, sub_rows = perf_rows(f"{logdir}/pub.json"), perf_rows(f"{logdir}/sub.json")
    n, mean_s, max_s = latency_totals(sub_rows)
    secs = max(len(sub_rows), 1)
    # performance_test records latencies in seconds.
    return dict(
        latency_mean_us=mean_s * 1e6 if n else None,
        latency_max_us=max_s * 1e6 if n else None,
        samples=n,
        sent_per_s=sum(r["num_samples_sent"] for r in pub_rows) / max(len(pub_rows), 1),
        received_per_s=sum(r["num_samples_received"] for r in sub_rows) / secs,
        lost=sum(r["num_samples_lost"] for r in sub_rows),
        rows=len(sub_rows),
    )


def run_env(env, rmw, probe, floor):
    """A run's environment: the RMW's (and its variant's variables), with the probe if any."""
    env = rmw_env(env, rmw)
    return ros_compare_probe.environment(env, probe, floor) if probe else env


def read_probe(res, workdir, role, probe):
    """With --probe: the probe's figures of `role` into res (a run without them failed)."""
    if not probe:
        return
    res["probe"] = ros_compare_probe.read(os.path.join(workdir, f"{role}.err"))
    if not res["probe"] and not res["failure"]:
        res["failure"] = f"the probe printed nothing ({role}.err)"


def run_perf_test(cell, rmw, runtime, warmup, env, keep, probe=None):
    workdir = tempfile.mkdtemp(prefix="ros_compare_", dir=keep)
    run = Run(workdir, run_env(env, rmw, probe, floor=False))
    cmds = perf_test_commands(cell, runtime, warmup, workdir)
    limit = runtime + SUB_HEAD_START_S + 20
    for role, argv in cmds:
        if role == "pub":
            time.sleep(SUB_HEAD_START_S)
        run.start(role, argv, limit)
    cpu, cpu_clock, mem = measure(run, time.monotonic(), warmup, runtime)
    procs = run.wait(limit + 10)
    res = dict(cpu_percent=cpu, cpu_clock=cpu_clock, pss_kib=mem)
    failures = [
        f"{role}: exit {p['rc']}{' (timed out)' if p['rc'] == 124 else ''}: "
        f"{p['stderr_tail'].strip()[-300:]}"
        for role, p in procs.items()
        if p["rc"] != 0
    ]
    try:
        res.update(summarize_perf_test(cell, workdir))
    except (OSError, ValueError, KeyError) as e:
        failures.append(f"no usable performance_test log: {e}")
    if not failures and not res.get("samples"):
        failures.append("no sample received in the measured window")
    res["failure"] = "; ".join(failures) or None
    read_probe(res, workdir, cmds[0][0], probe)
    if not keep:
        shutil.rmtree(workdir, ignore_errors=True)
    return res


def run_floor(rate, rmw, runtime, warmup, env, keep, probe=None):
    workdir = tempfile.mkdtemp(prefix="ros_floor_", dir=keep)
    run = Run(workdir, run_env(env, rmw, probe, floor=True))
    run.start("floor", floor_command(rate, runtime, warmup), runtime + 20)
    cpu, cpu_clock, mem = measure(run, time.monotonic(), warmup, runtime)
    p = run.wait(runtime + 30)["floor"]
    res = dict(cpu_percent=cpu, cpu_clock=cpu_clock, pss_kib=mem, failure=None)
    try:
        out = json.loads(p["stdout"].strip().splitlines()[-1])
        res.update(
            latency_mean_us=out["latency_mean_us"],
            latency_max_us=out["latency_max_us"],
            latency_p99_us=out["latency_p99_us"],
            samples=out["received"],
            received_per_s=out["received"] / out["window_s"],
            lost=out["lost"],
            window_s=out["window_s"],
            sent_per_s=out["sent"] / out["window_s"],
            # Closed loop only: triggers whose wake-up the RMW lost, triggered again (ros_floor.cpp).
            rearmed=out.get("rearmed", 0),
        )
    except (IndexError, ValueError, KeyError) as e:
        res["failure"] = f"exit {p['rc']}, no result line ({e}): {p['stderr_tail'].strip()[-300:]}"
    if p["rc"] != 0 and not res["failure"]:
        res["failure"] = f"exit {p['rc']}: {p['stderr_tail'].strip()[-300:]}"
    read_probe(res, workdir, "floor", probe)
    if not keep:
        shutil.rmtree(workdir, ignore_errors=True)
    return res


# ---- environment checks and versions ---------------------------------------------------------


def check_environment(rmws):
    missing = [t for t in ("perf_test", "hdds_ros_floor", "timeout") if not shutil.which(t)]
    if missing:
        sys.exit(
            f"ros_compare: not found on PATH: {', '.join(missing)}. Source /opt/ros/humble "
            "(with performance_test built into it) and the workspace where rmw_hdds is "
            "installed; the script puts lib/performance_test and lib/rmw_hdds on PATH itself."
        )
    prefixes = os.environ.get("AMENT_PREFIX_PATH", "").split(":")
    for rmw in {VARIANTS.get(label, (label,))[0] for label in rmws}:
        if not any(os.path.exists(os.path.join(p, "lib", f"lib{rmw}.so")) for p in prefixes if p):
            sys.exit(
                f"ros_compare: lib{rmw}.so is in no AMENT_PREFIX_PATH prefix; install it or "
                f"leave it out with --rmws"
            )


def detect_domain_flag():
    """--dds-domain_id (performance_test 1.x) became --dds-domain-id in 2.2."""
    global DOMAIN_FLAG
    help_text = cmd_out("perf_test", "--help")
    if "--dds-domain-id" in help_text:
        DOMAIN_FLAG = ["--dds-domain-id", DOMAIN]
    elif "--dds-domain_id" not in help_text:
        DOMAIN_FLAG = []  # ROS_DOMAIN_ID (set for every process) is what rclcpp uses anyway


def add_tool_dirs_to_path():
    dirs = []
    for prefix in os.environ.get("AMENT_PREFIX_PATH", "").split(":"):
        for pkg in ("performance_test", "rmw_hdds"):
            d = os.path.join(prefix, "lib", pkg)
            if prefix and os.path.isdir(d):
                dirs.append(d)
    os.environ["PATH"] = ":".join(dirs + [os.environ.get("PATH", "")])


def cmd_out(*argv):
    try:
        return subprocess.run(
            argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, timeout=20
        ).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""


def package_version(pkg):
    for prefix in os.environ.get("AMENT_PREFIX_PATH", "").split(":"):
        path = os.path.join(prefix, "share", pkg, "package.xml")
        if prefix and os.path.exists(path):
            with open(path) as f:
                text = f.read()
            start = text.find("<version>")
            if start >= 0:
                return text[start + 9 : text.find("</version>")]
    return "not found"


def machine_and_versions():
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in open("/proc/cpuinfo")
            if line.startswith("model name")
        ),
        "unknown",
    )
    mem = next(
        (line.split()[1] for line in open("/proc/meminfo") if line.startswith("MemTotal")), "0"
    )
    deb = lambda p: cmd_out("dpkg-query", "-W", "-f=${Version}", p) or "not a Debian package"
    return {
        "machine": f"{cpu}, {os.cpu_count()} logical CPUs, {int(mem) // 1024 // 1024} GiB, "
        f"{cmd_out('uname', '-sr')}",
        "load_average_at_start": open("/proc/loadavg").read().split()[:3],
        "ros_distro": os.environ.get("ROS_DISTRO", "?"),
        "performance_test": package_version("performance_test"),
        "rmw_hdds": package_version("rmw_hdds")
        + ", commit "
        + (cmd_out("git", "-C", REPO, "describe", "--always", "--dirty") or "?"),
        "rmw_cyclonedds_cpp": package_version("rmw_cyclonedds_cpp")
        + ", Cyclone DDS "
        + (
            deb("cyclonedds-dev")
            if package_version("cyclonedds") == "not found"
            else package_version("cyclonedds")
        ),
        "rmw_fastrtps_cpp": package_version("rmw_fastrtps_cpp")
        + ", Fast DDS "
        + (
            deb("libfastrtps-dev")
            if package_version("fastrtps") == "not found"
            else package_version("fastrtps")
        ),
        "python": sys.version.split()[0],
    }


# ---- main ------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="smaller matrix, 1 repeat")
    ap.add_argument("--repeats", type=int, help="repeats per cell (default 3, --quick 1)")
    ap.add_argument("--runtime", type=int, default=6, help="seconds per perf_test run (default 6)")
    ap.add_argument("--warmup", type=int, default=2, help="ignored first seconds (default 2)")
    ap.add_argument("--floor-runtime", type=int, default=5)
    ap.add_argument("--floor-warmup", type=int, default=1)
    ap.add_argument(
        "--rmws",
        default=",".join(RMWS),
        help="comma-separated RMWs; an entry LABEL=RMW:VAR=VALUE runs RMW with that variable as "
        "LABEL (e.g. rmw_hdds_noyield=rmw_hdds:HDDS_CONFIG=wait.yield_after_wake=false); "
        "VAR+=VALUE puts VALUE in front of VAR's value (another build: "
        "hdds_b=rmw_hdds:LD_LIBRARY_PATH+=WS/install/rmw_hdds/lib)",
    )
    ap.add_argument(
        "--cells",
        help="comma-separated cell keys as the report names them (e.g. 'Array1k 1000Hz 1p BE "
        "1sub'; any message perf_test has): only those, and the floor at their rates",
    )
    ap.add_argument(
        "--out",
        help="output folder (default results/; with --quick or --cells a temporary folder, so "
        "that a check never overwrites the committed results)",
    )
    ap.add_argument(
        "--no-engine",
        action="store_true",
        help="leave out the engine-level benchmarks (engine_vs_cyclone.py, same_host.py)",
    )
    ap.add_argument("--name", default="ros_compare", help="output file names (default ros_compare)")
    ap.add_argument("--keep-logs", metavar="DIR", help="keep every run's logs under DIR")
    ap.add_argument("--no-plots", action="store_true")
    ap.add_argument(
        "--probe",
        action="store_true",
        help="preload bench/probe/rmw_latency_probe.c into one-process cells and the floor, and "
        "report where each sample's time goes (default cell 'Array1k 1000Hz 1p BE 1sub'; no "
        "engine-level benchmarks, no plots; output name ros_compare_probe)",
    )
    args = ap.parse_args()
    if args.probe:
        args.cells = args.cells or "Array1k 1000Hz 1p BE 1sub"
        args.no_engine = args.no_plots = True
        if args.name == "ros_compare":
            args.name = "ros_compare_probe"
    repeats = args.repeats or (1 if args.quick else 3)
    if not args.out:
        args.out = (
            os.path.join(tempfile.gettempdir(), "ros_compare_quick")
            if args.quick or args.cells
            else os.path.join(REPO, "results")
        )
    rmws = parse_rmws(args.rmws)
    if args.warmup >= args.runtime or args.floor_warmup >= args.floor_runtime:
        sys.exit("ros_compare: the warm-up must be shorter than the run time")

    add_tool_dirs_to_path()
    check_environment(rmws)
    detect_domain_flag()
    env = dict(os.environ, ROS_LOCALHOST_ONLY="1", ROS_DOMAIN_ID=DOMAIN)
    cells = matrix(args.quick)
    if args.cells:
        wanted = [k.strip() for k in args.cells.split(",") if k.strip()]
        parsed = [Cell.parse(k) for k in wanted]
        unknown = [k for k, c in zip(wanted, parsed) if c is None]
        if unknown:
            sys.exit(f"ros_compare: {unknown} not of the form 'MSG RATEHz|max 1p|2p BE|REL Nsub'; "
                     f"the matrix's cells are: {', '.join(c.key for c in cells)}")
        cells = parsed
    if args.probe and any(c.procs != 1 for c in cells):
        sys.exit("ros_compare --probe: the probe times one process; choose one-process cells")
    rates = floor_rates(cells)
    per_round = sum(
        args.runtime + OVERHEAD_S + (SUB_HEAD_START_S if c.procs == 2 else 0) for c in cells
    ) + len(rates) * (args.floor_runtime + OVERHEAD_S)
    estimate = per_round * len(rmws) * repeats
    engine_estimate = 0 if args.no_engine else ros_compare_engine.estimate_min(args.quick) * 60
    log(
        f"ros_compare: {len(cells)} cells + {len(rates)} floor rates, {len(rmws)} RMWs, {repeats} "
        f"repeats, {args.runtime} s runs ({args.warmup} s warm-up ignored): estimated "
        f"{estimate / 60:.1f} min, then the engine-level benchmarks: "
        + (f"{engine_estimate / 60:.1f} min" if engine_estimate else "left out (--no-engine)")
        + f"; writing into {args.out}"
    )
    if args.keep_logs:
        os.makedirs(args.keep_logs, exist_ok=True)

    probe = ros_compare_probe.build(tempfile.mkdtemp(prefix="ros_probe_")) if args.probe else None
    info = machine_and_versions()
    t_start = time.monotonic()
    runs = []
    total = (len(cells) + len(rates)) * len(rmws) * repeats
    for rep in range(repeats):
        for cell in cells:
            for rmw in rmws:
                res = run_perf_test(
                    cell, rmw, args.runtime, args.warmup, env, args.keep_logs, probe
                )
                runs.append(dict(kind="perf_test", cell=cell.as_dict(), rmw=rmw, repeat=rep, **res))
                log(f"[{len(runs)}/{total}] {cell.key} {rmw}: " + ros_compare_report.one_line(res))
        for rate in rates:
            for rmw in rmws:
                res = run_floor(
                    rate, rmw, args.floor_runtime, args.floor_warmup, env, args.keep_logs, probe
                )
                runs.append(dict(kind="floor", rate=rate, rmw=rmw, repeat=rep, **res))
                log(
                    f"[{len(runs)}/{total}] floor {'max' if rate == 0 else rate} {rmw}: "
                    + ros_compare_report.one_line(res)
                )
    elapsed = time.monotonic() - t_start
    os.makedirs(args.out, exist_ok=True)
    engine_parts = (
        [] if args.no_engine else ros_compare_engine.run_all(args.out, args.quick, dict(os.environ))
    )
    total_s = time.monotonic() - t_start

    commands = {
        "one process": " ".join(
            perf_test_commands(
                Cell("MSG", "RATE", 1, "REL", "SUBS"), args.runtime, args.warmup, "LOGDIR"
            )[0][1]
        ),
        "two processes": [
            " ".join(argv)
            for _, argv in perf_test_commands(
                Cell("MSG", "RATE", 2, "REL", "SUBS"), args.runtime, args.warmup, "LOGDIR"
            )
        ],
        "floor": " ".join(floor_command("RATE", args.floor_runtime, args.floor_warmup)),
        "environment": f"ROS_LOCALHOST_ONLY=1 ROS_DOMAIN_ID={DOMAIN} RMW_IMPLEMENTATION=RMW, every "
        f"process under `timeout`; two processes: the subscriber starts "
        f"{SUB_HEAD_START_S:g} s before the publisher",
        "values": "MSG, RATE (0 = as fast as possible), REL (BEST_EFFORT or RELIABLE), SUBS as in "
        "each row"
        + (
            "; MSG UnboundedSequenceN is `-m UnboundedSequence --unbounded-msg-size N`"
            if any(len(message_args(c.msg)) > 2 for c in cells)
            else ""
        ),
    }
    info["load_average_at_end"] = open("/proc/loadavg").read().split()[:3]
    if PERF_TEST_BUILD.get("version"):
        info["performance_test"] += f" (build {PERF_TEST_BUILD['version']})"
    meta = dict(
        info,
        runner=shlex.join(["bench/ros_compare.py", *sys.argv[1:]]),
        repeats=repeats,
        runtime_s=args.runtime,
        warmup_s=args.warmup,
        floor_runtime_s=args.floor_runtime,
        floor_warmup_s=args.floor_warmup,
        rmws=rmws,
        estimate_min=round(estimate / 60, 1),
        duration_min=round(elapsed / 60, 1),
        engine_parts=engine_parts,
        engine_skipped_by_flag=args.no_engine,
        total_min=round(total_s / 60, 1),
        commands=commands,
        date=datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
    )
    with open(os.path.join(args.out, f"{args.name}.json"), "w") as f:
        json.dump(dict(meta=meta, runs=runs), f, indent=1)
    md = ros_compare_report.write_markdown(
        meta, runs, cells, os.path.join(args.out, f"{args.name}.md")
    )
    if not args.no_plots:
        ros_compare_report.write_plots(runs, cells, rmws, args.out, args.name)
    log(f"ros_compare: done in {total_s / 60:.1f} min (matrix {elapsed / 60:.1f} min); wrote {md}")
    failed = [r for r in runs if r["failure"]]
    if failed:
        log(f"ros_compare: {len(failed)} of {len(runs)} runs failed (listed in the report)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
