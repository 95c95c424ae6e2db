// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// Nodes, publishers and subscriptions through the rmw API: round trips in one context and across
// two, message info, serialized messages, sequences, ignore_local_publications, actual QoS,
// matched counts.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "rmw/error_handling.h"
#include "rmw/features.h"
#include "rmw/rmw.h"
#include "rmw/serialized_message.h"
#include "rmw_test_fixtures.hpp"
#include "rosidl_runtime_c/string_functions.h"
#include "test_msgs/msg/basic_types.h"
#include "test_msgs/msg/strings.h"

using rmw_test::take_error;
using rmw_test::wait_until;

namespace
{
const rosidl_message_type_support_t * basic_types_ts()
{
  return ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, msg, BasicTypes);
}

const rosidl_message_type_support_t * strings_ts()
{
  return ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, msg, Strings);
}

rmw_publisher_t * make_pub(
  rmw_node_t * node, const char * topic, const rmw_qos_profile_t & qos = rmw_qos_profile_default,
  const rosidl_message_type_support_t * ts = basic_types_ts())
{
  rmw_publisher_options_t options = rmw_get_default_publisher_options();
  return rmw_create_publisher(node, ts, topic, &qos, &options);
}

rmw_subscription_t * make_sub(
  rmw_node_t * node, const char * topic, const rmw_qos_profile_t & qos = rmw_qos_profile_default,
  bool ignore_local = false, const rosidl_message_type_support_t * ts = basic_types_ts())
{
  rmw_subscription_options_t options = rmw_get_default_subscription_options();
  options.ignore_local_publications = ignore_local;
  return rmw_create_subscription(node, ts, topic, &qos, &options);
}

bool matched(const rmw_publisher_t * pub, size_t n)
{
  size_t count = 0;
  return rmw_publisher_count_matched_subscriptions(pub, &count) == RMW_RET_OK && count == n;
}

// Takes one BasicTypes within 5 s; false if none came.
bool take_basic(
  rmw_subscription_t * sub, test_msgs__msg__BasicTypes * out, rmw_message_info_t * info)
{
  return wait_until(
    [&]() {
      bool taken = false;
      EXPECT_EQ(RMW_RET_OK, rmw_take_with_info(sub, out, &taken, info, nullptr)) << take_error();
      return taken;
    });
}
}  // namespace

TEST(Node, NamesAreValidatedAndKept)
{
  rmw_test::Context ctx;
  ASSERT_TRUE(ctx.ok());
  rmw_node_t * node = rmw_create_node(ctx.get(), "talker", "/demo");
  ASSERT_NE(nullptr, node) << take_error();
  EXPECT_STREQ("talker", node->name);
  EXPECT_STREQ("/demo", node->namespace_);
  EXPECT_STREQ("rmw_hdds", node->implementation_identifier);
  EXPECT_NE(nullptr, rmw_node_get_graph_guard_condition(node));
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_node(node)) << take_error();

  EXPECT_EQ(nullptr, rmw_create_node(ctx.get(), "bad name", "/"));
  EXPECT_NE(std::string::npos, take_error().find("node name"));
  EXPECT_EQ(nullptr, rmw_create_node(ctx.get(), "ok", "relative"));
  EXPECT_NE(std::string::npos, take_error().find("namespace"));
  EXPECT_EQ(nullptr, rmw_create_node(nullptr, "ok", "/"));
  rmw_reset_error();
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_destroy_node(nullptr));
  rmw_reset_error();
}

TEST(PubSub, RoundTripInOneContextCarriesTheMessageAndItsInfo)
{
  rmw_test::Context ctx;
  ASSERT_TRUE(ctx.ok());
  rmw_test::Node node(ctx, "pubsub_one");
  rmw_publisher_t * pub = make_pub(node.get(), "/round_trip");
  ASSERT_NE(nullptr, pub) << take_error();
  rmw_subscription_t * sub = make_sub(node.get(), "/round_trip");
  ASSERT_NE(nullptr, sub) << take_error();
  EXPECT_STREQ("/round_trip", pub->topic_name);
  EXPECT_TRUE(pub->can_loan_messages);  // BasicTypes is fixed-size (test_rmw_loans.cpp)
  EXPECT_FALSE(sub->is_cft_enabled);
  ASSERT_TRUE(wait_until([&]() {return matched(pub, 1);}));
  size_t pubs = 0;
  ASSERT_EQ(RMW_RET_OK, rmw_subscription_count_matched_publishers(sub, &pubs)) << take_error();
  EXPECT_EQ(1u, pubs);

  test_msgs__msg__BasicTypes in{}, out{};  // __init leaves fields without defaults unset
  ASSERT_TRUE(test_msgs__msg__BasicTypes__init(&in));
  ASSERT_TRUE(test_msgs__msg__BasicTypes__init(&out));
  in.int32_value = -123456;
  in.float64_value = 2.5;
  in.bool_value = true;
  in.uint64_value = 0xfedcba9876543210ull;
  const auto before = std::chrono::system_clock::now();
  ASSERT_EQ(RMW_RET_OK, rmw_publish(pub, &in, nullptr)) << take_error();
  rmw_message_info_t info = rmw_get_zero_initialized_message_info();
  info.from_intra_process = true;  // the take must write it
  ASSERT_TRUE(take_basic(sub, &out, &info));
  EXPECT_EQ(in.int32_value, out.int32_value);
  EXPECT_EQ(in.float64_value, out.float64_value);
  EXPECT_EQ(in.bool_value, out.bool_value);
  EXPECT_EQ(in.uint64_value, out.uint64_value);

  // The gid names the publisher exactly as rmw_get_gid_for_publisher does (rclcpp relies on it).
  rmw_gid_t gid;
  ASSERT_EQ(RMW_RET_OK, rmw_get_gid_for_publisher(pub, &gid));
  bool same = false;
  ASSERT_EQ(RMW_RET_OK, rmw_compare_gids_equal(&gid, &info.publisher_gid, &same));
  EXPECT_TRUE(same);
  EXPECT_FALSE(info.from_intra_process);  // only rclcpp's intra-process manager sets it
  const int64_t before_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
    before.time_since_epoch()).count();
  EXPECT_GE(info.source_timestamp, before_ns - 1000000000);
  EXPECT_GE(info.received_timestamp, info.source_timestamp - 1000000000);
  EXPECT_EQ(1u, info.publication_sequence_number);

  // Nothing more to take: taken is false, and that is not an error.
  bool taken = true;
  EXPECT_EQ(RMW_RET_OK, rmw_take(sub, &out, &taken, nullptr));
  EXPECT_FALSE(taken);

  test_msgs__msg__BasicTypes__fini(&in);
  test_msgs__msg__BasicTypes__fini(&out);
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_subscription(node.get(), sub)) << take_error();
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_publisher(node.get(), pub)) << take_error();
}

TEST(PubSub, RoundTripAcrossTwoContexts)
{
  rmw_test::Context ctx_a, ctx_b;
  ASSERT_TRUE(ctx_a.ok());
  ASSERT_TRUE(ctx_b.ok());
  rmw_test::Node talker(ctx_a, "talker_two");
  rmw_test::Node listener(ctx_b, "listener_two");
  rmw_publisher_t * pub = make_pub(talker.get(), "/across", rmw_qos_profile_default, strings_ts());
  ASSERT_NE(nullptr, pub) << take_error();
  rmw_subscription_t * sub =
    make_sub(listener.get(), "/across", rmw_qos_profile_default, false, strings_ts());
  ASSERT_NE(nullptr, sub) << take_error();
  ASSERT_TRUE(wait_until([&]() {return matched(pub, 1);}));

  test_msgs__msg__Strings in{}, out{};  // __init leaves fields without defaults unset
  ASSERT_TRUE(test_msgs__msg__Strings__init(&in));
  ASSERT_TRUE(test_msgs__msg__Strings__init(&out));
  ASSERT_TRUE(rosidl_runtime_c__String__assign(&in.string_value, "Hello World: 1"));
  ASSERT_EQ(RMW_RET_OK, rmw_publish(pub, &in, nullptr)) << take_error();
  rmw_message_info_t info = rmw_get_zero_initialized_message_info();
  ASSERT_TRUE(
    wait_until(
      [&]() {
        bool taken = false;
        EXPECT_EQ(RMW_RET_OK, rmw_take_with_info(sub, &out, &taken, &info, nullptr));
        return taken;
      }));
  EXPECT_STREQ("Hello World: 1", out.string_value.data);
  EXPECT_FALSE(info.from_intra_process);

  test_msgs__msg__Strings__fini(&in);
  test_msgs__msg__Strings__fini(&out);
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_subscription(listener.get(), sub)) << take_error();
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_publisher(talker.get(), pub)) << take_error();
}

TEST(PubSub, SerializedMessagesAndSequences)
{
  rmw_test::Context ctx;
  ASSERT_TRUE(ctx.ok());
  rmw_test::Node node(ctx, "serialized");
  rmw_publisher_t * pub = make_pub(node.get(), "/serialized");
  ASSERT_NE(nullptr, pub) << take_error();
  rmw_subscription_t * sub = make_sub(node.get(), "/serialized");
  ASSERT_NE(nullptr, sub) << take_error();
  ASSERT_TRUE(wait_until([&]() {return matched(pub, 1);}));

  rcutils_allocator_t allocator = rcutils_get_default_allocator();
  test_msgs__msg__BasicTypes msg{};  // __init leaves fields without defaults unset
  ASSERT_TRUE(test_msgs__msg__BasicTypes__init(&msg));
  msg.int16_value = 7;
  rmw_serialized_message_t wire = rmw_get_zero_initialized_serialized_message();
  ASSERT_EQ(RMW_RET_OK, rmw_serialized_message_init(&wire, 0, &allocator));
  ASSERT_EQ(RMW_RET_OK, rmw_serialize(&msg, basic_types_ts(), &wire)) << take_error();
  ASSERT_EQ(RMW_RET_OK, rmw_publish_serialized_message(pub, &wire, nullptr)) << take_error();

  // Taken serialized, it is the same bytes.
  rmw_serialized_message_t got = rmw_get_zero_initialized_serialized_message();
  ASSERT_EQ(RMW_RET_OK, rmw_serialized_message_init(&got, 0, &allocator));
  rmw_message_info_t info = rmw_get_zero_initialized_message_info();
  ASSERT_TRUE(
    wait_until(
      [&]() {
        bool taken = false;
        EXPECT_EQ(
          RMW_RET_OK, rmw_take_serialized_message_with_info(sub, &got, &taken, &info, nullptr));
        return taken;
      }));
  ASSERT_EQ(wire.buffer_length, got.buffer_length);
  EXPECT_EQ(0, std::memcmp(wire.buffer, got.buffer, got.buffer_length));

  // A message too short to hold an encapsulation header is refused, not sent.
  rmw_serialized_message_t empty = rmw_get_zero_initialized_serialized_message();
  ASSERT_EQ(RMW_RET_OK, rmw_serialized_message_init(&empty, 0, &allocator));
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_publish_serialized_message(pub, &empty, nullptr));
  EXPECT_NE(std::string::npos, take_error().find("rmw_serialize"));

  // Three published, a sequence of five takes the three.
  for (int16_t i = 0; i < 3; ++i) {
    msg.int16_value = i;
    ASSERT_EQ(RMW_RET_OK, rmw_publish(pub, &msg, nullptr)) << take_error();
  }
  // Setting a new-message callback reports the samples no callback has been told about (each
  // once): wait until all three have been reported.
  const rmw_event_callback_t count_them = [](const void * user, size_t n) {
      *static_cast<size_t *>(const_cast<void *>(user)) += n;
    };
  size_t reported = 0;
  ASSERT_TRUE(
    wait_until(
      [&]() {
        EXPECT_EQ(RMW_RET_OK, rmw_subscription_set_on_new_message_callback(sub, count_them, &reported));
        EXPECT_EQ(RMW_RET_OK, rmw_subscription_set_on_new_message_callback(sub, nullptr, nullptr));
        return reported >= 3;
      }));
  EXPECT_EQ(3u, reported);
  std::vector<test_msgs__msg__BasicTypes> msgs(5);
  rmw_message_sequence_t seq = rmw_get_zero_initialized_message_sequence();
  rmw_message_info_sequence_t infos = rmw_get_zero_initialized_message_info_sequence();
  ASSERT_EQ(RMW_RET_OK, rmw_message_sequence_init(&seq, 5, &allocator));
  ASSERT_EQ(RMW_RET_OK, rmw_message_info_sequence_init(&infos, 5, &allocator));
  for (size_t i = 0; i < 5; ++i) {
    ASSERT_TRUE(test_msgs__msg__BasicTypes__init(&msgs[i]));
    seq.data[i] = &msgs[i];
  }
  size_t taken = 0;
  ASSERT_EQ(RMW_RET_OK, rmw_take_sequence(sub, 5, &seq, &infos, &taken, nullptr)) << take_error();
  EXPECT_EQ(3u, taken);
  EXPECT_EQ(3u, seq.size);
  EXPECT_EQ(3u, infos.size);
  for (size_t i = 0; i < taken; ++i) {
    EXPECT_EQ(static_cast<int16_t>(i), msgs[i].int16_value);
  }
  // One publication sequence number per publish: consecutive samples differ by one.
  EXPECT_TRUE(rmw_feature_supported(RMW_FEATURE_MESSAGE_INFO_PUBLICATION_SEQUENCE_NUMBER));
  EXPECT_FALSE(rmw_feature_supported(RMW_FEATURE_MESSAGE_INFO_RECEPTION_SEQUENCE_NUMBER));
  EXPECT_EQ(infos.data[0].publication_sequence_number + 1, infos.data[1].publication_sequence_number);
  EXPECT_EQ(infos.data[1].publication_sequence_number + 1, infos.data[2].publication_sequence_number);
  EXPECT_EQ(RMW_MESSAGE_INFO_SEQUENCE_NUMBER_UNSUPPORTED, infos.data[0].reception_sequence_number);
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_take_sequence(sub, 6, &seq, &infos, &taken, nullptr));
  rmw_reset_error();
  for (auto & m : msgs) {
    test_msgs__msg__BasicTypes__fini(&m);
  }
  EXPECT_EQ(RMW_RET_OK, rmw_message_sequence_fini(&seq));
  EXPECT_EQ(RMW_RET_OK, rmw_message_info_sequence_fini(&infos));
  EXPECT_EQ(RMW_RET_OK, rmw_serialized_message_fini(&wire));
  EXPECT_EQ(RMW_RET_OK, rmw_serialized_message_fini(&got));
  EXPECT_EQ(RMW_RET_OK, rmw_serialized_message_fini(&empty));
  test_msgs__msg__BasicTypes__fini(&msg);
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_subscription(node.get(), sub));
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_publisher(node.get(), pub));
}

TEST(PubSub, IgnoreLocalPublicationsDropsOnlyOurParticipantsSamples)
{
  rmw_test::Context ctx, other;
  ASSERT_TRUE(ctx.ok());
  ASSERT_TRUE(other.ok());
  rmw_test::Node node(ctx, "ignore_local");
  rmw_test::Node remote(other, "remote_talker");
  rmw_publisher_t * local_pub = make_pub(node.get(), "/ignore_local");
  rmw_publisher_t * remote_pub = make_pub(remote.get(), "/ignore_local");
  rmw_subscription_t * sub = make_sub(node.get(), "/ignore_local", rmw_qos_profile_default, true);
  ASSERT_NE(nullptr, local_pub);
  ASSERT_NE(nullptr, remote_pub);
  ASSERT_NE(nullptr, sub) << take_error();
  ASSERT_TRUE(wait_until([&]() {return matched(remote_pub, 1);}));

  test_msgs__msg__BasicTypes msg{}, out{};  // __init leaves fields without defaults unset
  ASSERT_TRUE(test_msgs__msg__BasicTypes__init(&msg));
  ASSERT_TRUE(test_msgs__msg__BasicTypes__init(&out));
  msg.int32_value = 1;
  ASSERT_EQ(RMW_RET_OK, rmw_publish(local_pub, &msg, nullptr));
  msg.int32_value = 2;
  ASSERT_EQ(RMW_RET_OK, rmw_publish(remote_pub, &msg, nullptr));
  rmw_message_info_t info = rmw_get_zero_initialized_message_info();
  ASSERT_TRUE(take_basic(sub, &out, &info));
  EXPECT_EQ(2, out.int32_value);
  EXPECT_FALSE(info.from_intra_process);
  bool taken = true;
  EXPECT_EQ(RMW_RET_OK, rmw_take(sub, &out, &taken, nullptr));
  EXPECT_FALSE(taken) << "the local sample came through";

  test_msgs__msg__BasicTypes__fini(&msg);
  test_msgs__msg__BasicTypes__fini(&out);
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_subscription(node.get(), sub));
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_publisher(node.get(), local_pub));
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_publisher(remote.get(), remote_pub));
}

TEST(PubSub, ActualQosAndBadArguments)
{
  rmw_test::Context ctx;
  ASSERT_TRUE(ctx.ok());
  rmw_test::Node node(ctx, "qos_node");
  rmw_publisher_t * pub = make_pub(node.get(), "/qos", rmw_qos_profile_system_default);
  ASSERT_NE(nullptr, pub) << take_error();
  rmw_qos_profile_t actual;
  ASSERT_EQ(RMW_RET_OK, rmw_publisher_get_actual_qos(pub, &actual));
  EXPECT_EQ(RMW_QOS_POLICY_HISTORY_KEEP_LAST, actual.history);
  EXPECT_EQ(1u, actual.depth);
  EXPECT_EQ(RMW_QOS_POLICY_RELIABILITY_RELIABLE, actual.reliability);
  EXPECT_EQ(RMW_QOS_POLICY_DURABILITY_VOLATILE, actual.durability);

  rmw_qos_profile_t sensor = rmw_qos_profile_sensor_data;
  rmw_subscription_t * sub = make_sub(node.get(), "/qos", sensor);
  ASSERT_NE(nullptr, sub) << take_error();
  ASSERT_EQ(RMW_RET_OK, rmw_subscription_get_actual_qos(sub, &actual));
  EXPECT_EQ(RMW_QOS_POLICY_RELIABILITY_BEST_EFFORT, actual.reliability);
  EXPECT_EQ(5u, actual.depth);

  // Bad topic names and QoS fail with a reason; a foreign handle is refused.
  EXPECT_EQ(nullptr, make_pub(node.get(), "relative"));
  EXPECT_NE(std::string::npos, take_error().find("relative"));
  EXPECT_EQ(nullptr, make_pub(node.get(), "/x", rmw_qos_profile_unknown));
  EXPECT_NE(std::string::npos, take_error().find("unknown"));
  rmw_qos_profile_t raw_dds = rmw_qos_profile_default;
  raw_dds.avoid_ros_namespace_conventions = true;
  rmw_publisher_t * plain = make_pub(node.get(), "plain_dds_topic", raw_dds);
  EXPECT_NE(nullptr, plain) << take_error();
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_publisher(node.get(), plain));

  const char * id = pub->implementation_identifier;
  pub->implementation_identifier = "other_rmw";
  test_msgs__msg__BasicTypes msg{};  // __init leaves fields without defaults unset
  ASSERT_TRUE(test_msgs__msg__BasicTypes__init(&msg));
  EXPECT_EQ(RMW_RET_INCORRECT_RMW_IMPLEMENTATION, rmw_publish(pub, &msg, nullptr));
  rmw_reset_error();
  pub->implementation_identifier = id;
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_publish(pub, nullptr, nullptr));
  rmw_reset_error();
  // Reliable writer, best-effort reader: nothing is waiting for an acknowledgment.
  EXPECT_EQ(RMW_RET_OK, rmw_publisher_wait_for_all_acked(pub, {1, 0}));
  test_msgs__msg__BasicTypes__fini(&msg);

  EXPECT_EQ(RMW_RET_OK, rmw_destroy_subscription(node.get(), sub));
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_publisher(node.get(), pub));
}
