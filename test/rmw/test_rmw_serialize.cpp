// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// rmw_serialize, rmw_deserialize and rmw_get_serialized_message_size as entry points: argument
// checks, type support handles they accept and refuse, how the serialized buffer grows.
#include <gtest/gtest.h>

#include <string>

#include "rcutils/allocator.h"
#include "rosidl_typesupport_cpp/message_type_support.hpp"
#include "test_msgs/msg/arrays.hpp"
#include "test_msgs/msg/basic_types.h"
#include "test_msgs/msg/basic_types.hpp"
#include "test_msgs/msg/bounded_plain_sequences.hpp"
#include "test_msgs/msg/empty.hpp"
#include "test_msgs/msg/strings.hpp"
#include "ts_test_utils.hpp"

namespace
{
using ts_test::take_error;

// Counts the allocator's calls, and fails them all when `fail` is set.
struct CountingAllocator
{
  int calls = 0;
  bool fail = false;

  rcutils_allocator_t get()
  {
    rcutils_allocator_t a = rcutils_get_default_allocator();
    a.state = this;
    a.allocate = [](size_t n, void * s) -> void * {
        auto self = static_cast<CountingAllocator *>(s);
        ++self->calls;
        return self->fail ? nullptr : std::malloc(n);
      };
    a.reallocate = [](void * p, size_t n, void * s) -> void * {
        auto self = static_cast<CountingAllocator *>(s);
        ++self->calls;
        return self->fail ? nullptr : std::realloc(p, n);
      };
    a.zero_allocate = [](size_t n, size_t size, void * s) -> void * {
        auto self = static_cast<CountingAllocator *>(s);
        ++self->calls;
        return self->fail ? nullptr : std::calloc(n, size);
      };
    a.deallocate = [](void * p, void *) {std::free(p);};
    return a;
  }
};

class SerializedMessage : public ::testing::Test
{
protected:
  void SetUp() override
  {
    allocator_ = counting_.get();
    ASSERT_EQ(RMW_RET_OK, rmw_serialized_message_init(&sm_, 0, &allocator_));
    counting_.calls = 0;
  }
  void TearDown() override {EXPECT_EQ(RMW_RET_OK, rmw_serialized_message_fini(&sm_));}

  CountingAllocator counting_;
  rcutils_allocator_t allocator_{};
  rmw_serialized_message_t sm_ = rmw_get_zero_initialized_serialized_message();
  const rosidl_message_type_support_t * ts_ =
    rosidl_typesupport_cpp::get_message_type_support_handle<test_msgs::msg::Strings>();
};

TEST_F(SerializedMessage, NullArgumentsAreInvalid)
{
  test_msgs::msg::Strings msg;
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_serialize(nullptr, ts_, &sm_));
  EXPECT_NE("", take_error());
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_serialize(&msg, nullptr, &sm_));
  EXPECT_NE("", take_error());
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_serialize(&msg, ts_, nullptr));
  EXPECT_NE("", take_error());
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_deserialize(nullptr, ts_, &msg));
  EXPECT_NE("", take_error());
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_deserialize(&sm_, nullptr, &msg));
  EXPECT_NE("", take_error());
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_deserialize(&sm_, ts_, nullptr));
  EXPECT_NE("", take_error());
  size_t size = 0;
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_get_serialized_message_size(nullptr, nullptr, &size));
  EXPECT_NE("", take_error());
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_get_serialized_message_size(ts_, nullptr, nullptr));
  EXPECT_NE("", take_error());
}

TEST_F(SerializedMessage, UnknownTypeSupportIsAnError)
{
  test_msgs::msg::Strings msg;
  rosidl_message_type_support_t fake{
    "not-a-typesupport-identifier", nullptr, get_message_typesupport_handle_function};
  EXPECT_EQ(RMW_RET_ERROR, rmw_serialize(&msg, &fake, &sm_));
  EXPECT_NE(std::string::npos, take_error().find("not-a-typesupport-identifier"));

  // A dispatcher whose identifier was tampered with (test_rmw_implementation does this).
  auto dispatcher = const_cast<rosidl_message_type_support_t *>(ts_);
  const char * id = dispatcher->typesupport_identifier;
  dispatcher->typesupport_identifier = "not-a-typesupport-identifier";
  EXPECT_EQ(RMW_RET_ERROR, rmw_serialize(&msg, dispatcher, &sm_));
  EXPECT_NE("", take_error());
  EXPECT_EQ(RMW_RET_ERROR, rmw_deserialize(&sm_, dispatcher, &msg));
  EXPECT_NE("", take_error());
  dispatcher->typesupport_identifier = id;
  EXPECT_EQ(RMW_RET_OK, rmw_serialize(&msg, ts_, &sm_)) << take_error();
}

TEST_F(SerializedMessage, AllocationFailureIsBadAlloc)
{
  test_msgs::msg::Strings msg;
  counting_.fail = true;
  EXPECT_EQ(RMW_RET_BAD_ALLOC, rmw_serialize(&msg, ts_, &sm_));
  EXPECT_NE(std::string::npos, take_error().find("cannot grow"));
}

TEST_F(SerializedMessage, GrowsOnlyWhenTooSmall)
{
  test_msgs::msg::Strings big;
  big.string_value = std::string(1000, 'x');
  ASSERT_EQ(RMW_RET_OK, rmw_serialize(&big, ts_, &sm_)) << take_error();
  EXPECT_EQ(1, counting_.calls);
  const size_t big_length = sm_.buffer_length;
  const uint8_t * buffer = sm_.buffer;

  test_msgs::msg::Strings small;
  for (int i = 0; i < 10; ++i) {
    ASSERT_EQ(RMW_RET_OK, rmw_serialize(i % 2 ? &big : &small, ts_, &sm_)) << take_error();
  }
  EXPECT_EQ(1, counting_.calls) << "steady state must not allocate";
  EXPECT_EQ(buffer, sm_.buffer);
  ASSERT_EQ(RMW_RET_OK, rmw_serialize(&small, ts_, &sm_));
  EXPECT_LT(sm_.buffer_length, big_length);
  EXPECT_GE(sm_.buffer_capacity, big_length);

  test_msgs::msg::Strings back;
  ASSERT_EQ(RMW_RET_OK, rmw_deserialize(&sm_, ts_, &back)) << take_error();
  EXPECT_EQ(small, back);
}

// rosidl gives an empty message a dummy uint8 member; CDR carries it as one byte.
TEST_F(SerializedMessage, EmptyMessageIsOneByte)
{
  test_msgs::msg::Empty empty;
  const auto ts = rosidl_typesupport_cpp::get_message_type_support_handle<test_msgs::msg::Empty>();
  ASSERT_EQ(RMW_RET_OK, rmw_serialize(&empty, ts, &sm_)) << take_error();
  EXPECT_EQ(
    ts_test::Bytes({0, 1, 0, 0, 0}),
    ts_test::Bytes(sm_.buffer, sm_.buffer + sm_.buffer_length));
}

TEST_F(SerializedMessage, DeserializeRejectsALengthWithoutBuffer)
{
  test_msgs::msg::Strings msg;
  rmw_serialized_message_t broken = rmw_get_zero_initialized_serialized_message();
  broken.buffer_length = 8;
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_deserialize(&broken, ts_, &msg));
  EXPECT_NE("", take_error());
}

// The largest size of a bounded type; an unbounded type has none.
TEST(SerializedMessageSize, BoundedTypesHaveALargestSize)
{
  const rosidl_message_type_support_t * c_basic =
    ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, msg, BasicTypes);
  const rosidl_message_type_support_t * cpp_basic =
    rosidl_typesupport_cpp::get_message_type_support_handle<test_msgs::msg::BasicTypes>();
  test_msgs::msg::BasicTypes basic;
  rmw_ret_t ret;
  const size_t actual = ts_test::serialize_with(rmw_serialize, &basic, cpp_basic, &ret).size();
  ASSERT_EQ(RMW_RET_OK, ret);
  for (auto ts : {c_basic, cpp_basic}) {
    size_t size = 0;
    ASSERT_EQ(RMW_RET_OK, rmw_get_serialized_message_size(ts, nullptr, &size)) << take_error();
    EXPECT_EQ(actual, size);  // fixed-size type: exact
  }

  // Bounded sequences: every sequence full is the largest message.
  using test_msgs::msg::BoundedPlainSequences;
  BoundedPlainSequences full;
  full.bool_values = {true, true, true};
  full.byte_values = {1, 2, 3};
  full.char_values = {1, 2, 3};
  full.float32_values = {1, 2, 3};
  full.float64_values = {1, 2, 3};
  full.int8_values = {1, 2, 3};
  full.uint8_values = {1, 2, 3};
  full.int16_values = {1, 2, 3};
  full.uint16_values = {1, 2, 3};
  full.int32_values = {1, 2, 3};
  full.uint32_values = {1, 2, 3};
  full.int64_values = {1, 2, 3};
  full.uint64_values = {1, 2, 3};
  full.basic_types_values.resize(3);
  full.constants_values.resize(3);
  full.defaults_values.resize(3);
  const auto bounded_ts =
    rosidl_typesupport_cpp::get_message_type_support_handle<BoundedPlainSequences>();
  const size_t full_size = ts_test::serialize_with(rmw_serialize, &full, bounded_ts, &ret).size();
  size_t largest = 0;
  ASSERT_EQ(RMW_RET_OK, rmw_get_serialized_message_size(bounded_ts, nullptr, &largest)) <<
    take_error();
  EXPECT_EQ(full_size, largest);
  const BoundedPlainSequences empty;
  const size_t empty_size = ts_test::serialize_with(rmw_serialize, &empty, bounded_ts, &ret).size();
  EXPECT_LT(empty_size, largest);
}

TEST(SerializedMessageSize, UnboundedTypesAreUnsupported)
{
  size_t size = 0;
  EXPECT_EQ(RMW_RET_UNSUPPORTED, rmw_get_serialized_message_size(
      rosidl_typesupport_cpp::get_message_type_support_handle<test_msgs::msg::Strings>(),
      nullptr, &size));
  EXPECT_NE(std::string::npos, take_error().find("string_value is unbounded"));
  EXPECT_EQ(RMW_RET_UNSUPPORTED, rmw_get_serialized_message_size(
      rosidl_typesupport_cpp::get_message_type_support_handle<test_msgs::msg::Arrays>(),
      nullptr, &size));
  EXPECT_NE("", take_error());

  rosidl_runtime_c__Sequence__bound bounds{"bounds", nullptr, nullptr};
  EXPECT_EQ(RMW_RET_UNSUPPORTED, rmw_get_serialized_message_size(
      rosidl_typesupport_cpp::get_message_type_support_handle<test_msgs::msg::BasicTypes>(),
      &bounds, &size));
  EXPECT_NE(std::string::npos, take_error().find("bounds"));
}
}  // namespace
