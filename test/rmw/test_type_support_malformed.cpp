// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// Untrusted input: rmw_deserialize must reject truncated data, lying lengths and bound overflows
// with RMW_RET_ERROR and a message, never crash, never read outside the buffer and never leak
// (run under AddressSanitizer); it must read big-endian CDR; rmw_serialize must refuse messages
// that break their bounds.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "rosidl_runtime_c/primitives_sequence_functions.h"
#include "rosidl_typesupport_cpp/message_type_support.hpp"
#include "test_msgs/message_fixtures.hpp"
#include "test_msgs/msg/basic_types.h"
#include "test_msgs/msg/bounded_plain_sequences.h"
#include "test_msgs/msg/bounded_sequences.h"
#include "test_msgs/msg/multi_nested.h"
#include "test_msgs/msg/unbounded_sequences.h"
#include "ts_test_utils.hpp"

namespace
{
using namespace ts_test;  // NOLINT(build/namespaces)
using test_msgs::msg::BasicTypes;
using test_msgs::msg::BoundedPlainSequences;
using test_msgs::msg::BoundedSequences;
using test_msgs::msg::Empty;
using test_msgs::msg::MultiNested;
using test_msgs::msg::Strings;
using test_msgs::msg::UnboundedSequences;
using test_msgs::msg::WStrings;

// Builds CDR by hand, in either byte order, to say exactly what the bytes are.
class Encoder
{
public:
  explicit Encoder(bool big_endian)
  : big_(big_endian), out_{0, static_cast<uint8_t>(big_endian ? 0 : 1), 0, 0} {}

  Encoder & align(size_t a)
  {
    while ((out_.size() - 4) % a != 0) {
      out_.push_back(0);
    }
    return *this;
  }
  template<class T>
  Encoder & put(T v)
  {
    align(sizeof(T) < 8 ? sizeof(T) : 8);
    uint8_t b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    if (big_) {
      std::reverse(b, b + sizeof(T));
    }
    out_.insert(out_.end(), b, b + sizeof(T));
    return *this;
  }
  Encoder & str(const std::string & s)
  {
    put<uint32_t>(static_cast<uint32_t>(s.size() + 1));
    out_.insert(out_.end(), s.begin(), s.end());
    out_.push_back(0);
    return *this;
  }
  Encoder & wstr(const std::u16string & s)
  {
    put<uint32_t>(static_cast<uint32_t>(s.size()));
    for (char16_t c : s) {
      put<uint32_t>(c);
    }
    return *this;
  }
  Encoder & basic_types(const BasicTypes & m)
  {
    return put<uint8_t>(m.bool_value).put(m.byte_value).put(m.char_value).put(m.float32_value)
           .put(m.float64_value).put(m.int8_value).put(m.uint8_value).put(m.int16_value)
           .put(m.uint16_value).put(m.int32_value).put(m.uint32_value).put(m.int64_value)
           .put(m.uint64_value);
  }
  const Bytes & bytes() const {return out_;}

private:
  bool big_;
  Bytes out_;
};

template<class T>
const rosidl_message_type_support_t * cpp_ts()
{
  return rosidl_typesupport_cpp::get_message_type_support_handle<T>();
}

template<class T>
Bytes serialize_cpp(const T & msg)
{
  rmw_ret_t ret;
  Bytes b = serialize_with(rmw_serialize, &msg, cpp_ts<T>(), &ret);
  EXPECT_EQ(RMW_RET_OK, ret) << take_error();
  return b;
}

// Deserializing must fail, with a message that contains `what`.
template<class T>
void expect_rejected(const Bytes & bytes, const std::string & what)
{
  T msg;
  EXPECT_EQ(RMW_RET_ERROR, deserialize_with(rmw_deserialize, bytes, cpp_ts<T>(), &msg));
  const std::string error = take_error();
  EXPECT_NE(std::string::npos, error.find(what)) << error;
}

const CMembers * c_members(const rosidl_message_type_support_t * c_ts)
{
  return static_cast<const CMembers *>(
    introspection(c_ts, rosidl_typesupport_introspection_c__identifier)->data);
}

const CppMembers * cpp_members(const rosidl_message_type_support_t * ts)
{
  return static_cast<const CppMembers *>(
    introspection(ts, rosidl_typesupport_introspection_cpp::typesupport_identifier)->data);
}

// Every proper prefix of a valid serialization is rejected, in C++ and in C; the same message
// objects take every attempt, so ASan sees any leak or corruption a failed attempt leaves behind.
template<class T>
void every_prefix_fails(const T & original, const rosidl_message_type_support_t * c_ts)
{
  const Bytes full = serialize_cpp(original);
  ASSERT_GT(full.size(), 4u);
  T cpp_msg;
  CMessage c_msg(c_members(c_ts));
  for (size_t len = 0; len < full.size(); ++len) {
    const Bytes prefix(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(len));
    ASSERT_EQ(RMW_RET_ERROR, deserialize_with(rmw_deserialize, prefix, cpp_ts<T>(), &cpp_msg)) <<
      "C++, prefix of " << len << " bytes";
    ASSERT_FALSE(take_error().empty());
    ASSERT_EQ(RMW_RET_ERROR, deserialize_with(rmw_deserialize, prefix, c_ts, c_msg.get())) <<
      "C, prefix of " << len << " bytes";
    ASSERT_FALSE(take_error().empty());
  }
  ASSERT_EQ(RMW_RET_OK, deserialize_with(rmw_deserialize, full, cpp_ts<T>(), &cpp_msg));
  EXPECT_EQ(original, cpp_msg);
  ASSERT_EQ(RMW_RET_OK, deserialize_with(rmw_deserialize, full, c_ts, c_msg.get()));
  T via_c;
  c_to_cpp(c_members(c_ts), c_msg.get(), cpp_members(cpp_ts<T>()), &via_c);
  EXPECT_EQ(original, via_c);
}

TEST(Truncated, EveryPrefixOfMultiNested)
{
  every_prefix_fails(*get_messages_multi_nested()[0], ROSIDL_GET_MSG_TYPE_SUPPORT(
      test_msgs, msg, MultiNested));
}

TEST(Truncated, EveryPrefixOfUnboundedSequences)
{
  auto fixtures = get_messages_unbounded_sequences();
  for (size_t i : {0u, 1u, 2u, 4u}) {  // #3 has 1000-element sequences: covered by MultiNested
    SCOPED_TRACE("fixture #" + std::to_string(i));
    every_prefix_fails(*fixtures[i], ROSIDL_GET_MSG_TYPE_SUPPORT(
        test_msgs, msg, UnboundedSequences));
  }
}

TEST(Truncated, EmptyMessageNeedsItsByte)
{
  expect_rejected<Empty>(Bytes{0, 1, 0, 0}, "data ends");
  Empty msg;
  EXPECT_EQ(RMW_RET_OK, deserialize_with(rmw_deserialize, Bytes{0, 1, 0, 0, 0}, cpp_ts<Empty>(),
    &msg));
}

TEST(Encapsulation, RejectsWhatIsNotCdr)
{
  expect_rejected<BasicTypes>(Bytes{}, "encapsulation header");
  expect_rejected<BasicTypes>(Bytes{0, 1, 0}, "encapsulation header");
  Bytes good = serialize_cpp(BasicTypes{});
  for (auto header : {std::pair<uint8_t, uint8_t>{0, 2}, {0, 3}, {1, 1}, {0, 7}}) {
    Bytes bad = good;
    bad[0] = header.first;
    bad[1] = header.second;
    expect_rejected<BasicTypes>(bad, "is not CDR");
  }
  // Options bytes are ignored; trailing bytes (DDS padding) too.
  Bytes padded = good;
  padded[3] = 3;
  padded.insert(padded.end(), {0, 0, 0});
  BasicTypes msg;
  EXPECT_EQ(RMW_RET_OK, deserialize_with(rmw_deserialize, padded, cpp_ts<BasicTypes>(), &msg));
}

// UnboundedSequences with every sequence empty up to `field` (0-based order of the .msg),
// then a count.
Encoder unbounded_up_to(size_t field, uint32_t count)
{
  Encoder e(false);
  for (size_t i = 0; i < field; ++i) {
    e.put<uint32_t>(0);
  }
  e.put<uint32_t>(count);
  return e;
}

TEST(LyingLengths, SequenceCountsBeyondTheData)
{
  // float64_values (field 4), int64 (11), string_values (13), basic_types_values (14).
  for (size_t field : {0u, 4u, 11u, 13u, 14u}) {
    SCOPED_TRACE("field " + std::to_string(field));
    Encoder e = unbounded_up_to(field, 0x7fffffffu);
    e.put<uint64_t>(0);
    expect_rejected<UnboundedSequences>(e.bytes(), "cannot fit");
    CMessage c(c_members(ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, msg, UnboundedSequences)));
    EXPECT_EQ(RMW_RET_ERROR, deserialize_with(rmw_deserialize, e.bytes(),
      ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, msg, UnboundedSequences), c.get()));
    EXPECT_NE(std::string::npos, take_error().find("cannot fit"));
  }
}

TEST(LyingLengths, Strings)
{
  Strings m;
  m.string_value = "abc";
  Bytes b = serialize_cpp(m);
  ASSERT_EQ(4u, b[4]);  // string_value's length, NUL included
  b[4] = 0xff;
  b[5] = 0xff;
  b[6] = 0xff;
  b[7] = 0xff;
  expect_rejected<Strings>(b, "exceeds the");
  b[4] = 3;  // "abc" without its NUL
  b[5] = b[6] = b[7] = 0;
  expect_rejected<Strings>(b, "not NUL-terminated");
}

TEST(LyingLengths, WStrings)
{
  Encoder huge(false);
  huge.put<uint32_t>(0x40000000u);
  expect_rejected<WStrings>(huge.bytes(), "exceeds the");
  Encoder not_utf16(false);
  not_utf16.put<uint32_t>(1).put<uint32_t>(0x1f600);
  expect_rejected<WStrings>(not_utf16.bytes(), "is not UTF-16");
}

TEST(Bounds, SequenceOverItsBoundIsRejected)
{
  Encoder e(false);
  e.put<uint32_t>(4).put<uint8_t>(1).put<uint8_t>(0).put<uint8_t>(1).put<uint8_t>(1);
  expect_rejected<BoundedPlainSequences>(e.bytes(), "exceeds its bound of 3");
  CMessage c(c_members(ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, msg, BoundedPlainSequences)));
  EXPECT_EQ(RMW_RET_ERROR, deserialize_with(rmw_deserialize, e.bytes(),
    ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, msg, BoundedPlainSequences), c.get()));
  EXPECT_NE(std::string::npos, take_error().find("exceeds its bound of 3"));
}

// Strings: string_value, 5 defaults, then bounded_string_value (bound 22), 5 bounded defaults.
Bytes strings_with_bounded(const std::string & bounded)
{
  Encoder e(false);
  Strings defaults;
  e.str("").str(defaults.string_value_default1).str(defaults.string_value_default2)
  .str(defaults.string_value_default3).str(defaults.string_value_default4)
  .str(defaults.string_value_default5).str(bounded)
  .str(defaults.bounded_string_value_default1).str(defaults.bounded_string_value_default2)
  .str(defaults.bounded_string_value_default3).str(defaults.bounded_string_value_default4)
  .str(defaults.bounded_string_value_default5);
  return e.bytes();
}

TEST(Bounds, StringOverItsBoundIsRejected)
{
  expect_rejected<Strings>(strings_with_bounded(std::string(23, 'x')), "exceeds its bound of 22");
  Strings at_bound;
  at_bound.bounded_string_value = std::string(22, 'x');
  Strings msg;
  ASSERT_EQ(RMW_RET_OK, deserialize_with(rmw_deserialize,
    strings_with_bounded(std::string(22, 'x')), cpp_ts<Strings>(), &msg)) << take_error();
  EXPECT_EQ(at_bound, msg);
  EXPECT_EQ(serialize_cpp(at_bound), strings_with_bounded(std::string(22, 'x')));
}

TEST(Bounds, SerializeRefusesMessagesOverTheirBounds)
{
  Strings s;
  s.bounded_string_value = std::string(23, 'x');
  rmw_ret_t ret;
  serialize_with(rmw_serialize, &s, cpp_ts<Strings>(), &ret);
  EXPECT_EQ(RMW_RET_ERROR, ret);
  EXPECT_NE(std::string::npos, take_error().find("exceeds its bound of 22"));

  // A C bounded sequence is a plain struct: nothing stops it from growing past its bound.
  auto c_ts = ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, msg, BoundedSequences);
  test_msgs__msg__BoundedSequences c;
  ASSERT_TRUE(test_msgs__msg__BoundedSequences__init(&c));
  ASSERT_TRUE(rosidl_runtime_c__boolean__Sequence__init(&c.bool_values, 4));
  serialize_with(rmw_serialize, &c, c_ts, &ret);
  EXPECT_EQ(RMW_RET_ERROR, ret);
  EXPECT_NE(std::string::npos, take_error().find("'bool_values': sequence of 4 elements"));
  test_msgs__msg__BoundedSequences__fini(&c);
}

TEST(ByteOrder, BigEndianIsRead)
{
  for (bool big : {false, true}) {
    SCOPED_TRACE(big ? "big-endian" : "little-endian");
    const BasicTypes basic = *get_messages_basic_types()[1];
    Encoder e(big);
    e.basic_types(basic);
    if (!big) {  // the encoder writes what rmw_hdds writes
      EXPECT_TRUE(same_bytes(serialize_cpp(basic), e.bytes()));
    }
    BasicTypes b;
    ASSERT_EQ(RMW_RET_OK, deserialize_with(rmw_deserialize, e.bytes(), cpp_ts<BasicTypes>(), &b)) <<
      take_error();
    EXPECT_EQ(basic, b);
    test_msgs__msg__BasicTypes c;
    ASSERT_TRUE(test_msgs__msg__BasicTypes__init(&c));
    ASSERT_EQ(RMW_RET_OK, deserialize_with(rmw_deserialize, e.bytes(),
      ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, msg, BasicTypes), &c)) << take_error();
    EXPECT_EQ(basic.int64_value, c.int64_value);
    EXPECT_EQ(basic.float64_value, c.float64_value);
    EXPECT_EQ(basic.uint16_value, c.uint16_value);
    test_msgs__msg__BasicTypes__fini(&c);

    WStrings w;
    w.wstring_value = u"\u00e9\u4e16";
    w.array_of_wstrings = {{u"a", u"", u"\U0001F600"}};
    w.unbounded_sequence_of_wstrings = {u"zz"};
    Encoder we(big);
    we.wstr(w.wstring_value).wstr(w.wstring_value_default1).wstr(w.wstring_value_default2)
    .wstr(w.wstring_value_default3);
    for (const auto & s : w.array_of_wstrings) {
      we.wstr(s);
    }
    we.put<uint32_t>(0).put<uint32_t>(1).wstr(u"zz");
    WStrings wb;
    ASSERT_EQ(RMW_RET_OK, deserialize_with(rmw_deserialize, we.bytes(), cpp_ts<WStrings>(), &wb)) <<
      take_error();
    EXPECT_EQ(w, wb);

    // Sequences: counts, element alignment after odd sizes, nested structs, strings.
    UnboundedSequences u;
    u.bool_values = {true, false, true};
    u.int16_values = {-2, 300};
    u.float64_values = {0.5};
    u.string_values = {"ab", ""};
    u.basic_types_values = {basic};
    u.alignment_check = 7;
    Encoder ue(big);
    ue.put<uint32_t>(3).put<uint8_t>(1).put<uint8_t>(0).put<uint8_t>(1)  // bool
    .put<uint32_t>(0).put<uint32_t>(0).put<uint32_t>(0)  // byte, char, float32
    .put<uint32_t>(1).put<double>(0.5)  // float64
    .put<uint32_t>(0).put<uint32_t>(0)  // int8, uint8
    .put<uint32_t>(2).put<int16_t>(-2).put<int16_t>(300);  // int16
    for (int i = 0; i < 5; ++i) {  // uint16 .. uint64
      ue.put<uint32_t>(0);
    }
    ue.put<uint32_t>(2).str("ab").str("");  // string_values
    ue.put<uint32_t>(1).basic_types(basic);  // basic_types_values
    ue.put<uint32_t>(0).put<uint32_t>(0);  // constants, defaults
    for (int i = 0; i < 14; ++i) {  // the *_default sequences, emptied below
      ue.put<uint32_t>(0);
    }
    ue.put<int32_t>(7);
    UnboundedSequences expected = u;
    expected.bool_values_default.clear();
    expected.byte_values_default.clear();
    expected.char_values_default.clear();
    expected.float32_values_default.clear();
    expected.float64_values_default.clear();
    expected.int8_values_default.clear();
    expected.uint8_values_default.clear();
    expected.int16_values_default.clear();
    expected.uint16_values_default.clear();
    expected.int32_values_default.clear();
    expected.uint32_values_default.clear();
    expected.int64_values_default.clear();
    expected.uint64_values_default.clear();
    expected.string_values_default.clear();
    if (!big) {
      EXPECT_TRUE(same_bytes(serialize_cpp(expected), ue.bytes()));
    }
    UnboundedSequences ub;
    ASSERT_EQ(RMW_RET_OK,
      deserialize_with(rmw_deserialize, ue.bytes(), cpp_ts<UnboundedSequences>(), &ub)) <<
      take_error();
    EXPECT_EQ(expected, ub);
  }
}

// Random corruption of a large valid message: whatever comes back, no crash, no leak.
TEST(Fuzz, RandomCorruptionOfMultiNested)
{
  const Bytes good = serialize_cpp(*get_messages_multi_nested()[0]);
  auto c_ts = ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, msg, MultiNested);
  std::mt19937 rng(20260101);
  size_t rejected = 0;
  const int kRounds = 3000;
  for (int round = 0; round < kRounds; ++round) {
    Bytes bad = good;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < flips; ++i) {
      const size_t at = 4 + rng() % (bad.size() - 4);
      bad[at] = static_cast<uint8_t>(rng() % 3 == 0 ? 0xff : rng());
    }
    if (rng() % 4 == 0) {
      bad.resize(4 + rng() % (bad.size() - 4));
    }
    MultiNested cpp_msg;
    const rmw_ret_t a = deserialize_with(rmw_deserialize, bad, cpp_ts<MultiNested>(), &cpp_msg);
    take_error();
    CMessage c(c_members(c_ts));
    const rmw_ret_t b = deserialize_with(rmw_deserialize, bad, c_ts, c.get());
    take_error();
    ASSERT_TRUE(a == RMW_RET_OK || a == RMW_RET_ERROR) << a;
    ASSERT_EQ(a, b) << "C and C++ disagree on round " << round;
    rejected += a == RMW_RET_ERROR;
  }
  EXPECT_GT(rejected, 0u);
}
}  // namespace
