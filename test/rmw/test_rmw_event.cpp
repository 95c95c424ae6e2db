// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// QoS events and listener callbacks through the rmw API: incompatible QoS on both sides (by
// wait set and take, and by callback, including a change that happened before the callback was
// set), deadline missed, the new-message callback with samples that arrived before it, and
// MANUAL_BY_TOPIC liveliness (rmw_publisher_assert_liveliness) between two contexts over UDP.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "rmw/error_handling.h"
#include "rmw/event.h"
#include "rmw/events_statuses/events_statuses.h"
#include "rmw/rmw.h"
#include "rmw_test_fixtures.hpp"
#include "test_msgs/msg/basic_types.h"

using rmw_test::take_error;
using rmw_test::wait_until;

namespace
{
const rosidl_message_type_support_t * ts()
{
  return ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, msg, BasicTypes);
}

void count_events(const void * user, size_t n)
{
  static_cast<std::atomic<size_t> *>(const_cast<void *>(user))->fetch_add(n);
}

// Waits up to 5 s for the event to be ready in a wait set.
bool event_ready(rmw_context_t * ctx, rmw_event_t * event)
{
  rmw_wait_set_t * ws = rmw_create_wait_set(ctx, 1);
  EXPECT_NE(nullptr, ws);
  void * array[1] = {event};
  rmw_events_t events{1, array};
  rmw_time_t five_s{5, 0};
  const rmw_ret_t ret = rmw_wait(nullptr, nullptr, nullptr, nullptr, &events, ws, &five_s);
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_wait_set(ws));
  return ret == RMW_RET_OK && array[0] == event;
}

class Events : public ::testing::Test
{
protected:
  void SetUp() override
  {
    ASSERT_TRUE(ctx_.ok());
    node_ = rmw_create_node(ctx_.get(), "events", "/");
    ASSERT_NE(nullptr, node_) << take_error();
  }
  void TearDown() override
  {
    if (sub_) {
      EXPECT_EQ(RMW_RET_OK, rmw_destroy_subscription(node_, sub_));
    }
    if (pub_) {
      EXPECT_EQ(RMW_RET_OK, rmw_destroy_publisher(node_, pub_));
    }
    EXPECT_EQ(RMW_RET_OK, rmw_destroy_node(node_));
  }
  void create(const char * topic, const rmw_qos_profile_t & pub_qos, const rmw_qos_profile_t & sub_qos)
  {
    rmw_publisher_options_t po = rmw_get_default_publisher_options();
    rmw_subscription_options_t so = rmw_get_default_subscription_options();
    pub_ = rmw_create_publisher(node_, ts(), topic, &pub_qos, &po);
    ASSERT_NE(nullptr, pub_) << take_error();
    sub_ = rmw_create_subscription(node_, ts(), topic, &sub_qos, &so);
    ASSERT_NE(nullptr, sub_) << take_error();
  }

  rmw_test::Context ctx_;
  rmw_node_t * node_ = nullptr;
  rmw_publisher_t * pub_ = nullptr;
  rmw_subscription_t * sub_ = nullptr;
};
}  // namespace

TEST_F(Events, IncompatibleQosIsReportedOnBothSides)
{
  // A best-effort writer cannot serve a reliable reader: RELIABILITY on both sides.
  rmw_qos_profile_t best_effort = rmw_qos_profile_default;
  best_effort.reliability = RMW_QOS_POLICY_RELIABILITY_BEST_EFFORT;
  create("/incompatible", best_effort, rmw_qos_profile_default);

  rmw_event_t offered = rmw_get_zero_initialized_event();
  rmw_event_t requested = rmw_get_zero_initialized_event();
  ASSERT_EQ(RMW_RET_OK, rmw_publisher_event_init(&offered, pub_, RMW_EVENT_OFFERED_QOS_INCOMPATIBLE));
  ASSERT_EQ(
    RMW_RET_OK, rmw_subscription_event_init(&requested, sub_, RMW_EVENT_REQUESTED_QOS_INCOMPATIBLE));

  ASSERT_TRUE(event_ready(ctx_.get(), &offered));
  rmw_offered_qos_incompatible_event_status_t o{};
  bool taken = false;
  ASSERT_EQ(RMW_RET_OK, rmw_take_event(&offered, &o, &taken)) << take_error();
  EXPECT_TRUE(taken);
  EXPECT_EQ(1, o.total_count);
  EXPECT_EQ(1, o.total_count_change);
  EXPECT_EQ(RMW_QOS_POLICY_RELIABILITY, o.last_policy_kind);

  ASSERT_TRUE(event_ready(ctx_.get(), &requested));
  rmw_requested_qos_incompatible_event_status_t r{};
  ASSERT_EQ(RMW_RET_OK, rmw_take_event(&requested, &r, &taken)) << take_error();
  EXPECT_TRUE(taken);
  EXPECT_EQ(1, r.total_count);
  EXPECT_EQ(RMW_QOS_POLICY_RELIABILITY, r.last_policy_kind);

  // Taking reset the change counter; the wait set no longer sees it.
  ASSERT_EQ(RMW_RET_OK, rmw_take_event(&requested, &r, &taken));
  EXPECT_EQ(1, r.total_count);
  EXPECT_EQ(0, r.total_count_change);
  size_t matched = 99;
  ASSERT_EQ(RMW_RET_OK, rmw_publisher_count_matched_subscriptions(pub_, &matched));
  EXPECT_EQ(0u, matched);
}

TEST_F(Events, CallbacksReportChangesThatHappenedBeforeThemAndAfter)
{
  rmw_qos_profile_t volatile_reader = rmw_qos_profile_default;
  rmw_qos_profile_t transient_reader = rmw_qos_profile_default;
  transient_reader.durability = RMW_QOS_POLICY_DURABILITY_TRANSIENT_LOCAL;
  // A volatile writer cannot serve a transient-local reader: DURABILITY.
  create("/incompatible_cb", volatile_reader, transient_reader);

  rmw_event_t requested = rmw_get_zero_initialized_event();
  ASSERT_EQ(
    RMW_RET_OK, rmw_subscription_event_init(&requested, sub_, RMW_EVENT_REQUESTED_QOS_INCOMPATIBLE));
  ASSERT_TRUE(event_ready(ctx_.get(), &requested));
  // Already pending when the callback is set: reported at once.
  std::atomic<size_t> calls{0};
  ASSERT_EQ(RMW_RET_OK, rmw_event_set_callback(&requested, count_events, &calls));
  EXPECT_GE(calls.load(), 1u);
  // Set again (rclcpp sets every callback twice in a row): already reported, not again.
  const size_t reported = calls.load();
  ASSERT_EQ(RMW_RET_OK, rmw_event_set_callback(&requested, count_events, &calls));
  EXPECT_EQ(reported, calls.load());
  rmw_requested_qos_incompatible_event_status_t r{};
  bool taken = false;
  ASSERT_EQ(RMW_RET_OK, rmw_take_event(&requested, &r, &taken));
  EXPECT_EQ(RMW_QOS_POLICY_DURABILITY, r.last_policy_kind);

  // A new incompatible writer later: the callback runs again.
  const size_t before = calls.load();
  rmw_publisher_options_t po = rmw_get_default_publisher_options();
  rmw_publisher_t * second =
    rmw_create_publisher(node_, ts(), "/incompatible_cb", &volatile_reader, &po);
  ASSERT_NE(nullptr, second);
  EXPECT_TRUE(wait_until([&]() {return calls.load() > before;}));
  ASSERT_EQ(RMW_RET_OK, rmw_event_set_callback(&requested, nullptr, nullptr));
  ASSERT_EQ(RMW_RET_OK, rmw_take_event(&requested, &r, &taken));
  EXPECT_EQ(2, r.total_count);
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_publisher(node_, second));
}

TEST_F(Events, DeadlineMissedOnBothSides)
{
  rmw_qos_profile_t qos = rmw_qos_profile_default;
  qos.deadline = {0, 50000000};  // 50 ms
  create("/deadline", qos, qos);
  rmw_event_t offered = rmw_get_zero_initialized_event();
  rmw_event_t requested = rmw_get_zero_initialized_event();
  ASSERT_EQ(RMW_RET_OK, rmw_publisher_event_init(&offered, pub_, RMW_EVENT_OFFERED_DEADLINE_MISSED));
  ASSERT_EQ(
    RMW_RET_OK, rmw_subscription_event_init(&requested, sub_, RMW_EVENT_REQUESTED_DEADLINE_MISSED));
  test_msgs__msg__BasicTypes msg{};  // __init leaves fields without defaults unset
  ASSERT_TRUE(test_msgs__msg__BasicTypes__init(&msg));
  ASSERT_EQ(RMW_RET_OK, rmw_publish(pub_, &msg, nullptr));
  test_msgs__msg__BasicTypes__fini(&msg);

  ASSERT_TRUE(event_ready(ctx_.get(), &offered));
  rmw_offered_deadline_missed_status_t o{};
  bool taken = false;
  ASSERT_EQ(RMW_RET_OK, rmw_take_event(&offered, &o, &taken));
  EXPECT_GE(o.total_count, 1);
  ASSERT_TRUE(event_ready(ctx_.get(), &requested));
  rmw_requested_deadline_missed_status_t r{};
  ASSERT_EQ(RMW_RET_OK, rmw_take_event(&requested, &r, &taken));
  EXPECT_GE(r.total_count, 1);
}

TEST_F(Events, EventTypesBelongToOneSide)
{
  create("/sides", rmw_qos_profile_default, rmw_qos_profile_default);
  rmw_event_t e = rmw_get_zero_initialized_event();
  EXPECT_EQ(RMW_RET_UNSUPPORTED, rmw_publisher_event_init(&e, pub_, RMW_EVENT_LIVELINESS_CHANGED));
  EXPECT_NE(std::string::npos, take_error().find("publisher"));
  EXPECT_EQ(RMW_RET_UNSUPPORTED, rmw_subscription_event_init(&e, sub_, RMW_EVENT_LIVELINESS_LOST));
  rmw_reset_error();
  EXPECT_EQ(RMW_RET_UNSUPPORTED, rmw_subscription_event_init(&e, sub_, RMW_EVENT_INVALID));
  rmw_reset_error();
  for (auto type : {RMW_EVENT_LIVELINESS_CHANGED, RMW_EVENT_REQUESTED_DEADLINE_MISSED,
      RMW_EVENT_REQUESTED_QOS_INCOMPATIBLE, RMW_EVENT_MESSAGE_LOST})
  {
    rmw_event_t ok = rmw_get_zero_initialized_event();
    EXPECT_EQ(RMW_RET_OK, rmw_subscription_event_init(&ok, sub_, type)) << take_error();
  }
  for (auto type : {RMW_EVENT_LIVELINESS_LOST, RMW_EVENT_OFFERED_DEADLINE_MISSED,
      RMW_EVENT_OFFERED_QOS_INCOMPATIBLE})
  {
    rmw_event_t ok = rmw_get_zero_initialized_event();
    EXPECT_EQ(RMW_RET_OK, rmw_publisher_event_init(&ok, pub_, type)) << take_error();
  }
}

TEST_F(Events, NewMessageCallbackCountsSamplesFromBeforeAndAfter)
{
  create("/new_messages", rmw_qos_profile_default, rmw_qos_profile_default);
  ASSERT_TRUE(
    wait_until(
      [&]() {
        size_t n = 0;
        return rmw_publisher_count_matched_subscriptions(pub_, &n) == RMW_RET_OK && n == 1;
      }));
  test_msgs__msg__BasicTypes msg{};  // __init leaves fields without defaults unset
  ASSERT_TRUE(test_msgs__msg__BasicTypes__init(&msg));
  ASSERT_EQ(RMW_RET_OK, rmw_publish(pub_, &msg, nullptr));
  ASSERT_EQ(RMW_RET_OK, rmw_publish(pub_, &msg, nullptr));
  // Wait until both are there (a wait set says one is; take nothing).
  rmw_wait_set_t * ws = rmw_create_wait_set(ctx_.get(), 1);
  void * subs[1] = {sub_->data};
  rmw_subscriptions_t s{1, subs};
  rmw_time_t five_s{5, 0};
  ASSERT_EQ(RMW_RET_OK, rmw_wait(&s, nullptr, nullptr, nullptr, nullptr, ws, &five_s));
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_wait_set(ws));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));

  std::atomic<size_t> count{0};
  ASSERT_EQ(RMW_RET_OK, rmw_subscription_set_on_new_message_callback(sub_, count_events, &count));
  EXPECT_EQ(2u, count.load()) << "samples waiting before the callback was set";
  ASSERT_EQ(RMW_RET_OK, rmw_publish(pub_, &msg, nullptr));
  EXPECT_TRUE(wait_until([&]() {return count.load() == 3u;}));
  ASSERT_EQ(RMW_RET_OK, rmw_subscription_set_on_new_message_callback(sub_, nullptr, nullptr));
  ASSERT_EQ(RMW_RET_OK, rmw_publish(pub_, &msg, nullptr));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(3u, count.load()) << "a cleared callback was called";
  // Each sample is reported once: setting a callback again does not report the 4 untaken
  // samples again (rclcpp sets every callback twice in a row and adds up what it is told), only
  // the one that arrived while no callback was set.
  ASSERT_EQ(RMW_RET_OK, rmw_subscription_set_on_new_message_callback(sub_, count_events, &count));
  EXPECT_EQ(4u, count.load());
  ASSERT_EQ(RMW_RET_OK, rmw_subscription_set_on_new_message_callback(sub_, count_events, &count));
  EXPECT_EQ(4u, count.load());
  ASSERT_EQ(RMW_RET_OK, rmw_subscription_set_on_new_message_callback(sub_, nullptr, nullptr));
  test_msgs__msg__BasicTypes__fini(&msg);
}

// MANUAL_BY_TOPIC LIVELINESS through the rmw API between two contexts that meet over UDP only
// (HDDS_TRANSPORT=udp when they start: no same-process path): rmw_publisher_assert_liveliness
// keeps the remote subscription's writer alive without publishing (HEARTBEATs with the
// Liveliness flag), and when it stops the subscription's LIVELINESS_CHANGED and the publisher's
// LIVELINESS_LOST events fire.
TEST(LivelinessOverUdp, AssertedPublisherStaysAliveAndIsLostWhenItStops)
{
  rmw_test::ContextPair contexts("udp");
  ASSERT_TRUE(contexts.ok());
  rmw_test::Node pub_node(contexts.first, "live_pub");
  rmw_test::Node sub_node(contexts.second, "live_sub");
  rmw_qos_profile_t qos = rmw_qos_profile_default;
  qos.liveliness = RMW_QOS_POLICY_LIVELINESS_MANUAL_BY_TOPIC;
  qos.liveliness_lease_duration = {0, 300000000};  // 300 ms
  rmw_publisher_options_t po = rmw_get_default_publisher_options();
  rmw_subscription_options_t so = rmw_get_default_subscription_options();
  rmw_publisher_t * pub = rmw_create_publisher(pub_node.get(), ts(), "/liveliness_udp", &qos, &po);
  ASSERT_NE(nullptr, pub) << take_error();
  rmw_subscription_t * sub = rmw_create_subscription(sub_node.get(), ts(), "/liveliness_udp", &qos, &so);
  ASSERT_NE(nullptr, sub) << take_error();
  rmw_event_t changed = rmw_get_zero_initialized_event();
  rmw_event_t lost = rmw_get_zero_initialized_event();
  ASSERT_EQ(RMW_RET_OK, rmw_subscription_event_init(&changed, sub, RMW_EVENT_LIVELINESS_CHANGED));
  ASSERT_EQ(RMW_RET_OK, rmw_publisher_event_init(&lost, pub, RMW_EVENT_LIVELINESS_LOST));
  ASSERT_TRUE(
    wait_until(
      [&]() {
        size_t n = 0;
        return rmw_subscription_count_matched_publishers(sub, &n) == RMW_RET_OK && n == 1;
      }));

  rmw_liveliness_changed_status_t c{};
  bool taken = false;
  // 1.2 s of assertions every 100 ms, nothing published: alive throughout.
  for (int i = 0; i < 12; i++) {
    ASSERT_EQ(RMW_RET_OK, rmw_publisher_assert_liveliness(pub)) << take_error();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    ASSERT_EQ(RMW_RET_OK, rmw_take_event(&changed, &c, &taken));
    ASSERT_EQ(1, c.alive_count) << "after " << (i + 1) * 100 << " ms";
    ASSERT_EQ(0, c.not_alive_count) << "after " << (i + 1) * 100 << " ms";
  }
  ASSERT_EQ(RMW_RET_OK, rmw_publisher_assert_liveliness(pub));
  const auto stopped = std::chrono::steady_clock::now();
  ASSERT_TRUE(event_ready(contexts.second.get(), &changed));
  const auto took = std::chrono::steady_clock::now() - stopped;
  EXPECT_GE(took, std::chrono::milliseconds(250));
  EXPECT_LE(took, std::chrono::milliseconds(900));
  ASSERT_EQ(RMW_RET_OK, rmw_take_event(&changed, &c, &taken));
  EXPECT_TRUE(taken);
  EXPECT_EQ(0, c.alive_count);
  EXPECT_EQ(1, c.not_alive_count);
  EXPECT_EQ(-1, c.alive_count_change);
  EXPECT_EQ(1, c.not_alive_count_change);
  ASSERT_TRUE(event_ready(contexts.first.get(), &lost));
  rmw_liveliness_lost_status_t l{};
  ASSERT_EQ(RMW_RET_OK, rmw_take_event(&lost, &l, &taken));
  EXPECT_EQ(1, l.total_count);

  // One more assertion: alive again.
  ASSERT_EQ(RMW_RET_OK, rmw_publisher_assert_liveliness(pub));
  ASSERT_TRUE(event_ready(contexts.second.get(), &changed));
  ASSERT_EQ(RMW_RET_OK, rmw_take_event(&changed, &c, &taken));
  EXPECT_EQ(1, c.alive_count);
  EXPECT_EQ(0, c.not_alive_count);
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_subscription(sub_node.get(), sub));
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_publisher(pub_node.get(), pub));
}
