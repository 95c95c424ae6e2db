// rmw_latency_probe: where a sample's publish-to-callback time goes, in one process or two.
//
// An LD_PRELOAD library that stamps the monotonic clock at the RMW and rcl calls an rclcpp
// executor makes for one sample, relative to the start of the sample's publish, and prints the
// distribution of each stage at exit (stderr, one line per stage). Any RMW: it interposes only
// the rmw_* and rcl_* entry points, which every RMW and rcl export.
//
//   cc -O2 -shared -fPIC -o /tmp/rmw_latency_probe.so bench/probe/rmw_latency_probe.c -ldl
//   LD_PRELOAD=/tmp/rmw_latency_probe.so perf_test -c rclcpp-single-threaded-executor
//     -m Array1k -r 1000 -p 1 -s 1 --max-runtime 8 ...   (one command line)
//   PROBE_START=trigger LD_PRELOAD=/tmp/rmw_latency_probe.so hdds_ros_floor --rate 1000 ...
//
// Two processes (perf_test -p 1 -s 0 and -p 0 -s 1): give both the same PROBE_SHARED=FILE (a
// file that either creates, e.g. under /dev/shm; remove it after): the sample's start and the
// publisher's CPU then live there, the publisher prints the stages it sees (publish_ret,
// sched_yield) and the subscriber the rest, and the subscriber also prints on how many samples
// its executor's rmw_wait returned on the CPU the publisher had published from ("same_cpu").
//
// Stages, each the time since the sample's start (rmw_publish's entry; with PROBE_START=trigger,
// rmw_trigger_guard_condition's):
//   publish_ret       rmw_publish returns (only recorded while the sample is not yet taken)
//   sched_yield       the publishing thread yields (rmw_hdds's hand-over; absent when the woken
//                     thread preempted the publisher at the wake-up itself, then ran first)
//   rmw_wait_ret      the executor's rmw_wait returns
//   rcl_wait_ret      rcl_wait returns (rcl's own bookkeeping after rmw_wait)
//   rcl_take_in       rclcpp calls rcl_take (rclcpp's executor: find the ready entity, make the
//                     message)
//   rmw_take_in/out   the RMW's take
//   callback          the executor thread's first std::chrono::steady_clock::now() after the take
//                     (the floor: after the wait): where perf_test's callback and hdds_ros_floor's
//                     execute() read the clock
// The first fifth of the samples (warm-up) is dropped.
//
// Thread model: one publishing thread and one executor thread (perf_test -p 1 -s 1, or the
// floor; or one of each in two processes). The start is a global (or PROBE_SHARED's word) the
// publisher stores and the executor reads; a sample is closed
// (start cleared) at its callback, so wait returns that are not a sample's (rclcpp's interrupt
// guard condition) are not counted. The clock reads cost ~25 ns each on this project's VMs.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

enum { PUBLISH_RET, YIELD, WAIT_RET, RCL_WAIT_RET, RCL_TAKE_IN, TAKE_IN, TAKE_OUT, CALLBACK, STAGES };
static const char * const kNames[STAGES] = {
  "publish_ret", "sched_yield", "rmw_wait_ret", "rcl_wait_ret", "rcl_take_in", "rmw_take_in", "rmw_take_out",
  "callback"};
#define MAX_SAMPLES 200000

static int64_t g_values[STAGES][MAX_SAMPLES];
static atomic_int g_count[STAGES];
// The sample in flight: its start (0: none) and the CPU it was published from. In this process,
// or with PROBE_SHARED in a file both processes map.
struct shared_state {_Atomic int64_t start; _Atomic int publisher_cpu;};
static struct shared_state g_local;
static struct shared_state * g_state;
static long g_waits_seen, g_waits_same_cpu;  // the executor's thread only

static struct shared_state * state(void)
{
  if (g_state == NULL) {
    struct shared_state * s = &g_local;
    const char * path = getenv("PROBE_SHARED");
    if (path != NULL) {
      const int fd = open(path, O_RDWR | O_CREAT, 0600);
      void * m = MAP_FAILED;
      if (fd >= 0 && ftruncate(fd, sizeof *s) == 0) {
        m = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      }
      if (m == MAP_FAILED) {
        fprintf(stderr, "probe: PROBE_SHARED=%s cannot be mapped: one-process mode\n", path);
      } else {
        s = m;
      }
      if (fd >= 0) {
        close(fd);
      }
    }
    g_state = s;
  }
  return g_state;
}
#define g_start (state()->start)
// The next clock reading of this thread is the callback's: set when a take returned a sample
// (the floor: when rmw_wait returned). Not before: RMWs read the steady clock inside their own
// wait and take (Fast DDS does).
static __thread int t_armed;
static __thread int t_waits;  // this thread waits in rmw_wait: an executor

static int64_t now_ns(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void record(int stage, int64_t t)
{
  const int64_t start = atomic_load(&g_start);
  if (start == 0) {
    return;
  }
  const int i = atomic_fetch_add(&g_count[stage], 1);
  if (i < MAX_SAMPLES) {
    g_values[stage][i] = t - start;
  }
}

// Whether samples start at the guard condition's trigger (PROBE_START=trigger), read once.
static int starts_at_trigger(void)
{
  static int mode = -1;
  if (mode < 0) {
    const char * v = getenv("PROBE_START");
    mode = v != NULL && strcmp(v, "trigger") == 0;
  }
  return mode;
}

// The next definition of `fn` (the real one), looked up once; a function pointer of fn's own type.
#define NEXT(fn) \
  static __typeof__(&fn) next_fn; \
  if (!next_fn) {next_fn = (__typeof__(&fn))dlsym(RTLD_NEXT, #fn);}

// The RMW and rcl entry points, with their C signatures' pointers as void * (passed through).
int rmw_publish(const void * publisher, const void * msg, void * allocation)
{
  NEXT(rmw_publish);
  if (!starts_at_trigger()) {
    atomic_store(&state()->publisher_cpu, sched_getcpu());
    atomic_store(&g_start, now_ns());
  }
  const int r = next_fn(publisher, msg, allocation);
  record(PUBLISH_RET, now_ns());
  return r;
}

int rmw_trigger_guard_condition(const void * gc)
{
  NEXT(rmw_trigger_guard_condition);
  // Not the executor's own triggers (rclcpp triggers its interrupt guard condition after each
  // callback): only another thread's trigger starts a sample.
  if (starts_at_trigger() && !t_waits) {
    atomic_store(&g_start, now_ns());
  }
  return next_fn(gc);
}

int sched_yield(void)
{
  NEXT(sched_yield);
  record(YIELD, now_ns());
  return next_fn();
}

int rmw_wait(void * s, void * g, void * sv, void * c, void * e, void * ws, const void * timeout)
{
  NEXT(rmw_wait);
  // A new wait ends the last sample's window: a clock reading inside the wait (Fast DDS reads
  // one) is not a callback's, even when the last take's callback read no clock.
  t_armed = 0;
  const int r = next_fn(s, g, sv, c, e, ws, timeout);
  record(WAIT_RET, now_ns());
  if (atomic_load(&g_start) != 0) {
    ++g_waits_seen;
    g_waits_same_cpu += sched_getcpu() == atomic_load(&state()->publisher_cpu);
  }
  t_waits = 1;
  if (starts_at_trigger()) {
    t_armed = 1;
  }
  return r;
}

int rcl_wait(void * wait_set, int64_t timeout)
{
  NEXT(rcl_wait);
  const int r = next_fn(wait_set, timeout);
  record(RCL_WAIT_RET, now_ns());
  return r;
}

int rcl_take(const void * sub, void * msg, void * info, void * allocation)
{
  NEXT(rcl_take);
  record(RCL_TAKE_IN, now_ns());
  return next_fn(sub, msg, info, allocation);
}

int rmw_take_with_info(const void * sub, void * msg, bool * taken, void * info, void * allocation)
{
  NEXT(rmw_take_with_info);
  record(TAKE_IN, now_ns());
  const int r = next_fn(sub, msg, taken, info, allocation);
  record(TAKE_OUT, now_ns());
  if (*taken) {
    t_armed = 1;
  }
  return r;
}

// std::chrono::steady_clock::now() (libstdc++), which perf_test and the floor read the
// callback's time with: the same clock, read the same way.
struct steady_time_point {int64_t ns;};
struct steady_time_point _ZNSt6chrono3_V212steady_clock3nowEv(void)
{
  const int64_t t = now_ns();
  if (t_armed && atomic_load(&g_start) != 0) {
    record(CALLBACK, t);
    atomic_store(&g_start, 0);
    t_armed = 0;
  }
  return (struct steady_time_point){t};
}

static int compare(const void * a, const void * b)
{
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

__attribute__((destructor)) static void report(void)
{
  if (g_waits_seen > 0) {
    fprintf(stderr, "probe same_cpu %ld of %ld\n", g_waits_same_cpu, g_waits_seen);
  }
  for (int s = 0; s < STAGES; ++s) {
    int n = atomic_load(&g_count[s]);
    n = n < MAX_SAMPLES ? n : MAX_SAMPLES;
    const int skip = n / 5;
    int64_t * v = g_values[s] + skip;
    const int m = n - skip;
    if (m <= 0) {
      continue;
    }
    qsort(v, (size_t)m, sizeof *v, compare);
    double sum = 0;
    for (int i = 0; i < m; ++i) {
      sum += (double)v[i];
    }
    fprintf(
      stderr, "probe %-13s n=%6d mean %7.2f p10 %7.2f p50 %7.2f p90 %7.2f us\n", kNames[s], m,
      sum / m / 1e3, v[m / 10] / 1e3, v[m / 2] / 1e3, v[m * 9 / 10] / 1e3);
  }
}
