#!/usr/bin/env python3
# Copyright 2026 The rmw_hdds authors. Apache-2.0.
"""The ros2 command line and a Python (rclpy) node on rmw_hdds, as a ROS 2 user meets them.

Every check runs real programs with RMW_IMPLEMENTATION=rmw_hdds (loopback only, in a domain of
the test's own) and reads what they print:
- `ros2 node list`, `ros2 node info`, `ros2 topic list -t`, `ros2 topic info --verbose`,
  `ros2 service list -t`, without the daemon and through it;
- `ros2 topic echo --once` hearing demo_nodes_cpp's talker; `ros2 topic pub` heard by its listener;
- `ros2 service call` against add_two_ints_server; `ros2 param list` / `get` / `set` on the
  talker (rclpy's service clients against rclcpp's parameter services);
- demo_nodes_py's talker (rclpy) heard by the C++ listener;
- `ros2 launch launch/talker_listener.launch.py`, the talker on rmw_hdds and the listener on
  rmw_cyclonedds_cpp;
- the same graph seen across middlewares: `ros2 node list` on rmw_cyclonedds_cpp and on
  rmw_fastrtps_cpp lists a node on rmw_hdds, and `ros2 topic echo` on rmw_hdds hears a talker on
  rmw_cyclonedds_cpp.

rclpy, ros2cli and ros2launch are optional parts of an install (ros-humble-ros-core has them, a
hand-built core may not): without them this test exits with SKIP_CODE (77, ctest's
SKIP_RETURN_CODE in test/rmw/CMakeLists.txt) and says which is missing.

Usage: test_ros2cli.py   (run by ctest with the ROS environment and librmw_hdds on the path)
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import time

SKIP_CODE = 77
# Bounds each ros2 command; a command that discovers nothing returns well before it.
COMMAND_TIMEOUT = 30
# How long a list may take to show a node that has just started (discovery's first rounds).
DISCOVERY_TIMEOUT = 15

# Every program the checks start (missing_parts makes sure each is installed).
PROGRAMS = [("demo_nodes_cpp", "talker"), ("demo_nodes_cpp", "listener"),
            ("demo_nodes_cpp", "add_two_ints_server"), ("demo_nodes_py", "talker")]

failures = []


def env_for(rmw, domain):
    env = dict(os.environ)
    env.update({
        "RMW_IMPLEMENTATION": rmw,
        "ROS_LOCALHOST_ONLY": "1",
        "ROS_DOMAIN_ID": str(domain),
        "RCUTILS_LOGGING_BUFFERED_STREAM": "0",
        "PYTHONUNBUFFERED": "1",
    })
    return env


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name, flush=True)
    if not ok:
        failures.append(name)
        if detail:
            print("     " + detail.replace("\n", "\n     "), flush=True)


class Node:
    """A ROS program in the background, its output collected in a file, stopped with SIGINT."""

    def __init__(self, argv, env, log_dir, name, bound=120):
        self.path = os.path.join(log_dir, name + ".log")
        self.log = open(self.path, "w")
        # `timeout` bounds the program even if this test dies before stopping it.
        self.proc = subprocess.Popen(["timeout", str(bound)] + argv, env=env, stdout=self.log,
                                     stderr=subprocess.STDOUT, start_new_session=True)

    def output(self):
        with open(self.path) as f:
            return f.read()

    def mark(self):
        """Where its output ends now: wait_for(..., since=mark) looks only at what follows."""
        return len(self.output())

    def wait_for(self, pattern, timeout, since=0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if re.search(pattern, self.output()[since:]):
                return True
            time.sleep(0.1)
        return False

    def stop(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGINT)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.log.close()


def ros2(args, env, timeout=COMMAND_TIMEOUT):
    """Runs `ros2 ARGS`; returns (exit code, stdout + stderr)."""
    try:
        r = subprocess.run(["ros2"] + args, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=timeout)
        return r.returncode, r.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        return -1, out + f"\n(timed out after {timeout} s)"


def ros2_until(args, env, pattern, timeout=DISCOVERY_TIMEOUT):
    """Runs `ros2 ARGS` until its output matches PATTERN (discovery may need a few rounds)."""
    deadline = time.monotonic() + timeout
    while True:
        rc, out = ros2(args, env)
        if rc == 0 and re.search(pattern, out, re.M):
            return True, out
        if time.monotonic() > deadline:
            return False, f"exit code {rc}, output:\n{out}"
        time.sleep(0.5)


def missing_parts():
    missing = []
    if shutil.which("ros2") is None:
        missing.append("the ros2 command (ros2cli)")
    for module in ("rclpy", "ros2topic", "ros2node", "ros2service", "ros2param", "ros2launch",
                   "launch_ros", "std_msgs.msg", "example_interfaces.srv"):
        try:
            __import__(module)
        except ImportError as e:
            missing.append(f"the Python module {module} ({e})")
    for pkg, exe in PROGRAMS:
        if demo(pkg, exe) is None:
            missing.append(f"{pkg}'s {exe}")
    return missing


def demo(pkg, exe):
    """The argv of package PKG's program EXE, or None where it is not installed."""
    try:
        from ament_index_python.packages import PackageNotFoundError, get_package_prefix
    except ImportError:
        return None
    try:
        path = os.path.join(get_package_prefix(pkg), "lib", pkg, exe)
    except PackageNotFoundError:
        return None
    return [path] if os.path.exists(path) else None


def main():
    missing = missing_parts()
    if missing:
        print("SKIPPED: the ros2 command line and rclpy on rmw_hdds. Why: this ROS 2 install lacks "
              + "; ".join(missing) + ". Install ros-humble-ros-core (or build rclpy, ros2cli, launch_ros, ros2launch "
              "and demo_nodes_py) to run it.")
        return SKIP_CODE
    log_dir = os.environ.get("HDDS_ROS2CLI_LOG_DIR") or os.path.join(os.getcwd(), "ros2cli_logs")
    os.makedirs(log_dir, exist_ok=True)
    domain = 20 + os.getpid() % 80
    hdds = env_for("rmw_hdds", domain)
    nodes = []

    def start(argv, env, name, bound=120):
        n = Node(argv, env, log_dir, name, bound)
        nodes.append(n)
        return n

    try:
        # The ros2 daemon, started here rather than by the first ros2 command: a daemon that a
        # command spawns detaches and idles for two hours, and would outlive this test were ctest
        # to kill it (SIGKILL, no `finally`). This one is bounded like the nodes (by ctest's 300 s
        # TIMEOUT) and leaves after 30 s without a request.
        start([sys.executable, "-c", "import sys; from ros2cli.daemon import main; sys.exit(main())",
               "--rmw-implementation", "rmw_hdds", "--ros-domain-id", str(domain), "--timeout", "30"],
              hdds, "ros2_daemon", bound=300)
        ok, out = ros2_until(["daemon", "status"], hdds, r"The daemon is running")
        check("the ros2 daemon runs on rmw_hdds", ok, out)
        talker = start(demo("demo_nodes_cpp", "talker"), hdds, "talker")
        start(demo("demo_nodes_cpp", "add_two_ints_server"), hdds, "server")
        check("the C++ talker publishes on rmw_hdds",
              talker.wait_for(r"Publishing: 'Hello World: \d+'", 10), talker.output())
        if failures:
            print(f"a node on rmw_hdds does not start: no further check can pass (logs: {log_dir})")
            return 1

        ok, out = ros2_until(["node", "list", "--no-daemon"], hdds, r"^/talker$")
        check("ros2 node list (no daemon) shows /talker", ok, out)
        ok, out = ros2_until(["node", "list", "--no-daemon"], hdds, r"^/add_two_ints_server$")
        check("ros2 node list (no daemon) shows /add_two_ints_server", ok, out)
        ok, out = ros2_until(["topic", "list", "-t", "--no-daemon"], hdds,
                             r"^/chatter \[std_msgs/msg/String\]$")
        check("ros2 topic list -t shows /chatter [std_msgs/msg/String]", ok, out)
        ok, out = ros2_until(["topic", "info", "/chatter", "--verbose", "--no-daemon"], hdds,
                             r"Node name: talker(.|\n)*Endpoint type: PUBLISHER(.|\n)*"
                             r"Reliability: RELIABLE(.|\n)*Durability: VOLATILE")
        check("ros2 topic info --verbose names the talker and its QoS", ok, out)
        ok, out = ros2_until(["node", "info", "/talker", "--no-daemon"], hdds,
                             r"Publishers:(.|\n)*/chatter: std_msgs/msg/String(.|\n)*"
                             r"Service Servers:(.|\n)*/talker/get_parameters")
        check("ros2 node info /talker lists its publisher and parameter services", ok, out)
        ok, out = ros2_until(["service", "list", "-t", "--no-daemon"], hdds,
                             r"^/add_two_ints \[example_interfaces/srv/AddTwoInts\]$")
        check("ros2 service list -t shows /add_two_ints", ok, out)

        rc, out = ros2(["topic", "echo", "/chatter", "--once"], hdds)
        check("ros2 topic echo --once hears the talker",
              rc == 0 and re.search(r"data: '?Hello World: \d+", out) is not None, out)

        rc, out = ros2(["service", "call", "/add_two_ints", "example_interfaces/srv/AddTwoInts",
                        "{a: 2, b: 40}"], hdds)
        check("ros2 service call /add_two_ints answers sum=42",
              rc == 0 and "sum=42" in out, out)

        rc, out = ros2(["param", "list", "/talker"], hdds)
        check("ros2 param list /talker shows use_sim_time",
              rc == 0 and re.search(r"^\s*use_sim_time$", out, re.M) is not None, out)
        rc, out = ros2(["param", "set", "/talker", "use_sim_time", "true"], hdds)
        check("ros2 param set /talker use_sim_time true succeeds",
              rc == 0 and "Set parameter successful" in out, out)
        rc, out = ros2(["param", "get", "/talker", "use_sim_time"], hdds)
        check("ros2 param get /talker use_sim_time reads it back as True",
              rc == 0 and "Boolean value is: True" in out, out)

        listener = start(demo("demo_nodes_cpp", "listener"), hdds, "listener")
        ok, out = ros2_until(["topic", "info", "/chatter", "--no-daemon"], hdds,
                             r"Subscription count: [1-9]")
        check("ros2 topic info counts the listener", ok, out)
        talker.stop()
        # The listener subscribes to /chatter; with the C++ talker stopped, the command line
        # publishes there.
        since = listener.mark()
        rc, out = ros2(["topic", "pub", "-t", "4", "-r", "2", "/chatter", "std_msgs/msg/String",
                        "{data: from the command line}"], hdds)
        check("the C++ listener hears ros2 topic pub",
              rc == 0 and listener.wait_for(r"I heard: \[from the command line\]", 5, since),
              out + "\nlistener said:\n" + listener.output())
        # rclpy's talker and a second C++ listener on a topic of their own.
        remap = ["--ros-args", "-r", "chatter:=py_chatter"]
        py_listener = start(demo("demo_nodes_cpp", "listener") + remap, hdds, "py_listener")
        py_talker = start(demo("demo_nodes_py", "talker") + remap, hdds, "py_talker")
        check("the C++ listener hears demo_nodes_py's talker (rclpy on rmw_hdds)",
              py_listener.wait_for(r"I heard: \[Hello World: \d+\]", 15),
              "listener said:\n" + py_listener.output() + "\ntalker said:\n"
              + py_talker.output())
        py_talker.stop()

        launch_file = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                   "launch", "talker_listener.launch.py")
        launched = start(["ros2", "launch", launch_file, "talker_rmw:=rmw_hdds",
                          "listener_rmw:=rmw_cyclonedds_cpp"], hdds, "launch")
        check("ros2 launch talker_listener.launch.py: rmw_cyclonedds_cpp hears rmw_hdds",
              launched.wait_for(r"\[listener-\d+\] .*I heard: \[Hello World: \d+\]", 20),
              launched.output())
        launched.stop()

        for other in ("rmw_cyclonedds_cpp", "rmw_fastrtps_cpp"):
            ok, out = ros2_until(["node", "list", "--no-daemon"], env_for(other, domain),
                                 r"^/add_two_ints_server$")
            check(f"ros2 node list on {other} shows a node on rmw_hdds", ok, out)
        cyclone_talker = start(demo("demo_nodes_cpp", "talker"),
                               env_for("rmw_cyclonedds_cpp", domain), "cyclone_talker")
        rc, out = ros2(["topic", "echo", "/chatter", "--once"], hdds)
        check("ros2 topic echo on rmw_hdds hears a talker on rmw_cyclonedds_cpp",
              rc == 0 and re.search(r"data: '?Hello World: \d+", out) is not None,
              out + "\ntalker said:\n" + cyclone_talker.output())
        cyclone_talker.stop()

        # The daemon: what `ros2 node list` and `ros2 topic list` use by default (the one
        # started above, a process of its own on rmw_hdds), stopped at the end.
        ok, out = ros2_until(["node", "list"], hdds, r"^/add_two_ints_server$")
        check("ros2 node list through the daemon shows /add_two_ints_server", ok, out)
        ok, out = ros2_until(["topic", "list"], hdds, r"^/chatter$")
        check("ros2 topic list through the daemon shows /chatter", ok, out)
    finally:
        ros2(["daemon", "stop"], hdds)
        for n in nodes:
            n.stop()

    if failures:
        # The log folder lies in the build tree, which a CI run deletes: the end of each
        # program's output goes into the test's own output too.
        for n in nodes:
            tail = n.output().splitlines()[-15:]
            print(f"---- the last {len(tail)} lines of {n.path}:\n" + "\n".join(tail))
        print(f"{len(failures)} check(s) failed: " + "; ".join(failures)
              + f". The programs' output is in {log_dir}.")
        return 1
    print("every check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
