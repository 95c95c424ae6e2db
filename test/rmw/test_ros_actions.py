#!/usr/bin/env python3
# Copyright 2026 The rmw_hdds authors. Apache-2.0.
"""ROS 2 actions on rmw_hdds, with servers and clients on either side of the other Humble RMWs.

An action is three services and two topics under `<name>/_action/` (rcl_action); a user expects
`ros2 action` and rclpy's ActionServer / ActionClient to work on any middleware, and across them.
Each run is two processes of this script (loopback only, a domain of the test's own):
- `server`: an example_interfaces/action/Fibonacci server on RMW A that publishes feedback after
  each step and succeeds;
- `client`: a client on RMW B that waits for the server, sends a goal of order 6, and prints the
  result and how many feedback messages it heard.
A run passes when the client gets the sequence 0 1 1 2 3 5 8 and at least one feedback message
(the first may go out before the client's feedback subscription is matched: rcl_action's
server_is_available looks only at the services). Runs: rmw_hdds -> rmw_hdds, rmw_cyclonedds_cpp
server with an rmw_hdds client and the reverse, the same with rmw_fastrtps_cpp. Then, against a
server on rmw_hdds: `ros2 action list -t`, `ros2 action info` and `ros2 action send_goal`.

rclpy and ros2cli are optional parts of an install: without them (or one of the RMWs) this test
exits with SKIP_CODE (77, ctest's SKIP_RETURN_CODE in test/rmw/CMakeLists.txt).

Usage: test_ros_actions.py                (run by ctest with the ROS environment and librmw_hdds)
       test_ros_actions.py server|client  (one side of a run; the environment picks the RMW)
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import time

# The helpers of test_ros2cli.py, beside this script: the environment and the ros2 command.
from test_ros2cli import env_for, ros2_until  # noqa: E402

SKIP_CODE = 77
ORDER = 6
EXPECTED = [0, 1, 1, 2, 3, 5, 8]
RUN_LIMIT = 30
RUNS = [("rmw_hdds", "rmw_hdds"), ("rmw_cyclonedds_cpp", "rmw_hdds"), ("rmw_hdds", "rmw_cyclonedds_cpp"),
        ("rmw_fastrtps_cpp", "rmw_hdds"), ("rmw_hdds", "rmw_fastrtps_cpp")]


def server():
    import rclpy
    from rclpy.action import ActionServer
    from example_interfaces.action import Fibonacci
    rclpy.init()
    node = rclpy.create_node("fibonacci_server")

    def execute(goal):
        seq = [0, 1]
        for i in range(1, goal.request.order):
            seq.append(seq[i] + seq[i - 1])
            goal.publish_feedback(Fibonacci.Feedback(sequence=seq))
            time.sleep(0.05)
        goal.succeed()
        return Fibonacci.Result(sequence=seq)

    ActionServer(node, Fibonacci, "fibonacci", execute)
    print("SERVING", flush=True)
    end = time.monotonic() + RUN_LIMIT - 5
    while time.monotonic() < end:
        rclpy.spin_once(node, timeout_sec=0.1)
    return 0


def client():
    import rclpy
    from rclpy.action import ActionClient
    from example_interfaces.action import Fibonacci
    rclpy.init()
    node = rclpy.create_node("fibonacci_client")
    c = ActionClient(node, Fibonacci, "fibonacci")
    if not c.wait_for_server(timeout_sec=10):
        print("no action server within 10 s", flush=True)
        return 1
    feedback = []
    sent = c.send_goal_async(Fibonacci.Goal(order=ORDER), feedback_callback=lambda m: feedback.append(m))
    rclpy.spin_until_future_complete(node, sent, timeout_sec=10)
    handle = sent.result()
    if handle is None or not handle.accepted:
        print("the goal was not accepted within 10 s", flush=True)
        return 1
    done = handle.get_result_async()
    rclpy.spin_until_future_complete(node, done, timeout_sec=10)
    if done.result() is None:
        print("no result within 10 s", flush=True)
        return 1
    print(f"RESULT {' '.join(map(str, done.result().result.sequence))} FEEDBACK {len(feedback)}", flush=True)
    return 0


class Server:
    """This script's server on `rmw` in the background, bounded by `timeout`."""

    def __init__(self, rmw, domain):
        self.proc = subprocess.Popen(["timeout", str(RUN_LIMIT), sys.executable, os.path.abspath(__file__), "server"],
                                     env=env_for(rmw, domain), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
        out, _ = self.proc.communicate(timeout=10)
        return out


def run(server_rmw, client_rmw, domain):
    srv = Server(server_rmw, domain)
    try:
        c = subprocess.run(["timeout", str(RUN_LIMIT), sys.executable, os.path.abspath(__file__), "client"],
                           env=env_for(client_rmw, domain), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    finally:
        srv_out = srv.stop()
    m = re.search(r"^RESULT ([\d ]*) FEEDBACK (\d+)$", c.stdout, re.M)
    if m and [int(x) for x in m.group(1).split()] == EXPECTED and int(m.group(2)) >= 1:
        return True, f"result {m.group(1)}, {m.group(2)} feedback messages"
    return False, (f"client (exit {c.returncode}):\n    " + c.stdout.strip().replace("\n", "\n    ")
                   + f"\n  server:\n    " + srv_out.strip().replace("\n", "\n    "))


def missing_parts():
    missing = []
    if shutil.which("ros2") is None:
        missing.append("the ros2 command (ros2cli)")
    for module in ("rclpy.action", "example_interfaces.action", "ros2action"):
        try:
            __import__(module)
        except ImportError as e:
            missing.append(f"the Python module {module} ({e})")
    try:
        from ament_index_python.packages import PackageNotFoundError, get_package_prefix
        for rmw in ("rmw_cyclonedds_cpp", "rmw_fastrtps_cpp"):
            try:
                get_package_prefix(rmw)
            except PackageNotFoundError:
                missing.append(rmw)
    except ImportError as e:
        missing.append(f"ament_index_python ({e})")
    return missing


def main():
    if len(sys.argv) > 1:
        return server() if sys.argv[1] == "server" else client()
    missing = missing_parts()
    if missing:
        print("SKIPPED: ROS 2 actions on rmw_hdds. Why: this ROS 2 install lacks " + "; ".join(missing)
              + ". Install ros-humble-ros-core and the RMWs to run it.")
        return SKIP_CODE
    failed = 0

    def check(name, ok, detail):
        nonlocal failed
        print(f"{'ok  ' if ok else 'FAIL'} {name}: {detail}", flush=True)
        failed += not ok

    base = 120 + os.getpid() % 100
    for i, (server_rmw, client_rmw) in enumerate(RUNS):
        ok, msg = run(server_rmw, client_rmw, 120 + (base + i) % 100)
        check(f"action server on {server_rmw}, client on {client_rmw}", ok, msg)
    domain = 120 + (base + len(RUNS)) % 100
    hdds = env_for("rmw_hdds", domain)
    srv = Server("rmw_hdds", domain)
    # `ros2 action` has no --no-daemon. The daemon it would spawn detaches and idles for two hours,
    # so one is started here, bounded, and leaves 30 s after its last request (as in
    # test_ros2cli.py).
    daemon = subprocess.Popen(["timeout", "120", sys.executable, "-c",
                               "import sys; from ros2cli.daemon import main; sys.exit(main())",
                               "--rmw-implementation", "rmw_hdds", "--ros-domain-id", str(domain), "--timeout", "30"],
                              env=hdds, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        ros2_until(["daemon", "status"], hdds, r"The daemon is running")
        ok, out = ros2_until(["action", "list", "-t"], hdds, r"^/fibonacci \[example_interfaces/action/Fibonacci\]$")
        check("ros2 action list -t shows /fibonacci", ok, "" if ok else out)
        ok, out = ros2_until(["action", "info", "/fibonacci"], hdds, r"Action servers: 1\s*\n\s*/fibonacci_server")
        check("ros2 action info /fibonacci shows its server", ok, "" if ok else out)
        ok, out = ros2_until(["action", "send_goal", "/fibonacci", "example_interfaces/action/Fibonacci",
                              "{order: 4}"], hdds, r"Goal finished with status: SUCCEEDED")
        check("ros2 action send_goal succeeds", ok, "" if ok else out)
    finally:
        srv.stop()
        for sig in (signal.SIGINT, signal.SIGKILL):
            os.killpg(daemon.pid, sig)
            try:
                daemon.wait(5)
                break
            except subprocess.TimeoutExpired:
                pass
    print(f"ros-actions: {len(RUNS) + 3 - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
