"""The report of bench/ros_compare.py: aggregation over repeats, the Markdown table, the targets
of issue 6 and the PNG plots. Also usable alone to redo the report from a results JSON:
    /usr/bin/python3 bench/ros_compare_report.py results/ros_compare.json
"""

import json
import os
import subprocess
import sys

import ros_compare_probe  # next to this script

BASELINE = "rmw_cyclonedds_cpp"
OURS = "rmw_hdds"
MIB = 1024.0


def percentile(values, q):
    """Linear interpolation between closest ranks (numpy's default)."""
    v = sorted(values)
    if not v:
        return None
    pos = (len(v) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def median(values):
    return percentile(values, 50)


def fmt(v, digits=1):
    if v is None:
        return "—"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:.{digits}f}"


def one_line(res):
    if res.get("failure"):
        return "FAILED: " + res["failure"][:200]
    return (
        f"mean {fmt(res.get('latency_mean_us'))} µs, max {fmt(res.get('latency_max_us'))} µs, "
        f"recv {fmt(res.get('received_per_s'), 0)}/s, lost {res.get('lost')}, "
        f"cpu {fmt(res.get('cpu_percent'))} %, pss {fmt((res.get('pss_kib') or 0) / MIB)} MiB"
    )


def lost_share(run):
    """lost / (lost + received) of one run (received from the rate and the measured seconds)."""
    window = run.get("window_s") or run.get("rows")
    if run.get("lost") is None or run.get("received_per_s") is None or not window:
        return None
    total = run["lost"] + run["received_per_s"] * window
    return run["lost"] / total if total else 0.0


def aggregate(runs):
    """(kind, key, rmw) -> summary over the repeats."""
    groups = {}
    for r in runs:
        key = r["cell"]["key"] if r["kind"] == "perf_test" else r["rate"]
        groups.setdefault((r["kind"], key, r["rmw"]), []).append(r)
    out = {}
    for k, rs in groups.items():
        ok = [r for r in rs if not r["failure"]]
        vals = lambda f: [r[f] for r in ok if r.get(f) is not None]
        means = vals("latency_mean_us")
        out[k] = dict(
            runs=len(rs),
            failed=len(rs) - len(ok),
            failures=sorted({r["failure"] for r in rs if r["failure"]}),
            mean_med=median(means),
            mean_p99=percentile(means, 99),
            max_us=max(vals("latency_max_us"), default=None),
            recv_per_s=median(vals("received_per_s")),
            sent_per_s=median(vals("sent_per_s")),
            lost=sum(vals("lost")) if ok else None,
            rearmed=sum(vals("rearmed")),
            lost_share=median([lost_share(r) for r in ok if lost_share(r) is not None]),
            cpu=median(vals("cpu_percent")),
            pss_mib=(median(vals("pss_kib")) / MIB) if vals("pss_kib") else None,
        )
    return out


def ticks_fallbacks(runs):
    """Says how many runs took their CPU from 10 ms clock ticks instead (a thread ended within the
    window; runs from before the schedstat reading have no such field)."""
    n = sum(1 for r in runs if r.get("cpu_percent") is not None and r.get("cpu_clock", "ticks") == "ticks")
    return f"{n} of {len(runs)} runs from /proc/PID/stat's clock ticks instead, a thread having ended" if n else \
        "no run fell back to clock ticks"


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def cell_value(agg, key, rmw, field):
    s = agg.get(("perf_test", key, rmw))
    return s[field] if s else None


def floor_value(agg, rate, rmw):
    s = agg.get(("floor", rate, rmw))
    return s["mean_med"] if s else None


def lost_measure(agg, cell, rmw):
    """Lost samples; at max rate the lost share, as each RMW's publisher runs at its own rate."""
    if cell.rate != 0:
        return cell_value(agg, cell.key, rmw, "lost")
    return cell_value(agg, cell.key, rmw, "lost_share")


def targets(agg, cells, rmws):
    """The issue's targets, each as (what, measured, verdict)."""
    rows = []
    if OURS not in rmws or BASELINE not in rmws:
        return rows

    def lat(key, rmw):
        return cell_value(agg, key, rmw, "mean_med")

    def check(what, value, limit, less=True):
        if value is None:
            rows.append((what, "not measured (failed or missing)", "FAIL"))
            return
        ok = value <= limit if less else value >= limit
        rows.append(
            (
                what,
                f"{value:.2f}x (limit {'≤' if less else '≥'} {limit:g}x)",
                "PASS" if ok else "FAIL",
            )
        )

    keys = {c.key for c in cells}
    k = "Array1k 1000Hz 1p BE 1sub"
    if k in keys:
        check(f"{k}: mean latency vs {BASELINE}", ratio(lat(k, OURS), lat(k, BASELINE)), 0.7)
        check(
            f"{k}: mean latency vs rmw_hdds's own floor (1000 Hz)",
            ratio(lat(k, OURS), floor_value(agg, 1000, OURS)),
            1.2,
        )
    for c in cells:
        if c.procs == 2 and c.subs == 1 and c.msg == "Array1k" and c.rate != 0:
            check(
                f"{c.key}: mean latency vs {BASELINE}",
                ratio(lat(c.key, OURS), lat(c.key, BASELINE)),
                0.25,
            )
        if c.procs == 2 and c.msg in ("Array4m", "PointCloud4m"):
            check(
                f"{c.key}: mean latency vs {BASELINE}",
                ratio(lat(c.key, OURS), lat(c.key, BASELINE)),
                0.2,
            )
        if c.rate == 0 and c.subs == 1:
            check(
                f"{c.key}: received samples/s vs {BASELINE}",
                ratio(
                    cell_value(agg, c.key, OURS, "recv_per_s"),
                    cell_value(agg, c.key, BASELINE, "recv_per_s"),
                ),
                1.5,
                less=False,
            )
    worse_lost = [
        c.key
        for c in cells
        if lost_measure(agg, c, OURS) is None
        or lost_measure(agg, c, OURS) > (lost_measure(agg, c, BASELINE) or 0)
    ]
    rows.append(
        (
            "samples lost ≤ rmw_cyclonedds_cpp's, every cell (as fast as possible: the lost "
            "share, since the publishers' rates differ)",
            f"{len(cells) - len(worse_lost)}/{len(cells)} cells"
            + (f"; more lost or failed: {', '.join(worse_lost)}" if worse_lost else ""),
            "PASS" if not worse_lost else "FAIL",
        )
    )
    for field, name in (("cpu", "CPU"), ("pss_mib", "memory (PSS)")):
        worse = [
            c.key
            for c in cells
            if (
                ratio(cell_value(agg, c.key, OURS, field), cell_value(agg, c.key, BASELINE, field))
                or 99
            )
            > 1.0
        ]
        rows.append(
            (
                f"{name} ≤ 1.0x rmw_cyclonedds_cpp, every cell",
                f"{len(cells) - len(worse)}/{len(cells)} cells"
                + (f"; above: {', '.join(worse)}" if worse else ""),
                "PASS" if not worse else "FAIL",
            )
        )
        if field == "cpu":
            # As fast as possible every publisher takes a core whatever it costs per sample, so
            # CPU % says little there; CPU per received sample is what each RMW pays. Information
            # only: the verdict above stays the issue's.
            per_sample = []
            for c in cells:
                if c.rate != 0:
                    continue
                mine, theirs = (
                    (cell_value(agg, c.key, r, "cpu"), cell_value(agg, c.key, r, "recv_per_s"))
                    for r in (OURS, BASELINE)
                )
                if None not in (*mine, *theirs) and mine[1] > 0 and theirs[1] > 0:
                    per_sample.append(f"{c.key} {ratio(mine[0] / mine[1], theirs[0] / theirs[1]):.2f}x")
            if per_sample:
                rows.append(
                    (
                        f"(information) as fast as possible: CPU per received sample vs {BASELINE}",
                        "; ".join(per_sample),
                        "-",
                    )
                )
    return rows


def engine_json(outdir, part):
    """The JSON a part wrote in this run, or None (the part did not run or failed)."""
    if part["status"] != "ok":
        return None
    try:
        with open(os.path.join(outdir, part["files"][1])) as f:
            return json.load(f)
    except (OSError, ValueError, IndexError):
        return None


def human_size(n):
    return (
        f"{n // 1024 // 1024} MiB"
        if n >= 1 << 20
        else (f"{n // 1024} KiB" if n >= 1024 else f"{n} B")
    )


def shown_ratio(v, limit):
    """A ratio as a report shows it: two decimals, three next to the limit (1.004 misses 1.0 and
    must not read "1.00, NOT met")."""
    return f"{v:.3f}" if abs(v - limit) < 0.005 else f"{v:.2f}"


def ratios_row(values, limit, at_most=True, labels=None):
    """'a · b · c' of the ratios, and the verdict against the limit for all of them (naming the
    labels that miss it)."""
    shown = " · ".join("n/a" if v is None else shown_ratio(v, limit) for v in values)
    known = [v for v in values if v is not None]
    if not known:
        return shown, "not measured"
    miss = [
        i for i, v in enumerate(values) if v is not None and (v > limit if at_most else v < limit)
    ]
    verdict = "met" if not miss else "NOT met"
    if miss and labels and len(values) > 1:
        verdict += " at " + ", ".join(labels[i] for i in miss)
    if len(known) < len(values):
        verdict += " (where measured)"
    return shown, verdict


def engine_vs_cyclone_rows(doc, link):
    """Headline ratios of bench/engine_vs_cyclone.py (round trips, reliable)."""
    r, m, t = doc["ratios"], doc["medians"], doc["targets"]
    rows = []
    paths = sorted({k.split("/")[0] for k in r}, key=lambda p: p != "loopback")
    sizes = sorted({int(k.split("/")[3]) for k in r if "/lat/hdds/" in k})
    tsizes = sorted({int(k.split("/")[3]) for k in r if "/tput/hdds/" in k})
    p50 = lambda key: (m.get(key) or {}).get("p50")
    for path in paths:
        hdds64, cyc64 = p50(f"{path}/lat/hdds/64"), p50(f"{path}/lat/cyclone/64")
        shown, verdict = ratios_row(
            [r.get(f"{path}/lat/hdds/{s}/hdds_over_cyclone") for s in sizes],
            t["latency_hdds_over_cyclone_at_most"],
            labels=[human_size(s) for s in sizes],
        )
        rows.append(
            (
                f"{path}: round trip p50, hdds / Cyclone (ddsperf), "
                + " · ".join(human_size(s) for s in sizes),
                shown + f" (64 B: {fmt(hdds64)} vs {fmt(cyc64)} µs)",
                f"≤ {t['latency_hdds_over_cyclone_at_most']:g}",
                verdict,
                link,
            )
        )
        floor = p50(f"{path}/lat/udp-floor/64")
        shown, verdict = ratios_row(
            [r.get(f"{path}/lat/hdds/64/hdds_over_floor")],
            t["latency_hdds_over_floor_64B_at_most"],
        )
        rows.append(
            (
                f"{path}: round trip p50 64 B, hdds / raw UDP floor (Cyclone: "
                + fmt(ratio(cyc64, floor), 2)
                + ")",
                shown + f" (floor {fmt(floor)} µs)",
                f"≤ {t['latency_hdds_over_floor_64B_at_most']:g}",
                verdict,
                link,
            )
        )
        shown, verdict = ratios_row(
            [r.get(f"{path}/tput/hdds/{s}/hdds_over_cyclone") for s in tsizes],
            t["throughput_hdds_over_cyclone_at_least"],
            at_most=False,
            labels=[human_size(s) for s in tsizes],
        )
        rows.append(
            (
                f"{path}: throughput (samples/s, reliable), hdds / Cyclone, "
                + " · ".join(human_size(s) for s in tsizes),
                shown,
                f"≥ {t['throughput_hdds_over_cyclone_at_least']:g}",
                verdict,
                link,
            )
        )
    return rows


def same_host_rows(doc, link):
    """The targets bench/same_host.py itself computes (its wording), plus loans by copy."""
    rows = []
    for what, r, limit in doc.get("targets", []):
        r = None if r is None or r != r else r  # NaN: a side had no result
        shown, verdict = ratios_row([r], limit)
        rows.append((f"same host: {what}", shown, f"≤ {limit:g}", verdict, link))
    agg = doc.get("aggregate", {})
    # Sizes only: same_host.py also has named loan rows ("loan-64-paced").
    big = max((int(k[5:]) for k in agg if k.startswith("loan-") and k[5:].isdigit()), default=None)
    if big and f"shm-sleep-{big}" in agg:
        rows.append(
            (
                f"same host: loan {big // (1024 * 1024)} MiB / shared memory by copy, same size",
                fmt(ratio(agg[f"loan-{big}"]["p50_us"], agg[f"shm-sleep-{big}"]["p50_us"]), 2),
                "(none)",
                "",
                link,
            )
        )
    return rows


def engine_section(meta, outdir):
    """The "Engine-level figures" section: headline ratios of the engine benchmarks run by the
    same command, the time each part took, and what was skipped and why."""
    L = ["## Engine-level figures (same command, after the matrix)", ""]
    parts = meta.get("engine_parts")
    if parts is None or meta.get("engine_skipped_by_flag"):
        L.append(
            "Not run: "
            + (
                "left out with --no-engine."
                if meta.get("engine_skipped_by_flag")
                else "this report comes from a run before the runner gathered them."
            )
        )
        L.append("")
        return L
    L.append(
        "Engine alone, no ROS: ratios of medians over the repeats (p50 of each run), measured "
        "by the scripts below in this run; the linked files hold every figure, the commands and "
        "the machine's load. Round trips are reliable; same-host figures are one-way."
    )
    L.append("")
    rows = []
    for part in parts:
        doc = engine_json(outdir, part)
        if doc is None:
            continue
        link = f"[{part['files'][0]}]({part['files'][0]})"
        try:
            if part["name"] == "engine_vs_cyclone":
                rows += engine_vs_cyclone_rows(doc, link)
            elif part["name"] == "same_host":
                rows += same_host_rows(doc, link)
        except (KeyError, TypeError, ValueError) as e:
            part["status"], part["reason"] = "failed", f"unreadable {part['files'][1]}: {e!r}"
    if rows:
        L.append("| figure | measured | target | verdict | details |")
        L.append("|---|---|---|---|---|")
        for row in rows:
            L.append("| " + " | ".join(row) + " |")
        L.append("")
    else:
        L.append("No engine-level figures in this run: the table below says why.")
        L.append("")
    L.append("| part | command | status | took |")
    L.append("|---|---|---|---|")
    L.append(
        f"| performance_test matrix + floors | `{meta['runner']}` | "
        f"{meta['repeats']} repeat{'s' if meta['repeats'] != 1 else ''} | {meta['duration_min']} min |"
    )
    for part in parts:
        status = part["status"] + (f": {part['reason']}" if part.get("reason") else "")
        L.append(
            f"| {part['name']} | `{part['command']}` | {status.replace('|', '/')} | "
            f"{part['seconds'] / 60:.1f} min |"
        )
    L.append(f"| **total** | | | **{meta.get('total_min', meta['duration_min'])} min** |")
    L.append("")
    return L


def write_markdown(meta, runs, cells, path):
    agg = aggregate(runs)
    rmws = meta["rmws"]
    cmds = meta["commands"]
    L = []
    L.append("# rmw_hdds vs rmw_cyclonedds_cpp vs rmw_fastrtps_cpp (Apex.AI performance_test)")
    L.append("")
    load = f"load average at start {' '.join(meta['load_average_at_start'])}"
    if meta.get("load_average_at_end"):
        load += f", at the end {' '.join(meta['load_average_at_end'])}"
    L.append(f"- Machine: {meta['machine']}; {load}")
    L.append(
        f"- Versions: ROS 2 {meta['ros_distro']}; performance_test {meta['performance_test']}; "
        f"rmw_hdds {meta['rmw_hdds']}; rmw_cyclonedds_cpp {meta['rmw_cyclonedds_cpp']}; "
        f"rmw_fastrtps_cpp {meta['rmw_fastrtps_cpp']}"
    )
    L.append(f"- Commands ({cmds['environment']}; {cmds['values']}):")
    L.append(f"  - one process: `{cmds['one process']}`")
    for c in cmds["two processes"]:
        L.append(f"  - two processes: `{c}`")
    L.append(f"  - floor (rclcpp guard-condition wake-up, no data path): `{cmds['floor']}`")
    L.append(
        f"- Runner: `/usr/bin/python3 {meta['runner']}` on {meta['date']}: "
        f"{meta['repeats']} repeats, "
        f"interleaved ({' '.join(rmws)} per cell), {meta['runtime_s']} s runs with the first "
        f"{meta['warmup_s']} s ignored "
        f"(floor {meta['floor_runtime_s']} s / {meta['floor_warmup_s']} s); "
        f"estimated {meta['estimate_min']} min, took {meta['duration_min']} min"
        + (
            f"; with the engine-level benchmarks {meta['total_min']} min in all."
            if meta.get("total_min") is not None and meta.get("engine_parts")
            else "."
        )
    )
    if any(r.get("probe") for r in runs):
        L.append(
            "- **Probe runs** (`--probe`): every run carries bench/probe/rmw_latency_probe.c (a "
            "clock reading per stage), so its figures explain results/ros_compare.md rather "
            "than replace it; the section \"Where the time goes\" is what they are for."
        )
    cores = (
        int(meta["machine"].split(" logical CPUs")[0].rsplit(", ", 1)[-1] or 0)
        if " logical CPUs" in meta["machine"]
        else 0
    )
    if cores and float(meta["load_average_at_start"][0]) > cores:
        L.append("")
        L.append(
            f"**The machine was shared**: its load average ({meta['load_average_at_start'][0]}) "
            f"was above its {cores} CPUs when the run started (other jobs were running), so "
            "latencies include scheduling delays that a quiet machine would not have; the RMWs "
            "were measured interleaved, so they share that noise, but single cells can swing "
            'by a factor of 2 or more between repeats (compare "mean" with "p99 of means").'
        )
    L.append("")
    L.append(
        'Latency is publish to callback (performance_test\'s timestamps). "mean" is the median '
        "over "
        'the repeats of each run\'s mean latency, "p99" the 99th percentile of those run means, '
        '"max" the largest latency of any run. recv/s counts every subscriber\'s samples; '
        "lost is summed over the runs (as fast as possible: with the median lost share, since "
        "each RMW's publisher runs at its own rate and KEEP_LAST 16 drops what is not taken). "
        "CPU is "
        "the CPU time of the measured processes over the measured window in % of one core "
        f"(from the threads' schedstat in ns; {ticks_fallbacks(runs)}); PSS "
        "includes mapped /dev/shm and /dev/shm files no process maps. History KEEP_LAST 16, "
        "volatile, no zero copy (no row uses --zero-copy)."
    )
    L.append("")
    L.append("## Results")
    L.append("")
    L.append(
        "| cell | RMW | mean µs | p99 of means µs | max µs | sent/s | recv/s | lost | CPU % "
        "| PSS MiB | vs cyclone | vs fastrtps | vs own floor | runs |"
    )
    L.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for c in cells:
        for rmw in rmws:
            s = agg.get(("perf_test", c.key, rmw))
            if not s:
                continue
            m = s["mean_med"]
            vs = (
                lambda other: fmt(ratio(m, cell_value(agg, c.key, other, "mean_med")), 2) + "x"
                if other in rmws
                and other != rmw
                and ratio(m, cell_value(agg, c.key, other, "mean_med"))
                else ""
            )
            vfloor = ratio(m, floor_value(agg, c.rate, rmw))
            runs_txt = f"{s['runs'] - s['failed']}/{s['runs']}" + (
                " **FAILED**" if s["failed"] else ""
            )
            lost = fmt(s["lost"], 0)
            if c.rate == 0 and s["lost_share"] is not None:
                lost += f" ({100 * s['lost_share']:.0f} %)"
            L.append(
                f"| {c.key} | {rmw} | {fmt(m)} | {fmt(s['mean_p99'])} | {fmt(s['max_us'])} | "
                f"{fmt(s['sent_per_s'], 0)} | {fmt(s['recv_per_s'], 0)} | {lost} | "
                f"{fmt(s['cpu'])} | {fmt(s['pss_mib'])} | {vs(BASELINE)} | "
                f"{vs('rmw_fastrtps_cpp')} | "
                f"{fmt(vfloor, 2) + 'x' if vfloor else ''} | {runs_txt} |"
            )
    L.append("")
    L.append("## Floor: rclcpp executor woken by a guard condition (hdds_ros_floor, one process)")
    L.append("")
    L.append(
        "| rate | RMW | mean µs | p99 of means µs | max µs | wake-ups/s | coalesced | CPU % "
        "| PSS MiB | runs |"
    )
    L.append("|---|---|---|---|---|---|---|---|---|---|")
    rearmed = []
    for rate in sorted(
        {r["rate"] for r in runs if r["kind"] == "floor"}, key=lambda r: (r == 0, r)
    ):
        label = "max" if rate == 0 else f"{rate} Hz"
        for rmw in rmws:
            s = agg.get(("floor", rate, rmw))
            if not s:
                continue
            runs_txt = f"{s['runs'] - s['failed']}/{s['runs']}" + (
                " **FAILED**" if s["failed"] else ""
            )
            L.append(
                f"| {label} | {rmw} | {fmt(s['mean_med'])} | "
                f"{fmt(s['mean_p99'])} | {fmt(s['max_us'])} | {fmt(s['recv_per_s'], 0)} | "
                f"{fmt(s['lost'], 0)} | {fmt(s['cpu'])} | {fmt(s['pss_mib'])} | {runs_txt} |"
            )
            if s["rearmed"]:
                rearmed.append(f"{rmw} {s['rearmed']} ({label}, {s['runs']} runs)")
    if rearmed:
        L.append("")
        L.append(
            # 100 ms: kRearm in bench/ros_floor/ros_floor.cpp.
            "Wake-ups lost by the RMW in the closed loop (a trigger still unhandled after 100 ms, "
            "triggered again by hdds_ros_floor and not counted as a latency): " + "; ".join(rearmed)
            + "."
        )
    L.append("")
    L += ros_compare_probe.section(runs, rmws)
    L.append("## Targets of issue 6 (measured in this run)")
    L.append("")
    L.append("| target | measured | verdict |")
    L.append("|---|---|---|")
    for what, measured, verdict in targets(agg, cells, rmws):
        L.append(f"| {what} | {measured} | {verdict} |")
    L.append("")
    failures = [(k, s) for k, s in sorted(agg.items(), key=lambda kv: str(kv[0])) if s["failed"]]
    L += engine_section(meta, os.path.dirname(os.path.abspath(path)))
    L.append("## Failed runs")
    L.append("")
    if not failures:
        L.append("None.")
    for (kind, key, rmw), s in failures:
        name = key if kind == "perf_test" else f"floor {'max' if key == 0 else key}"
        L.append(
            f"- {name}, {rmw}: {s['failed']}/{s['runs']} runs failed: "
            + " | ".join(f.replace("\n", " ")[:400] for f in s["failures"])
        )
    L.append("")
    with open(path, "w") as f:
        f.write("\n".join(L))
    return path


def ensure_matplotlib():
    try:
        import matplotlib  # noqa: F401

        return True
    except ImportError:
        pass
    script = os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts/lib/debian.sh"
    )
    print(
        "ros_compare: matplotlib is missing; installing Debian's python3-matplotlib",
        file=sys.stderr,
    )
    subprocess.run(
        [
            "bash",
            "-c",
            f'say() {{ echo "$*" >&2; }}; source "{script}" && '
            "ensure_debian_packages --no-install-recommends python3-matplotlib",
        ],
        timeout=900,
        check=False,
        stdout=sys.stderr,
    )
    try:
        import matplotlib  # noqa: F401

        return True
    except ImportError:
        print(
            "ros_compare: no plots: matplotlib could not be installed (apt-get install "
            "python3-matplotlib, then run bench/ros_compare_report.py on the JSON)",
            file=sys.stderr,
        )
        return False


def write_plots(runs, cells, rmws, outdir, name):
    if not ensure_matplotlib():
        return []
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    agg = aggregate(runs)
    written = []
    sizes = [("Array1k", 1000), ("Array64k", 100), ("Array4m", 20), ("PointCloud4m", 20)]
    sizes = [s for s in sizes if any(c.msg == s[0] and c.rate == s[1] for c in cells)]

    def save(fig, suffix):
        path = os.path.join(outdir, f"{name}_{suffix}.png")
        fig.tight_layout()
        fig.savefig(path, dpi=90)
        plt.close(fig)
        written.append(path)

    # Latency by message size, per RMW, per layout and reliability.
    fig, axes = plt.subplots(2, 2, figsize=(11, 8), sharey=True)
    for i, procs in enumerate((1, 2)):
        for j, rel in enumerate(("BEST_EFFORT", "RELIABLE")):
            ax = axes[i][j]
            for rmw in rmws:
                xs, ys = [], []
                for x, (msg, rate) in enumerate(sizes):
                    key = next(
                        (
                            c.key
                            for c in cells
                            if (c.msg, c.rate, c.procs, c.reliability, c.subs)
                            == (msg, rate, procs, rel, 1)
                        ),
                        None,
                    )
                    v = cell_value(agg, key, rmw, "mean_med") if key else None
                    if v:
                        xs.append(x)
                        ys.append(v)
                ax.plot(xs, ys, marker="o", label=rmw)
            ax.set_xticks(range(len(sizes)), [f"{m}\n{r} Hz" for m, r in sizes])
            ax.set_yscale("log")
            ax.set_title(f"{'one process' if procs == 1 else 'two processes'}, {rel.lower()}")
            ax.set_ylabel("mean latency (µs, median of runs)")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=8)
    save(fig, "latency")

    def bars(field, ylabel, suffix, select, title):
        chosen = [c for c in cells if select(c)]
        if not chosen:
            return
        fig, ax = plt.subplots(figsize=(max(8, len(chosen) * 0.9), 5))
        width = 0.8 / len(rmws)
        for k, rmw in enumerate(rmws):
            vals = [cell_value(agg, c.key, rmw, field) or 0 for c in chosen]
            ax.bar([x + k * width for x in range(len(chosen))], vals, width, label=rmw)
        ax.set_xticks(
            [x + width * (len(rmws) - 1) / 2 for x in range(len(chosen))],
            [c.key.replace(" ", "\n", 2) for c in chosen],
            fontsize=7,
        )
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.legend(fontsize=8)
        ax.grid(True, axis="y", alpha=0.3)
        save(fig, suffix)

    bars(
        "recv_per_s",
        "received samples/s (median of runs)",
        "throughput",
        lambda c: c.rate == 0,
        "Array1k as fast as possible: throughput",
    )
    bars(
        "pss_mib",
        "PSS incl. /dev/shm (MiB, all measured processes)",
        "memory",
        lambda c: c.subs == 1 and c.reliability == "BEST_EFFORT" and c.rate != 0,
        "Memory, best effort",
    )
    bars(
        "cpu",
        "CPU (% of one core, all measured processes)",
        "cpu",
        lambda c: c.subs == 1 and c.reliability == "BEST_EFFORT",
        "CPU, best effort",
    )
    return written


def main():
    if len(sys.argv) != 2:
        sys.exit(
            "usage: ros_compare_report.py RESULTS.json  (rewrites the .md and the plots beside it)"
        )
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from ros_compare import Cell

    with open(sys.argv[1]) as f:
        data = json.load(f)
    seen, cells = set(), []
    for r in data["runs"]:
        if r["kind"] == "perf_test" and r["cell"]["key"] not in seen:
            seen.add(r["cell"]["key"])
            c = r["cell"]
            cells.append(Cell(c["msg"], c["rate"], c["procs"], c["reliability"], c["subs"]))
    base = os.path.splitext(sys.argv[1])[0]
    write_markdown(data["meta"], data["runs"], cells, base + ".md")
    write_plots(
        data["runs"],
        cells,
        data["meta"]["rmws"],
        os.path.dirname(base) or ".",
        os.path.basename(base),
    )


if __name__ == "__main__":
    main()
