// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// A content filter bound to a message type (detail/content_filter.cpp builds it): field paths
// resolved to memory offsets and introspection element functions, constants converted to the
// kind of the field they are compared with. Evaluating it reads the fields of one message.
#ifndef RMW_HDDS__DETAIL__CONTENT_FILTER_EVAL_HPP_
#define RMW_HDDS__DETAIL__CONTENT_FILTER_EVAL_HPP_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "detail/content_filter_parser.hpp"

namespace rmw_hdds
{
namespace filter
{
// A number as a field holds it: integers exactly (sign and magnitude, so every int64 and uint64
// compares right), floating-point values as long double (exact for float and double).
struct Number
{
  bool is_float = false;
  bool negative = false;
  uint64_t magnitude = 0;
  long double real = 0.0L;
};

// One step of a field path: the member at `offset` in the current struct, then, if `element`,
// element `index` of that array or sequence, reached through the introspection's functions.
struct Step
{
  uint32_t offset = 0;
  bool element = false;
  size_t index = 0;
  size_t (* size_fn)(const void *) = nullptr;
  const void * (*get_fn)(const void *, size_t) = nullptr;
  void (* fetch_fn)(const void *, size_t, void *) = nullptr;
};

struct Term
{
  bool is_field = false;
  bool is_string = false;  // the comparison's kind: strings, or numbers
  std::vector<Step> steps;  // field
  uint8_t type_id = 0;      // field
  Number number;            // constant number
  std::string text;         // constant string
};

struct Condition
{
  Node::Kind kind = Node::Kind::Compare;
  RelOp op = RelOp::Eq;
  bool negated = false;
  std::unique_ptr<Condition> left;
  std::unique_ptr<Condition> right;
  Term a;
  Term b;
  Term c;
};

inline Number integer(bool negative, uint64_t magnitude)
{
  Number n;
  n.negative = negative && magnitude != 0;
  n.magnitude = magnitude;
  return n;
}

inline Number real_number(long double v)
{
  Number n;
  n.is_float = true;
  n.real = v;
  return n;
}

// Length of the UTF-8 sequence starting at s[i] (1 for a stray byte), cut to the string's end.
size_t utf8_char_length(std::string_view s, size_t i);

// Whether `message` (C struct or C++ object, as `cpp` says) satisfies `c`.
bool evaluate(const Condition & c, bool cpp, const void * message);
}  // namespace filter
}  // namespace rmw_hdds

#endif  // RMW_HDDS__DETAIL__CONTENT_FILTER_EVAL_HPP_
