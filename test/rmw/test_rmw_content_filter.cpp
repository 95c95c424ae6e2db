// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// Content filtered subscriptions through the rmw API: a filter given at creation or set later,
// reset, read back; filtered samples never taken, never waking a wait set or the new-message
// callback, never pushing a matching sample out of a KEEP_LAST history; same-process, across two
// contexts (UDP) and from a TRANSIENT_LOCAL history; bad expressions refused with their position.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "rcutils/allocator.h"
#include "rmw/error_handling.h"
#include "rmw/rmw.h"
#include "rmw/subscription_content_filter_options.h"
#include "rmw_test_fixtures.hpp"
#include "rosidl_runtime_c/string_functions.h"
#include "test_msgs/msg/basic_types.h"
#include "test_msgs/msg/strings.h"

using rmw_test::take_error;
using rmw_test::wait_until;

namespace
{
const rosidl_message_type_support_t * basic_ts()
{
  return ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, msg, BasicTypes);
}

const rosidl_message_type_support_t * strings_ts()
{
  return ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, msg, Strings);
}

// Content filter options that free themselves.
class Filter
{
public:
  explicit Filter(const char * expression, std::vector<const char *> parameters = {})
  {
    EXPECT_EQ(
      RMW_RET_OK, rmw_subscription_content_filter_options_init(
        expression, parameters.size(), parameters.data(), &allocator_, &options_));
  }
  ~Filter() {EXPECT_EQ(RMW_RET_OK, rmw_subscription_content_filter_options_fini(&options_, &allocator_));}
  Filter(const Filter &) = delete;
  Filter & operator=(const Filter &) = delete;
  rmw_subscription_content_filter_options_t * get() {return &options_;}

private:
  rcutils_allocator_t allocator_ = rcutils_get_default_allocator();
  rmw_subscription_content_filter_options_t options_ =
    rmw_get_zero_initialized_content_filter_options();
};

rmw_publisher_t * make_pub(
  rmw_node_t * node, const char * topic, const rosidl_message_type_support_t * ts,
  const rmw_qos_profile_t & qos = rmw_qos_profile_default)
{
  rmw_publisher_options_t options = rmw_get_default_publisher_options();
  rmw_publisher_t * pub = rmw_create_publisher(node, ts, topic, &qos, &options);
  EXPECT_NE(nullptr, pub) << take_error();
  return pub;
}

rmw_subscription_t * make_sub(
  rmw_node_t * node, const char * topic, const rosidl_message_type_support_t * ts,
  Filter * filter, const rmw_qos_profile_t & qos = rmw_qos_profile_default)
{
  rmw_subscription_options_t options = rmw_get_default_subscription_options();
  options.content_filter_options = filter ? filter->get() : nullptr;
  return rmw_create_subscription(node, ts, topic, &qos, &options);
}

bool matched(const rmw_publisher_t * pub, size_t n)
{
  size_t count = 0;
  return rmw_publisher_count_matched_subscriptions(pub, &count) == RMW_RET_OK && count == n;
}

void publish_int(rmw_publisher_t * pub, int32_t v)
{
  test_msgs__msg__BasicTypes msg;
  ASSERT_TRUE(test_msgs__msg__BasicTypes__init(&msg));
  msg.int32_value = v;
  EXPECT_EQ(RMW_RET_OK, rmw_publish(pub, &msg, nullptr)) << take_error();
  test_msgs__msg__BasicTypes__fini(&msg);
}

void publish_text(rmw_publisher_t * pub, const char * text)
{
  test_msgs__msg__Strings msg;
  ASSERT_TRUE(test_msgs__msg__Strings__init(&msg));
  ASSERT_TRUE(rosidl_runtime_c__String__assign(&msg.string_value, text));
  EXPECT_EQ(RMW_RET_OK, rmw_publish(pub, &msg, nullptr)) << take_error();
  test_msgs__msg__Strings__fini(&msg);
}

// Everything takeable now, after giving samples in flight `settle` to arrive.
std::vector<int32_t> take_ints(
  rmw_subscription_t * sub, std::chrono::milliseconds settle = std::chrono::milliseconds(300))
{
  std::this_thread::sleep_for(settle);
  std::vector<int32_t> got;
  for (;;) {
    test_msgs__msg__BasicTypes msg;
    EXPECT_TRUE(test_msgs__msg__BasicTypes__init(&msg));
    bool taken = false;
    EXPECT_EQ(RMW_RET_OK, rmw_take(sub, &msg, &taken, nullptr)) << take_error();
    const int32_t v = msg.int32_value;
    test_msgs__msg__BasicTypes__fini(&msg);
    if (!taken) {
      return got;
    }
    got.push_back(v);
  }
}

std::vector<std::string> take_texts(rmw_subscription_t * sub)
{
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  std::vector<std::string> got;
  for (;;) {
    test_msgs__msg__Strings msg;
    EXPECT_TRUE(test_msgs__msg__Strings__init(&msg));
    bool taken = false;
    EXPECT_EQ(RMW_RET_OK, rmw_take(sub, &msg, &taken, nullptr)) << take_error();
    const std::string v(msg.string_value.data, msg.string_value.size);
    test_msgs__msg__Strings__fini(&msg);
    if (!taken) {
      return got;
    }
    got.push_back(v);
  }
}

// rmw_wait on one subscription; true if it came back ready.
bool wait_ready(rmw_context_t * context, rmw_subscription_t * sub, int64_t timeout_ms)
{
  rmw_wait_set_t * ws = rmw_create_wait_set(context, 1);
  EXPECT_NE(nullptr, ws) << take_error();
  void * storage[1] = {sub->data};
  rmw_subscriptions_t subs{1, storage};
  rmw_time_t timeout{static_cast<uint64_t>(timeout_ms / 1000),
    static_cast<uint64_t>(timeout_ms % 1000) * 1000000u};
  const rmw_ret_t ret = rmw_wait(&subs, nullptr, nullptr, nullptr, nullptr, ws, &timeout);
  EXPECT_TRUE(ret == RMW_RET_OK || ret == RMW_RET_TIMEOUT) << take_error();
  EXPECT_EQ(ret == RMW_RET_OK, storage[0] != nullptr);
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_wait_set(ws));
  return ret == RMW_RET_OK;
}
}  // namespace

TEST(ContentFilter, GivenAtCreationAndReadBack)
{
  rmw_test::Context ctx;
  ASSERT_TRUE(ctx.ok());
  rmw_test::Node node(ctx, "cft_create");
  Filter filter("int32_value > %0 AND int32_value <> %1", {"4", "6"});
  rmw_subscription_t * sub = make_sub(node.get(), "/cft_create", basic_ts(), &filter);
  ASSERT_NE(nullptr, sub) << take_error();
  EXPECT_TRUE(sub->is_cft_enabled);
  rmw_publisher_t * pub = make_pub(node.get(), "/cft_create", basic_ts());
  ASSERT_NE(nullptr, pub);
  ASSERT_TRUE(wait_until([&]() {return matched(pub, 1);}));
  for (int32_t v = 1; v <= 8; ++v) {
    publish_int(pub, v);
  }
  EXPECT_EQ((std::vector<int32_t>{5, 7, 8}), take_ints(sub));

  rcutils_allocator_t allocator = rcutils_get_default_allocator();
  rmw_subscription_content_filter_options_t got = rmw_get_zero_initialized_content_filter_options();
  ASSERT_EQ(RMW_RET_OK, rmw_subscription_get_content_filter(sub, &allocator, &got)) << take_error();
  EXPECT_STREQ("int32_value > %0 AND int32_value <> %1", got.filter_expression);
  ASSERT_EQ(2u, got.expression_parameters.size);
  EXPECT_STREQ("4", got.expression_parameters.data[0]);
  EXPECT_STREQ("6", got.expression_parameters.data[1]);
  EXPECT_EQ(RMW_RET_OK, rmw_subscription_content_filter_options_fini(&got, &allocator));

  EXPECT_EQ(RMW_RET_OK, rmw_destroy_publisher(node.get(), pub));
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_subscription(node.get(), sub));
}

TEST(ContentFilter, SetChangedAndResetLater)
{
  rmw_test::Context ctx;
  ASSERT_TRUE(ctx.ok());
  rmw_test::Node node(ctx, "cft_set");
  rmw_subscription_t * sub = make_sub(node.get(), "/cft_set", strings_ts(), nullptr);
  ASSERT_NE(nullptr, sub) << take_error();
  EXPECT_FALSE(sub->is_cft_enabled);
  rcutils_allocator_t allocator = rcutils_get_default_allocator();
  rmw_subscription_content_filter_options_t got = rmw_get_zero_initialized_content_filter_options();
  EXPECT_EQ(RMW_RET_ERROR, rmw_subscription_get_content_filter(sub, &allocator, &got));
  EXPECT_NE(std::string::npos, take_error().find("has no content filter"));

  rmw_publisher_t * pub = make_pub(node.get(), "/cft_set", strings_ts());
  ASSERT_NE(nullptr, pub);
  ASSERT_TRUE(wait_until([&]() {return matched(pub, 1);}));
  publish_text(pub, "before");

  {
    Filter filter("string_value = %0", {"'keep'"});
    ASSERT_EQ(RMW_RET_OK, rmw_subscription_set_content_filter(sub, filter.get())) << take_error();
  }
  EXPECT_TRUE(sub->is_cft_enabled);
  // "before" was waiting when the filter was set, and does not pass it.
  publish_text(pub, "drop");
  publish_text(pub, "keep");
  EXPECT_EQ((std::vector<std::string>{"keep"}), take_texts(sub));

  {
    Filter filter("string_value LIKE 'a%'");
    ASSERT_EQ(RMW_RET_OK, rmw_subscription_set_content_filter(sub, filter.get())) << take_error();
  }
  publish_text(pub, "keep");
  publish_text(pub, "apple");
  EXPECT_EQ((std::vector<std::string>{"apple"}), take_texts(sub));

  // A bad expression is refused, says where, and leaves the filter as it was.
  {
    Filter filter("string_value >> 'a'");
    EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_subscription_set_content_filter(sub, filter.get()));
    const std::string error = take_error();
    EXPECT_NE(std::string::npos, error.find("at character 15")) << error;
  }
  EXPECT_TRUE(sub->is_cft_enabled);
  publish_text(pub, "banana");
  publish_text(pub, "avocado");
  EXPECT_EQ((std::vector<std::string>{"avocado"}), take_texts(sub));

  {
    Filter filter("");  // removes the filter
    ASSERT_EQ(RMW_RET_OK, rmw_subscription_set_content_filter(sub, filter.get())) << take_error();
  }
  EXPECT_FALSE(sub->is_cft_enabled);
  EXPECT_EQ(RMW_RET_ERROR, rmw_subscription_get_content_filter(sub, &allocator, &got));
  rmw_reset_error();
  publish_text(pub, "anything");
  EXPECT_EQ((std::vector<std::string>{"anything"}), take_texts(sub));

  rmw_subscription_content_filter_options_t no_expression =
    rmw_get_zero_initialized_content_filter_options();
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_subscription_set_content_filter(sub, &no_expression));
  rmw_reset_error();
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_subscription_set_content_filter(sub, nullptr));
  rmw_reset_error();
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_subscription_get_content_filter(sub, nullptr, &got));
  rmw_reset_error();

  EXPECT_EQ(RMW_RET_OK, rmw_destroy_publisher(node.get(), pub));
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_subscription(node.get(), sub));
}

TEST(ContentFilter, BadFilterAtCreationFailsTheCreation)
{
  rmw_test::Context ctx;
  ASSERT_TRUE(ctx.ok());
  rmw_test::Node node(ctx, "cft_bad");
  Filter filter("no_such_field = 1");
  EXPECT_EQ(nullptr, make_sub(node.get(), "/cft_bad", basic_ts(), &filter));
  const std::string error = take_error();
  EXPECT_NE(std::string::npos, error.find("has no field 'no_such_field'")) << error;
  // Nothing is left behind: the graph does not list the failed subscription.
  size_t count = 99;
  EXPECT_EQ(RMW_RET_OK, rmw_count_subscribers(node.get(), "/cft_bad", &count));
  EXPECT_EQ(0u, count);
}

TEST(ContentFilter, FilteredSamplesWakeNothing)
{
  rmw_test::Context ctx;
  ASSERT_TRUE(ctx.ok());
  rmw_test::Node node(ctx, "cft_wait");
  Filter filter("int32_value = 1");
  rmw_subscription_t * sub = make_sub(node.get(), "/cft_wait", basic_ts(), &filter);
  ASSERT_NE(nullptr, sub) << take_error();
  rmw_publisher_t * pub = make_pub(node.get(), "/cft_wait", basic_ts());
  ASSERT_NE(nullptr, pub);
  ASSERT_TRUE(wait_until([&]() {return matched(pub, 1);}));

  std::atomic<size_t> reported{0};
  auto callback = [](const void * user, size_t n) {
      static_cast<std::atomic<size_t> *>(const_cast<void *>(user))->fetch_add(n);
    };
  ASSERT_EQ(RMW_RET_OK, rmw_subscription_set_on_new_message_callback(sub, callback, &reported));

  for (int i = 0; i < 5; ++i) {
    publish_int(pub, 2);
  }
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(wait_ready(ctx.get(), sub, 300));
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(250));
  EXPECT_FALSE(wait_ready(ctx.get(), sub, 50));  // again: nothing pending, nothing ready
  EXPECT_EQ(0u, reported.load());

  publish_int(pub, 1);
  EXPECT_TRUE(wait_ready(ctx.get(), sub, 5000));
  EXPECT_EQ(1u, reported.load());
  EXPECT_EQ((std::vector<int32_t>{1}), take_ints(sub, std::chrono::milliseconds(0)));

  EXPECT_EQ(RMW_RET_OK, rmw_subscription_set_on_new_message_callback(sub, nullptr, nullptr));
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_publisher(node.get(), pub));
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_subscription(node.get(), sub));
}

TEST(ContentFilter, AcrossContextsKeepLastKeepsTheMatchingSample)
{
  rmw_test::Context sub_ctx;
  rmw_test::Context pub_ctx;
  ASSERT_TRUE(sub_ctx.ok() && pub_ctx.ok());
  rmw_test::Node sub_node(sub_ctx, "cft_remote_sub");
  rmw_test::Node pub_node(pub_ctx, "cft_remote_pub");
  rmw_qos_profile_t qos = rmw_qos_profile_default;
  qos.depth = 1;
  Filter filter("int32_value BETWEEN 100 AND 199");
  rmw_subscription_t * sub = make_sub(sub_node.get(), "/cft_remote", basic_ts(), &filter, qos);
  ASSERT_NE(nullptr, sub) << take_error();
  rmw_publisher_t * pub = make_pub(pub_node.get(), "/cft_remote", basic_ts(), qos);
  ASSERT_NE(nullptr, pub);
  ASSERT_TRUE(wait_until([&]() {return matched(pub, 1);}));
  publish_int(pub, 150);
  for (int32_t v = 0; v < 20; ++v) {
    publish_int(pub, v);  // none passes: with depth 1 each would otherwise replace 150
  }
  EXPECT_EQ((std::vector<int32_t>{150}), take_ints(sub, std::chrono::milliseconds(1000)));

  EXPECT_EQ(RMW_RET_OK, rmw_destroy_publisher(pub_node.get(), pub));
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_subscription(sub_node.get(), sub));
}

TEST(ContentFilter, LateJoinerGetsOnlyMatchingHistory)
{
  rmw_test::Context ctx;
  ASSERT_TRUE(ctx.ok());
  rmw_test::Node node(ctx, "cft_late");
  rmw_qos_profile_t qos = rmw_qos_profile_default;
  qos.durability = RMW_QOS_POLICY_DURABILITY_TRANSIENT_LOCAL;
  qos.depth = 5;
  rmw_publisher_t * pub = make_pub(node.get(), "/cft_late", basic_ts(), qos);
  ASSERT_NE(nullptr, pub);
  for (int32_t v = 1; v <= 5; ++v) {
    publish_int(pub, v);
  }
  Filter filter("int32_value >= 4");
  rmw_subscription_t * sub = make_sub(node.get(), "/cft_late", basic_ts(), &filter, qos);
  ASSERT_NE(nullptr, sub) << take_error();
  EXPECT_EQ((std::vector<int32_t>{4, 5}), take_ints(sub));
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_publisher(node.get(), pub));
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_subscription(node.get(), sub));
}

TEST(ContentFilter, SerializedTakesAreFilteredToo)
{
  rmw_test::Context ctx;
  ASSERT_TRUE(ctx.ok());
  rmw_test::Node node(ctx, "cft_serialized");
  Filter filter("int32_value < 0");
  rmw_subscription_t * sub = make_sub(node.get(), "/cft_serialized", basic_ts(), &filter);
  ASSERT_NE(nullptr, sub) << take_error();
  rmw_publisher_t * pub = make_pub(node.get(), "/cft_serialized", basic_ts());
  ASSERT_NE(nullptr, pub);
  ASSERT_TRUE(wait_until([&]() {return matched(pub, 1);}));
  publish_int(pub, 3);
  publish_int(pub, -3);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  rcutils_allocator_t allocator = rcutils_get_default_allocator();
  rmw_serialized_message_t bytes = rmw_get_zero_initialized_serialized_message();
  ASSERT_EQ(RMW_RET_OK, rmw_serialized_message_init(&bytes, 0, &allocator));
  bool taken = false;
  ASSERT_EQ(RMW_RET_OK, rmw_take_serialized_message(sub, &bytes, &taken, nullptr));
  ASSERT_TRUE(taken);
  test_msgs__msg__BasicTypes msg;
  ASSERT_TRUE(test_msgs__msg__BasicTypes__init(&msg));
  ASSERT_EQ(RMW_RET_OK, rmw_deserialize(&bytes, basic_ts(), &msg));
  EXPECT_EQ(-3, msg.int32_value);
  test_msgs__msg__BasicTypes__fini(&msg);
  ASSERT_EQ(RMW_RET_OK, rmw_take_serialized_message(sub, &bytes, &taken, nullptr));
  EXPECT_FALSE(taken);
  EXPECT_EQ(RMW_RET_OK, rmw_serialized_message_fini(&bytes));
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_publisher(node.get(), pub));
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_subscription(node.get(), sub));
}
