// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// Services between rmw_hdds endpoints, through the rmw API as rcl drives it: availability, a
// request and its response through rmw_wait, request ids and timestamps, two clients that each
// get only their own replies, callbacks, a client that leaves before the reply. Once in one
// context (one participant) and once across two contexts (two participants).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

#include "rmw/error_handling.h"
#include "rmw/rmw.h"
#include "rmw_test_fixtures.hpp"
#include "rosidl_typesupport_cpp/service_type_support.hpp"
#include "test_msgs/srv/basic_types.hpp"

namespace
{
using rmw_test::take_error;
using test_msgs::srv::BasicTypes;
using namespace std::chrono_literals;

const rosidl_service_type_support_t * basic_types()
{
  return rosidl_typesupport_cpp::get_service_type_support_handle<BasicTypes>();
}

// A context with one node (rmw_test_fixtures: loopback, a domain of this test process).
struct RosContext
{
  rmw_test::Context context;
  rmw_test::Node node;
  explicit RosContext(const char * name)
  : node(context, name, "/svc_test") {}
};

bool wait_until_available(rmw_node_t * node, rmw_client_t * client, std::chrono::seconds limit)
{
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    bool available = false;
    EXPECT_EQ(RMW_RET_OK, rmw_service_server_is_available(node, client, &available));
    if (available) {
      return true;
    }
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

// rmw_wait on one service or one client (the other null) for up to `limit`.
bool wait_for(
  rmw_context_t * context, rmw_service_t * service, rmw_client_t * client,
  std::chrono::milliseconds limit)
{
  rmw_wait_set_t * ws = rmw_create_wait_set(context, 1);
  EXPECT_NE(nullptr, ws) << take_error();
  if (ws == nullptr) {
    return false;
  }
  void * srv_data[1] = {service ? service->data : nullptr};
  void * cli_data[1] = {client ? client->data : nullptr};
  rmw_services_t services{service ? 1u : 0u, srv_data};
  rmw_clients_t clients{client ? 1u : 0u, cli_data};
  rmw_time_t timeout{0, static_cast<uint64_t>(limit.count()) * 1000000u};
  const rmw_ret_t r = rmw_wait(
    nullptr, nullptr, service ? &services : nullptr, client ? &clients : nullptr, nullptr, ws,
    &timeout);
  EXPECT_TRUE(r == RMW_RET_OK || r == RMW_RET_TIMEOUT) << take_error();
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_wait_set(ws));
  return r == RMW_RET_OK && (service ? srv_data[0] != nullptr : cli_data[0] != nullptr);
}

class ServiceRoundTrip : public ::testing::TestWithParam<bool>
{
protected:
  void SetUp() override
  {
    server_side = std::make_unique<RosContext>("server");
    ASSERT_NE(nullptr, server_side->node.get());
    if (GetParam()) {
      client_side = std::make_unique<RosContext>("client");
      ASSERT_NE(nullptr, client_side->node.get());
    }
    client_ctx = GetParam() ? client_side.get() : server_side.get();
  }
  void TearDown() override
  {
    client_side.reset();
    server_side.reset();
  }

  rmw_service_t * make_service(const char * name)
  {
    rmw_service_t * s = rmw_create_service(
      server_side->node.get(), basic_types(), name, &rmw_qos_profile_services_default);
    EXPECT_NE(nullptr, s) << take_error();
    return s;
  }
  rmw_client_t * make_client(const char * name)
  {
    rmw_client_t * c = rmw_create_client(
      client_ctx->node.get(), basic_types(), name, &rmw_qos_profile_services_default);
    EXPECT_NE(nullptr, c) << take_error();
    return c;
  }

  // Waits for the next request and takes it.
  void serve_one(rmw_service_t * service, BasicTypes::Request * got, rmw_service_info_t * info)
  {
    ASSERT_TRUE(wait_for(server_side->context.get(), service, nullptr, 5000ms)) <<
      "no request came";
    bool taken = false;
    ASSERT_EQ(RMW_RET_OK, rmw_take_request(service, info, got, &taken)) << take_error();
    ASSERT_TRUE(taken);
  }

  std::unique_ptr<RosContext> server_side;
  std::unique_ptr<RosContext> client_side;
  RosContext * client_ctx = nullptr;
};

TEST_P(ServiceRoundTrip, RequestAndResponse)
{
  rmw_client_t * client = make_client("/add");
  ASSERT_NE(nullptr, client);
  bool available = true;
  ASSERT_EQ(
    RMW_RET_OK, rmw_service_server_is_available(client_ctx->node.get(), client, &available));
  EXPECT_FALSE(available) << "no service exists yet";

  rmw_service_t * service = make_service("/add");
  ASSERT_NE(nullptr, service);
  ASSERT_TRUE(wait_until_available(client_ctx->node.get(), client, 10s));

  for (int64_t round = 1; round <= 3; round++) {
    BasicTypes::Request request;
    request.int64_value = 40 + round;
    request.string_value = "round " + std::to_string(round);
    int64_t sequence_id = -1;
    const int64_t before_send = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::system_clock::now().time_since_epoch()).count();
    ASSERT_EQ(RMW_RET_OK, rmw_send_request(client, &request, &sequence_id)) << take_error();
    EXPECT_EQ(round, sequence_id) << "sequence ids count from 1";

    BasicTypes::Request got;
    rmw_service_info_t info{};
    serve_one(service, &got, &info);
    EXPECT_EQ(request, got);
    EXPECT_GE(info.source_timestamp, before_send);
    EXPECT_GE(info.received_timestamp, info.source_timestamp);

    BasicTypes::Response response;
    response.int64_value = got.int64_value + 1;
    response.string_value = got.string_value;
    ASSERT_EQ(RMW_RET_OK, rmw_send_response(service, &info.request_id, &response))
      << take_error();

    ASSERT_TRUE(wait_for(client_ctx->context.get(), nullptr, client, 5000ms)) << "no response came";
    BasicTypes::Response reply;
    rmw_service_info_t reply_info{};
    bool taken = false;
    ASSERT_EQ(RMW_RET_OK, rmw_take_response(client, &reply_info, &reply, &taken)) << take_error();
    ASSERT_TRUE(taken);
    EXPECT_EQ(sequence_id, reply_info.request_id.sequence_number);
    EXPECT_EQ(response, reply);
    EXPECT_GE(reply_info.received_timestamp, reply_info.source_timestamp);
    // Nothing more is waiting.
    ASSERT_EQ(RMW_RET_OK, rmw_take_response(client, &reply_info, &reply, &taken));
    EXPECT_FALSE(taken);
  }

  EXPECT_EQ(RMW_RET_OK, rmw_destroy_service(server_side->node.get(), service)) << take_error();
  // The service is gone: no longer available (discovery of a local or same-process removal is
  // immediate).
  const auto end = std::chrono::steady_clock::now() + 5s;
  do {
    ASSERT_EQ(
      RMW_RET_OK,
      rmw_service_server_is_available(client_ctx->node.get(), client, &available));
    if (!available) {
      break;
    }
    std::this_thread::sleep_for(10ms);
  } while (std::chrono::steady_clock::now() < end);
  EXPECT_FALSE(available);
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_client(client_ctx->node.get(), client)) << take_error();
}

TEST_P(ServiceRoundTrip, EachClientGetsOnlyItsReplies)
{
  rmw_service_t * service = make_service("/echo");
  rmw_client_t * a = make_client("/echo");
  rmw_client_t * b = make_client("/echo");
  ASSERT_TRUE(service && a && b);
  ASSERT_TRUE(wait_until_available(client_ctx->node.get(), a, 10s));
  ASSERT_TRUE(wait_until_available(client_ctx->node.get(), b, 10s));

  BasicTypes::Request ra;
  ra.string_value = "from a";
  BasicTypes::Request rb;
  rb.string_value = "from b";
  int64_t sa = 0;
  int64_t sb = 0;
  ASSERT_EQ(RMW_RET_OK, rmw_send_request(a, &ra, &sa)) << take_error();
  ASSERT_EQ(RMW_RET_OK, rmw_send_request(b, &rb, &sb)) << take_error();
  ASSERT_EQ(RMW_RET_OK, rmw_send_request(b, &rb, &sb)) << take_error();
  EXPECT_EQ(1, sa);
  EXPECT_EQ(2, sb);

  for (int i = 0; i < 3; i++) {
    BasicTypes::Request got;
    rmw_service_info_t info{};
    serve_one(service, &got, &info);
    BasicTypes::Response response;
    response.string_value = got.string_value;
    ASSERT_EQ(RMW_RET_OK, rmw_send_response(service, &info.request_id, &response)) << take_error();
  }

  auto drain = [&](rmw_client_t * c, const char * expect, int count) {
      int got_count = 0;
      const auto end = std::chrono::steady_clock::now() + 5s;
      while (got_count < count && std::chrono::steady_clock::now() < end) {
        if (!wait_for(client_ctx->context.get(), nullptr, c, 100ms)) {
          continue;
        }
        BasicTypes::Response reply;
        rmw_service_info_t reply_info{};
        bool taken = false;
        ASSERT_EQ(RMW_RET_OK, rmw_take_response(c, &reply_info, &reply, &taken)) << take_error();
        if (taken) {
          EXPECT_EQ(expect, reply.string_value);
          got_count++;
        }
      }
      EXPECT_EQ(count, got_count);
      // And nothing else.
      std::this_thread::sleep_for(100ms);
      BasicTypes::Response reply;
      rmw_service_info_t reply_info{};
      bool taken = true;
      ASSERT_EQ(RMW_RET_OK, rmw_take_response(c, &reply_info, &reply, &taken));
      EXPECT_FALSE(taken);
    };
  drain(a, "from a", 1);
  drain(b, "from b", 2);

  EXPECT_EQ(RMW_RET_OK, rmw_destroy_client(client_ctx->node.get(), a));
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_client(client_ctx->node.get(), b));
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_service(server_side->node.get(), service));
}

TEST_P(ServiceRoundTrip, CallbacksCountNewRequestsAndResponses)
{
  rmw_service_t * service = make_service("/cb");
  rmw_client_t * client = make_client("/cb");
  ASSERT_TRUE(service && client);
  ASSERT_TRUE(wait_until_available(client_ctx->node.get(), client, 10s));

  BasicTypes::Request request;
  int64_t seq = 0;
  ASSERT_EQ(RMW_RET_OK, rmw_send_request(client, &request, &seq));
  ASSERT_TRUE(wait_for(server_side->context.get(), service, nullptr, 5000ms));

  // A request already waiting is reported when the callback is set, with its count.
  std::atomic<size_t> requests{0};
  auto count = [](const void * user, size_t n) {
      static_cast<std::atomic<size_t> *>(const_cast<void *>(user))->fetch_add(n);
    };
  ASSERT_EQ(RMW_RET_OK, rmw_service_set_on_new_request_callback(service, count, &requests));
  EXPECT_EQ(1u, requests.load());
  // Set again, as rclcpp does: the waiting request was reported already.
  ASSERT_EQ(RMW_RET_OK, rmw_service_set_on_new_request_callback(service, count, &requests));
  EXPECT_EQ(1u, requests.load());
  ASSERT_EQ(RMW_RET_OK, rmw_send_request(client, &request, &seq));
  const auto end = std::chrono::steady_clock::now() + 5s;
  while (requests.load() < 2 && std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_EQ(2u, requests.load());

  std::atomic<size_t> responses{0};
  ASSERT_EQ(RMW_RET_OK, rmw_client_set_on_new_response_callback(client, count, &responses));
  EXPECT_EQ(0u, responses.load());
  for (int i = 0; i < 2; i++) {
    BasicTypes::Request got;
    rmw_service_info_t info{};
    bool taken = false;
    ASSERT_EQ(RMW_RET_OK, rmw_take_request(service, &info, &got, &taken));
    ASSERT_TRUE(taken);
    BasicTypes::Response response;
    ASSERT_EQ(RMW_RET_OK, rmw_send_response(service, &info.request_id, &response));
  }
  const auto end2 = std::chrono::steady_clock::now() + 5s;
  while (responses.load() < 2 && std::chrono::steady_clock::now() < end2) {
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_EQ(2u, responses.load());
  // Cleared callbacks are not called again.
  ASSERT_EQ(RMW_RET_OK, rmw_service_set_on_new_request_callback(service, nullptr, nullptr));
  ASSERT_EQ(RMW_RET_OK, rmw_client_set_on_new_response_callback(client, nullptr, nullptr));
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_client(client_ctx->node.get(), client));
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_service(server_side->node.get(), service));
}

TEST_P(ServiceRoundTrip, ResponseToAClientThatLeftIsNotAnError)
{
  rmw_service_t * service = make_service("/gone");
  rmw_client_t * client = make_client("/gone");
  ASSERT_TRUE(service && client);
  ASSERT_TRUE(wait_until_available(client_ctx->node.get(), client, 10s));
  BasicTypes::Request request;
  int64_t seq = 0;
  ASSERT_EQ(RMW_RET_OK, rmw_send_request(client, &request, &seq));
  BasicTypes::Request got;
  rmw_service_info_t info{};
  serve_one(service, &got, &info);
  ASSERT_EQ(RMW_RET_OK, rmw_destroy_client(client_ctx->node.get(), client));
  BasicTypes::Response response;
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(RMW_RET_OK, rmw_send_response(service, &info.request_id, &response)) << take_error();
  // Known gone at once: no 100 ms wait for its reader.
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 90ms);
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_service(server_side->node.get(), service));
}

TEST_P(ServiceRoundTrip, ActualQosIsTheRequestedProfile)
{
  rmw_service_t * service = make_service("/qos");
  rmw_client_t * client = make_client("/qos");
  ASSERT_TRUE(service && client);
  rmw_qos_profile_t q{};
  ASSERT_EQ(RMW_RET_OK, rmw_service_request_subscription_get_actual_qos(service, &q));
  EXPECT_EQ(RMW_QOS_POLICY_RELIABILITY_RELIABLE, q.reliability);
  EXPECT_EQ(RMW_QOS_POLICY_DURABILITY_VOLATILE, q.durability);
  EXPECT_EQ(RMW_QOS_POLICY_HISTORY_KEEP_LAST, q.history);
  EXPECT_EQ(rmw_qos_profile_services_default.depth, q.depth);
  ASSERT_EQ(RMW_RET_OK, rmw_client_request_publisher_get_actual_qos(client, &q));
  EXPECT_EQ(RMW_QOS_POLICY_RELIABILITY_RELIABLE, q.reliability);
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_client(client_ctx->node.get(), client));
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_service(server_side->node.get(), service));
}

TEST_P(ServiceRoundTrip, BadArguments)
{
  rmw_service_t * service = make_service("/bad");
  rmw_client_t * client = make_client("/bad");
  ASSERT_TRUE(service && client);
  EXPECT_EQ(nullptr, rmw_create_service(server_side->node.get(), basic_types(), "no/leading/slash",
    &rmw_qos_profile_services_default));
  EXPECT_NE(std::string::npos, take_error().find("name"));
  EXPECT_EQ(nullptr, rmw_create_client(client_ctx->node.get(), basic_types(), "/bad",
    &rmw_qos_profile_unknown));
  rmw_reset_error();
  BasicTypes::Response response;
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_send_response(service, nullptr, &response));
  rmw_reset_error();
  int64_t seq;
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_send_request(client, nullptr, &seq));
  rmw_reset_error();
  bool available;
  EXPECT_EQ(
    RMW_RET_ERROR, rmw_service_server_is_available(client_ctx->node.get(), client, nullptr));
  rmw_reset_error();
  const char * real = client->implementation_identifier;
  client->implementation_identifier = "other";
  EXPECT_EQ(RMW_RET_INCORRECT_RMW_IMPLEMENTATION,
    rmw_service_server_is_available(client_ctx->node.get(), client, &available));
  client->implementation_identifier = real;
  rmw_reset_error();
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_client(client_ctx->node.get(), client));
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_service(server_side->node.get(), service));
}

INSTANTIATE_TEST_SUITE_P(
  Contexts, ServiceRoundTrip, ::testing::Values(false, true),
  [](const ::testing::TestParamInfo<bool> & p) {
    return p.param ? std::string("TwoContexts") : std::string("OneContext");
  });
}  // namespace
