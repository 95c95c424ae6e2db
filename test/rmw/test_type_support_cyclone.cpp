// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// Byte identity with rmw_cyclonedds_cpp: every test_msgs message type, through the C and the C++
// type support, serialized by rmw_hdds and by rmw_cyclonedds_cpp must give the same bytes; each
// side's bytes must deserialize (by rmw_hdds, and ours also by Cyclone) back to the original.
#include <gtest/gtest.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "rosidl_runtime_c/primitives_sequence_functions.h"
#include "rosidl_typesupport_cpp/message_type_support.hpp"
#include "test_msgs/message_fixtures.hpp"
#include "test_msgs/msg/arrays.h"
#include "test_msgs/msg/basic_types.h"
#include "test_msgs/msg/bounded_plain_sequences.h"
#include "test_msgs/msg/bounded_sequences.h"
#include "test_msgs/msg/builtins.h"
#include "test_msgs/msg/constants.h"
#include "test_msgs/msg/defaults.h"
#include "test_msgs/msg/empty.h"
#include "test_msgs/msg/multi_nested.h"
#include "test_msgs/msg/nested.h"
#include "test_msgs/msg/strings.h"
#include "test_msgs/msg/unbounded_sequences.h"
#include "test_msgs/msg/w_strings.h"
#include "ts_test_utils.hpp"

namespace
{
using namespace ts_test;  // NOLINT(build/namespaces)
using test_msgs::msg::Arrays;
using test_msgs::msg::BasicTypes;
using test_msgs::msg::BoundedPlainSequences;
using test_msgs::msg::BoundedSequences;
using test_msgs::msg::Builtins;
using test_msgs::msg::Constants;
using test_msgs::msg::Defaults;
using test_msgs::msg::Empty;
using test_msgs::msg::MultiNested;
using test_msgs::msg::Nested;
using test_msgs::msg::Strings;
using test_msgs::msg::UnboundedSequences;
using test_msgs::msg::WStrings;

// Values the test_msgs fixtures do not cover: non-ASCII text everywhere, strings at their bound,
// UTF-16 surrogate pairs, sequences empty and full next to each other.
template<class T>
std::vector<std::shared_ptr<T>> extra_messages() {return {std::make_shared<T>()};}

template<>
std::vector<std::shared_ptr<Strings>> extra_messages<Strings>()
{
  auto m = std::make_shared<Strings>();
  m->string_value = u8"Gr\u00fc\u00dfe, \u4e16\u754c \U0001F600";
  m->bounded_string_value = "0123456789012345678901";  // exactly the bound of 22
  m->bounded_string_value_default3 = u8"\u00e9";
  auto empty = std::make_shared<Strings>();
  empty->string_value_default1.clear();
  return {m, empty};
}

template<>
std::vector<std::shared_ptr<WStrings>> extra_messages<WStrings>()
{
  auto m = std::make_shared<WStrings>();
  m->wstring_value = u"\U0001F600 surrogate pair, \u00e9, \u4e16";
  m->array_of_wstrings[1] = u"\uffff";
  m->bounded_sequence_of_wstrings = {u"", u"\u00e9\u00e8", u"x"};
  m->unbounded_sequence_of_wstrings = {u"", u""};
  return {m, std::make_shared<WStrings>()};
}

template<>
std::vector<std::shared_ptr<UnboundedSequences>> extra_messages<UnboundedSequences>()
{
  auto m = std::make_shared<UnboundedSequences>();
  m->bool_values = {true, false, true, true, false};
  m->char_values = {'a'};
  m->float64_values = {-0.0, 1e300};  // after an odd-sized sequence: alignment padding
  m->uint16_values = {7};
  m->int64_values = {-1};
  m->string_values = {u8"\u00fcber", "", "x"};
  m->basic_types_values.resize(2);
  m->basic_types_values[1].bool_value = true;
  m->basic_types_values[1].float64_value = 2.5;
  m->constants_values.resize(1);
  m->defaults_values.resize(2);
  m->bool_values_default.clear();
  m->string_values_default = {u8"\u00e9"};
  m->alignment_check = -5;
  return {m};
}

template<>
std::vector<std::shared_ptr<BoundedSequences>> extra_messages<BoundedSequences>()
{
  auto m = std::make_shared<BoundedSequences>();
  m->byte_values = {1};
  m->float64_values = {3.5};
  m->string_values = {u8"\u00e9t\u00e9"};
  m->defaults_values.resize(3);
  m->string_values_default.clear();
  return {m};
}

template<>
std::vector<std::shared_ptr<Arrays>> extra_messages<Arrays>()
{
  auto m = std::make_shared<Arrays>();
  m->char_values = {{'x', 127, 1}};
  m->string_values = {{u8"\u00fc", "", "three"}};
  m->float64_values = {{1.0, -1.0, 0.5}};
  m->alignment_check = 99;
  return {m};
}

template<>
std::vector<std::shared_ptr<MultiNested>> extra_messages<MultiNested>()
{
  auto m = std::make_shared<MultiNested>();
  m->unbounded_sequence_of_unbounded_sequences.resize(2);
  m->unbounded_sequence_of_unbounded_sequences[1] = *get_messages_unbounded_sequences()[1];
  m->bounded_sequence_of_arrays.resize(1);
  return {m};
}

// Each type: the C type support handle and the test_msgs fixtures plus the extras.
template<class T>
struct Type;

#define HDDS_TEST_TYPE(Name, fixtures) \
  template<> \
  struct Type<Name> \
  { \
    static const rosidl_message_type_support_t * c_ts() \
    { \
      return ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, msg, Name); \
    } \
    static std::vector<std::shared_ptr<Name>> messages() \
    { \
      auto all = fixtures(); \
      for (auto & m : extra_messages<Name>()) {all.push_back(m);} \
      return all; \
    } \
  };

HDDS_TEST_TYPE(Arrays, get_messages_arrays)
HDDS_TEST_TYPE(BasicTypes, get_messages_basic_types)
HDDS_TEST_TYPE(BoundedPlainSequences, get_messages_bounded_plain_sequences)
HDDS_TEST_TYPE(BoundedSequences, get_messages_bounded_sequences)
HDDS_TEST_TYPE(Builtins, get_messages_builtins)
HDDS_TEST_TYPE(Constants, get_messages_constants)
HDDS_TEST_TYPE(Defaults, get_messages_defaults)
HDDS_TEST_TYPE(Empty, get_messages_empty)
HDDS_TEST_TYPE(MultiNested, get_messages_multi_nested)
HDDS_TEST_TYPE(Nested, get_messages_nested)
HDDS_TEST_TYPE(Strings, get_messages_strings)
HDDS_TEST_TYPE(UnboundedSequences, get_messages_unbounded_sequences)
HDDS_TEST_TYPE(WStrings, get_messages_wstrings)

template<class T>
class CycloneIdentity : public ::testing::Test
{
protected:
  void SetUp() override
  {
    // Fails, never skips: without the reference there is no identity to show.
    ASSERT_TRUE(Cyclone::get().loaded()) << Cyclone::get().why();
  }
};

using AllTypes = ::testing::Types<
  Arrays, BasicTypes, BoundedPlainSequences, BoundedSequences, Builtins, Constants, Defaults,
  Empty, MultiNested, Nested, Strings, UnboundedSequences, WStrings>;
TYPED_TEST_SUITE(CycloneIdentity, AllTypes);

TYPED_TEST(CycloneIdentity, Cpp)
{
  using T = TypeParam;
  const Cyclone & cyclone = Cyclone::get();
  const rosidl_message_type_support_t * ts =
    rosidl_typesupport_cpp::get_message_type_support_handle<T>();
  const rosidl_message_type_support_t * intro =
    introspection(ts, rosidl_typesupport_introspection_cpp::typesupport_identifier);
  const auto messages = Type<T>::messages();
  ASSERT_FALSE(messages.empty());
  for (size_t i = 0; i < messages.size(); ++i) {
    SCOPED_TRACE("message #" + std::to_string(i));
    const T & original = *messages[i];
    rmw_ret_t ret;
    const Bytes ours = serialize_with(rmw_serialize, &original, ts, &ret);
    ASSERT_EQ(RMW_RET_OK, ret) << take_error();
    const Bytes theirs = serialize_with(cyclone.serialize, &original, ts, &ret);
    ASSERT_EQ(RMW_RET_OK, ret) << take_error();
    EXPECT_TRUE(same_bytes(ours, theirs));
    // The introspection handle itself, not through the dispatcher: the same bytes.
    EXPECT_TRUE(same_bytes(serialize_with(rmw_serialize, &original, intro, &ret), ours));

    T from_ours;
    ASSERT_EQ(RMW_RET_OK, deserialize_with(rmw_deserialize, ours, ts, &from_ours)) << take_error();
    EXPECT_EQ(original, from_ours);
    T from_theirs;
    ASSERT_EQ(RMW_RET_OK, deserialize_with(rmw_deserialize, theirs, ts, &from_theirs)) <<
      take_error();
    EXPECT_EQ(original, from_theirs);
    T cyclone_reads_ours;
    ASSERT_EQ(RMW_RET_OK, deserialize_with(cyclone.deserialize, ours, ts, &cyclone_reads_ours)) <<
      take_error();
    EXPECT_EQ(original, cyclone_reads_ours);
  }
}

TYPED_TEST(CycloneIdentity, C)
{
  using T = TypeParam;
  const Cyclone & cyclone = Cyclone::get();
  const rosidl_message_type_support_t * ts = Type<T>::c_ts();
  const rosidl_message_type_support_t * cpp_ts =
    rosidl_typesupport_cpp::get_message_type_support_handle<T>();
  auto c_members = static_cast<const CMembers *>(
    introspection(ts, rosidl_typesupport_introspection_c__identifier)->data);
  auto cpp_members = static_cast<const CppMembers *>(
    introspection(cpp_ts, rosidl_typesupport_introspection_cpp::typesupport_identifier)->data);
  const auto messages = Type<T>::messages();
  for (size_t i = 0; i < messages.size(); ++i) {
    SCOPED_TRACE("message #" + std::to_string(i));
    const T & original = *messages[i];
    CMessage c(c_members);
    cpp_to_c(cpp_members, &original, c_members, c.get());
    rmw_ret_t ret;
    const Bytes ours = serialize_with(rmw_serialize, c.get(), ts, &ret);
    ASSERT_EQ(RMW_RET_OK, ret) << take_error();
    const Bytes theirs = serialize_with(cyclone.serialize, c.get(), ts, &ret);
    ASSERT_EQ(RMW_RET_OK, ret) << take_error();
    EXPECT_TRUE(same_bytes(ours, theirs));
    // C and C++ type supports of one message write the same bytes.
    EXPECT_TRUE(same_bytes(ours, serialize_with(rmw_serialize, &original, cpp_ts, &ret)));

    for (const Bytes * bytes : {&ours, &theirs}) {
      CMessage back(c_members);
      ASSERT_EQ(RMW_RET_OK, deserialize_with(rmw_deserialize, *bytes, ts, back.get())) <<
        take_error();
      T as_cpp;
      c_to_cpp(c_members, back.get(), cpp_members, &as_cpp);
      EXPECT_EQ(original, as_cpp) << (bytes == &ours ? "from rmw_hdds's bytes" :
        "from rmw_cyclonedds_cpp's bytes");
    }
  }
}
// Struct padding holds whatever memory held; CDR padding is zeros. Plain fields are copied as
// one block, so the padding holes must be zeroed afterwards: fill them with garbage and compare.
void poison_padding(BasicTypes & m)
{
  auto bytes = reinterpret_cast<unsigned char *>(&m);
  for (size_t i = offsetof(BasicTypes, char_value) + 1; i < offsetof(BasicTypes, float32_value);
    ++i)
  {
    bytes[i] = 0xab;
  }
  for (size_t i = offsetof(BasicTypes, uint16_value) + 2; i < offsetof(BasicTypes, int32_value);
    ++i)
  {
    bytes[i] = 0xcd;
  }
}

TEST(CyclonePadding, GarbageInStructPaddingIsNeverSent)
{
  ASSERT_TRUE(Cyclone::get().loaded()) << Cyclone::get().why();
  const auto basic = get_messages_basic_types();
  // A lone message (one run), a plain array flattened into its parent, and a sequence of plain
  // structs (one block for all elements).
  BasicTypes single = *basic[1];
  poison_padding(single);
  Arrays arrays = *get_messages_arrays()[0];
  for (auto & b : arrays.basic_types_values) {
    poison_padding(b);
  }
  UnboundedSequences seq;
  seq.basic_types_values = {*basic[1], *basic[2], *basic[3]};
  for (auto & b : seq.basic_types_values) {
    poison_padding(b);
  }
  ASSERT_EQ(0xab, reinterpret_cast<unsigned char *>(&single)[offsetof(BasicTypes, char_value) + 1]);

  rmw_ret_t ret;
  auto check = [&](const void * msg, const rosidl_message_type_support_t * ts) {
      const Bytes ours = serialize_with(rmw_serialize, msg, ts, &ret);
      EXPECT_EQ(RMW_RET_OK, ret);
      const Bytes theirs = serialize_with(Cyclone::get().serialize, msg, ts, &ret);
      EXPECT_EQ(RMW_RET_OK, ret);
      EXPECT_TRUE(same_bytes(ours, theirs));
    };
  check(&single, rosidl_typesupport_cpp::get_message_type_support_handle<BasicTypes>());
  check(&arrays, rosidl_typesupport_cpp::get_message_type_support_handle<Arrays>());
  check(&seq, rosidl_typesupport_cpp::get_message_type_support_handle<UnboundedSequences>());

  test_msgs__msg__BasicTypes c;
  std::memset(&c, 0xab, sizeof(c));
  ASSERT_TRUE(test_msgs__msg__BasicTypes__init(&c));
  c.int64_value = -7;
  ASSERT_EQ(0xab, reinterpret_cast<unsigned char *>(&c)[offsetof(test_msgs__msg__BasicTypes,
    char_value) + 1]);
  check(&c, ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, msg, BasicTypes));
  test_msgs__msg__BasicTypes__fini(&c);
}
// The primitives no .msg file can declare (IDL only): wchar and long double, single, in a fixed
// array and in sequences, through a hand-written C introspection. rmw_cyclonedds_cpp writes a
// wchar as 2 bytes and a long double as 16 bytes aligned to 8 (it cannot read either back).
struct Exotic
{
  uint8_t head;
  uint16_t wchar_value;
  long double long_double_value;
  uint16_t wchar_array[3];
  rosidl_runtime_c__long_double__Sequence long_doubles;
  rosidl_runtime_c__wchar__Sequence wchars;
  uint8_t tail;
};

template<class Seq>
size_t seq_size(const void * m) {return static_cast<const Seq *>(m)->size;}
template<class Seq>
const void * seq_get_const(const void * m, size_t i)
{
  return &(static_cast<const Seq *>(m)->data[i]);
}
template<class Seq>
void * seq_get(void * m, size_t i) {return &(static_cast<Seq *>(m)->data[i]);}
bool resize_long_doubles(void * m, size_t n)
{
  auto s = static_cast<rosidl_runtime_c__long_double__Sequence *>(m);
  rosidl_runtime_c__long_double__Sequence__fini(s);
  return rosidl_runtime_c__long_double__Sequence__init(s, n);
}
bool resize_wchars(void * m, size_t n)
{
  auto s = static_cast<rosidl_runtime_c__wchar__Sequence *>(m);
  rosidl_runtime_c__wchar__Sequence__fini(s);
  return rosidl_runtime_c__wchar__Sequence__init(s, n);
}

CMember exotic_member(
  const char * name, uint8_t type, size_t array_size, bool is_sequence, uint32_t offset)
{
  CMember m{};
  m.name_ = name;
  m.type_id_ = type;
  m.is_array_ = array_size != 0 || is_sequence;
  m.array_size_ = array_size;
  m.offset_ = offset;
  if (is_sequence && type == rosidl_typesupport_introspection_c__ROS_TYPE_LONG_DOUBLE) {
    using S = rosidl_runtime_c__long_double__Sequence;
    m.size_function = seq_size<S>;
    m.get_const_function = seq_get_const<S>;
    m.get_function = seq_get<S>;
    m.resize_function = resize_long_doubles;
  } else if (is_sequence) {
    using S = rosidl_runtime_c__wchar__Sequence;
    m.size_function = seq_size<S>;
    m.get_const_function = seq_get_const<S>;
    m.get_function = seq_get<S>;
    m.resize_function = resize_wchars;
  }
  return m;
}

TEST(CycloneIdentityIdl, WcharAndLongDouble)
{
  ASSERT_TRUE(Cyclone::get().loaded()) << Cyclone::get().why();
  ASSERT_EQ(16u, sizeof(long double));
  const CMember members[] = {
    exotic_member("head", rosidl_typesupport_introspection_c__ROS_TYPE_UINT8, 0, false,
      offsetof(Exotic, head)),
    exotic_member("wchar_value", rosidl_typesupport_introspection_c__ROS_TYPE_WCHAR, 0, false,
      offsetof(Exotic, wchar_value)),
    exotic_member("long_double_value", rosidl_typesupport_introspection_c__ROS_TYPE_LONG_DOUBLE,
      0, false, offsetof(Exotic, long_double_value)),
    exotic_member("wchar_array", rosidl_typesupport_introspection_c__ROS_TYPE_WCHAR, 3, false,
      offsetof(Exotic, wchar_array)),
    exotic_member("long_doubles", rosidl_typesupport_introspection_c__ROS_TYPE_LONG_DOUBLE, 0,
      true, offsetof(Exotic, long_doubles)),
    exotic_member("wchars", rosidl_typesupport_introspection_c__ROS_TYPE_WCHAR, 0, true,
      offsetof(Exotic, wchars)),
    exotic_member("tail", rosidl_typesupport_introspection_c__ROS_TYPE_UINT8, 0, false,
      offsetof(Exotic, tail)),
  };
  const CMembers exotic_members{
    "hdds_test__msg", "Exotic", 7, sizeof(Exotic), members, nullptr, nullptr};
  const rosidl_message_type_support_t ts{
    rosidl_typesupport_introspection_c__identifier, &exotic_members,
    get_message_typesupport_handle_function};

  Exotic in{};
  in.head = 1;
  in.wchar_value = 0x00e9;
  in.long_double_value = 1.0L / 3.0L;
  in.wchar_array[0] = 0x41;
  in.wchar_array[1] = 0xffff;
  in.wchar_array[2] = 0x4e16;
  ASSERT_TRUE(rosidl_runtime_c__long_double__Sequence__init(&in.long_doubles, 2));
  std::memset(in.long_doubles.data, 0, 2 * sizeof(long double));  // defined padding bytes
  in.long_doubles.data[0] = -2.5L;
  in.long_doubles.data[1] = 1e4000L;  // beyond double's range
  ASSERT_TRUE(rosidl_runtime_c__wchar__Sequence__init(&in.wchars, 3));
  in.wchars.data[0] = 1;
  in.wchars.data[1] = 2;
  in.wchars.data[2] = 3;
  in.tail = 9;

  rmw_ret_t ret;
  const Bytes ours = serialize_with(rmw_serialize, &in, &ts, &ret);
  ASSERT_EQ(RMW_RET_OK, ret) << take_error();
  const Bytes theirs = serialize_with(Cyclone::get().serialize, &in, &ts, &ret);
  ASSERT_EQ(RMW_RET_OK, ret) << take_error();
  EXPECT_TRUE(same_bytes(ours, theirs));
  // head 1, wchar at 2, long double at 8 (16 bytes), wchar[3] at 24, u32 count at 32, two long
  // doubles at 40, u32 count at 72, wchars at 76, tail at 82.
  EXPECT_EQ(4u + 83u, ours.size());

  Exotic out{};
  ASSERT_EQ(RMW_RET_OK, deserialize_with(rmw_deserialize, ours, &ts, &out)) << take_error();
  EXPECT_EQ(in.head, out.head);
  EXPECT_EQ(in.wchar_value, out.wchar_value);
  EXPECT_EQ(in.long_double_value, out.long_double_value);
  EXPECT_EQ(0, std::memcmp(in.wchar_array, out.wchar_array, sizeof(in.wchar_array)));
  ASSERT_EQ(2u, out.long_doubles.size);
  EXPECT_EQ(-2.5L, out.long_doubles.data[0]);
  EXPECT_EQ(1e4000L, out.long_doubles.data[1]);
  ASSERT_EQ(3u, out.wchars.size);
  EXPECT_EQ(3u, out.wchars.data[2]);
  EXPECT_EQ(9u, out.tail);
  for (Exotic * e : {&in, &out}) {
    rosidl_runtime_c__long_double__Sequence__fini(&e->long_doubles);
    rosidl_runtime_c__wchar__Sequence__fini(&e->wchars);
  }
}
}  // namespace
