// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// Bad input to every rmw entry point that takes a handle or a pointer: a null handle, a handle of
// another implementation (its implementation_identifier is not rmw_hdds's), a null out-argument.
// Each must fail with the code rmw documents (RMW_RET_INVALID_ARGUMENT, _INCORRECT_RMW_IMPLEMENTATION,
// or NULL for the constructors), set an error message, and leave the handle working: every
// entity is used normally after the bad calls. Run under ASan (see CMakeLists: nothing may leak).
// test_rmw_implementation covers part of this; here every entry point is in one place, including
// those it does not reach (events, callbacks, loans, network flow endpoints, graph guard
// conditions, liveliness).
#include <gtest/gtest.h>

#include <string>

#include "rmw/error_handling.h"
#include "rmw/event.h"
#include "rmw/get_network_flow_endpoints.h"
#include "rmw/get_node_info_and_types.h"
#include "rmw/get_service_names_and_types.h"
#include "rmw/get_topic_endpoint_info.h"
#include "rmw/get_topic_names_and_types.h"
#include "rmw/rmw.h"
#include "rmw/serialized_message.h"
#include "rmw_test_fixtures.hpp"
#include "rosidl_typesupport_cpp/service_type_support.hpp"
#include "test_msgs/msg/basic_types.h"
#include "test_msgs/srv/basic_types.hpp"

using rmw_test::take_error;

namespace
{
// Another implementation's identifier: a different pointer, whatever its text.
constexpr char kForeign[] = "not_rmw_hdds";

void on_event(const void *, size_t) {}

// The call returns `code` and leaves an error message.
#define EXPECT_FAILS_WITH(code, call) \
  do { \
    rmw_reset_error(); \
    EXPECT_EQ(code, (call)) << #call; \
    EXPECT_TRUE(rmw_error_is_set()) << #call << " set no error message"; \
    rmw_reset_error(); \
  } while (0)

// The call returns NULL and leaves an error message.
#define EXPECT_NULL_WITH_MESSAGE(call) \
  do { \
    rmw_reset_error(); \
    EXPECT_EQ(nullptr, (call)) << #call; \
    EXPECT_TRUE(rmw_error_is_set()) << #call << " set no error message"; \
    rmw_reset_error(); \
  } while (0)

#define EXPECT_INVALID(call) EXPECT_FAILS_WITH(RMW_RET_INVALID_ARGUMENT, call)
#define EXPECT_FOREIGN(call) EXPECT_FAILS_WITH(RMW_RET_INCORRECT_RMW_IMPLEMENTATION, call)

// A copy of a handle that claims another implementation.
template<typename T>
T foreign(const T * handle)
{
  T copy = *handle;
  copy.implementation_identifier = kForeign;
  return copy;
}

class BadInput : public ::testing::Test
{
protected:
  void SetUp() override
  {
    ASSERT_TRUE(ctx_.ok());
    node = node_.get();
    ASSERT_NE(nullptr, node);
    msg_ts = ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, msg, BasicTypes);
    srv_ts = rosidl_typesupport_cpp::get_service_type_support_handle<test_msgs::srv::BasicTypes>();
    rmw_publisher_options_t pub_options = rmw_get_default_publisher_options();
    pub = rmw_create_publisher(node, msg_ts, "/bad_input", &rmw_qos_profile_default, &pub_options);
    ASSERT_NE(nullptr, pub) << take_error();
    rmw_subscription_options_t sub_options = rmw_get_default_subscription_options();
    sub = rmw_create_subscription(
      node, msg_ts, "/bad_input", &rmw_qos_profile_default, &sub_options);
    ASSERT_NE(nullptr, sub) << take_error();
    srv = rmw_create_service(node, srv_ts, "/bad_input_srv", &rmw_qos_profile_services_default);
    ASSERT_NE(nullptr, srv) << take_error();
    cli = rmw_create_client(node, srv_ts, "/bad_input_srv", &rmw_qos_profile_services_default);
    ASSERT_NE(nullptr, cli) << take_error();
    gc = rmw_create_guard_condition(ctx_.get());
    ASSERT_NE(nullptr, gc) << take_error();
    ws = rmw_create_wait_set(ctx_.get(), 4);
    ASSERT_NE(nullptr, ws) << take_error();
    ASSERT_EQ(
      RMW_RET_OK,
      rmw_publisher_event_init(&pub_event, pub, RMW_EVENT_OFFERED_DEADLINE_MISSED)) << take_error();
    ASSERT_EQ(
      RMW_RET_OK,
      rmw_subscription_event_init(&sub_event, sub, RMW_EVENT_LIVELINESS_CHANGED)) << take_error();
    ASSERT_TRUE(test_msgs__msg__BasicTypes__init(&msg));
  }

  void TearDown() override
  {
    test_msgs__msg__BasicTypes__fini(&msg);
    // Every handle still works after the bad calls, and goes normally.
    if (ws != nullptr) {
      rmw_time_t zero{0, 0};
      void * gcs[1] = {gc->data};
      rmw_guard_conditions_t guards{1, gcs};
      EXPECT_EQ(RMW_RET_OK, rmw_trigger_guard_condition(gc)) << take_error();
      EXPECT_EQ(RMW_RET_OK, rmw_wait(nullptr, &guards, nullptr, nullptr, nullptr, ws, &zero))
        << take_error();
      EXPECT_EQ(RMW_RET_OK, rmw_destroy_wait_set(ws)) << take_error();
    }
    if (gc != nullptr) {
      EXPECT_EQ(RMW_RET_OK, rmw_destroy_guard_condition(gc)) << take_error();
    }
    if (pub != nullptr) {
      EXPECT_EQ(RMW_RET_OK, rmw_publish(pub, &msg, nullptr)) << take_error();
      EXPECT_EQ(RMW_RET_OK, rmw_destroy_publisher(node, pub)) << take_error();
    }
    if (sub != nullptr) {
      EXPECT_EQ(RMW_RET_OK, rmw_destroy_subscription(node, sub)) << take_error();
    }
    if (srv != nullptr) {
      EXPECT_EQ(RMW_RET_OK, rmw_destroy_service(node, srv)) << take_error();
    }
    if (cli != nullptr) {
      EXPECT_EQ(RMW_RET_OK, rmw_destroy_client(node, cli)) << take_error();
    }
  }

  rmw_test::Context ctx_;
  rmw_test::Node node_{ctx_, "bad_input"};
  rmw_node_t * node = nullptr;
  const rosidl_message_type_support_t * msg_ts = nullptr;
  const rosidl_service_type_support_t * srv_ts = nullptr;
  rmw_publisher_t * pub = nullptr;
  rmw_subscription_t * sub = nullptr;
  rmw_service_t * srv = nullptr;
  rmw_client_t * cli = nullptr;
  rmw_guard_condition_t * gc = nullptr;
  rmw_wait_set_t * ws = nullptr;
  rmw_event_t pub_event = rmw_get_zero_initialized_event();
  rmw_event_t sub_event = rmw_get_zero_initialized_event();
  test_msgs__msg__BasicTypes msg{};
  rcutils_allocator_t allocator = rcutils_get_default_allocator();
};
}  // namespace

TEST_F(BadInput, InitOptionsAndContexts)
{
  rmw_init_options_t options = rmw_get_zero_initialized_init_options();
  EXPECT_INVALID(rmw_init_options_init(nullptr, allocator));
  rcutils_allocator_t broken = rcutils_get_zero_initialized_allocator();
  EXPECT_INVALID(rmw_init_options_init(&options, broken));
  ASSERT_EQ(RMW_RET_OK, rmw_init_options_init(&options, allocator)) << take_error();
  EXPECT_INVALID(rmw_init_options_init(&options, allocator));  // not zero-initialized

  rmw_init_options_t copy = rmw_get_zero_initialized_init_options();
  EXPECT_INVALID(rmw_init_options_copy(nullptr, &copy));
  EXPECT_INVALID(rmw_init_options_copy(&options, nullptr));
  rmw_init_options_t other = foreign(&options);
  EXPECT_FOREIGN(rmw_init_options_copy(&other, &copy));
  EXPECT_FOREIGN(rmw_init_options_fini(&other));
  EXPECT_INVALID(rmw_init_options_fini(nullptr));
  rmw_init_options_t broken_options = options;
  broken_options.allocator = broken;
  EXPECT_INVALID(rmw_init_options_copy(&broken_options, &copy));
  EXPECT_INVALID(rmw_init_options_fini(&broken_options));
  EXPECT_EQ(nullptr, copy.implementation_identifier);

  rmw_context_t context = rmw_get_zero_initialized_context();
  EXPECT_INVALID(rmw_init(nullptr, &context));
  EXPECT_INVALID(rmw_init(&options, nullptr));
  EXPECT_FOREIGN(rmw_init(&other, &context));
  EXPECT_INVALID(rmw_init(&options, &context));  // options.enclave is NULL
  EXPECT_EQ(nullptr, context.impl);

  EXPECT_INVALID(rmw_shutdown(nullptr));
  EXPECT_INVALID(rmw_context_fini(nullptr));
  rmw_context_t other_context = foreign(ctx_.get());
  EXPECT_FOREIGN(rmw_shutdown(&other_context));
  EXPECT_FOREIGN(rmw_context_fini(&other_context));
  EXPECT_INVALID(rmw_context_fini(&context));  // never initialized
  EXPECT_EQ(RMW_RET_OK, rmw_init_options_fini(&options)) << take_error();
}

TEST_F(BadInput, NodesGuardConditionsWaitSets)
{
  rmw_context_t other_context = foreign(ctx_.get());
  EXPECT_NULL_WITH_MESSAGE(rmw_create_node(nullptr, "n", "/"));
  EXPECT_NULL_WITH_MESSAGE(rmw_create_node(&other_context, "n", "/"));
  EXPECT_NULL_WITH_MESSAGE(rmw_create_node(ctx_.get(), nullptr, "/"));
  EXPECT_NULL_WITH_MESSAGE(rmw_create_node(ctx_.get(), "n", nullptr));
  rmw_node_t other_node = foreign(node);
  EXPECT_INVALID(rmw_destroy_node(nullptr));
  EXPECT_FOREIGN(rmw_destroy_node(&other_node));
  EXPECT_NULL_WITH_MESSAGE(rmw_node_get_graph_guard_condition(nullptr));
  EXPECT_NULL_WITH_MESSAGE(rmw_node_get_graph_guard_condition(&other_node));
  EXPECT_NE(nullptr, rmw_node_get_graph_guard_condition(node)) << take_error();

  EXPECT_NULL_WITH_MESSAGE(rmw_create_guard_condition(nullptr));
  EXPECT_NULL_WITH_MESSAGE(rmw_create_guard_condition(&other_context));
  rmw_guard_condition_t other_gc = foreign(gc);
  EXPECT_INVALID(rmw_destroy_guard_condition(nullptr));
  EXPECT_FOREIGN(rmw_destroy_guard_condition(&other_gc));
  EXPECT_INVALID(rmw_trigger_guard_condition(nullptr));
  EXPECT_FOREIGN(rmw_trigger_guard_condition(&other_gc));

  EXPECT_NULL_WITH_MESSAGE(rmw_create_wait_set(nullptr, 1));
  EXPECT_NULL_WITH_MESSAGE(rmw_create_wait_set(&other_context, 1));
  rmw_wait_set_t other_ws = foreign(ws);
  // RMW_RET_ERROR for NULL, as Humble's RMWs and test_rmw_implementation (docs/decisions.md).
  EXPECT_FAILS_WITH(RMW_RET_ERROR, rmw_destroy_wait_set(nullptr));
  EXPECT_FOREIGN(rmw_destroy_wait_set(&other_ws));
  rmw_time_t zero{0, 0};
  EXPECT_INVALID(rmw_wait(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, &zero));
  EXPECT_FOREIGN(rmw_wait(nullptr, nullptr, nullptr, nullptr, nullptr, &other_ws, &zero));
}

TEST_F(BadInput, Publishers)
{
  rmw_node_t other_node = foreign(node);
  rmw_publisher_options_t options = rmw_get_default_publisher_options();
  const rmw_qos_profile_t & qos = rmw_qos_profile_default;
  EXPECT_NULL_WITH_MESSAGE(rmw_create_publisher(nullptr, msg_ts, "/t", &qos, &options));
  EXPECT_NULL_WITH_MESSAGE(rmw_create_publisher(&other_node, msg_ts, "/t", &qos, &options));
  EXPECT_NULL_WITH_MESSAGE(rmw_create_publisher(node, nullptr, "/t", &qos, &options));
  EXPECT_NULL_WITH_MESSAGE(rmw_create_publisher(node, msg_ts, nullptr, &qos, &options));
  EXPECT_NULL_WITH_MESSAGE(rmw_create_publisher(node, msg_ts, "/t", nullptr, &options));
  EXPECT_NULL_WITH_MESSAGE(rmw_create_publisher(node, msg_ts, "/t", &qos, nullptr));
  EXPECT_NULL_WITH_MESSAGE(rmw_create_publisher(node, msg_ts, "not a topic", &qos, &options));
  rosidl_message_type_support_t other_ts = *msg_ts;
  other_ts.typesupport_identifier = kForeign;
  other_ts.func = nullptr;
  EXPECT_NULL_WITH_MESSAGE(rmw_create_publisher(node, &other_ts, "/t", &qos, &options));

  rmw_publisher_t other = foreign(pub);
  EXPECT_INVALID(rmw_destroy_publisher(nullptr, pub));
  EXPECT_FOREIGN(rmw_destroy_publisher(&other_node, pub));
  EXPECT_INVALID(rmw_destroy_publisher(node, nullptr));
  EXPECT_FOREIGN(rmw_destroy_publisher(node, &other));

  EXPECT_INVALID(rmw_publish(nullptr, &msg, nullptr));
  EXPECT_FOREIGN(rmw_publish(&other, &msg, nullptr));
  EXPECT_INVALID(rmw_publish(pub, nullptr, nullptr));
  rmw_serialized_message_t serialized = rmw_get_zero_initialized_serialized_message();
  EXPECT_INVALID(rmw_publish_serialized_message(nullptr, &serialized, nullptr));
  EXPECT_FOREIGN(rmw_publish_serialized_message(&other, &serialized, nullptr));
  EXPECT_INVALID(rmw_publish_serialized_message(pub, nullptr, nullptr));
  EXPECT_INVALID(rmw_publish_serialized_message(pub, &serialized, nullptr));  // empty

  size_t count = 0;
  EXPECT_INVALID(rmw_publisher_count_matched_subscriptions(nullptr, &count));
  EXPECT_FOREIGN(rmw_publisher_count_matched_subscriptions(&other, &count));
  EXPECT_INVALID(rmw_publisher_count_matched_subscriptions(pub, nullptr));
  rmw_qos_profile_t actual;
  EXPECT_INVALID(rmw_publisher_get_actual_qos(nullptr, &actual));
  EXPECT_FOREIGN(rmw_publisher_get_actual_qos(&other, &actual));
  EXPECT_INVALID(rmw_publisher_get_actual_qos(pub, nullptr));
  EXPECT_INVALID(rmw_publisher_assert_liveliness(nullptr));
  EXPECT_FOREIGN(rmw_publisher_assert_liveliness(&other));
  EXPECT_INVALID(rmw_publisher_wait_for_all_acked(nullptr, rmw_time_t{0, 0}));
  EXPECT_FOREIGN(rmw_publisher_wait_for_all_acked(&other, rmw_time_t{0, 0}));
  rmw_gid_t gid;
  EXPECT_INVALID(rmw_get_gid_for_publisher(nullptr, &gid));
  EXPECT_FOREIGN(rmw_get_gid_for_publisher(&other, &gid));
  EXPECT_INVALID(rmw_get_gid_for_publisher(pub, nullptr));

  void * loan = nullptr;
  EXPECT_INVALID(rmw_borrow_loaned_message(nullptr, msg_ts, &loan));
  EXPECT_FOREIGN(rmw_borrow_loaned_message(&other, msg_ts, &loan));
  EXPECT_INVALID(rmw_borrow_loaned_message(pub, nullptr, &loan));
  EXPECT_INVALID(rmw_borrow_loaned_message(pub, msg_ts, nullptr));
  EXPECT_INVALID(rmw_return_loaned_message_from_publisher(nullptr, &msg));
  EXPECT_FOREIGN(rmw_return_loaned_message_from_publisher(&other, &msg));
  EXPECT_INVALID(rmw_return_loaned_message_from_publisher(pub, nullptr));
  EXPECT_INVALID(rmw_publish_loaned_message(nullptr, &msg, nullptr));
  EXPECT_FOREIGN(rmw_publish_loaned_message(&other, &msg, nullptr));
  EXPECT_INVALID(rmw_publish_loaned_message(pub, nullptr, nullptr));
  EXPECT_EQ(nullptr, loan);

  rmw_network_flow_endpoint_array_t flows = rmw_get_zero_initialized_network_flow_endpoint_array();
  EXPECT_INVALID(rmw_publisher_get_network_flow_endpoints(nullptr, &allocator, &flows));
  EXPECT_FOREIGN(rmw_publisher_get_network_flow_endpoints(&other, &allocator, &flows));

  rmw_event_t event = rmw_get_zero_initialized_event();
  EXPECT_INVALID(rmw_publisher_event_init(nullptr, pub, RMW_EVENT_LIVELINESS_LOST));
  EXPECT_INVALID(rmw_publisher_event_init(&event, nullptr, RMW_EVENT_LIVELINESS_LOST));
  EXPECT_FOREIGN(rmw_publisher_event_init(&event, &other, RMW_EVENT_LIVELINESS_LOST));
  EXPECT_INVALID(rmw_publisher_event_init(&pub_event, pub, RMW_EVENT_LIVELINESS_LOST));  // in use
  // A subscription's event type on a publisher.
  EXPECT_FAILS_WITH(
    RMW_RET_UNSUPPORTED, rmw_publisher_event_init(&event, pub, RMW_EVENT_LIVELINESS_CHANGED));
  EXPECT_EQ(nullptr, event.implementation_identifier);

  rmw_publisher_allocation_t allocation;
  EXPECT_FAILS_WITH(RMW_RET_UNSUPPORTED, rmw_init_publisher_allocation(msg_ts, nullptr, &allocation));
  EXPECT_FAILS_WITH(RMW_RET_UNSUPPORTED, rmw_fini_publisher_allocation(&allocation));
}

TEST_F(BadInput, Subscriptions)
{
  rmw_node_t other_node = foreign(node);
  rmw_subscription_options_t options = rmw_get_default_subscription_options();
  const rmw_qos_profile_t & qos = rmw_qos_profile_default;
  EXPECT_NULL_WITH_MESSAGE(rmw_create_subscription(nullptr, msg_ts, "/t", &qos, &options));
  EXPECT_NULL_WITH_MESSAGE(rmw_create_subscription(&other_node, msg_ts, "/t", &qos, &options));
  EXPECT_NULL_WITH_MESSAGE(rmw_create_subscription(node, nullptr, "/t", &qos, &options));
  EXPECT_NULL_WITH_MESSAGE(rmw_create_subscription(node, msg_ts, nullptr, &qos, &options));
  EXPECT_NULL_WITH_MESSAGE(rmw_create_subscription(node, msg_ts, "/t", nullptr, &options));
  EXPECT_NULL_WITH_MESSAGE(rmw_create_subscription(node, msg_ts, "/t", &qos, nullptr));
  EXPECT_NULL_WITH_MESSAGE(rmw_create_subscription(node, msg_ts, "/t/", &qos, &options));

  rmw_subscription_t other = foreign(sub);
  EXPECT_INVALID(rmw_destroy_subscription(nullptr, sub));
  EXPECT_FOREIGN(rmw_destroy_subscription(&other_node, sub));
  EXPECT_INVALID(rmw_destroy_subscription(node, nullptr));
  EXPECT_FOREIGN(rmw_destroy_subscription(node, &other));

  bool taken = false;
  rmw_message_info_t info = rmw_get_zero_initialized_message_info();
  EXPECT_INVALID(rmw_take(nullptr, &msg, &taken, nullptr));
  EXPECT_FOREIGN(rmw_take(&other, &msg, &taken, nullptr));
  EXPECT_INVALID(rmw_take(sub, nullptr, &taken, nullptr));
  EXPECT_INVALID(rmw_take(sub, &msg, nullptr, nullptr));
  EXPECT_INVALID(rmw_take_with_info(nullptr, &msg, &taken, &info, nullptr));
  EXPECT_FOREIGN(rmw_take_with_info(&other, &msg, &taken, &info, nullptr));
  EXPECT_INVALID(rmw_take_with_info(sub, nullptr, &taken, &info, nullptr));
  EXPECT_INVALID(rmw_take_with_info(sub, &msg, nullptr, &info, nullptr));
  EXPECT_INVALID(rmw_take_with_info(sub, &msg, &taken, nullptr, nullptr));

  rmw_serialized_message_t serialized = rmw_get_zero_initialized_serialized_message();
  EXPECT_INVALID(rmw_take_serialized_message(nullptr, &serialized, &taken, nullptr));
  EXPECT_FOREIGN(rmw_take_serialized_message(&other, &serialized, &taken, nullptr));
  EXPECT_INVALID(rmw_take_serialized_message(sub, nullptr, &taken, nullptr));
  EXPECT_INVALID(rmw_take_serialized_message(sub, &serialized, nullptr, nullptr));
  EXPECT_INVALID(rmw_take_serialized_message_with_info(nullptr, &serialized, &taken, &info, nullptr));
  EXPECT_FOREIGN(rmw_take_serialized_message_with_info(&other, &serialized, &taken, &info, nullptr));
  EXPECT_INVALID(rmw_take_serialized_message_with_info(sub, nullptr, &taken, &info, nullptr));
  EXPECT_INVALID(rmw_take_serialized_message_with_info(sub, &serialized, nullptr, &info, nullptr));
  EXPECT_INVALID(rmw_take_serialized_message_with_info(sub, &serialized, &taken, nullptr, nullptr));

  rmw_message_sequence_t messages = rmw_get_zero_initialized_message_sequence();
  rmw_message_info_sequence_t infos = rmw_get_zero_initialized_message_info_sequence();
  ASSERT_EQ(RMW_RET_OK, rmw_message_sequence_init(&messages, 2, &allocator));
  ASSERT_EQ(RMW_RET_OK, rmw_message_info_sequence_init(&infos, 2, &allocator));
  size_t n = 0;
  EXPECT_INVALID(rmw_take_sequence(nullptr, 1, &messages, &infos, &n, nullptr));
  EXPECT_FOREIGN(rmw_take_sequence(&other, 1, &messages, &infos, &n, nullptr));
  EXPECT_INVALID(rmw_take_sequence(sub, 1, nullptr, &infos, &n, nullptr));
  EXPECT_INVALID(rmw_take_sequence(sub, 1, &messages, nullptr, &n, nullptr));
  EXPECT_INVALID(rmw_take_sequence(sub, 1, &messages, &infos, nullptr, nullptr));
  EXPECT_INVALID(rmw_take_sequence(sub, 0, &messages, &infos, &n, nullptr));
  EXPECT_INVALID(rmw_take_sequence(sub, 3, &messages, &infos, &n, nullptr));  // over capacity
  EXPECT_EQ(RMW_RET_OK, rmw_message_sequence_fini(&messages));
  EXPECT_EQ(RMW_RET_OK, rmw_message_info_sequence_fini(&infos));

  size_t count = 0;
  EXPECT_INVALID(rmw_subscription_count_matched_publishers(nullptr, &count));
  EXPECT_FOREIGN(rmw_subscription_count_matched_publishers(&other, &count));
  EXPECT_INVALID(rmw_subscription_count_matched_publishers(sub, nullptr));
  rmw_qos_profile_t actual;
  EXPECT_INVALID(rmw_subscription_get_actual_qos(nullptr, &actual));
  EXPECT_FOREIGN(rmw_subscription_get_actual_qos(&other, &actual));
  EXPECT_INVALID(rmw_subscription_get_actual_qos(sub, nullptr));
  EXPECT_INVALID(rmw_subscription_set_on_new_message_callback(nullptr, on_event, nullptr));
  EXPECT_FOREIGN(rmw_subscription_set_on_new_message_callback(&other, on_event, nullptr));

  void * loan = nullptr;
  EXPECT_INVALID(rmw_take_loaned_message(nullptr, &loan, &taken, nullptr));
  EXPECT_FOREIGN(rmw_take_loaned_message(&other, &loan, &taken, nullptr));
  EXPECT_INVALID(rmw_take_loaned_message(sub, nullptr, &taken, nullptr));
  EXPECT_INVALID(rmw_take_loaned_message(sub, &loan, nullptr, nullptr));
  EXPECT_INVALID(rmw_take_loaned_message_with_info(nullptr, &loan, &taken, &info, nullptr));
  EXPECT_FOREIGN(rmw_take_loaned_message_with_info(&other, &loan, &taken, &info, nullptr));
  EXPECT_INVALID(rmw_take_loaned_message_with_info(sub, nullptr, &taken, &info, nullptr));
  EXPECT_INVALID(rmw_take_loaned_message_with_info(sub, &loan, nullptr, &info, nullptr));
  EXPECT_INVALID(rmw_take_loaned_message_with_info(sub, &loan, &taken, nullptr, nullptr));
  EXPECT_INVALID(rmw_return_loaned_message_from_subscription(nullptr, &msg));
  EXPECT_FOREIGN(rmw_return_loaned_message_from_subscription(&other, &msg));
  EXPECT_INVALID(rmw_return_loaned_message_from_subscription(sub, nullptr));
  EXPECT_EQ(nullptr, loan);

  rmw_subscription_content_filter_options_t filter =
    rmw_get_zero_initialized_content_filter_options();
  EXPECT_INVALID(rmw_subscription_set_content_filter(nullptr, &filter));
  EXPECT_FOREIGN(rmw_subscription_set_content_filter(&other, &filter));
  EXPECT_INVALID(rmw_subscription_get_content_filter(nullptr, &allocator, &filter));
  EXPECT_FOREIGN(rmw_subscription_get_content_filter(&other, &allocator, &filter));
  rmw_network_flow_endpoint_array_t flows = rmw_get_zero_initialized_network_flow_endpoint_array();
  EXPECT_INVALID(rmw_subscription_get_network_flow_endpoints(nullptr, &allocator, &flows));
  EXPECT_FOREIGN(rmw_subscription_get_network_flow_endpoints(&other, &allocator, &flows));

  rmw_event_t event = rmw_get_zero_initialized_event();
  EXPECT_INVALID(rmw_subscription_event_init(nullptr, sub, RMW_EVENT_LIVELINESS_CHANGED));
  EXPECT_INVALID(rmw_subscription_event_init(&event, nullptr, RMW_EVENT_LIVELINESS_CHANGED));
  EXPECT_FOREIGN(rmw_subscription_event_init(&event, &other, RMW_EVENT_LIVELINESS_CHANGED));
  EXPECT_FAILS_WITH(
    RMW_RET_UNSUPPORTED, rmw_subscription_event_init(&event, sub, RMW_EVENT_LIVELINESS_LOST));
  EXPECT_EQ(nullptr, event.implementation_identifier);

  rmw_subscription_allocation_t allocation;
  EXPECT_FAILS_WITH(
    RMW_RET_UNSUPPORTED, rmw_init_subscription_allocation(msg_ts, nullptr, &allocation));
  EXPECT_FAILS_WITH(RMW_RET_UNSUPPORTED, rmw_fini_subscription_allocation(&allocation));
}

TEST_F(BadInput, Events)
{
  rmw_event_t other = foreign(&pub_event);
  rmw_offered_deadline_missed_status_t status;
  bool taken = false;
  EXPECT_INVALID(rmw_take_event(nullptr, &status, &taken));
  EXPECT_FOREIGN(rmw_take_event(&other, &status, &taken));
  EXPECT_INVALID(rmw_take_event(&pub_event, nullptr, &taken));
  EXPECT_INVALID(rmw_take_event(&pub_event, &status, nullptr));
  EXPECT_INVALID(rmw_event_set_callback(nullptr, on_event, nullptr));
  EXPECT_FOREIGN(rmw_event_set_callback(&other, on_event, nullptr));
  // The handles still answer.
  EXPECT_EQ(RMW_RET_OK, rmw_take_event(&pub_event, &status, &taken)) << take_error();
  EXPECT_EQ(0, status.total_count);
  rmw_liveliness_changed_status_t changed;
  EXPECT_EQ(RMW_RET_OK, rmw_take_event(&sub_event, &changed, &taken)) << take_error();
}

TEST_F(BadInput, ServicesAndClients)
{
  rmw_node_t other_node = foreign(node);
  const rmw_qos_profile_t & qos = rmw_qos_profile_services_default;
  EXPECT_NULL_WITH_MESSAGE(rmw_create_service(nullptr, srv_ts, "/s", &qos));
  EXPECT_NULL_WITH_MESSAGE(rmw_create_service(&other_node, srv_ts, "/s", &qos));
  EXPECT_NULL_WITH_MESSAGE(rmw_create_service(node, nullptr, "/s", &qos));
  EXPECT_NULL_WITH_MESSAGE(rmw_create_service(node, srv_ts, nullptr, &qos));
  EXPECT_NULL_WITH_MESSAGE(rmw_create_service(node, srv_ts, "/s", nullptr));
  EXPECT_NULL_WITH_MESSAGE(rmw_create_service(node, srv_ts, "bad name", &qos));
  EXPECT_NULL_WITH_MESSAGE(rmw_create_client(nullptr, srv_ts, "/s", &qos));
  EXPECT_NULL_WITH_MESSAGE(rmw_create_client(&other_node, srv_ts, "/s", &qos));
  EXPECT_NULL_WITH_MESSAGE(rmw_create_client(node, nullptr, "/s", &qos));
  EXPECT_NULL_WITH_MESSAGE(rmw_create_client(node, srv_ts, nullptr, &qos));
  EXPECT_NULL_WITH_MESSAGE(rmw_create_client(node, srv_ts, "/s", nullptr));
  EXPECT_NULL_WITH_MESSAGE(rmw_create_client(node, srv_ts, "bad name", &qos));

  rmw_service_t other_srv = foreign(srv);
  rmw_client_t other_cli = foreign(cli);
  EXPECT_INVALID(rmw_destroy_service(nullptr, srv));
  EXPECT_FOREIGN(rmw_destroy_service(&other_node, srv));
  EXPECT_INVALID(rmw_destroy_service(node, nullptr));
  EXPECT_FOREIGN(rmw_destroy_service(node, &other_srv));
  EXPECT_INVALID(rmw_destroy_client(nullptr, cli));
  EXPECT_FOREIGN(rmw_destroy_client(&other_node, cli));
  EXPECT_INVALID(rmw_destroy_client(node, nullptr));
  EXPECT_FOREIGN(rmw_destroy_client(node, &other_cli));

  test_msgs::srv::BasicTypes::Request request;
  test_msgs::srv::BasicTypes::Response response;
  rmw_service_info_t header;
  rmw_request_id_t request_id{};
  bool taken = false;
  EXPECT_INVALID(rmw_take_request(nullptr, &header, &request, &taken));
  EXPECT_FOREIGN(rmw_take_request(&other_srv, &header, &request, &taken));
  EXPECT_INVALID(rmw_take_request(srv, nullptr, &request, &taken));
  EXPECT_INVALID(rmw_take_request(srv, &header, nullptr, &taken));
  EXPECT_INVALID(rmw_take_request(srv, &header, &request, nullptr));
  EXPECT_INVALID(rmw_send_response(nullptr, &request_id, &response));
  EXPECT_FOREIGN(rmw_send_response(&other_srv, &request_id, &response));
  EXPECT_INVALID(rmw_send_response(srv, nullptr, &response));
  EXPECT_INVALID(rmw_send_response(srv, &request_id, nullptr));
  rmw_qos_profile_t actual;
  EXPECT_INVALID(rmw_service_request_subscription_get_actual_qos(nullptr, &actual));
  EXPECT_FOREIGN(rmw_service_request_subscription_get_actual_qos(&other_srv, &actual));
  EXPECT_INVALID(rmw_service_request_subscription_get_actual_qos(srv, nullptr));
  EXPECT_INVALID(rmw_service_response_publisher_get_actual_qos(nullptr, &actual));
  EXPECT_FOREIGN(rmw_service_response_publisher_get_actual_qos(&other_srv, &actual));
  EXPECT_INVALID(rmw_service_response_publisher_get_actual_qos(srv, nullptr));
  EXPECT_INVALID(rmw_service_set_on_new_request_callback(nullptr, on_event, nullptr));
  EXPECT_FOREIGN(rmw_service_set_on_new_request_callback(&other_srv, on_event, nullptr));

  int64_t sequence = 0;
  EXPECT_INVALID(rmw_send_request(nullptr, &request, &sequence));
  EXPECT_FOREIGN(rmw_send_request(&other_cli, &request, &sequence));
  EXPECT_INVALID(rmw_send_request(cli, nullptr, &sequence));
  EXPECT_INVALID(rmw_send_request(cli, &request, nullptr));
  EXPECT_INVALID(rmw_take_response(nullptr, &header, &response, &taken));
  EXPECT_FOREIGN(rmw_take_response(&other_cli, &header, &response, &taken));
  EXPECT_INVALID(rmw_take_response(cli, nullptr, &response, &taken));
  EXPECT_INVALID(rmw_take_response(cli, &header, nullptr, &taken));
  EXPECT_INVALID(rmw_take_response(cli, &header, &response, nullptr));
  EXPECT_INVALID(rmw_client_request_publisher_get_actual_qos(nullptr, &actual));
  EXPECT_FOREIGN(rmw_client_request_publisher_get_actual_qos(&other_cli, &actual));
  EXPECT_INVALID(rmw_client_request_publisher_get_actual_qos(cli, nullptr));
  EXPECT_INVALID(rmw_client_response_subscription_get_actual_qos(nullptr, &actual));
  EXPECT_FOREIGN(rmw_client_response_subscription_get_actual_qos(&other_cli, &actual));
  EXPECT_INVALID(rmw_client_response_subscription_get_actual_qos(cli, nullptr));
  EXPECT_INVALID(rmw_client_set_on_new_response_callback(nullptr, on_event, nullptr));
  EXPECT_FOREIGN(rmw_client_set_on_new_response_callback(&other_cli, on_event, nullptr));

  // rmw documents RMW_RET_ERROR for null arguments here (test_rmw_implementation checks it).
  bool available = false;
  EXPECT_FAILS_WITH(RMW_RET_ERROR, rmw_service_server_is_available(nullptr, cli, &available));
  EXPECT_FOREIGN(rmw_service_server_is_available(&other_node, cli, &available));
  EXPECT_FAILS_WITH(RMW_RET_ERROR, rmw_service_server_is_available(node, nullptr, &available));
  EXPECT_FOREIGN(rmw_service_server_is_available(node, &other_cli, &available));
  EXPECT_FAILS_WITH(RMW_RET_ERROR, rmw_service_server_is_available(node, cli, nullptr));
}

TEST_F(BadInput, Graph)
{
  rmw_node_t other_node = foreign(node);
  rcutils_string_array_t names = rcutils_get_zero_initialized_string_array();
  rcutils_string_array_t namespaces = rcutils_get_zero_initialized_string_array();
  rcutils_string_array_t enclaves = rcutils_get_zero_initialized_string_array();
  EXPECT_INVALID(rmw_get_node_names(nullptr, &names, &namespaces));
  EXPECT_FOREIGN(rmw_get_node_names(&other_node, &names, &namespaces));
  EXPECT_INVALID(rmw_get_node_names(node, nullptr, &namespaces));
  EXPECT_INVALID(rmw_get_node_names(node, &names, nullptr));
  EXPECT_INVALID(rmw_get_node_names_with_enclaves(nullptr, &names, &namespaces, &enclaves));
  EXPECT_FOREIGN(rmw_get_node_names_with_enclaves(&other_node, &names, &namespaces, &enclaves));
  EXPECT_INVALID(rmw_get_node_names_with_enclaves(node, &names, &namespaces, nullptr));

  rmw_names_and_types_t nat = rmw_get_zero_initialized_names_and_types();
  EXPECT_INVALID(rmw_get_topic_names_and_types(nullptr, &allocator, false, &nat));
  EXPECT_FOREIGN(rmw_get_topic_names_and_types(&other_node, &allocator, false, &nat));
  EXPECT_INVALID(rmw_get_topic_names_and_types(node, nullptr, false, &nat));
  EXPECT_INVALID(rmw_get_topic_names_and_types(node, &allocator, false, nullptr));
  EXPECT_INVALID(rmw_get_service_names_and_types(nullptr, &allocator, &nat));
  EXPECT_FOREIGN(rmw_get_service_names_and_types(&other_node, &allocator, &nat));
  EXPECT_INVALID(rmw_get_service_names_and_types(node, nullptr, &nat));
  EXPECT_INVALID(rmw_get_service_names_and_types(node, &allocator, nullptr));

  using ByNode = rmw_ret_t (*)(
    const rmw_node_t *, rcutils_allocator_t *, const char *, const char *, rmw_names_and_types_t *);
  const ByNode service_queries[] = {
    rmw_get_service_names_and_types_by_node, rmw_get_client_names_and_types_by_node};
  for (ByNode query : service_queries) {
    EXPECT_INVALID(query(nullptr, &allocator, "bad_input", "/", &nat));
    EXPECT_FOREIGN(query(&other_node, &allocator, "bad_input", "/", &nat));
    EXPECT_INVALID(query(node, nullptr, "bad_input", "/", &nat));
    EXPECT_INVALID(query(node, &allocator, nullptr, "/", &nat));
    EXPECT_INVALID(query(node, &allocator, "bad_input", nullptr, &nat));
    EXPECT_INVALID(query(node, &allocator, "bad input", "/", &nat));
    EXPECT_INVALID(query(node, &allocator, "bad_input", "/", nullptr));
  }
  using TopicsByNode = rmw_ret_t (*)(
    const rmw_node_t *, rcutils_allocator_t *, const char *, const char *, bool,
    rmw_names_and_types_t *);
  const TopicsByNode topic_queries[] = {
    rmw_get_publisher_names_and_types_by_node, rmw_get_subscriber_names_and_types_by_node};
  for (TopicsByNode query : topic_queries) {
    EXPECT_INVALID(query(nullptr, &allocator, "bad_input", "/", false, &nat));
    EXPECT_FOREIGN(query(&other_node, &allocator, "bad_input", "/", false, &nat));
    EXPECT_INVALID(query(node, nullptr, "bad_input", "/", false, &nat));
    EXPECT_INVALID(query(node, &allocator, nullptr, "/", false, &nat));
    EXPECT_INVALID(query(node, &allocator, "bad_input", nullptr, false, &nat));
    EXPECT_INVALID(query(node, &allocator, "bad_input", "/", false, nullptr));
  }

  using Info = rmw_ret_t (*)(
    const rmw_node_t *, rcutils_allocator_t *, const char *, bool,
    rmw_topic_endpoint_info_array_t *);
  rmw_topic_endpoint_info_array_t infos = rmw_get_zero_initialized_topic_endpoint_info_array();
  const Info info_queries[] = {rmw_get_publishers_info_by_topic, rmw_get_subscriptions_info_by_topic};
  for (Info query : info_queries) {
    EXPECT_INVALID(query(nullptr, &allocator, "/bad_input", false, &infos));
    EXPECT_FOREIGN(query(&other_node, &allocator, "/bad_input", false, &infos));
    EXPECT_INVALID(query(node, nullptr, "/bad_input", false, &infos));
    EXPECT_INVALID(query(node, &allocator, nullptr, false, &infos));
    EXPECT_INVALID(query(node, &allocator, "/bad_input", false, nullptr));
  }

  using Count = rmw_ret_t (*)(const rmw_node_t *, const char *, size_t *);
  size_t count = 0;
  const Count counts[] = {rmw_count_publishers, rmw_count_subscribers};
  for (Count query : counts) {
    EXPECT_INVALID(query(nullptr, "/bad_input", &count));
    EXPECT_FOREIGN(query(&other_node, "/bad_input", &count));
    EXPECT_INVALID(query(node, nullptr, &count));
    EXPECT_INVALID(query(node, "bad topic", &count));
    EXPECT_INVALID(query(node, "/bad_input", nullptr));
  }
}

TEST_F(BadInput, GidsSerializationQos)
{
  rmw_gid_t gid;
  ASSERT_EQ(RMW_RET_OK, rmw_get_gid_for_publisher(pub, &gid)) << take_error();
  rmw_gid_t other_gid = gid;
  other_gid.implementation_identifier = kForeign;
  bool equal = false;
  EXPECT_INVALID(rmw_compare_gids_equal(nullptr, &gid, &equal));
  EXPECT_INVALID(rmw_compare_gids_equal(&gid, nullptr, &equal));
  EXPECT_INVALID(rmw_compare_gids_equal(&gid, &gid, nullptr));
  EXPECT_FOREIGN(rmw_compare_gids_equal(&other_gid, &gid, &equal));
  EXPECT_FOREIGN(rmw_compare_gids_equal(&gid, &other_gid, &equal));

  rmw_serialized_message_t serialized = rmw_get_zero_initialized_serialized_message();
  EXPECT_INVALID(rmw_serialize(nullptr, msg_ts, &serialized));
  EXPECT_INVALID(rmw_serialize(&msg, nullptr, &serialized));
  EXPECT_INVALID(rmw_serialize(&msg, msg_ts, nullptr));
  EXPECT_INVALID(rmw_deserialize(nullptr, msg_ts, &msg));
  EXPECT_INVALID(rmw_deserialize(&serialized, nullptr, &msg));
  EXPECT_INVALID(rmw_deserialize(&serialized, msg_ts, nullptr));
  // Too short to hold the encapsulation header: refused with a message, msg left valid.
  EXPECT_FAILS_WITH(RMW_RET_ERROR, rmw_deserialize(&serialized, msg_ts, &msg));
  size_t size = 0;
  EXPECT_INVALID(rmw_get_serialized_message_size(nullptr, nullptr, &size));
  EXPECT_INVALID(rmw_get_serialized_message_size(msg_ts, nullptr, nullptr));
  rosidl_message_type_support_t other_ts = *msg_ts;
  other_ts.typesupport_identifier = kForeign;
  other_ts.func = nullptr;
  EXPECT_FAILS_WITH(RMW_RET_ERROR, rmw_serialize(&msg, &other_ts, &serialized));
  EXPECT_EQ(nullptr, serialized.buffer);

  rmw_qos_compatibility_type_t compatible;
  char reason[64];
  EXPECT_INVALID(
    rmw_qos_profile_check_compatible(
      rmw_qos_profile_default, rmw_qos_profile_default, nullptr, reason, sizeof(reason)));
  EXPECT_INVALID(
    rmw_qos_profile_check_compatible(
      rmw_qos_profile_default, rmw_qos_profile_default, &compatible, nullptr, sizeof(reason)));

  EXPECT_STREQ("rmw_hdds", rmw_get_implementation_identifier());
  EXPECT_STREQ("cdr", rmw_get_serialization_format());
}
