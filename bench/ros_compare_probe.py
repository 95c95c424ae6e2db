"""ros_compare.py --probe: where a one-process sample's publish-to-callback time goes.

bench/probe/rmw_latency_probe.c, built here with the system's C compiler, is preloaded into each
one-process perf_test run and each floor run (LD_PRELOAD). At its exit it prints, for every
stage of a sample (the publisher's yield, rmw_wait's return, rcl_wait's return, rclcpp's call of
rcl_take, the RMW's take, the callback's clock reading), the time since the sample's publish (the
floor: since its guard condition's trigger). This module builds it, sets up a run's environment,
parses what it printed and writes the report's section. The probe costs a clock reading (~25 ns)
per stage, so its runs are not the report's: they explain it.
"""

import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "probe", "rmw_latency_probe.c")

# (the probe's name, the column's title): in the order a sample passes them.
STAGES = [
    ("sched_yield", "publisher yields"),
    ("rmw_wait_ret", "rmw_wait returns"),
    ("rcl_wait_ret", "rcl_wait returns"),
    ("rcl_take_in", "rclcpp calls rcl_take"),
    ("rmw_take_in", "RMW take starts"),
    ("rmw_take_out", "RMW take ends"),
    ("callback", "callback"),
]
LINE = re.compile(
    r"^probe (\S+)\s+n=\s*(\d+) mean\s+([\d.]+) p10\s+([\d.]+) p50\s+([\d.]+) p90\s+([\d.]+) us$"
)


def build(outdir):
    """Compiles the probe into outdir; exits with what to install when that fails."""
    lib = os.path.join(outdir, "rmw_latency_probe.so")
    argv = ["cc", "-O2", "-shared", "-fPIC", "-o", lib, SOURCE, "-ldl"]
    try:
        subprocess.run(argv, check=True, capture_output=True, text=True)
    except FileNotFoundError:
        sys.exit("ros_compare --probe: no C compiler (`cc`) on PATH: install gcc (apt install gcc)")
    except subprocess.CalledProcessError as e:
        sys.exit(f"ros_compare --probe: building the probe failed ({' '.join(argv)}):\n{e.stderr}")
    return lib


def environment(env, lib, floor):
    """A run's environment with the probe preloaded; the floor's samples start at its trigger."""
    preload = " ".join(p for p in (lib, env.get("LD_PRELOAD", "")) if p)
    extra = {"LD_PRELOAD": preload}
    if floor:
        extra["PROBE_START"] = "trigger"
    return dict(env, **extra)


def parse(text):
    """The probe's lines in a run's stderr: {stage: dict(n, mean, p10, p50, p90)} (µs)."""
    stages = {}
    for line in text.splitlines():
        m = LINE.match(line.strip())
        if m:
            n, mean, p10, p50, p90 = int(m[2]), *map(float, m.group(3, 4, 5, 6))
            stages[m[1]] = dict(n=n, mean=mean, p10=p10, p50=p50, p90=p90)
    return stages


def read(path):
    """parse() of a stderr file; {} when it is missing."""
    try:
        with open(path, errors="replace") as f:
            return parse(f.read())
    except OSError:
        return {}


def followed(stages, floor):
    """Whether the probe saw each sample pass every stage in order: at least half as many wait
    returns (and takes) inside a sample as callbacks. A safety net: were the probe to take a
    clock reading for the callback's that is not (it once took rmw_fastrtps_cpp's, inside its
    rmw_wait, and lost step for the whole run), the row says so rather than show wrong numbers."""
    calls = stages.get("callback", {}).get("n", 0)
    needed = ["rmw_wait_ret"] + ([] if floor else ["rmw_take_out"])
    return calls > 0 and all(stages.get(s, {}).get("n", 0) * 2 >= calls for s in needed)


def section(runs, rmws):
    """The report's section: per run kind and RMW, the median over the runs of each stage's p50."""
    # The report's own median and number format (imported here: the report imports this module).
    from ros_compare_report import fmt, median

    def median_of(values):
        """"" when no run has the value."""
        known = [v for v in values if v is not None]
        return fmt(median(known)) if known else ""

    groups = {}
    for r in runs:
        if r.get("failure") or not r.get("probe"):
            continue
        name = r["cell"]["key"] if r["kind"] == "perf_test" else f"floor {r['rate']} Hz"
        groups.setdefault((name, r["rmw"]), []).append(r)
    if not groups:
        return []
    L = ["## Where the time goes (ros_compare.py --probe)", ""]
    L.append(
        "bench/probe/rmw_latency_probe.c preloaded into each run: every stage is the time since "
        "the sample's `rmw_publish` (the floor: since its guard condition's trigger), in µs; the "
        "median over the runs of each run's p50 (the first fifth of each run's samples left "
        "out), the callback's mean beside it, and the run's own mean as performance_test or the "
        "floor measured it. The publisher yields only when it woke the executor and the executor "
        "had not already taken the CPU at the wake-up (rmw_hdds's hand-over; other RMWs do not "
        "yield). Between rcl_wait's return and rcl_take is rclcpp's executor (finding the ready "
        "entity, allocating the message); the floor takes nothing. \"not followed\": the probe "
        "did not see that RMW's samples pass its stages in order (`followed()` in "
        "bench/ros_compare_probe.py says why)."
    )
    L.append("")
    L.append(
        "| run | RMW | "
        + " | ".join(title for _, title in STAGES)
        + " | callback mean | run's own mean | runs |"
    )
    L.append("|---|---|" + "---|" * (len(STAGES) + 3))
    order = {rmw: i for i, rmw in enumerate(rmws)}
    for (name, rmw), rs in sorted(
        groups.items(), key=lambda kv: (kv[0][0].startswith("floor"), kv[0][0], order.get(kv[0][1], 99))
    ):
        def stage(s, field="p50"):
            return median_of([r["probe"].get(s, {}).get(field) for r in rs])

        floor = name.startswith("floor")
        own_mean = median_of([r.get("latency_mean_us") for r in rs])
        if not all(followed(r["probe"], floor) for r in rs):
            cols, callback_mean = ["not followed"] * len(STAGES), ""
        else:
            # The floor takes nothing (its few takes are start-up's): no take columns.
            cols = [
                "" if floor and s in ("rcl_take_in", "rmw_take_in", "rmw_take_out") else stage(s)
                for s, _ in STAGES
            ]
            callback_mean = stage("callback", "mean")
        L.append(
            f"| {name} | {rmw} | " + " | ".join(cols) + f" | {callback_mean} | {own_mean} | {len(rs)} |"
        )
    L.append("")
    return L
