// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// The C++ API that publishers, subscriptions, services and clients use (detail/type_support.hpp),
// and the shape of compiled plans: plain fields become one memcpy. This test compiles the
// type support sources itself (librmw_hdds exports only the rmw_* API).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "detail/cdr_plan.hpp"
#include "detail/type_support.hpp"
#include "hdds/hdds.h"
#include "rcutils/types/uint8_array.h"
#include "rosidl_typesupport_cpp/message_type_support.hpp"
#include "rosidl_typesupport_cpp/service_type_support.hpp"
#include "test_msgs/msg/arrays.hpp"
#include "test_msgs/msg/basic_types.h"
#include "test_msgs/msg/basic_types.hpp"
#include "test_msgs/msg/bounded_sequences.hpp"
#include "test_msgs/msg/builtins.hpp"
#include "test_msgs/msg/strings.hpp"
#include "test_msgs/msg/unbounded_sequences.hpp"
#include "test_msgs/service_fixtures.hpp"
#include "test_msgs/srv/arrays.h"
#include "test_msgs/srv/basic_types.h"
#include "test_msgs/srv/empty.h"
#include "ts_test_utils.hpp"

namespace
{
using rmw_hdds::MessageTypeSupport;
using rmw_hdds::ServiceTypeSupport;
using rmw_hdds::cdr::OpKind;
using rmw_hdds::cdr::Plan;
using ts_test::Bytes;
using ts_test::take_error;

template<class T>
const rosidl_message_type_support_t * cpp_ts()
{
  return rosidl_typesupport_cpp::get_message_type_support_handle<T>();
}

// Compiles a plan (and its nested plans) outside the cache.
struct Compiled
{
  std::vector<std::unique_ptr<Plan>> plans;
  const Plan * compile(rmw_hdds::cdr::Lang lang, const void * members)
  {
    std::string error;
    rmw_hdds::cdr::SubPlanFn sub = [this](rmw_hdds::cdr::Lang l, const void * m, std::string *) {
        return compile(l, m);
      };
    plans.push_back(rmw_hdds::cdr::compile_plan(lang, members, sub, &error));
    EXPECT_NE(nullptr, plans.back()) << error;
    return plans.back().get();
  }
};

TEST(Plan, PlainMessageIsOneCopy)
{
  Compiled compiled;
  const void * cpp_members = ts_test::introspection(
    cpp_ts<test_msgs::msg::BasicTypes>(),
    rosidl_typesupport_introspection_cpp::typesupport_identifier)->data;
  const void * c_members = ts_test::introspection(
    ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, msg, BasicTypes),
    rosidl_typesupport_introspection_c__identifier)->data;
  for (auto plan : {compiled.compile(rmw_hdds::cdr::Lang::Cpp, cpp_members),
      compiled.compile(rmw_hdds::cdr::Lang::C, c_members)})
  {
    ASSERT_EQ(1u, plan->ops.size());
    ASSERT_EQ(1u, plan->runs.size());
    const auto & run = plan->runs[0];
    EXPECT_EQ(48u, run.length);  // bool byte char (pad) float32 float64 ... uint64
    EXPECT_EQ(13u, run.leaves.size());
    // Padding, zeroed after the copy: 1 byte before float32_value, 2 before int32_value.
    ASSERT_EQ(2u, run.holes.size());
    EXPECT_EQ(std::make_pair(3u, 1u), run.holes[0]);
    EXPECT_EQ(std::make_pair(22u, 2u), run.holes[1]);
    EXPECT_EQ(1u, run.fast_mask & 1u);
    EXPECT_TRUE(plan->uniform);
    EXPECT_EQ("test_msgs/msg/BasicTypes", plan->type_name);
  }
}

TEST(Plan, ArraysFlattenPlainNestedArraysAndKeepStringsApart)
{
  Compiled compiled;
  const Plan * plan = compiled.compile(rmw_hdds::cdr::Lang::Cpp, ts_test::introspection(
      cpp_ts<test_msgs::msg::Arrays>(),
      rosidl_typesupport_introspection_cpp::typesupport_identifier)->data);
  size_t runs = 0;
  size_t string_arrays = 0;
  for (const auto & op : plan->ops) {
    EXPECT_NE(OpKind::kStructArray, op.kind) << plan->names[op.name] << " was not flattened";
    runs += op.kind == OpKind::kRun;
    string_arrays += op.kind == OpKind::kStringArray;
  }
  // primitives | string_values | BasicTypes[3] Constants[3] | Defaults[3] primitive defaults |
  // string_values_default | alignment_check. Defaults[0] starts a new run: in memory it is
  // aligned to 8 after the three one-byte Constants, in CDR it follows them at once.
  EXPECT_EQ(4u, runs);
  EXPECT_EQ(2u, string_arrays);
}

TEST(MessageTypeSupport, ResolvesDispatchersAndIntrospection)
{
  const rosidl_message_type_support_t * c = ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, msg, BasicTypes);
  const rosidl_message_type_support_t * cpp = cpp_ts<test_msgs::msg::BasicTypes>();
  struct Case
  {
    const rosidl_message_type_support_t * ts;
    bool is_cpp;
  };
  for (const Case & k : {
      Case{c, false}, Case{cpp, true},
      Case{ts_test::introspection(c, rosidl_typesupport_introspection_c__identifier), false},
      Case{ts_test::introspection(
          cpp, rosidl_typesupport_introspection_cpp::typesupport_identifier), true}})
  {
    MessageTypeSupport ts;
    ASSERT_EQ(RMW_RET_OK, MessageTypeSupport::resolve(k.ts, &ts)) << take_error();
    EXPECT_TRUE(ts.valid());
    EXPECT_EQ(k.is_cpp, ts.is_cpp());
    EXPECT_STREQ("test_msgs/msg/BasicTypes", ts.type_name());
    EXPECT_EQ(k.is_cpp ? sizeof(test_msgs::msg::BasicTypes) : sizeof(test_msgs__msg__BasicTypes),
      ts.message_size());
  }
  MessageTypeSupport ts;
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, MessageTypeSupport::resolve(nullptr, &ts));
  take_error();
  rosidl_message_type_support_t fake{"fake", nullptr, get_message_typesupport_handle_function};
  EXPECT_EQ(RMW_RET_ERROR, MessageTypeSupport::resolve(&fake, &ts));
  EXPECT_NE(std::string::npos, take_error().find("'fake' provides no introspection"));
  EXPECT_FALSE(ts.valid());
}

// Many threads meeting types for the first time at once: each type is compiled once, and
// everyone gets that plan (the same type name storage proves it).
TEST(MessageTypeSupport, ConcurrentFirstUse)
{
  const std::vector<const rosidl_message_type_support_t *> types = {
    cpp_ts<test_msgs::msg::Arrays>(), cpp_ts<test_msgs::msg::Strings>(),
    cpp_ts<test_msgs::srv::Arrays::Request>(), cpp_ts<test_msgs::srv::Arrays::Response>(),
    ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, srv, Arrays_Request),
    ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, srv, BasicTypes_Response)};
  constexpr size_t kThreads = 8;
  std::vector<std::vector<const char *>> names(kThreads);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t]() {
        for (size_t i = 0; i < types.size(); ++i) {
          const auto * type = types[(i + t) % types.size()];
          MessageTypeSupport ts;
          if (MessageTypeSupport::resolve(type, &ts) == RMW_RET_OK) {
            names[t].push_back(ts.type_name());
          }
        }
      });
  }
  for (auto & thread : threads) {
    thread.join();
  }
  for (size_t t = 0; t < kThreads; ++t) {
    ASSERT_EQ(types.size(), names[t].size());
    for (size_t i = 0; i < types.size(); ++i) {
      EXPECT_EQ(names[0][i], names[t][(i + types.size() - t % types.size()) % types.size()]);
    }
  }
}

TEST(MessageTypeSupport, SerializeIntoACallerBuffer)
{
  MessageTypeSupport ts;
  ASSERT_EQ(RMW_RET_OK, MessageTypeSupport::resolve(cpp_ts<test_msgs::msg::Strings>(), &ts));
  test_msgs::msg::Strings msg;
  msg.string_value = "into a buffer";
  size_t size = 0;
  ASSERT_EQ(RMW_RET_OK, ts.serialized_size(&msg, &size)) << take_error();
  Bytes exact(size);
  size_t written = 0;
  ASSERT_EQ(RMW_RET_OK, ts.serialize(&msg, exact.data(), exact.size(), &written)) <<
    take_error();
  EXPECT_EQ(size, written);
  EXPECT_EQ(0, exact[0]);
  EXPECT_EQ(1, exact[1]);  // little-endian CDR
  // Into a growable rcutils buffer: the same bytes.
  rcutils_allocator_t allocator = rcutils_get_default_allocator();
  rcutils_uint8_array_t array = rcutils_get_zero_initialized_uint8_array();
  ASSERT_EQ(RCUTILS_RET_OK, rcutils_uint8_array_init(&array, 0, &allocator));
  ASSERT_EQ(RMW_RET_OK, ts.serialize(&msg, &array)) << take_error();
  EXPECT_EQ(exact, Bytes(array.buffer, array.buffer + array.buffer_length));
  EXPECT_EQ(RCUTILS_RET_OK, rcutils_uint8_array_fini(&array));

  Bytes small(size - 1);
  EXPECT_EQ(RMW_RET_ERROR, ts.serialize(&msg, small.data(), small.size(), &written));
  EXPECT_NE(std::string::npos, take_error().find("too small"));
  EXPECT_EQ(RMW_RET_ERROR, ts.serialize(&msg, small.data(), 3, &written));
  EXPECT_NE("", take_error());

  test_msgs::msg::Strings back;
  ASSERT_EQ(RMW_RET_OK, ts.deserialize(exact.data(), exact.size(), &back)) << take_error();
  EXPECT_EQ(msg, back);
}

// One-byte sequences are filled with assign (no zero fill first): into a new message, and into
// used ones whose sequences hold more or fewer elements, what comes out is exactly what was sent.
template<class Msg>
void byte_sequences_round_trip(Msg msg)
{
  MessageTypeSupport ts;
  ASSERT_EQ(RMW_RET_OK, MessageTypeSupport::resolve(cpp_ts<Msg>(), &ts));
  size_t size = 0;
  ASSERT_EQ(RMW_RET_OK, ts.serialized_size(&msg, &size)) << take_error();
  Bytes cdr(size);
  size_t written = 0;
  ASSERT_EQ(RMW_RET_OK, ts.serialize(&msg, cdr.data(), cdr.size(), &written)) << take_error();
  Msg fresh;
  ASSERT_EQ(RMW_RET_OK, ts.deserialize(cdr.data(), written, &fresh)) << take_error();
  EXPECT_EQ(msg, fresh);
  // Up to each sequence's bound (max_size: a BoundedVector's is its bound): more than was sent
  // into every unbounded one, the 5000-byte one included.
  for (size_t held : {size_t{0}, size_t{1}, size_t{3}, size_t{6000}}) {
    Msg used;
    used.byte_values.assign(std::min(held, used.byte_values.max_size()), 0xee);
    used.uint8_values.assign(std::min(held, used.uint8_values.max_size()), 0xdd);
    used.int8_values.assign(std::min(held, used.int8_values.max_size()), -9);
    used.char_values.assign(std::min(held, used.char_values.max_size()), 'z');
    ASSERT_EQ(RMW_RET_OK, ts.deserialize(cdr.data(), written, &used)) << take_error();
    EXPECT_EQ(msg, used) << "into sequences of " << held << " elements";
  }
}

TEST(MessageTypeSupport, ByteSequencesComeOutExactlyAsSent)
{
  test_msgs::msg::UnboundedSequences unbounded;
  unbounded.byte_values = {0, 1, 0xff};
  unbounded.uint8_values.assign(5000, 0x5a);  // past the 2 KiB where memmove changes its ways
  unbounded.int8_values = {-128, 0, 127};
  unbounded.char_values = {'a', 'b'};
  unbounded.int32_values = {7};  // a sequence of wider elements after them
  byte_sequences_round_trip(unbounded);
  byte_sequences_round_trip(test_msgs::msg::UnboundedSequences{});

  // Past HDDS_STREAM_COPY_FROM the serializer's bulk copies stream (hdds_copy_to_reader): a byte
  // sequence and a sequence of wider elements, both longer than that and of odd lengths.
  test_msgs::msg::UnboundedSequences large;
  large.uint8_values.resize(HDDS_STREAM_COPY_FROM + 77);
  for (size_t i = 0; i < large.uint8_values.size(); ++i) {
    large.uint8_values[i] = static_cast<uint8_t>(i * 31 + (i >> 9));
  }
  large.int32_values.resize(HDDS_STREAM_COPY_FROM / 4 + 5);
  for (size_t i = 0; i < large.int32_values.size(); ++i) {
    large.int32_values[i] = static_cast<int32_t>(i * 2654435761u);
  }
  byte_sequences_round_trip(large);

  test_msgs::msg::BoundedSequences bounded;
  bounded.byte_values = {9};
  bounded.uint8_values = {1, 2, 3};
  bounded.int8_values = {-1, -2};
  byte_sequences_round_trip(bounded);
}

TEST(MessageTypeSupport, InPlaceOnlyWhereTheBytesAreTheMessage)
{
  MessageTypeSupport ts;
  ASSERT_EQ(RMW_RET_OK, MessageTypeSupport::resolve(cpp_ts<test_msgs::msg::BasicTypes>(), &ts));
  test_msgs::msg::BasicTypes msg;
  msg.bool_value = true;
  msg.int32_value = -7;
  msg.float64_value = 1.5;
  msg.uint64_value = 0x0123456789abcdefull;
  size_t size = 0;
  ASSERT_EQ(RMW_RET_OK, ts.serialized_size(&msg, &size)) << take_error();
  ASSERT_EQ(4 + sizeof(msg), size);
  // As a writer's ring places it: the body (after the 4-byte header) on a 64-byte boundary.
  alignas(64) uint8_t storage[64 + 256] = {};
  uint8_t * data = storage + 60;
  size_t written = 0;
  ASSERT_EQ(RMW_RET_OK, ts.serialize(&msg, data, size, &written)) << take_error();
  const void * in = ts.in_place(data, size);
  ASSERT_EQ(static_cast<const void *>(data + 4), in);
  EXPECT_EQ(msg, *static_cast<const test_msgs::msg::BasicTypes *>(in));

  EXPECT_EQ(nullptr, ts.in_place(data, size - 1)) << "shorter than the struct";
  data[1] = 0;
  EXPECT_EQ(nullptr, ts.in_place(data, size)) << "big-endian: to be swapped";
  data[1] = 1;
  data[4] = 2;  // bool_value: the deserializer makes it true, in place it would stay 2
  EXPECT_EQ(nullptr, ts.in_place(data, size)) << "a bool that is neither 0 nor 1";
  data[4] = 1;
  ASSERT_NE(nullptr, ts.in_place(data, size));
  uint8_t * shifted = storage + 61;
  std::memmove(shifted, data, size);
  EXPECT_EQ(nullptr, ts.in_place(shifted, size)) << "a body not aligned for the struct";

  // A type whose memory is not its CDR (a string): never in place.
  MessageTypeSupport strings;
  ASSERT_EQ(RMW_RET_OK, MessageTypeSupport::resolve(cpp_ts<test_msgs::msg::Strings>(), &strings));
  test_msgs::msg::Strings s;
  ASSERT_EQ(RMW_RET_OK, strings.serialized_size(&s, &size)) << take_error();
  ASSERT_LE(size, sizeof(storage) - 60);
  ASSERT_EQ(RMW_RET_OK, strings.serialize(&s, data, size, &written)) << take_error();
  EXPECT_EQ(nullptr, strings.in_place(data, size));
}

TEST(MessageTypeSupport, InPlaceWhereTheBodyIsAlignedForItsWidestField)
{
  // A body is read in place where it is aligned for the struct's widest field: a type of 4-byte
  // fields at any 4-byte boundary, one with 8-byte fields only at an 8-byte boundary (the engine
  // aligns its buffers' bodies so: hdds_core/src/payload.rs).
  MessageTypeSupport builtins;
  ASSERT_EQ(
    RMW_RET_OK, MessageTypeSupport::resolve(cpp_ts<test_msgs::msg::Builtins>(), &builtins));
  test_msgs::msg::Builtins msg;
  msg.duration_value.sec = -3;
  msg.duration_value.nanosec = 7;
  msg.time_value.sec = 11;
  msg.time_value.nanosec = 13;
  size_t size = 0;
  ASSERT_EQ(RMW_RET_OK, builtins.serialized_size(&msg, &size)) << take_error();
  ASSERT_EQ(4 + sizeof(msg), size);
  alignas(64) uint8_t storage[64 + 256] = {};
  size_t written = 0;
  for (size_t at : {12, 16, 20, 24}) {
    uint8_t * data = storage + at;
    ASSERT_EQ(RMW_RET_OK, builtins.serialize(&msg, data, size, &written)) << take_error();
    const void * in = builtins.in_place(data, size);
    ASSERT_EQ(static_cast<const void *>(data + 4), in) << "body at " << at + 4;
    EXPECT_EQ(msg, *static_cast<const test_msgs::msg::Builtins *>(in));
  }
  uint8_t * data = storage + 18;
  ASSERT_EQ(RMW_RET_OK, builtins.serialize(&msg, data, size, &written)) << take_error();
  EXPECT_EQ(nullptr, builtins.in_place(data, size)) << "a body 2 bytes past a 4-byte boundary";

  MessageTypeSupport basic;
  ASSERT_EQ(RMW_RET_OK, MessageTypeSupport::resolve(cpp_ts<test_msgs::msg::BasicTypes>(), &basic));
  test_msgs::msg::BasicTypes wide;
  wide.uint64_value = 5;
  ASSERT_EQ(RMW_RET_OK, basic.serialized_size(&wide, &size)) << take_error();
  ASSERT_LE(size + 16, sizeof(storage));
  data = storage + 16;
  ASSERT_EQ(RMW_RET_OK, basic.serialize(&wide, data, size, &written)) << take_error();
  EXPECT_EQ(nullptr, basic.in_place(data, size)) << "8-byte fields with the body 4 past 8";
  data = storage + 60;
  ASSERT_EQ(RMW_RET_OK, basic.serialize(&wide, data, size, &written)) << take_error();
  EXPECT_NE(nullptr, basic.in_place(data, size)) << "the same bytes with the body aligned";
}

TEST(MessageTypeSupport, LargestSize)
{
  MessageTypeSupport ts;
  ASSERT_EQ(RMW_RET_OK, MessageTypeSupport::resolve(cpp_ts<test_msgs::msg::BasicTypes>(), &ts));
  size_t largest = 0;
  ASSERT_EQ(RMW_RET_OK, ts.max_serialized_size(&largest));
  EXPECT_EQ(4u + 48u, largest);
}

// Requests and responses through the service type support serialize like the request and
// response message types do in rmw_cyclonedds_cpp, and read back, in C++ and in C.
template<class Srv>
void check_service(
  const rosidl_service_type_support_t * c_srv_ts,
  const rosidl_message_type_support_t * c_request_ts,
  const rosidl_message_type_support_t * c_response_ts,
  const std::vector<std::pair<std::shared_ptr<typename Srv::Request>,
  std::shared_ptr<typename Srv::Response>>> & fixtures)
{
  using Request = typename Srv::Request;
  using Response = typename Srv::Response;
  const auto & cyclone = ts_test::Cyclone::get();
  ASSERT_TRUE(cyclone.loaded()) << cyclone.why();
  ServiceTypeSupport cpp_srv;
  ASSERT_EQ(RMW_RET_OK, ServiceTypeSupport::resolve(
      rosidl_typesupport_cpp::get_service_type_support_handle<Srv>(), &cpp_srv)) << take_error();
  ServiceTypeSupport c_srv;
  ASSERT_EQ(RMW_RET_OK, ServiceTypeSupport::resolve(c_srv_ts, &c_srv)) << take_error();
  EXPECT_TRUE(cpp_srv.request.is_cpp());
  EXPECT_FALSE(c_srv.response.is_cpp());
  EXPECT_NE(std::string::npos, std::string(cpp_srv.request.type_name()).find("_Request"));
  EXPECT_NE(std::string::npos, std::string(c_srv.response.type_name()).find("_Response"));
  for (const auto & pair : fixtures) {
    rmw_ret_t ret;
    const Bytes request = ts_test::serialize_with(
      cyclone.serialize, pair.first.get(), cpp_ts<Request>(), &ret);
    ASSERT_EQ(RMW_RET_OK, ret);
    const Bytes response = ts_test::serialize_with(
      cyclone.serialize, pair.second.get(), cpp_ts<Response>(), &ret);
    ASSERT_EQ(RMW_RET_OK, ret);
    using Case = std::tuple<const MessageTypeSupport *, const void *, const Bytes *>;
    for (const Case & k : {Case{&cpp_srv.request, pair.first.get(), &request},
        Case{&cpp_srv.response, pair.second.get(), &response}})
    {
      size_t size = 0;
      ASSERT_EQ(RMW_RET_OK, std::get<0>(k)->serialized_size(std::get<1>(k), &size));
      Bytes ours(size);
      size_t written = 0;
      ASSERT_EQ(RMW_RET_OK, std::get<0>(k)->serialize(
          std::get<1>(k), ours.data(), ours.size(), &written)) << take_error();
      EXPECT_TRUE(ts_test::same_bytes(ours, *std::get<2>(k)));
    }
    Request cpp_request;
    ASSERT_EQ(RMW_RET_OK, cpp_srv.request.deserialize(request.data(), request.size(),
      &cpp_request)) << take_error();
    EXPECT_EQ(*pair.first, cpp_request);
    Response cpp_response;
    ASSERT_EQ(RMW_RET_OK, cpp_srv.response.deserialize(response.data(), response.size(),
      &cpp_response)) << take_error();
    EXPECT_EQ(*pair.second, cpp_response);

    auto c_members = [](const rosidl_message_type_support_t * ts) {
        return static_cast<const ts_test::CMembers *>(
          ts_test::introspection(ts, rosidl_typesupport_introspection_c__identifier)->data);
      };
    auto cpp_members = [](const rosidl_message_type_support_t * ts) {
        return static_cast<const ts_test::CppMembers *>(ts_test::introspection(
            ts, rosidl_typesupport_introspection_cpp::typesupport_identifier)->data);
      };
    ts_test::CMessage c_request(c_members(c_request_ts));
    ASSERT_EQ(RMW_RET_OK, c_srv.request.deserialize(request.data(), request.size(),
      c_request.get())) << take_error();
    Request via_c;
    ts_test::c_to_cpp(c_members(c_request_ts), c_request.get(), cpp_members(cpp_ts<Request>()),
      &via_c);
    EXPECT_EQ(*pair.first, via_c);
    size_t size = 0;
    ASSERT_EQ(RMW_RET_OK, c_srv.request.serialized_size(c_request.get(), &size));
    Bytes c_bytes(size);
    size_t written = 0;
    ASSERT_EQ(RMW_RET_OK, c_srv.request.serialize(c_request.get(), c_bytes.data(), size,
      &written));
    EXPECT_TRUE(ts_test::same_bytes(c_bytes, request));
    ts_test::CMessage c_response(c_members(c_response_ts));
    ASSERT_EQ(RMW_RET_OK, c_srv.response.deserialize(response.data(), response.size(),
      c_response.get())) << take_error();
  }
}

TEST(ServiceTypeSupport, RequestsAndResponsesMatchCyclone)
{
  check_service<test_msgs::srv::BasicTypes>(
    ROSIDL_GET_SRV_TYPE_SUPPORT(test_msgs, srv, BasicTypes),
    ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, srv, BasicTypes_Request),
    ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, srv, BasicTypes_Response), get_services_basic_types());
  check_service<test_msgs::srv::Arrays>(
    ROSIDL_GET_SRV_TYPE_SUPPORT(test_msgs, srv, Arrays),
    ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, srv, Arrays_Request),
    ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, srv, Arrays_Response), get_services_arrays());
  check_service<test_msgs::srv::Empty>(
    ROSIDL_GET_SRV_TYPE_SUPPORT(test_msgs, srv, Empty),
    ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, srv, Empty_Request),
    ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, srv, Empty_Response), get_services_empty());
}
}  // namespace
