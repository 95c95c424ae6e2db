// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// Guard conditions and wait sets through the rmw API: readiness, reset, time-outs, waking from
// another thread, and the graph guard condition.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "rmw/error_handling.h"
#include "rmw/rmw.h"
#include "rmw_test_fixtures.hpp"
#include "test_msgs/msg/basic_types.h"

using rmw_test::take_error;
using Clock = std::chrono::steady_clock;

namespace
{
// One wait over up to one subscription and two guard conditions; the arrays are rebuilt each
// call as rcl does.
struct Waiter
{
  rmw_wait_set_t * ws;
  void * subs[1];
  void * gcs[2];
  rmw_subscriptions_t subscriptions{0, subs};
  rmw_guard_conditions_t guards{0, gcs};

  rmw_ret_t wait(
    rmw_subscription_t * sub, const rmw_guard_condition_t * g1, const rmw_guard_condition_t * g2,
    const rmw_time_t * timeout)
  {
    subscriptions.subscriber_count = 0;
    guards.guard_condition_count = 0;
    if (sub != nullptr) {
      subs[subscriptions.subscriber_count++] = sub->data;
    }
    for (const rmw_guard_condition_t * g : {g1, g2}) {
      if (g != nullptr) {
        gcs[guards.guard_condition_count++] = g->data;
      }
    }
    return rmw_wait(&subscriptions, &guards, nullptr, nullptr, nullptr, ws, timeout);
  }
};

double ms_since(Clock::time_point start)
{
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}
}  // namespace

TEST(WaitSet, TimeoutsAreHonoured)
{
  rmw_test::Context ctx;
  ASSERT_TRUE(ctx.ok());
  rmw_wait_set_t * ws = rmw_create_wait_set(ctx.get(), 4);
  ASSERT_NE(nullptr, ws) << take_error();
  rmw_guard_condition_t * gc = rmw_create_guard_condition(ctx.get());
  ASSERT_NE(nullptr, gc) << take_error();
  Waiter w{ws, {}, {}};

  rmw_time_t zero{0, 0};
  auto start = Clock::now();
  EXPECT_EQ(RMW_RET_TIMEOUT, w.wait(nullptr, gc, nullptr, &zero));
  EXPECT_LT(ms_since(start), 50.0);
  EXPECT_EQ(nullptr, w.gcs[0]);  // not ready: cleared

  rmw_time_t hundred_ms{0, 100000000};
  start = Clock::now();
  EXPECT_EQ(RMW_RET_TIMEOUT, w.wait(nullptr, gc, nullptr, &hundred_ms));
  EXPECT_GE(ms_since(start), 95.0);
  EXPECT_LT(ms_since(start), 1000.0);

  // Nothing to wait on: it sleeps for the time-out.
  start = Clock::now();
  EXPECT_EQ(RMW_RET_TIMEOUT, rmw_wait(nullptr, nullptr, nullptr, nullptr, nullptr, ws, &hundred_ms));
  EXPECT_GE(ms_since(start), 95.0);

  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_wait(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, &zero));
  rmw_reset_error();
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_guard_condition(gc));
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_wait_set(ws));
}

TEST(WaitSet, GuardConditionsWakeAndAreResetByTheWaitThatSawThem)
{
  rmw_test::Context ctx;
  ASSERT_TRUE(ctx.ok());
  rmw_wait_set_t * ws = rmw_create_wait_set(ctx.get(), 2);
  ASSERT_NE(nullptr, ws) << take_error();
  rmw_guard_condition_t * a = rmw_create_guard_condition(ctx.get());
  rmw_guard_condition_t * b = rmw_create_guard_condition(ctx.get());
  ASSERT_NE(nullptr, a);
  ASSERT_NE(nullptr, b);
  Waiter w{ws, {}, {}};
  rmw_time_t zero{0, 0};
  rmw_time_t five_s{5, 0};

  // Triggered before the wait: ready at once, the other cleared.
  ASSERT_EQ(RMW_RET_OK, rmw_trigger_guard_condition(b));
  EXPECT_EQ(RMW_RET_OK, w.wait(nullptr, a, b, &zero));
  EXPECT_EQ(nullptr, w.gcs[0]);
  EXPECT_EQ(b->data, w.gcs[1]);
  // The wait that saw it reset it.
  EXPECT_EQ(RMW_RET_TIMEOUT, w.wait(nullptr, a, b, &zero));

  // Triggered from another thread while waiting without a time-out limit.
  std::thread trigger([a]() {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      EXPECT_EQ(RMW_RET_OK, rmw_trigger_guard_condition(a));
    });
  const auto start = Clock::now();
  EXPECT_EQ(RMW_RET_OK, w.wait(nullptr, a, b, nullptr));
  EXPECT_GE(ms_since(start), 50.0);
  EXPECT_EQ(a->data, w.gcs[0]);
  EXPECT_EQ(nullptr, w.gcs[1]);
  trigger.join();

  // Many waits, each woken by its own trigger: none is lost.
  for (int i = 0; i < 200; ++i) {
    std::thread t([b]() {EXPECT_EQ(RMW_RET_OK, rmw_trigger_guard_condition(b));});
    ASSERT_EQ(RMW_RET_OK, w.wait(nullptr, a, b, &five_s)) << "wake-up " << i << " lost";
    t.join();
  }

  EXPECT_EQ(RMW_RET_OK, rmw_destroy_guard_condition(a));
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_guard_condition(b));
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_wait_set(ws));
}

TEST(WaitSet, SubscriptionsAreReadyWhileSamplesAreUnread)
{
  rmw_test::Context ctx;
  ASSERT_TRUE(ctx.ok());
  rmw_test::Node node(ctx, "waiter");
  const auto * ts = ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, msg, BasicTypes);
  rmw_publisher_options_t pub_options = rmw_get_default_publisher_options();
  rmw_subscription_options_t sub_options = rmw_get_default_subscription_options();
  rmw_publisher_t * pub =
    rmw_create_publisher(node.get(), ts, "/wait_topic", &rmw_qos_profile_default, &pub_options);
  rmw_subscription_t * sub = rmw_create_subscription(
    node.get(), ts, "/wait_topic", &rmw_qos_profile_default, &sub_options);
  ASSERT_NE(nullptr, pub) << take_error();
  ASSERT_NE(nullptr, sub) << take_error();
  rmw_wait_set_t * ws = rmw_create_wait_set(ctx.get(), 1);
  ASSERT_NE(nullptr, ws);
  Waiter w{ws, {}, {}};
  rmw_time_t zero{0, 0};
  rmw_time_t five_s{5, 0};

  EXPECT_EQ(RMW_RET_TIMEOUT, w.wait(sub, nullptr, nullptr, &zero));
  EXPECT_EQ(nullptr, w.subs[0]);

  test_msgs__msg__BasicTypes msg{};  // __init leaves fields without defaults unset
  ASSERT_TRUE(test_msgs__msg__BasicTypes__init(&msg));
  ASSERT_TRUE(
    rmw_test::wait_until(
      [&]() {
        size_t n = 0;
        return rmw_publisher_count_matched_subscriptions(pub, &n) == RMW_RET_OK && n == 1;
      }));
  std::thread publisher([&]() {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      EXPECT_EQ(RMW_RET_OK, rmw_publish(pub, &msg, nullptr));
    });
  EXPECT_EQ(RMW_RET_OK, w.wait(sub, nullptr, nullptr, &five_s));
  EXPECT_EQ(sub->data, w.subs[0]);
  publisher.join();
  // Still unread: still ready.
  EXPECT_EQ(RMW_RET_OK, w.wait(sub, nullptr, nullptr, &zero));
  bool taken = false;
  ASSERT_EQ(RMW_RET_OK, rmw_take(sub, &msg, &taken, nullptr));
  EXPECT_TRUE(taken);
  EXPECT_EQ(RMW_RET_TIMEOUT, w.wait(sub, nullptr, nullptr, &zero));

  test_msgs__msg__BasicTypes__fini(&msg);
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_wait_set(ws));
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_subscription(node.get(), sub));
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_publisher(node.get(), pub));
}

TEST(WaitSet, GraphGuardConditionFiresOnGraphChanges)
{
  rmw_test::Context ctx, other;
  ASSERT_TRUE(ctx.ok());
  ASSERT_TRUE(other.ok());
  rmw_test::Node node(ctx, "graph_watcher");
  const rmw_guard_condition_t * graph = rmw_node_get_graph_guard_condition(node.get());
  ASSERT_NE(nullptr, graph);
  rmw_wait_set_t * ws = rmw_create_wait_set(ctx.get(), 1);
  ASSERT_NE(nullptr, ws);
  Waiter w{ws, {}, {}};
  rmw_time_t zero{0, 0};
  rmw_time_t five_s{5, 0};
  // Drain what creating the node triggered.
  w.wait(nullptr, graph, nullptr, &zero);
  EXPECT_EQ(RMW_RET_TIMEOUT, w.wait(nullptr, graph, nullptr, &zero));

  // A local publisher appearing triggers it.
  const auto * ts = ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, msg, BasicTypes);
  rmw_publisher_options_t options = rmw_get_default_publisher_options();
  rmw_publisher_t * pub =
    rmw_create_publisher(node.get(), ts, "/graph_topic", &rmw_qos_profile_default, &options);
  ASSERT_NE(nullptr, pub) << take_error();
  EXPECT_EQ(RMW_RET_OK, w.wait(nullptr, graph, nullptr, &zero));

  // So does a node of another context (discovery and ros_discovery_info).
  while (w.wait(nullptr, graph, nullptr, &zero) == RMW_RET_OK) {}
  rmw_test::Node remote(other, "remote_node");
  EXPECT_EQ(RMW_RET_OK, w.wait(nullptr, graph, nullptr, &five_s));

  EXPECT_EQ(RMW_RET_OK, rmw_destroy_publisher(node.get(), pub));
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_wait_set(ws));
}
