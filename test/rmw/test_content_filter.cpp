// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// Content filters below the rmw API: the DDS-SQL parser (good and bad expressions, with the
// position of each syntax error), then binding to test_msgs types (C and C++ introspection) and
// evaluating on messages and on their CDR bytes. Compiled with the detail sources (librmw_hdds
// exports only the rmw_* API).
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "detail/content_filter.hpp"
#include "detail/content_filter_parser.hpp"
#include "detail/type_support.hpp"
#include "rcutils/types/uint8_array.h"
#include "rmw/error_handling.h"
#include "rosidl_runtime_c/primitives_sequence_functions.h"
#include "rosidl_runtime_c/string_functions.h"
#include "rosidl_typesupport_c/message_type_support_dispatch.h"
#include "rosidl_typesupport_cpp/message_type_support.hpp"
#include "test_msgs/msg/arrays.hpp"
#include "test_msgs/msg/basic_types.h"
#include "test_msgs/msg/basic_types.hpp"
#include "test_msgs/msg/multi_nested.hpp"
#include "test_msgs/msg/nested.hpp"
#include "test_msgs/msg/strings.h"
#include "test_msgs/msg/strings.hpp"
#include "test_msgs/msg/unbounded_sequences.h"
#include "test_msgs/msg/unbounded_sequences.hpp"
#include "test_msgs/msg/w_strings.hpp"

namespace
{
using rmw_hdds::ContentFilter;
using rmw_hdds::MessageTypeSupport;
namespace f = rmw_hdds::filter;

std::string take_error()
{
  std::string msg = rmw_error_is_set() ? rmw_get_error_string().str : "";
  rmw_reset_error();
  return msg;
}

// ---------------------------------------------------------------------------------------------
// Parser

std::unique_ptr<f::Node> parse_ok(const std::string & text)
{
  f::SyntaxError e;
  auto n = f::parse(text, &e);
  EXPECT_NE(nullptr, n) << text << ": " << e.message << " at " << e.position;
  return n;
}

TEST(ContentFilterParser, precedence_not_and_or)
{
  // a OR (b AND (NOT c))
  auto n = parse_ok("a = 1 OR b = 2 AND NOT c = 3");
  ASSERT_NE(nullptr, n);
  ASSERT_EQ(f::Node::Kind::Or, n->kind);
  EXPECT_EQ(f::Node::Kind::Compare, n->left->kind);
  ASSERT_EQ(f::Node::Kind::And, n->right->kind);
  EXPECT_EQ(f::Node::Kind::Not, n->right->right->kind);
  EXPECT_EQ("c", n->right->right->left->a.spelling);

  // Parentheses override; AND and OR group left to right.
  n = parse_ok("(a = 1 OR b = 2) AND c = 3 AND d = 4");
  ASSERT_NE(nullptr, n);
  ASSERT_EQ(f::Node::Kind::And, n->kind);
  ASSERT_EQ(f::Node::Kind::And, n->left->kind);
  EXPECT_EQ(f::Node::Kind::Or, n->left->left->kind);
  EXPECT_EQ("d", n->right->a.spelling);
}

TEST(ContentFilterParser, between_takes_its_own_and)
{
  auto n = parse_ok("x BETWEEN 1 AND 5 AND y NOT BETWEEN %0 AND %1");
  ASSERT_NE(nullptr, n);
  ASSERT_EQ(f::Node::Kind::And, n->kind);
  ASSERT_EQ(f::Node::Kind::Between, n->left->kind);
  EXPECT_FALSE(n->left->negated);
  EXPECT_EQ(5u, n->left->c.literal.magnitude);
  ASSERT_EQ(f::Node::Kind::Between, n->right->kind);
  EXPECT_TRUE(n->right->negated);
  EXPECT_EQ(f::Operand::Kind::Parameter, n->right->b.kind);
  EXPECT_EQ(1u, n->right->c.parameter);
}

TEST(ContentFilterParser, operators_literals_and_fields)
{
  const std::vector<std::pair<std::string, f::RelOp>> ops = {
    {"=", f::RelOp::Eq}, {"<>", f::RelOp::Ne}, {"!=", f::RelOp::Ne}, {"<", f::RelOp::Lt},
    {"<=", f::RelOp::Le}, {">", f::RelOp::Gt}, {">=", f::RelOp::Ge}, {"like", f::RelOp::Like}};
  for (const auto & op : ops) {
    auto n = parse_ok("x " + op.first + " 1");
    ASSERT_NE(nullptr, n);
    EXPECT_EQ(op.second, n->op) << op.first;
  }
  auto n = parse_ok("pose.position.x>=-2.5e-3");
  ASSERT_NE(nullptr, n);
  ASSERT_EQ(3u, n->a.path.size());
  EXPECT_EQ("pose.position.x", n->a.spelling);
  EXPECT_EQ(f::Literal::Kind::Float, n->b.literal.kind);
  EXPECT_DOUBLE_EQ(-2.5e-3, n->b.literal.real);

  n = parse_ok("a[3].b[0] = 0xFF");
  ASSERT_NE(nullptr, n);
  ASSERT_EQ(2u, n->a.path.size());
  EXPECT_TRUE(n->a.path[0].indexed);
  EXPECT_EQ(3u, n->a.path[0].index);
  EXPECT_EQ("a[3].b[0]", n->a.spelling);
  EXPECT_EQ(255u, n->b.literal.magnitude);

  n = parse_ok("s = 'it is'  or  b = true AnD NOT c = FALSE");
  ASSERT_NE(nullptr, n);
  EXPECT_EQ("it is", n->left->b.literal.text);

  n = parse_ok("x = -9223372036854775808 OR y = 18446744073709551615 OR %12 < z");
  ASSERT_NE(nullptr, n);
  EXPECT_TRUE(n->left->left->b.literal.negative);
  EXPECT_EQ(uint64_t{1} << 63, n->left->left->b.literal.magnitude);
  EXPECT_EQ(std::numeric_limits<uint64_t>::max(), n->left->right->b.literal.magnitude);
  EXPECT_EQ(12u, n->right->a.parameter);

  n = parse_ok("NOT NOT (((x = 1)))");
  ASSERT_NE(nullptr, n);
  EXPECT_EQ(f::Node::Kind::Not, n->left->kind);
}

TEST(ContentFilterParser, syntax_errors_name_their_position)
{
  struct Case
  {
    std::string text;
    size_t position;
    std::string says;
  };
  const std::vector<Case> cases = {
    {"", 0, "empty"},
    {"   ", 3, "empty"},
    {"data >", 6, "expected a value after '>'"},
    {"data >> 3", 6, "expected a value after '>', found '>'"},
    {"(data = 1", 9, "expected ')'"},
    {"data = 1)", 8, "expected AND, OR or the end"},
    {"data = 'abc", 7, "no closing quote"},
    {"data = %", 7, "a parameter is %"},
    {"data = %100", 7, "0 to 99"},
    {"data = 1.2.3", 7, "malformed number"},
    {"data = 12abc", 7, "malformed number"},
    {"data = 0x", 7, "no hex digit"},
    {"data = 99999999999999999999", 7, "out of range"},
    {"data = -9223372036854775809", 7, "out of range"},
    {"data BETWEEN 1", 14, "expected AND between the bounds"},
    {"data NOT = 1", 9, "expected BETWEEN or LIKE after NOT"},
    {"= 3", 0, "expected a field name"},
    {"data 3", 5, "expected a comparison"},
    {"a[-1] = 3", 2, "expected an index"},
    {"a[1 = 3", 4, "expected ']'"},
    {"a. = 3", 3, "expected a field name after '.'"},
    {"data # 3", 5, "unexpected character '#'"},
    {"data = 1 AND", 12, "expected a field name"},
    {"x = 1 OR OR y = 2", 9, "expected a field name"},
  };
  for (const auto & c : cases) {
    f::SyntaxError e;
    EXPECT_EQ(nullptr, f::parse(c.text, &e)) << c.text;
    EXPECT_EQ(c.position, e.position) << c.text << ": " << e.message;
    EXPECT_NE(std::string::npos, e.message.find(c.says)) << c.text << ": " << e.message;
  }
}

TEST(ContentFilterParser, nesting_and_length_are_bounded)
{
  f::SyntaxError e;
  std::string deep = std::string(101, '(') + "x = 1" + std::string(101, ')');
  EXPECT_EQ(nullptr, f::parse(deep, &e));
  EXPECT_NE(std::string::npos, e.message.find("deeper than 100")) << e.message;
  std::string ok = std::string(99, '(') + "x = 1" + std::string(99, ')');
  EXPECT_NE(nullptr, f::parse(ok, &e)) << e.message;

  std::string chain = "x = 1";
  for (int i = 0; i < 1000; ++i) {
    chain += " AND x = 1";
  }
  EXPECT_NE(nullptr, f::parse(chain, &e)) << e.message;
  chain += " OR x = 2";
  EXPECT_EQ(nullptr, f::parse(chain, &e));
  EXPECT_NE(std::string::npos, e.message.find("more than 1000")) << e.message;
}

TEST(ContentFilterParser, parameters_are_literals)
{
  f::Literal l;
  f::SyntaxError e;
  ASSERT_TRUE(f::parse_literal(" -30.000000 ", &l, &e)) << e.message;
  EXPECT_EQ(f::Literal::Kind::Float, l.kind);
  EXPECT_DOUBLE_EQ(-30.0, l.real);
  ASSERT_TRUE(f::parse_literal("'FilteredData'", &l, &e));
  EXPECT_EQ("FilteredData", l.text);
  ASSERT_TRUE(f::parse_literal("TRUE", &l, &e));
  EXPECT_EQ(f::Literal::Kind::Boolean, l.kind);
  EXPECT_FALSE(f::parse_literal("FilteredData", &l, &e));
  EXPECT_NE(std::string::npos, e.message.find("single quotes")) << e.message;
  EXPECT_FALSE(f::parse_literal("", &l, &e));
  EXPECT_FALSE(f::parse_literal("1 2", &l, &e));
  EXPECT_FALSE(f::parse_literal("%0", &l, &e));
}

// ---------------------------------------------------------------------------------------------
// Binding and evaluation

template<class T>
MessageTypeSupport cpp_type()
{
  MessageTypeSupport ts;
  EXPECT_EQ(
    RMW_RET_OK,
    MessageTypeSupport::resolve(rosidl_typesupport_cpp::get_message_type_support_handle<T>(), &ts));
  return ts;
}

MessageTypeSupport c_type(const rosidl_message_type_support_t * handle)
{
  MessageTypeSupport ts;
  EXPECT_EQ(RMW_RET_OK, MessageTypeSupport::resolve(handle, &ts));
  return ts;
}

std::unique_ptr<ContentFilter> make(
  const MessageTypeSupport & ts, const std::string & expr,
  const std::vector<std::string> & params = {})
{
  std::vector<const char *> p;
  for (const auto & s : params) {
    p.push_back(s.c_str());
  }
  std::unique_ptr<ContentFilter> filter;
  const rmw_ret_t ret = ContentFilter::create(ts, expr.c_str(), p.size(), p.data(), &filter);
  EXPECT_EQ(RMW_RET_OK, ret) << expr << ": " << take_error();
  return filter;
}

// The error that create() refuses `expr` with ("" if it accepts it).
std::string refusal(
  const MessageTypeSupport & ts, const std::string & expr,
  const std::vector<std::string> & params = {})
{
  std::vector<const char *> p;
  for (const auto & s : params) {
    p.push_back(s.c_str());
  }
  std::unique_ptr<ContentFilter> filter;
  const rmw_ret_t ret = ContentFilter::create(ts, expr.c_str(), p.size(), p.data(), &filter);
  if (ret == RMW_RET_OK) {
    return "";
  }
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, ret) << expr;
  EXPECT_EQ(nullptr, filter);
  return take_error();
}

bool passes(
  const MessageTypeSupport & ts, const std::string & expr, const void * msg,
  const std::vector<std::string> & params = {})
{
  auto filter = make(ts, expr, params);
  return filter && filter->matches(msg);
}

TEST(ContentFilter, numbers_compare_exactly_across_types)
{
  const auto ts = cpp_type<test_msgs::msg::BasicTypes>();
  test_msgs::msg::BasicTypes m;
  m.int32_value = 3;
  m.float32_value = 3.14f;
  m.float64_value = -0.5;
  m.uint64_value = std::numeric_limits<uint64_t>::max();
  m.int64_value = std::numeric_limits<int64_t>::min();
  m.int8_value = -7;
  m.uint8_value = 200;
  m.char_value = 'a';
  m.byte_value = 0xFF;
  m.bool_value = true;

  EXPECT_TRUE(passes(ts, "int32_value = %0", &m, {"3"}));
  EXPECT_FALSE(passes(ts, "int32_value = %0", &m, {"4"}));
  EXPECT_TRUE(passes(ts, "int32_value > 2 AND int32_value < 4 AND int32_value <> 5", &m));
  EXPECT_TRUE(passes(ts, "2 < int32_value AND 4 >= int32_value", &m));  // constant first
  EXPECT_TRUE(passes(ts, "int32_value = 3.0 AND int32_value < 3.5", &m));
  EXPECT_TRUE(passes(ts, "float32_value = 3.14", &m));  // at float precision
  EXPECT_FALSE(passes(ts, "float32_value = 3.14159", &m));
  EXPECT_TRUE(passes(ts, "float64_value BETWEEN -1 AND 0", &m));
  EXPECT_TRUE(passes(ts, "float64_value NOT BETWEEN 0 AND 1", &m));
  EXPECT_TRUE(passes(ts, "float64_value >= -5e-1 AND float64_value != -0.4", &m));
  EXPECT_TRUE(passes(ts, "uint64_value = 18446744073709551615 AND uint64_value > 0x7fffffffffffffff", &m));
  EXPECT_TRUE(passes(ts, "int64_value = -9223372036854775808 AND int64_value < -1", &m));
  EXPECT_TRUE(passes(ts, "uint64_value > int64_value AND int64_value < int8_value", &m));
  EXPECT_TRUE(passes(ts, "int8_value = -7 AND uint8_value = 200 AND uint8_value > int8_value", &m));
  EXPECT_TRUE(passes(ts, "char_value = 'a' AND char_value = 97 AND byte_value = 0xff", &m));
  EXPECT_TRUE(passes(ts, "bool_value = TRUE AND bool_value <> false AND bool_value = 1", &m));
  EXPECT_FALSE(passes(ts, "NOT bool_value = TRUE", &m));
  EXPECT_TRUE(passes(ts, "int32_value = 9 OR (int8_value < 0 AND NOT uint8_value = 1)", &m));
}

TEST(ContentFilter, strings_and_like)
{
  const auto ts = cpp_type<test_msgs::msg::Strings>();
  test_msgs::msg::Strings m;
  m.string_value = "hello";
  m.bounded_string_value = "b";
  EXPECT_TRUE(passes(ts, "string_value = 'hello'", &m));
  EXPECT_TRUE(passes(ts, "string_value = %0", &m, {"'hello'"}));
  EXPECT_FALSE(passes(ts, "string_value = 'hello '", &m));
  EXPECT_TRUE(passes(ts, "string_value > 'hell' AND string_value < 'help'", &m));
  EXPECT_TRUE(passes(ts, "string_value > bounded_string_value", &m));  // field against field
  EXPECT_TRUE(passes(ts, "string_value LIKE 'he%o'", &m));
  EXPECT_TRUE(passes(ts, "string_value LIKE '_ello' AND string_value LIKE '%'", &m));
  EXPECT_TRUE(passes(ts, "string_value LIKE '%l%l%'", &m));
  EXPECT_FALSE(passes(ts, "string_value LIKE 'hell'", &m));
  EXPECT_FALSE(passes(ts, "string_value LIKE '_hello'", &m));
  EXPECT_TRUE(passes(ts, "string_value NOT LIKE 'x%'", &m));
  m.string_value = "";
  EXPECT_TRUE(passes(ts, "string_value = '' AND string_value LIKE '%'", &m));
  EXPECT_FALSE(passes(ts, "string_value LIKE '_'", &m));
}

TEST(ContentFilter, wstrings_compare_as_utf8)
{
  const auto ts = cpp_type<test_msgs::msg::WStrings>();
  test_msgs::msg::WStrings m;
  m.wstring_value = u"Hellö wörld";
  EXPECT_TRUE(passes(ts, "wstring_value = 'Hellö wörld'", &m));
  EXPECT_TRUE(passes(ts, "wstring_value LIKE 'H_ll_ w%'", &m));  // _ is one character
  EXPECT_TRUE(passes(ts, "array_of_wstrings[1] = ''", &m));
}

TEST(ContentFilter, nested_fields_arrays_and_sequences)
{
  {
    const auto ts = cpp_type<test_msgs::msg::Nested>();
    test_msgs::msg::Nested m;
    m.basic_types_value.int32_value = 5;
    EXPECT_TRUE(passes(ts, "basic_types_value.int32_value = 5", &m));
  }
  {
    const auto ts = cpp_type<test_msgs::msg::Arrays>();
    test_msgs::msg::Arrays m;
    m.int32_values[2] = 7;
    m.string_values[1] = "x";
    m.bool_values[0] = true;
    EXPECT_TRUE(passes(ts, "int32_values[2] = 7 AND int32_values[0] = 0", &m));
    EXPECT_TRUE(passes(ts, "string_values[1] = 'x' AND bool_values[0] = TRUE", &m));
  }
  {
    const auto ts = cpp_type<test_msgs::msg::UnboundedSequences>();
    test_msgs::msg::UnboundedSequences m;
    m.int32_values = {3};
    m.bool_values = {false, true};  // std::vector<bool>: read through the fetch function
    m.string_values = {"a", "b"};
    EXPECT_TRUE(passes(ts, "int32_values[0] = 3", &m));
    // Past the end there is no value: every comparison with it is false.
    EXPECT_FALSE(passes(ts, "int32_values[1] = 3", &m));
    EXPECT_FALSE(passes(ts, "int32_values[1] <> 3", &m));
    EXPECT_TRUE(passes(ts, "NOT int32_values[1] = 3", &m));
    EXPECT_TRUE(passes(ts, "bool_values[1] = TRUE AND bool_values[0] = FALSE", &m));
    EXPECT_TRUE(passes(ts, "string_values[1] = 'b'", &m));
  }
  {
    const auto ts = cpp_type<test_msgs::msg::MultiNested>();
    test_msgs::msg::MultiNested m;
    m.unbounded_sequence_of_unbounded_sequences.resize(2);
    m.unbounded_sequence_of_unbounded_sequences[1].string_values = {"deep"};
    m.array_of_arrays[2].float64_values[1] = 1.5;
    const char * expr =
      "unbounded_sequence_of_unbounded_sequences[1].string_values[0] = 'deep' AND "
      "array_of_arrays[2].float64_values[1] = 1.5";
    EXPECT_TRUE(passes(ts, expr, &m));
    EXPECT_FALSE(passes(ts, "unbounded_sequence_of_unbounded_sequences[2].int8_values[0] = 0", &m));
  }
}

TEST(ContentFilter, c_messages)
{
  const auto ts = c_type(ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, msg, BasicTypes));
  test_msgs__msg__BasicTypes m;
  ASSERT_TRUE(test_msgs__msg__BasicTypes__init(&m));
  m.int16_value = -300;
  m.float32_value = 3.14159f;
  EXPECT_TRUE(passes(ts, "int16_value = -300", &m));
  EXPECT_FALSE(passes(ts, "float32_value=3.14", &m));  // test_rmw_implementation's filter
  test_msgs__msg__BasicTypes__fini(&m);

  const auto ss = c_type(ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, msg, Strings));
  test_msgs__msg__Strings s;
  ASSERT_TRUE(test_msgs__msg__Strings__init(&s));
  ASSERT_TRUE(rosidl_runtime_c__String__assign(&s.string_value, "FilteredData"));
  EXPECT_TRUE(passes(ss, "string_value = 'FilteredData'", &s));
  EXPECT_TRUE(passes(ss, "string_value_default1 = 'Hello world!'", &s));  // the .msg default
  test_msgs__msg__Strings__fini(&s);

  const auto us = c_type(ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, msg, UnboundedSequences));
  test_msgs__msg__UnboundedSequences u;
  ASSERT_TRUE(test_msgs__msg__UnboundedSequences__init(&u));
  ASSERT_TRUE(rosidl_runtime_c__int32__Sequence__init(&u.int32_values, 2));
  u.int32_values.data[1] = 42;
  EXPECT_TRUE(passes(us, "int32_values[1] = 42", &u));
  EXPECT_FALSE(passes(us, "int32_values[2] = 42", &u));
  test_msgs__msg__UnboundedSequences__fini(&u);
}

TEST(ContentFilter, evaluates_cdr_bytes)
{
  const auto ts = cpp_type<test_msgs::msg::Strings>();
  auto filter = make(ts, "string_value LIKE 'keep%'");
  ASSERT_NE(nullptr, filter);
  for (const char * text : {"keep me", "drop me", "keep"}) {
    test_msgs::msg::Strings m;
    m.string_value = text;
    size_t size = 0;
    ASSERT_EQ(RMW_RET_OK, ts.serialized_size(&m, &size));
    std::vector<uint8_t> bytes(size);
    ASSERT_EQ(RMW_RET_OK, ts.serialize(&m, bytes.data(), bytes.size(), &size));
    EXPECT_EQ(std::strncmp(text, "keep", 4) == 0, filter->matches_serialized(bytes.data(), size))
      << text;
  }
  // Bytes that do not deserialize pass (the take reports them) and leave no error behind.
  const uint8_t garbage[] = {0, 1, 0, 0, 0xFF, 0xFF, 0xFF, 0x7F};
  EXPECT_TRUE(filter->matches_serialized(garbage, sizeof garbage));
  EXPECT_FALSE(rmw_error_is_set());
}

TEST(ContentFilter, keeps_expression_and_parameters)
{
  const auto ts = cpp_type<test_msgs::msg::BasicTypes>();
  auto filter = make(ts, "int32_value BETWEEN %0 AND %1", {"1", "10"});
  ASSERT_NE(nullptr, filter);
  EXPECT_EQ("int32_value BETWEEN %0 AND %1", filter->expression());
  EXPECT_EQ((std::vector<std::string>{"1", "10"}), filter->parameters());
}

TEST(ContentFilter, refuses_what_cannot_be_evaluated)
{
  const auto ts = cpp_type<test_msgs::msg::BasicTypes>();
  struct Case
  {
    std::string expr;
    std::vector<std::string> params;
    std::string says;
  };
  const std::vector<Case> cases = {
    {"int32_valu = 1", {}, "at character 1: 'int32_valu': test_msgs::msg::BasicTypes has no "
      "field 'int32_valu' (its fields: bool_value, byte_value,"},
    {"int32_value = %0", {}, "%0 is used but 0 parameters were given"},
    {"int32_value = %1", {"1"}, "at character 15: %1 is used but 1 parameter was given"},
    {"int32_value = %0", {"three"}, "parameter %0 (\"three\")"},
    {"int32_value = 'abc'", {}, "'int32_value' is an int32, not a string"},
    {"char_value = 'ab'", {}, "or a single character ('a')"},
    {"int32_value LIKE 'a%'", {}, "LIKE needs a string field"},
    {"1 = 1", {}, "the comparison has no field"},
    {"int32_value.x = 1", {}, "'int32_value' is an int32, not a message"},
    {"int32_value[0] = 1", {}, "is not an array or sequence"},
    {"int32_value = 1 AND (", {}, "at character 22: expected a field name"},
    {"int32_value BETWEEN 'a' AND 2", {}, "at character 21:"},
  };
  for (const auto & c : cases) {
    const std::string error = refusal(ts, c.expr, c.params);
    EXPECT_NE(std::string::npos, error.find(c.says)) << c.expr << "\n  got: " << error;
    EXPECT_NE(std::string::npos, error.find("content filter \"" + c.expr + "\"")) << error;
  }

  const auto ss = cpp_type<test_msgs::msg::Strings>();
  EXPECT_NE(std::string::npos, refusal(ss, "string_value = 3").find("compare it with a string"));
  EXPECT_NE(std::string::npos, refusal(ss, "string_value LIKE 3").find("pattern of LIKE"));
  EXPECT_NE(std::string::npos, refusal(ss, "'a%' LIKE string_value").find("write field LIKE"));
  const auto bs = cpp_type<test_msgs::msg::BasicTypes>();
  EXPECT_NE(
    std::string::npos, refusal(bs, "int32_value = bool_value OR string = 1").find("has no field"));

  const auto as = cpp_type<test_msgs::msg::Arrays>();
  EXPECT_NE(std::string::npos, refusal(as, "int32_values = 1").find("name one element"));
  EXPECT_NE(std::string::npos, refusal(as, "int32_values[3] = 1").find("past its end: 3 elements"));
  const auto ns = cpp_type<test_msgs::msg::Nested>();
  EXPECT_NE(std::string::npos, refusal(ns, "basic_types_value = 1").find("is a message"));
  const auto ws = cpp_type<test_msgs::msg::Strings>();
  EXPECT_NE(
    std::string::npos, refusal(ws, "string_value = bounded_string_value AND string_value = 1")
    .find("compare it with a string"));
}
}  // namespace
