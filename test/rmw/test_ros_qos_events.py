#!/usr/bin/env python3
# Copyright 2026 The rmw_hdds authors. Apache-2.0.
"""QoS events between rmw_hdds and the other Humble RMWs, in rclpy, as a ROS 2 user meets them.

Each run is two processes of this script, publisher and subscription, each on its own RMW
(loopback only, a domain of the test's own).

**Liveliness.** A publisher and its subscription with `liveliness=AUTOMATIC,
liveliness_lease_duration=500 ms`: the subscription must count the publisher alive while its
process lives, even when it publishes nothing, and not alive about a lease after the process dies.
- `liveliness-pub`: waits for the subscription, publishes one message, prints MATCHED, publishes
  nothing for 3 s (six leases), prints IDLE_UNTIL and KILLED and ends its process at once
  (os._exit: no goodbye, as a crash);
- `liveliness-sub`: prints each liveliness-changed event with the wall clock and stops once it
  counts the publisher not alive (or after 20 s).
A run passes when the subscription counts the publisher alive, never not alive before KILLED,
and not alive within lease + 400 ms after it (test/interop/run_liveliness.py's judge).

**Incompatible QoS.** A BEST_EFFORT publisher and a RELIABLE subscription on one topic: each side
must report an incompatible-QoS event naming RELIABILITY (`incompatible-pub`, `incompatible-sub`
print `INCOMPATIBLE total=N policy=NAME` and stop at the first, or after 8 s).

Runs, for each: rmw_hdds -> rmw_cyclonedds_cpp, the reverse, rmw_hdds -> rmw_fastrtps_cpp, the
reverse, and rmw_hdds -> rmw_hdds (shared memory off, so that only the wire speaks).

rclpy is an optional part of an install: without it (or without one of the RMWs) this test exits
with SKIP_CODE (77, ctest's SKIP_RETURN_CODE in test/rmw/CMakeLists.txt) and says what is missing.

Usage: test_ros_qos_events.py         (run by ctest with the ROS environment and librmw_hdds)
       test_ros_qos_events.py ROLE    (one side of a run; the environment picks the RMW)
"""
import os
import re
import subprocess
import sys
import time

# The judge of the engine's AUTOMATIC runs against Cyclone DDS and Fast DDS, whose output format
# (MATCHED / IDLE_UNTIL / KILLED, LIVELINESS alive= not_alive=, each with t=) this script prints.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "interop"))
from run_liveliness import judge_automatic  # noqa: E402
# The environment test_ros2cli.py gives the programs it starts (loopback only, the domain given).
from test_ros2cli import env_for  # noqa: E402

SKIP_CODE = 77
LEASE = 0.5
IDLE = 3.0
RUN_LIMIT = 25
PAIRS = [("rmw_hdds", "rmw_cyclonedds_cpp"), ("rmw_cyclonedds_cpp", "rmw_hdds"),
         ("rmw_hdds", "rmw_fastrtps_cpp"), ("rmw_fastrtps_cpp", "rmw_hdds"),
         ("rmw_hdds", "rmw_hdds")]


def say(what):
    print(f"{what} t={time.time():.6f}", flush=True)


def liveliness_qos():
    from rclpy.duration import Duration
    from rclpy.qos import LivelinessPolicy, QoSProfile, ReliabilityPolicy
    return QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE,
                      liveliness=LivelinessPolicy.AUTOMATIC,
                      liveliness_lease_duration=Duration(seconds=LEASE))


def side(role):
    import rclpy
    from rclpy.qos import QoSProfile, ReliabilityPolicy
    from rclpy.qos_event import PublisherEventCallbacks, SubscriptionEventCallbacks
    from std_msgs.msg import String
    rclpy.init()
    node = rclpy.create_node(role.replace("-", "_"))
    end = time.monotonic() + RUN_LIMIT - 5
    state = {"done": False}
    if role == "liveliness-pub":
        pub = node.create_publisher(String, "hdds_liveliness", liveliness_qos())
        while pub.get_subscription_count() == 0:
            if time.monotonic() > end:
                print("pub: no subscription matched", file=sys.stderr)
                return 1
            time.sleep(0.01)
        pub.publish(String(data="hello"))
        say("MATCHED")
        time.sleep(IDLE)
        say("IDLE_UNTIL")
        say("KILLED")
        os._exit(0)
    elif role == "liveliness-sub":
        def changed(info):
            print(f"LIVELINESS alive={info.alive_count} not_alive={info.not_alive_count} t={time.time():.6f}",
                  flush=True)
            state["done"] |= info.not_alive_count > 0

        node.create_subscription(String, "hdds_liveliness", lambda _: None, liveliness_qos(),
                                 event_callbacks=SubscriptionEventCallbacks(liveliness=changed))
    else:
        def incompatible(info):
            print(f"INCOMPATIBLE total={info.total_count} policy={info.last_policy_kind.name}", flush=True)
            state["done"] = True

        end = time.monotonic() + 8
        if role == "incompatible-pub":
            node.create_publisher(String, "hdds_incompatible", QoSProfile(depth=5, reliability=ReliabilityPolicy.BEST_EFFORT),
                                  event_callbacks=PublisherEventCallbacks(incompatible_qos=incompatible))
        else:
            node.create_subscription(String, "hdds_incompatible", lambda _: None,
                                     QoSProfile(depth=5, reliability=ReliabilityPolicy.RELIABLE),
                                     event_callbacks=SubscriptionEventCallbacks(incompatible_qos=incompatible))
    while not state["done"] and time.monotonic() < end:
        rclpy.spin_once(node, timeout_sec=0.05)
    node.destroy_node()
    rclpy.shutdown()
    return 0 if state["done"] else 1


def judge_incompatible(pub_out, sub_out):
    said = {side: re.search(r"^INCOMPATIBLE total=(\d+) policy=(\w+)$", out, re.M)
            for side, out in (("publisher", pub_out), ("subscription", sub_out))}
    for side, m in said.items():
        if m is None:
            return False, f"the {side} reported no incompatible QoS"
        if int(m.group(1)) < 1 or not m.group(2).endswith("RELIABILITY"):
            return False, f"the {side} reported {m.group(0)}, not RELIABILITY"
    return True, "both sides report RELIABILITY"


def missing_parts():
    missing = []
    try:
        import rclpy  # noqa: F401
        import rclpy.qos_event  # noqa: F401
        import std_msgs.msg  # noqa: F401
        from ament_index_python.packages import PackageNotFoundError, get_package_prefix
    except ImportError as e:
        return [f"a Python module ({e})"]
    for rmw in ("rmw_cyclonedds_cpp", "rmw_fastrtps_cpp"):
        try:
            get_package_prefix(rmw)
        except PackageNotFoundError:
            missing.append(rmw)
    return missing


def run(kind, pub_rmw, sub_rmw, domain):
    def env(rmw):
        e = env_for(rmw, domain)
        if pub_rmw == sub_rmw == "rmw_hdds":
            e["HDDS_TRANSPORT"] = "udp"
        return e
    me = [sys.executable, os.path.abspath(__file__)]
    sub = subprocess.Popen(["timeout", str(RUN_LIMIT)] + me + [f"{kind}-sub"], env=env(sub_rmw),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        time.sleep(0.5)
        pub = subprocess.run(["timeout", str(RUN_LIMIT)] + me + [f"{kind}-pub"], env=env(pub_rmw),
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        sub_out, _ = sub.communicate(timeout=RUN_LIMIT + 5)
    finally:
        if sub.poll() is None:
            sub.kill()
            sub.communicate()
    if kind == "liveliness":
        ok, msg = judge_automatic(pub.stdout, sub_out, LEASE)
    else:
        ok, msg = judge_incompatible(pub.stdout, sub_out)
    if not ok:
        msg += f"\n  publisher (exit {pub.returncode}):\n    " + pub.stdout.strip().replace("\n", "\n    ")
        msg += f"\n  subscription (exit {sub.returncode}):\n    " + sub_out.strip().replace("\n", "\n    ")
    return ok, msg


def main():
    if len(sys.argv) > 1:
        return side(sys.argv[1])
    missing = missing_parts()
    if missing:
        print("SKIPPED: QoS events between rmw_hdds and the other RMWs in rclpy. Why: this "
              "ROS 2 install lacks " + "; ".join(missing) + ". Install ros-humble-ros-core and the RMWs to run it.")
        return SKIP_CODE
    failed = 0
    runs = [(kind, pub, sub) for kind in ("liveliness", "incompatible") for pub, sub in PAIRS]
    for i, (kind, pub_rmw, sub_rmw) in enumerate(runs):
        ok, msg = run(kind, pub_rmw, sub_rmw, 120 + (os.getpid() + i) % 100)
        what = (f"AUTOMATIC liveliness, lease {LEASE * 1000:.0f} ms" if kind == "liveliness"
                else "incompatible QoS (BEST_EFFORT publisher, RELIABLE subscription)")
        print(f"{'ok  ' if ok else 'FAIL'} {what}, {pub_rmw} -> {sub_rmw}: {msg}", flush=True)
        failed += not ok
    print(f"ros-qos-events: {len(runs) - failed} passed, {failed} failed")
    return 1 if failed else 0

if __name__ == "__main__":
    sys.exit(main())
