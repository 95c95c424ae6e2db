"""How bench/ros_compare.py measures a run's processes: it starts them under `timeout`, finds the
program `timeout` forked, and samples their CPU time (each thread's schedstat, ns; the process's
clock ticks where a thread ended) and memory (PSS from smaps_rollup, plus /dev/shm files created
during the run that no measured process maps) over the measured window."""

import os
import subprocess
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")


def child_of(timeout_pid, deadline=2.0):
    """The pid of the program `timeout` runs (timeout forks it)."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        try:
            with open(f"/proc/{timeout_pid}/task/{timeout_pid}/children") as f:
                kids = f.read().split()
            if kids:
                return int(kids[0])
        except OSError:
            return None
        time.sleep(0.005)
    return None


def cpu_ticks(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime + stime (fields 14 and 15)
    except (OSError, IndexError, ValueError):
        return None


def thread_cpu_ns(pid):
    """CPU time of each live thread of `pid`, ns (the first field of /proc/PID/task/TID/schedstat),
    or None where the kernel has no schedstat. /proc/PID/stat counts in clock ticks (10 ms): over a
    3.4 s window a process at 2 % of a core gets 6 or 7 ticks, a 15 % step that decided ties."""
    try:
        out = {}
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                    out[tid] = int(f.read().split()[0])
            except (OSError, IndexError, ValueError):
                continue  # the thread ended meanwhile
        return out or None
    except OSError:
        return None


def pss_kib(pid):
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def shm_files():
    out = {}
    for name in os.listdir("/dev/shm"):
        path = os.path.join("/dev/shm", name)
        try:
            st = os.stat(path)
        except OSError:
            continue
        out[path] = st.st_blocks * 512
    return out


def mapped_paths(pid):
    paths = set()
    try:
        with open(f"/proc/{pid}/maps") as f:
            for line in f:
                parts = line.split(None, 5)
                if len(parts) == 6 and parts[5].startswith("/dev/shm/"):
                    paths.add(parts[5].strip().replace(" (deleted)", ""))
    except OSError:
        pass
    return paths


class Run:
    """Starts the processes of one run, samples CPU and memory over the measured window."""

    def __init__(self, workdir, env):
        self.workdir, self.env = workdir, env
        self.procs = []  # (role, Popen of timeout, pid of the program, stdout path, stderr path)
        # /dev/shm before any process of the run starts: what appears later is the run's.
        self.shm_before = shm_files()

    def start(self, role, argv, limit_s):
        out = open(os.path.join(self.workdir, f"{role}.out"), "w")
        err = open(os.path.join(self.workdir, f"{role}.err"), "w")
        p = subprocess.Popen(
            ["timeout", "-k", "5", str(int(limit_s)), *argv],
            stdout=out,
            stderr=err,
            env=self.env,
            cwd=self.workdir,
        )
        out.close()
        err.close()
        self.procs.append((role, p, child_of(p.pid), out.name, err.name))

    def pids(self):
        return [pid for _, p, pid, _, _ in self.procs if pid and p.poll() is None]

    def sample_cpu(self):
        return {pid: (cpu_ticks(pid), thread_cpu_ns(pid)) for pid in self.pids()}, time.monotonic()

    def sample_memory(self):
        pids = self.pids()
        pss = [pss_kib(pid) for pid in pids]
        mapped = set().union(*(mapped_paths(pid) for pid in pids)) if pids else set()
        extra = sum(
            size
            for path, size in shm_files().items()
            if path not in self.shm_before and path not in mapped
        )
        known = [v for v in pss if v is not None]
        return (sum(known) + extra // 1024) if known else None

    def wait(self, limit_s):
        end = time.monotonic() + limit_s
        results = {}
        for role, p, _, out, err in self.procs:
            try:
                rc = p.wait(timeout=max(0.1, end - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                rc = p.wait()
            with open(err, errors="replace") as f:
                err_tail = f.read()[-600:]
            with open(out, errors="replace") as f:
                stdout = f.read()
            results[role] = dict(rc=rc, stdout=stdout, stderr_tail=err_tail)
        return results


def cpu_percent(before, after):
    """CPU of the processes between two samples, % of one core: from the threads' schedstat (ns)
    when every thread of the first sample is still there, else from the process's ticks (a thread
    that ended took its time with it; the ticks kept it). Returns (percent, clock used)."""
    (b, tb), (a, ta) = before, after
    total_ns, clock = 0, "schedstat"
    for pid, (ticks, threads) in a.items():
        if pid not in b or ticks is None or b[pid][0] is None:
            return None, None
        b_ticks, b_threads = b[pid]
        if threads is not None and b_threads is not None and set(b_threads) <= set(threads):
            total_ns += sum(threads.values()) - sum(b_threads.values())
        else:
            total_ns += (ticks - b_ticks) * 1e9 / CLK_TCK
            clock = "ticks"
    return 100.0 * total_ns / 1e9 / max(ta - tb, 1e-3), clock


def measure(run, t0, warmup, runtime):
    """Sleeps through the run; returns (cpu %, the CPU clock used, memory KiB) over the measured
    window."""
    time.sleep(max(0.0, t0 + warmup - time.monotonic()))
    before = run.sample_cpu()
    time.sleep(max(0.0, t0 + runtime - 0.6 - time.monotonic()))
    after = run.sample_cpu()
    cpu, clock = cpu_percent(before, after)
    return cpu, clock, run.sample_memory()
