// hdds_ros_floor: what any RMW pays for an rclcpp wake-up, without a data path.
//
// A trigger thread stores a steady-clock timestamp and triggers an rclcpp guard condition; an
// rclcpp SingleThreadedExecutor (which waits through the RMW under test: rmw_wait on that RMW's
// guard condition) wakes up and runs a Waitable that reads the timestamp. The latency of that
// hand-off is the floor an RMW's publish-to-callback latency can be compared with
// (bench/ros_compare.py runs it under each RMW at the rates of its matrix).
//
// Thread model: the trigger thread writes `stamp_ns_` then triggers; the executor thread (main)
// reads it in execute(). A guard condition is a flag, so a trigger that comes before the previous
// one was handled is coalesced: it is counted as lost (a trigger thread that wakes up late skips
// the periods it missed rather than sending them in a burst). With --rate 0 the trigger thread
// waits for each wake-up to be handled before the next (closed loop, no busy wait), so the rate
// measures how many wake-ups per second the executor and the RMW's wait set sustain.
//
// A wake-up the RMW loses would stall that closed loop for good (rmw_fastrtps_cpp with Fast DDS
// 2.9.1 does, in about one run in five: its executor sleeps on in rmw_wait with the trigger
// unhandled, and the run used to end with nothing measured). So a trigger not handled within
// kRearm is triggered again with a fresh stamp and counted in "rearmed": a lost wake-up, whose
// time is not a latency. A periodic trigger needs no such thing: the next period triggers again.
//
// Output: one JSON line on stdout with the samples taken after the warm-up.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "rclcpp/rclcpp.hpp"

namespace
{

int64_t now_ns()
{
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
    std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The executor-side end: a guard condition plus the latency it measures when woken.
class StampedWakeup : public rclcpp::Waitable
{
public:
  explicit StampedWakeup(rclcpp::Context::SharedPtr context)
  : gc_(std::move(context)) {}

  // Trigger thread.
  void trigger(int64_t stamp_ns, bool measured)
  {
    stamp_ns_.store(stamp_ns, std::memory_order_release);
    measured_.store(measured, std::memory_order_release);
    if (pending_.exchange(true) && measured) {
      ++coalesced_;
    }
    gc_.trigger();
  }

  // Trigger thread, closed loop: waits until the last trigger was handled (true) or the deadline.
  bool wait_handled(std::chrono::steady_clock::time_point deadline)
  {
    std::unique_lock<std::mutex> lock(mutex_);
    return handled_cv_.wait_until(lock, deadline, [this] {return !pending_.load();});
  }

  // Trigger thread, closed loop: the pending trigger's wake-up was lost: trigger again, stamped
  // now.
  void rearm(int64_t stamp_ns)
  {
    stamp_ns_.store(stamp_ns, std::memory_order_release);
    ++rearmed_;
    gc_.trigger();
  }

  size_t get_number_of_ready_guard_conditions() override {return 1;}

  void add_to_wait_set(rcl_wait_set_t * wait_set) override
  {
    gc_.add_to_wait_set(wait_set);
  }

  bool is_ready(rcl_wait_set_t * wait_set) override
  {
    const rcl_guard_condition_t * mine = &gc_.get_rcl_guard_condition();
    for (size_t i = 0; i < wait_set->size_of_guard_conditions; ++i) {
      if (wait_set->guard_conditions[i] == mine) {
        return true;
      }
    }
    return false;
  }

  std::shared_ptr<void> take_data() override {return nullptr;}

  void execute(std::shared_ptr<void> &) override
  {
    const int64_t now = now_ns();
    if (!pending_.load()) {
      return;  // a spurious wake-up: nothing was triggered since the last one was handled
    }
    const int64_t stamp = stamp_ns_.load(std::memory_order_acquire);
    if (measured_.load(std::memory_order_acquire)) {
      latencies_ns_.push_back(now - stamp);
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      pending_.store(false);
    }
    handled_cv_.notify_one();
  }

  std::vector<int64_t> & latencies() {return latencies_ns_;}
  uint64_t coalesced() const {return coalesced_.load();}
  uint64_t rearmed() const {return rearmed_.load();}

private:
  rclcpp::GuardCondition gc_;
  std::atomic<int64_t> stamp_ns_{0};
  std::atomic<bool> measured_{false};
  std::atomic<bool> pending_{false};
  std::atomic<uint64_t> coalesced_{0};
  std::atomic<uint64_t> rearmed_{0};
  std::mutex mutex_;
  std::condition_variable handled_cv_;
  std::vector<int64_t> latencies_ns_;  // executor thread only, read after it stopped
};

// How long a closed-loop trigger may stay unhandled before it is taken for a lost wake-up: far
// above any wake-up seen here (the largest, 4 ms, under a stall of the VM), far below the run.
// bench/ros_compare_report.py quotes it under the floor table.
constexpr std::chrono::milliseconds kRearm{100};

struct Options
{
  double rate_hz = 1000.0;  // 0 = as fast as possible, closed loop
  double runtime_s = 10.0;
  double warmup_s = 2.0;
};

[[noreturn]] void usage(const char * msg)
{
  std::fprintf(
    stderr,
    "%s\nusage: hdds_ros_floor [--rate HZ (0 = as fast as possible)] [--runtime S] [--warmup S]\n"
    "Runtime includes the warm-up; results are printed as one JSON line.\n", msg);
  std::exit(2);
}

Options parse(int argc, char ** argv)
{
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      usage("hdds_ros_floor: rclcpp guard-condition wake-up latency floor");
    }
    if (i + 1 >= argc) {
      usage(("missing value after " + a).c_str());
    }
    char * end = nullptr;
    const double v = std::strtod(argv[++i], &end);
    if (end == argv[i] || *end != '\0' || v < 0) {
      usage(("not a non-negative number: " + std::string(argv[i])).c_str());
    }
    if (a == "--rate") {
      o.rate_hz = v;
    } else if (a == "--runtime") {
      o.runtime_s = v;
    } else if (a == "--warmup") {
      o.warmup_s = v;
    } else {
      usage(("unknown option " + a).c_str());
    }
  }
  if (o.warmup_s >= o.runtime_s) {
    usage("--warmup must be shorter than --runtime");
  }
  return o;
}

}  // namespace

int main(int argc, char ** argv)
{
  const Options opt = parse(argc, argv);
  // rclcpp must not see our options as ROS arguments.
  char * ros_argv[] = {argv[0]};
  rclcpp::init(1, ros_argv);
  auto node = std::make_shared<rclcpp::Node>("hdds_ros_floor");
  auto wakeup = std::make_shared<StampedWakeup>(node->get_node_base_interface()->get_context());
  node->get_node_waitables_interface()->add_waitable(wakeup, nullptr);

  rclcpp::executors::SingleThreadedExecutor executor;
  executor.add_node(node);

  uint64_t sent = 0;
  std::chrono::steady_clock::time_point measure_start, measure_end;
  std::thread trigger_thread([&] {
      using clock = std::chrono::steady_clock;
      const auto start = clock::now();
      measure_start = start + std::chrono::duration_cast<clock::duration>(
        std::chrono::duration<double>(opt.warmup_s));
      const auto end = start + std::chrono::duration_cast<clock::duration>(
        std::chrono::duration<double>(opt.runtime_s));
      const auto period = opt.rate_hz > 0 ?
      std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(1.0 / opt.rate_hz)) :
      clock::duration::zero();
      auto next = start;
      while (rclcpp::ok()) {
        if (opt.rate_hz > 0) {
          // A thread woken late does not catch up with a burst of triggers (they would coalesce):
          // it keeps the rate from now on.
          next = std::max(next + period, clock::now());
          std::this_thread::sleep_until(next);
        } else {
          while (!wakeup->wait_handled(std::min(end, clock::now() + kRearm)) &&
            clock::now() < end)
          {
            wakeup->rearm(now_ns());
          }
        }
        const auto t = clock::now();
        if (t >= end) {
          break;
        }
        const bool measured = t >= measure_start;
        sent += measured ? 1 : 0;
        wakeup->trigger(now_ns(), measured);
      }
      measure_end = clock::now();
      // Let the last wake-up be handled before stopping the executor.
      wakeup->wait_handled(measure_end + std::chrono::milliseconds(100));
      executor.cancel();
    });
  executor.spin();
  trigger_thread.join();

  std::vector<int64_t> & lat = wakeup->latencies();
  const double window_s = std::chrono::duration<double>(measure_end - measure_start).count();
  double mean_us = 0, max_us = 0, p99_us = 0;
  if (!lat.empty()) {
    int64_t sum = 0;
    for (int64_t l : lat) {
      sum += l;
    }
    mean_us = static_cast<double>(sum) / static_cast<double>(lat.size()) / 1e3;
    max_us = static_cast<double>(*std::max_element(lat.begin(), lat.end())) / 1e3;
    const size_t k = std::min(lat.size() - 1, lat.size() * 99 / 100);
    std::nth_element(lat.begin(), lat.begin() + static_cast<std::ptrdiff_t>(k), lat.end());
    p99_us = static_cast<double>(lat[k]) / 1e3;
  }
  std::printf(
    "{\"rate_hz\": %g, \"window_s\": %.3f, \"sent\": %llu, \"received\": %zu, \"lost\": %llu, "
    "\"rearmed\": %llu, \"latency_mean_us\": %.3f, \"latency_p99_us\": %.3f, "
    "\"latency_max_us\": %.3f}\n",
    opt.rate_hz, window_s, static_cast<unsigned long long>(sent), lat.size(),
    static_cast<unsigned long long>(wakeup->coalesced()),
    static_cast<unsigned long long>(wakeup->rearmed()), mean_us, p99_us, max_us);
  std::fflush(stdout);
  rclcpp::shutdown();
  if (lat.empty()) {
    std::fprintf(stderr, "hdds_ros_floor: no wake-up was measured (is the RMW working?)\n");
    return 1;
  }
  return 0;
}
