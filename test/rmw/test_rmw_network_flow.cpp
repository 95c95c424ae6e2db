// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// Network flow endpoints through the rmw API: a subscription reports the UDPv4 address and port
// it receives on, a publisher the one it sends from, on loopback; all endpoints of a context
// share them; unique flow endpoints STRICTLY_REQUIRED are refused, OPTIONALLY_REQUIRED get the
// shared ones; bad arrays and allocators are refused.
#include <gtest/gtest.h>

#include <string>

#include "rcutils/allocator.h"
#include "rmw/error_handling.h"
#include "rmw/get_network_flow_endpoints.h"
#include "rmw/rmw.h"
#include "rmw_test_fixtures.hpp"
#include "test_msgs/msg/basic_types.h"

using rmw_test::take_error;

namespace
{
const rosidl_message_type_support_t * ts()
{
  return ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, msg, BasicTypes);
}

rmw_publisher_t * make_pub(
  rmw_node_t * node, const char * topic,
  rmw_unique_network_flow_endpoints_requirement_t unique =
  RMW_UNIQUE_NETWORK_FLOW_ENDPOINTS_NOT_REQUIRED)
{
  rmw_publisher_options_t options = rmw_get_default_publisher_options();
  options.require_unique_network_flow_endpoints = unique;
  return rmw_create_publisher(node, ts(), topic, &rmw_qos_profile_default, &options);
}

rmw_subscription_t * make_sub(
  rmw_node_t * node, const char * topic,
  rmw_unique_network_flow_endpoints_requirement_t unique =
  RMW_UNIQUE_NETWORK_FLOW_ENDPOINTS_NOT_REQUIRED)
{
  rmw_subscription_options_t options = rmw_get_default_subscription_options();
  options.require_unique_network_flow_endpoints = unique;
  return rmw_create_subscription(node, ts(), topic, &rmw_qos_profile_default, &options);
}

// The one flow an endpoint reports, checked to be UDPv4 on loopback.
rmw_network_flow_endpoint_t one_flow(rmw_ret_t ret, rmw_network_flow_endpoint_array_t * flows)
{
  EXPECT_EQ(RMW_RET_OK, ret) << take_error();
  EXPECT_EQ(1u, flows->size);
  rmw_network_flow_endpoint_t f = rmw_get_zero_initialized_network_flow_endpoint();
  if (flows->size == 1) {
    f = flows->network_flow_endpoint[0];
    EXPECT_EQ(RMW_TRANSPORT_PROTOCOL_UDP, f.transport_protocol);
    EXPECT_EQ(RMW_INTERNET_PROTOCOL_IPV4, f.internet_protocol);
    EXPECT_STREQ("127.0.0.1", f.internet_address);
    EXPECT_NE(0u, f.transport_port);
    EXPECT_EQ(0u, f.flow_label);
    EXPECT_EQ(0u, f.dscp);
  }
  EXPECT_EQ(RMW_RET_OK, rmw_network_flow_endpoint_array_fini(flows));
  return f;
}
}  // namespace

TEST(NetworkFlow, EndpointsReportWhereTheyReceiveAndSendFrom)
{
  rmw_test::Context ctx;
  ASSERT_TRUE(ctx.ok());
  rmw_test::Node node(ctx, "flows");
  rmw_publisher_t * pub = make_pub(node.get(), "/flows");
  rmw_subscription_t * sub = make_sub(node.get(), "/flows");
  ASSERT_NE(nullptr, pub) << take_error();
  ASSERT_NE(nullptr, sub) << take_error();
  rcutils_allocator_t allocator = rcutils_get_default_allocator();

  rmw_network_flow_endpoint_array_t flows = rmw_get_zero_initialized_network_flow_endpoint_array();
  const rmw_network_flow_endpoint_t in =
    one_flow(rmw_subscription_get_network_flow_endpoints(sub, &allocator, &flows), &flows);
  // The RTPS user unicast port of the test domain: 7400 + 250 d + 11 + 2 i.
  const unsigned base = 7400u + 250u * static_cast<unsigned>(rmw_test::test_domain()) + 11u;
  EXPECT_GE(in.transport_port, base);
  EXPECT_LT(in.transport_port, base + 239u);
  EXPECT_EQ(0u, (in.transport_port - base) % 2u);

  const rmw_network_flow_endpoint_t out =
    one_flow(rmw_publisher_get_network_flow_endpoints(pub, &allocator, &flows), &flows);
  EXPECT_NE(in.transport_port, out.transport_port);

  // Shared by every endpoint of the context, OPTIONALLY_REQUIRED ones included.
  rmw_publisher_t * pub2 =
    make_pub(node.get(), "/flows_2", RMW_UNIQUE_NETWORK_FLOW_ENDPOINTS_OPTIONALLY_REQUIRED);
  rmw_subscription_t * sub2 =
    make_sub(node.get(), "/flows_2", RMW_UNIQUE_NETWORK_FLOW_ENDPOINTS_OPTIONALLY_REQUIRED);
  ASSERT_NE(nullptr, pub2) << take_error();
  ASSERT_NE(nullptr, sub2) << take_error();
  EXPECT_EQ(
    in.transport_port,
    one_flow(rmw_subscription_get_network_flow_endpoints(sub2, &allocator, &flows), &flows)
    .transport_port);
  EXPECT_EQ(
    out.transport_port,
    one_flow(rmw_publisher_get_network_flow_endpoints(pub2, &allocator, &flows), &flows)
    .transport_port);

  EXPECT_EQ(RMW_RET_OK, rmw_destroy_publisher(node.get(), pub2));
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_subscription(node.get(), sub2));
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_publisher(node.get(), pub));
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_subscription(node.get(), sub));
}

TEST(NetworkFlow, StrictlyRequiredUniqueEndpointsAreRefused)
{
  rmw_test::Context ctx;
  ASSERT_TRUE(ctx.ok());
  rmw_test::Node node(ctx, "flows_unique");
  EXPECT_EQ(
    nullptr,
    make_pub(node.get(), "/flows_unique", RMW_UNIQUE_NETWORK_FLOW_ENDPOINTS_STRICTLY_REQUIRED));
  std::string error = take_error();
  EXPECT_NE(std::string::npos, error.find("does not support unique network flow endpoints"));
  EXPECT_NE(std::string::npos, error.find("OPTIONALLY_REQUIRED")) << error;
  EXPECT_EQ(
    nullptr,
    make_sub(node.get(), "/flows_unique", RMW_UNIQUE_NETWORK_FLOW_ENDPOINTS_STRICTLY_REQUIRED));
  error = take_error();
  EXPECT_NE(std::string::npos, error.find("does not support unique network flow endpoints"));
}

TEST(NetworkFlow, BadArgumentsAreRefused)
{
  rmw_test::Context ctx;
  ASSERT_TRUE(ctx.ok());
  rmw_test::Node node(ctx, "flows_bad");
  rmw_publisher_t * pub = make_pub(node.get(), "/flows_bad");
  rmw_subscription_t * sub = make_sub(node.get(), "/flows_bad");
  ASSERT_NE(nullptr, pub) << take_error();
  ASSERT_NE(nullptr, sub) << take_error();
  rcutils_allocator_t allocator = rcutils_get_default_allocator();
  rmw_network_flow_endpoint_array_t flows = rmw_get_zero_initialized_network_flow_endpoint_array();

  rcutils_allocator_t broken = rcutils_get_zero_initialized_allocator();
  EXPECT_EQ(
    RMW_RET_INVALID_ARGUMENT, rmw_publisher_get_network_flow_endpoints(pub, &broken, &flows));
  rmw_reset_error();
  EXPECT_EQ(
    RMW_RET_INVALID_ARGUMENT, rmw_subscription_get_network_flow_endpoints(sub, nullptr, &flows));
  rmw_reset_error();
  EXPECT_EQ(
    RMW_RET_INVALID_ARGUMENT, rmw_subscription_get_network_flow_endpoints(sub, &allocator, nullptr));
  rmw_reset_error();

  // An array that already holds a result is not overwritten (it would leak).
  ASSERT_EQ(RMW_RET_OK, rmw_subscription_get_network_flow_endpoints(sub, &allocator, &flows));
  EXPECT_EQ(
    RMW_RET_INVALID_ARGUMENT, rmw_publisher_get_network_flow_endpoints(pub, &allocator, &flows));
  EXPECT_NE(std::string::npos, take_error().find("not zero-initialized"));
  EXPECT_EQ(1u, flows.size);
  EXPECT_EQ(RMW_RET_OK, rmw_network_flow_endpoint_array_fini(&flows));

  EXPECT_EQ(RMW_RET_OK, rmw_destroy_publisher(node.get(), pub));
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_subscription(node.get(), sub));
}
