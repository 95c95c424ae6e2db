// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// rclcpp on rmw_hdds (loaded by name through rmw_implementation, as every ROS program does):
// - rclcpp's own intra-process mode. A publisher with an intra-process subscription in its
//   process and a plain subscription elsewhere writes each message twice: to the intra-process
//   subscription by rclcpp and to the RMW. The intra-process subscription's RMW reader gets that
//   second copy too, and rclcpp drops it only when the copy's message_info.publisher_gid equals
//   the publisher's gid (rmw_get_gid_for_publisher, compared with rmw_compare_gids_equal). A
//   wrong gid shows up here as duplicates.
// - from_intra_process: true only for what rclcpp's intra-process manager delivered (rclcpp
//   fills that message info itself, with a zero publisher gid in Humble), false for every sample
//   taken from the RMW, even from a publisher of the same node.
// - ignore_local_publications: "local" is the same participant, i.e. the same context (as in
//   rmw_cyclonedds_cpp and rmw_fastrtps_cpp): a publisher of another node of the subscription's
//   context is ignored, one of another context (another participant) is not.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "rcl/subscription.h"
#include "rclcpp/rclcpp.hpp"
#include "rmw/rmw.h"
#include "rmw_test_fixtures.hpp"
#include "test_msgs/msg/basic_types.hpp"

using Msg = test_msgs::msg::BasicTypes;
using namespace std::chrono_literals;

namespace
{
struct Received
{
  int32_t value;
  bool from_intra_process;
  rmw_gid_t gid;
};

// Everything one subscription's callback saw.
class Recorder
{
public:
  void record(const Msg & msg, const rclcpp::MessageInfo & info)
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const rmw_message_info_t & rmw_info = info.get_rmw_message_info();
    seen_.push_back({msg.int32_value, rmw_info.from_intra_process, rmw_info.publisher_gid});
  }
  std::vector<Received> seen() const
  {
    std::lock_guard<std::mutex> lock(mutex_);
    return seen_;
  }
  size_t count() const {return seen().size();}

private:
  mutable std::mutex mutex_;
  std::vector<Received> seen_;
};

// A context of its own (one rmw_hdds participant) on loopback in the test's domain.
std::shared_ptr<rclcpp::Context> make_context()
{
  auto context = std::make_shared<rclcpp::Context>();
  rclcpp::InitOptions options;
  options.auto_initialize_logging(false);
  options.set_domain_id(rmw_test::test_domain());
  context->init(0, nullptr, options);
  return context;
}

rclcpp::NodeOptions node_options(
  const std::shared_ptr<rclcpp::Context> & context, bool intra_process)
{
  return rclcpp::NodeOptions().context(context).use_intra_process_comms(intra_process);
}

// An executor of `context` (the default one belongs to the global context, never initialized here).
rclcpp::ExecutorOptions executor_options(const std::shared_ptr<rclcpp::Context> & context)
{
  rclcpp::ExecutorOptions options;
  options.context = context;
  return options;
}

rmw_gid_t rmw_gid_of(const rclcpp::PublisherBase & pub)
{
  rmw_gid_t gid{};
  EXPECT_EQ(
    RMW_RET_OK,
    rmw_get_gid_for_publisher(
      rcl_publisher_get_rmw_handle(pub.get_publisher_handle().get()), &gid));
  return gid;
}

bool gids_equal(const rmw_gid_t & a, const rmw_gid_t & b)
{
  bool same = false;
  EXPECT_EQ(RMW_RET_OK, rmw_compare_gids_equal(&a, &b, &same));
  return same;
}

// Spins until `done` holds or `timeout` passes, then `settle` longer so that duplicates or
// samples that should never come have had their chance to arrive.
bool spin_until(
  rclcpp::Executor & executor, const std::function<bool()> & done,
  std::chrono::milliseconds timeout = 10s, std::chrono::milliseconds settle = 300ms)
{
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) {
      return false;
    }
    executor.spin_some(20ms);
    std::this_thread::sleep_for(5ms);
  }
  const auto settle_end = std::chrono::steady_clock::now() + settle;
  while (std::chrono::steady_clock::now() < settle_end) {
    executor.spin_some(20ms);
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

Msg message(int32_t value)
{
  Msg msg;
  msg.int32_value = value;
  return msg;
}

const rclcpp::QoS kQos = rclcpp::QoS(rclcpp::KeepLast(50)).reliable().durability_volatile();
constexpr int kCount = 10;
}  // namespace

TEST(RclcppIntraProcess, OneCopyPerSubscriptionAndGidMatchesPublisher)
{
  auto context = make_context();
  auto intra_node = std::make_shared<rclcpp::Node>("intra_node", node_options(context, true));
  auto plain_node = std::make_shared<rclcpp::Node>("plain_node", node_options(context, false));
  auto pub = intra_node->create_publisher<Msg>("/ipc_chatter", kQos);
  Recorder intra_seen, plain_seen;
  auto intra_sub = intra_node->create_subscription<Msg>(
    "/ipc_chatter", kQos,
    [&](const Msg & m, const rclcpp::MessageInfo & i) {intra_seen.record(m, i);});
  auto plain_sub = plain_node->create_subscription<Msg>(
    "/ipc_chatter", kQos,
    [&](const Msg & m, const rclcpp::MessageInfo & i) {plain_seen.record(m, i);});
  // Both RMW readers match the writer; one subscription is also served intra-process, so each
  // publish writes to the RMW too (the plain subscription needs it).
  ASSERT_TRUE(rmw_test::wait_until([&]() {return pub->get_subscription_count() == 2;}))
    << "matched: " << pub->get_subscription_count();
  EXPECT_EQ(1u, pub->get_intra_process_subscription_count());

  rclcpp::executors::SingleThreadedExecutor executor(executor_options(context));
  executor.add_node(intra_node);
  executor.add_node(plain_node);
  for (int i = 0; i < kCount; ++i) {
    pub->publish(message(i));
  }
  ASSERT_TRUE(
    spin_until(
      executor,
      [&]() {return intra_seen.count() >= kCount && plain_seen.count() >= kCount;}))
    << "intra-process: " << intra_seen.count() << ", plain: " << plain_seen.count();

  const rmw_gid_t pub_gid = rmw_gid_of(*pub);
  ASSERT_TRUE(gids_equal(pub_gid, pub->get_gid()));
  // Exactly one copy each: the RMW's copy to the intra-process subscription was recognized by
  // its gid and dropped.
  const auto intra = intra_seen.seen();
  ASSERT_EQ(static_cast<size_t>(kCount), intra.size());
  for (int i = 0; i < kCount; ++i) {
    EXPECT_EQ(i, intra[i].value);
    EXPECT_TRUE(intra[i].from_intra_process) << "sample " << i;
  }
  const auto plain = plain_seen.seen();
  ASSERT_EQ(static_cast<size_t>(kCount), plain.size());
  for (int i = 0; i < kCount; ++i) {
    EXPECT_EQ(i, plain[i].value);
    EXPECT_FALSE(plain[i].from_intra_process) << "sample " << i;
    EXPECT_TRUE(gids_equal(pub_gid, plain[i].gid)) << "sample " << i;
  }

  // The copy the RMW handed the intra-process subscription's reader, taken straight from rcl:
  // its gid is the one rclcpp compares against (and so drops it).
  executor.remove_node(intra_node);
  executor.remove_node(plain_node);
  pub->publish(message(1000));
  rcl_subscription_t * rcl_sub = intra_sub->get_subscription_handle().get();
  Msg taken;
  rmw_message_info_t info = rmw_get_zero_initialized_message_info();
  info.from_intra_process = true;  // the take must write it
  ASSERT_TRUE(
    rmw_test::wait_until(
      [&]() {
        rcl_ret_t ret = rcl_take(rcl_sub, &taken, &info, nullptr);
        EXPECT_TRUE(ret == RCL_RET_OK || ret == RCL_RET_SUBSCRIPTION_TAKE_FAILED) << ret;
        return ret == RCL_RET_OK && taken.int32_value == 1000;
      }));
  EXPECT_TRUE(gids_equal(pub_gid, info.publisher_gid));
  EXPECT_FALSE(info.from_intra_process);
}

TEST(RclcppIntraProcess, WithoutIntraProcessEverySampleComesFromTheRmw)
{
  auto context = make_context();
  auto node = std::make_shared<rclcpp::Node>("no_ipc_node", node_options(context, false));
  auto pub = node->create_publisher<Msg>("/no_ipc_chatter", kQos);
  Recorder seen;
  auto sub = node->create_subscription<Msg>(
    "/no_ipc_chatter", kQos,
    [&](const Msg & m, const rclcpp::MessageInfo & i) {seen.record(m, i);});
  ASSERT_TRUE(rmw_test::wait_until([&]() {return pub->get_subscription_count() == 1;}));
  EXPECT_EQ(0u, pub->get_intra_process_subscription_count());

  rclcpp::executors::SingleThreadedExecutor executor(executor_options(context));
  executor.add_node(node);
  for (int i = 0; i < kCount; ++i) {
    pub->publish(message(i));
  }
  ASSERT_TRUE(spin_until(executor, [&]() {return seen.count() >= kCount;}))
    << "received " << seen.count();
  const rmw_gid_t pub_gid = rmw_gid_of(*pub);
  const auto got = seen.seen();
  ASSERT_EQ(static_cast<size_t>(kCount), got.size());
  for (int i = 0; i < kCount; ++i) {
    EXPECT_EQ(i, got[i].value);
    EXPECT_FALSE(got[i].from_intra_process) << "sample " << i;
    EXPECT_TRUE(gids_equal(pub_gid, got[i].gid)) << "sample " << i;
  }
}

TEST(RclcppIntraProcess, IgnoreLocalPublicationsSkipsOnlyThisContextsPublishers)
{
  auto context = make_context();
  auto other_context = make_context();
  auto sub_node = std::make_shared<rclcpp::Node>("ignoring_node", node_options(context, false));
  auto local_node = std::make_shared<rclcpp::Node>("local_node", node_options(context, false));
  auto remote_node =
    std::make_shared<rclcpp::Node>("remote_node", node_options(other_context, false));

  rclcpp::SubscriptionOptions options;
  options.ignore_local_publications = true;
  Recorder seen;
  auto sub = sub_node->create_subscription<Msg>(
    "/local_or_not", kQos,
    [&](const Msg & m, const rclcpp::MessageInfo & i) {seen.record(m, i);}, options);
  // A plain subscription beside it shows the local publisher does reach this context.
  Recorder control_seen;
  auto control_sub = sub_node->create_subscription<Msg>(
    "/local_or_not", kQos,
    [&](const Msg & m, const rclcpp::MessageInfo & i) {control_seen.record(m, i);});
  auto local_pub = local_node->create_publisher<Msg>("/local_or_not", kQos);
  auto remote_pub = remote_node->create_publisher<Msg>("/local_or_not", kQos);
  ASSERT_TRUE(rmw_test::wait_until([&]() {return remote_pub->get_subscription_count() == 2;}))
    << "remote publisher matched " << remote_pub->get_subscription_count();
  ASSERT_TRUE(rmw_test::wait_until([&]() {return local_pub->get_subscription_count() >= 1;}));

  rclcpp::executors::SingleThreadedExecutor executor(executor_options(context));
  executor.add_node(sub_node);
  for (int i = 0; i < kCount; ++i) {
    local_pub->publish(message(i));
    remote_pub->publish(message(100 + i));
  }
  ASSERT_TRUE(
    spin_until(
      executor,
      [&]() {return seen.count() >= kCount && control_seen.count() >= 2 * kCount;}))
    << "ignoring: " << seen.count() << ", control: " << control_seen.count();

  const rmw_gid_t remote_gid = rmw_gid_of(*remote_pub);
  const auto got = seen.seen();
  ASSERT_EQ(static_cast<size_t>(kCount), got.size()) << "a local sample got through";
  for (int i = 0; i < kCount; ++i) {
    EXPECT_EQ(100 + i, got[i].value);
    EXPECT_TRUE(gids_equal(remote_gid, got[i].gid)) << "sample " << i;
    EXPECT_FALSE(got[i].from_intra_process);
  }
  EXPECT_EQ(static_cast<size_t>(2 * kCount), control_seen.count());
}
