"""The engine-level part of bench/ros_compare.py: runs bench/engine_vs_cyclone.py (issue 3:
ping/pong and throughput against Cyclone's ddsperf, loopback and veth) and bench/same_host.py
(issue 4: intra-process, shared memory, loans against floors and ddsperf) as they are, each as a
subprocess writing its own results next to ros_compare's, so that one command gives the whole
performance picture. ros_compare_report.py reads their JSON for the report's "Engine-level
figures" section.

A part that cannot run here (no ddsperf, no root or no permission to create a network namespace,
no cargo) is skipped with the reason; a part that fails is recorded with the tail of its output.
Neither stops the others: the report says what is missing and why.
"""

import collections
import os
import shutil
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

# Settings of the full run, chosen so that the whole report stays under 45 minutes here (about 8
# and 3 minutes); >= 3 repeats as the issue asks (same_host: 5, its two sleeping 64 B and 4 KiB
# ratios to Cyclone sit near their 0.5x limit and swing with three). --quick: one repeat, a smoke run.
ENGINE_FULL = ["--repeats", "3", "--seconds", "2", "--no-shm"]
# ddsperf needs a few seconds per run to print anything past its first (ignored) line.
ENGINE_QUICK = ["--repeats", "1", "--seconds", "2", "--paths", "loopback", "--no-shm"]
SAME_HOST_FULL = ["--repeats", "5"]
SAME_HOST_QUICK = ["--repeats", "1", "--quick"]
ESTIMATE_MIN = {"engine_vs_cyclone": (8.0, 1.0), "same_host": (3.0, 1.0)}  # (full, quick)
LIMIT_S = {"engine_vs_cyclone": 40 * 60, "same_host": 20 * 60}  # build included


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def parts(outdir, quick):
    """[(name, argv, files it writes)] in the order they run."""
    evc = os.path.join(outdir, "engine_vs_cyclone")
    sh = os.path.join(outdir, "same_host")
    return [
        (
            "engine_vs_cyclone",
            [sys.executable, os.path.join(HERE, "engine_vs_cyclone.py"), "--out", evc + ".md"]
            + (ENGINE_QUICK if quick else ENGINE_FULL),
            (evc + ".md", evc + ".json"),
        ),
        (
            "same_host",
            [sys.executable, os.path.join(HERE, "same_host.py"), "--out", sh]
            + (SAME_HOST_QUICK if quick else SAME_HOST_FULL),
            (sh + ".md", sh + ".json"),
        ),
    ]


def estimate_min(quick):
    return sum(full_quick[1 if quick else 0] for full_quick in ESTIMATE_MIN.values())


def netns_problem():
    """None if this process may create a network namespace, else why not."""
    if os.geteuid() != 0:
        return "not root: engine_vs_cyclone.py creates network namespaces (ip netns); run as root"
    if not shutil.which("ip"):
        return "the `ip` command (iproute2) is missing"
    probe = f"rosc-probe-{os.getpid()}"
    r = subprocess.run(
        ["ip", "netns", "add", probe], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    if r.returncode != 0:
        return f"cannot create a network namespace (`ip netns add`: {r.stdout.strip()[-200:]})"
    subprocess.run(
        ["ip", "netns", "del", probe], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    return None


def skip_reason(name):
    if not shutil.which("cargo"):
        return "cargo is not on PATH (the script builds the hdds tools it runs)"
    if not shutil.which("ddsperf"):
        return "ddsperf (Cyclone DDS's tool, Debian package cyclonedds-tools) is not on PATH"
    if name == "engine_vs_cyclone":
        return netns_problem()
    return None


def run_part(name, argv, files, env):
    """Runs one script, its output passed through to stderr; returns its record for the report."""
    rec = dict(
        name=name,
        command=" ".join(["python3", os.path.relpath(argv[1], REPO), *argv[2:]]),
        files=[os.path.basename(f) for f in files],
        status="skipped",
        reason=skip_reason(name),
        seconds=0.0,
    )
    if rec["reason"]:
        log(f"ros_compare: {name} skipped: {rec['reason']}")
        return rec
    log(f"ros_compare: running {rec['command']}")
    t0 = time.monotonic()
    started = time.time()
    tail = collections.deque(maxlen=15)
    p = subprocess.Popen(
        argv,
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
    )
    # SIGTERM first: engine_vs_cyclone.py removes its namespaces and children on SIGTERM.
    timer = threading.Timer(LIMIT_S[name], p.terminate)
    timer.start()
    try:
        for line in p.stdout:
            tail.append(line.rstrip())
            sys.stderr.write(f"  [{name}] {line}")
        rc = p.wait()
    finally:
        timer.cancel()
        if p.poll() is None:
            p.kill()
            p.wait()
    rec["seconds"] = round(time.monotonic() - t0, 1)
    stale = [f for f in files if not os.path.exists(f) or os.path.getmtime(f) < started]
    if rc != 0 or stale:
        why = f"exit {rc}" + (" (timed out)" if time.monotonic() - t0 >= LIMIT_S[name] else "")
        if stale:
            why += f", did not write {', '.join(os.path.basename(f) for f in stale)}"
        rec.update(status="failed", reason=f"{why}: " + " / ".join(list(tail)[-4:])[-500:])
        log(f"ros_compare: {name} failed: {rec['reason']}")
    else:
        rec.update(status="ok", reason=None)
    return rec


def run_all(outdir, quick, env):
    os.makedirs(outdir, exist_ok=True)
    return [run_part(name, argv, files, env) for name, argv, files in parts(outdir, quick)]
