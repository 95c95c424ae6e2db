#!/usr/bin/env python3
"""LIVELINESS (MANUAL_BY_TOPIC, MANUAL_BY_PARTICIPANT, AUTOMATIC) between hdds and Cyclone DDS 0.10.2 and Fast DDS 2.9.1, both directions, loopback only.

    test/interop/run_liveliness.py [--hdds PATH] [--cyclone PATH] [--fastdds PATH] [--lease-ms L] [--domain-base N]

One run = a reader process started first, then a writer process (hdds-liveliness-peer from
hdds_tools, cyclone_liveliness_peer from test/interop/cyclone, fastdds_liveliness_peer from
test/interop/fastdds; same command line and output). A MANUAL writer asserts its liveliness every
100 ms for 2 s WITHOUT writing (a writer's assertion: HEARTBEATs with the Liveliness flag; a
participant's: ParticipantMessageData), stops for 3 leases, writes one sample, and deletes itself
half a lease later. The reader prints each change of LIVELINESS_CHANGED with the wall clock (same
host, same clock).

A MANUAL run passes when the reader:
  - counts the writer alive from the match and never not-alive while it asserts;
  - counts it not alive between lease - 50 ms and lease + 400 ms after its last assertion;
  - counts it alive again within 500 ms of the sample;
  - stops counting it (alive 0, not alive 0) within 2 s of its deletion, and both exit 0.
An AUTOMATIC run: the writer writes nothing for 2 s and 3 leases after the match (its participant
alone must keep it alive: by any traffic, and hdds's by a ParticipantMessageData of kind
AUTOMATIC_LIVELINESS_UPDATE every third of the lease), then its process ends without a goodbye.
It passes when the reader counts the writer alive from the match, never not alive before the
process ended, and not alive within lease + 400 ms after it (not at the participant's much
longer SPDP lease).

Runs, for each of Cyclone and Fast DDS: MANUAL_BY_TOPIC, MANUAL_BY_PARTICIPANT and AUTOMATIC,
vendor -> hdds and hdds -> vendor; and hdds -> hdds (the engine's own pair over UDP) for
MANUAL_BY_TOPIC and AUTOMATIC. Each has its own domain and topic and a hard time limit.

Prints one line per run with the measured times and 'hdds-liveliness: N passed, N failed,
N skipped'; exits 1 on a failure. A vendor's runs are SKIPPED (with the reason) when
scripts/build-interop-peers.sh could not build that vendor's peers. A liveliness peer is built
here (cmake --build build/interop --target <peer>) if it is not there.
"""
import argparse
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("HDDS_INTEROP_BUILD", os.path.join(ROOT, "build", "interop"))
SLACK_LATE = 0.4
SLACK_EARLY = 0.05


def parse_events(text):
    """[(name, fields dict, t)] from the peers' 'NAME k=v ... t=seconds' lines."""
    out = []
    for line in text.splitlines():
        parts = line.split()
        if not parts or not parts[-1].startswith("t="):
            continue
        fields = dict(p.split("=", 1) for p in parts[1:-1] if "=" in p)
        try:
            out.append((parts[0], fields, float(parts[-1][2:])))
        except ValueError:
            continue
    return out


def writer_and_changes(w_out, r_out, needs):
    """The writer's events {name: t}, the reader's LIVELINESS changes [(alive, not_alive, t)], and
    why the run already failed (None if it has not): a writer event of `needs` missing, or a
    reader that did not count the writer alive first."""
    w = {name: t for name, _, t in parse_events(w_out)}
    missing = next((n for n in needs if n not in w), None)
    if missing:
        return w, [], f"the writer did not get to {missing}"
    changes = [(int(f["alive"]), int(f["not_alive"]), t) for name, f, t in parse_events(r_out) if name == "LIVELINESS"]
    if not changes or changes[0][:2] != (1, 0):
        return w, changes, f"the reader did not count the writer alive first: {changes[:1]}"
    return w, changes, None


def judge(w_out, r_out, lease, later=0.0):
    """(ok, message) for one run's writer and reader output; `later`: how much later than the
    lease the writer's side may still assert (see main)."""
    w, changes, why = writer_and_changes(w_out, r_out, ("MATCHED", "ASSERTED_UNTIL", "WROTE", "DELETED"))
    if why:
        return False, why
    early = [c for c in changes if c[1] > 0 and c[2] < w["ASSERTED_UNTIL"]]
    if early:
        return False, f"not alive at {early[0][2] - w['MATCHED']:.3f} s after the match, while the writer asserted"
    lost = next((c for c in changes if c[:2] == (0, 1)), None)
    if lost is None:
        return False, "the reader never counted the writer not alive after it stopped asserting"
    lost_after = lost[2] - w["ASSERTED_UNTIL"]
    if not lease - SLACK_EARLY <= lost_after <= lease + later + SLACK_LATE:
        return False, f"not alive {lost_after * 1000:.0f} ms after the last assertion (lease {lease * 1000:.0f} ms)"
    back = next((c for c in changes if c[:2] == (1, 0) and c[2] > lost[2]), None)
    if back is None:
        return False, "the sample did not make the writer alive again"
    back_after = back[2] - w["WROTE"]
    if not -SLACK_EARLY <= back_after <= 0.5:
        return False, f"alive again {back_after * 1000:.0f} ms after the sample"
    gone = next((c for c in changes if c[:2] == (0, 0) and c[2] > back[2]), None)
    if gone is None:
        return False, "the reader still counted the deleted writer"
    gone_after = gone[2] - w["DELETED"]
    if not -SLACK_EARLY <= gone_after <= 2.0:
        return False, f"uncounted {gone_after * 1000:.0f} ms after the deletion"
    return True, (
        f"not alive {lost_after * 1000:.0f} ms after the last assertion (lease {lease * 1000:.0f} ms), "
        f"alive again {back_after * 1000:.0f} ms after a sample, uncounted {gone_after * 1000:.0f} ms after deletion"
    )


def judge_automatic(w_out, r_out, lease):
    """(ok, message) for an AUTOMATIC run's writer and reader output."""
    w, changes, why = writer_and_changes(w_out, r_out, ("MATCHED", "IDLE_UNTIL", "KILLED"))
    if why:
        return False, why
    lost = next((c for c in changes if c[1] > 0), None)
    if lost is None:
        return False, "the reader never counted the writer not alive after its process ended"
    lost_after = lost[2] - w["KILLED"]
    if lost_after < -SLACK_EARLY:
        return False, f"not alive {lost[2] - w['MATCHED']:.3f} s after the match, while its participant lived"
    if lost_after > lease + SLACK_LATE:
        return False, f"not alive only {lost_after * 1000:.0f} ms after its process ended (lease {lease * 1000:.0f} ms)"
    return True, (
        f"alive through {w['IDLE_UNTIL'] - w['MATCHED']:.1f} s without a sample, "
        f"not alive {lost_after * 1000:.0f} ms after its process ended (lease {lease * 1000:.0f} ms)"
    )


def run(kind, writer, reader, domain, lease_ms, limit, extra=(), later=0.0):
    topic = f"hdds_liveliness_{domain}"
    common = ["--domain", str(domain), "--topic", topic, "--lease-ms", str(lease_ms), "--timeout", str(limit)]
    common += ["--kind", kind] + list(extra)
    env = dict(os.environ, ROS_LOCALHOST_ONLY="1")
    rd = subprocess.Popen([reader, "reader"] + common, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    time.sleep(0.3)
    try:
        wr = subprocess.run(
            [writer, "writer"] + common + ["--assert-ms", "100", "--assert-for", "2"],
            capture_output=True, text=True, timeout=limit + 5, env=env,
        )
        r_out, r_err = rd.communicate(timeout=limit + 5)
    except subprocess.TimeoutExpired:
        return False, "a peer did not stop by itself in time"
    finally:
        # The one cleanup, for every way out: a reader that is still running is stopped and reaped.
        if rd.poll() is None:
            rd.kill()
            rd.communicate()
    if wr.returncode != 0 or rd.returncode != 0:
        return False, (
            f"exit writer {wr.returncode} reader {rd.returncode}: "
            f"{(wr.stderr + r_err).strip().splitlines()[-1:] if (wr.stderr + r_err).strip() else ''}"
        )
    if kind == "automatic":
        return judge_automatic(wr.stdout, r_out, lease_ms / 1000.0)
    return judge(wr.stdout, r_out, lease_ms / 1000.0, later)


def vendor_peer(path, vendor):
    """(path, None) or (None, why it is missing), for vendor 'cyclone' or 'fastdds'."""
    if path:
        return (path, None) if os.access(path, os.X_OK) else (None, f"{path} is not an executable")
    skipped = os.path.join(BUILD, f"{vendor}.skipped")
    if os.path.exists(skipped):
        with open(skipped) as f:
            return None, f.read().strip()
    target = f"{vendor}_liveliness_peer"
    exe = os.path.join(BUILD, target)
    if not os.access(exe, os.X_OK):
        if not os.path.exists(os.path.join(BUILD, "CMakeCache.txt")):
            return None, f"{BUILD} is not configured: run scripts/build-interop-peers.sh"
        b = subprocess.run(["cmake", "--build", BUILD, "--target", target], capture_output=True, text=True)
        if b.returncode != 0:
            return None, f"the build of {target} failed: " + (b.stdout + b.stderr).strip()[-300:]
    return exe, None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hdds", default=os.path.join(ROOT, "target", "release", "hdds-liveliness-peer"))
    ap.add_argument("--cyclone", default=None)
    ap.add_argument("--fastdds", default=None)
    ap.add_argument("--lease-ms", type=int, default=500)
    ap.add_argument("--domain-base", type=int, default=200)
    a = ap.parse_args()
    if not os.access(a.hdds, os.X_OK):
        print(f"run_liveliness.py: no hdds peer at {a.hdds}: cargo build --release -p hdds_tools --bin hdds-liveliness-peer")
        return 2
    vendors = {"cyclone": ("Cyclone DDS 0.10",) + vendor_peer(a.cyclone, "cyclone"),
               "fastdds": ("Fast DDS 2.9",) + vendor_peer(a.fastdds, "fastdds")}
    runs = [("topic", "hdds", "hdds"), ("automatic", "hdds", "hdds")]
    for v in vendors:
        for kind in ("topic", "participant", "automatic"):
            runs += [(kind, v, "hdds"), (kind, "hdds", v)]
    passed = failed = skipped = 0
    for i, (kind, w_name, r_name) in enumerate(runs):
        name = f"{'AUTOMATIC' if kind == 'automatic' else 'MANUAL_BY_' + kind.upper()} {w_name} -> {r_name}"
        missing = [vendors[n] for n in (w_name, r_name) if n != "hdds" and vendors[n][1] is None]
        if missing:
            label, _, why = missing[0]
            print(f"SKIPPED: liveliness {name}: the {label} peer is missing: {why}")
            skipped += 1
            continue
        writer, reader = (a.hdds if n == "hdds" else vendors[n][1] for n in (w_name, r_name))
        # Two hdds peers on one host would meet over shared memory: --no-shm keeps this pair on UDP.
        extra = ["--no-shm"] if writer == reader == a.hdds else []
        # Fast DDS keeps sending a MANUAL_BY_PARTICIPANT writer's ParticipantMessageData every
        # announcement period while the writer is alive in its own books, up to a lease after the
        # last assertion: its own reader counts it not alive about 860 ms after that with a 500 ms
        # lease, and so does ours.
        later = a.lease_ms / 1000.0 if (kind, w_name) == ("participant", "fastdds") else 0.0
        ok, msg = run(kind, writer, reader, a.domain_base + i, a.lease_ms, 20, extra, later)
        print(f"{'PASS' if ok else 'FAIL'} liveliness {name}: {msg}", flush=True)
        passed += ok
        failed += not ok
    print(f"hdds-liveliness: {passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
