// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// A content filter bound to a message type: the DDS-SQL expression (detail/content_filter_parser
// .hpp) with its field names resolved through the type's rosidl introspection and its %n
// parameters substituted, checked once, when it is set (content_filter.cpp); then evaluated on
// messages (content_filter_eval.cpp).
//
// Comparisons: numbers with numbers (integers exactly, whatever their width and sign; a float32
// field against a constant at float precision, so `x = 3.14` matches the float 3.14f), strings
// with strings (byte-wise, UTF-8; wstrings are converted), a char / wchar / octet / (u)int8 field
// with a one-character string ('a') by its code, a bool with TRUE / FALSE or 0 / 1. LIKE takes a
// string field and a constant pattern: % matches any run of characters, _ one character.
// A field of a sequence element past the sequence's end has no value: every comparison with it
// is false.
//
// Where filters run (see docs/decisions.md "Content filters"): the subscription installs the
// filter in its engine reader, which calls matches_serialized() on the delivering thread before
// a sample enters the reader's history. A sample that does not pass is never stored, never counts
// against the KEEP_LAST depth, never wakes a wait set or a listener.
#ifndef RMW_HDDS__DETAIL__CONTENT_FILTER_HPP_
#define RMW_HDDS__DETAIL__CONTENT_FILTER_HPP_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "detail/type_support.hpp"
#include "rmw/ret_types.h"

namespace rmw_hdds
{
namespace filter
{
struct Condition;
}

class ContentFilter
{
public:
  // Parses `expression`, resolves its fields in `type` and substitutes `parameters` (the text of
  // %0, %1, ...). On a syntax error, an unknown field, a parameter missing or not a literal, or
  // operands that cannot be compared, sets the rmw error message (naming the character where the
  // problem is) and returns RMW_RET_INVALID_ARGUMENT; RMW_RET_BAD_ALLOC when memory runs out.
  static rmw_ret_t create(
    const MessageTypeSupport & type, const char * expression, size_t parameter_count,
    const char * const * parameters, std::unique_ptr<ContentFilter> * out);
  ~ContentFilter();
  ContentFilter(const ContentFilter &) = delete;
  ContentFilter & operator=(const ContentFilter &) = delete;

  // As given to create().
  const std::string & expression() const {return expression_;}
  const std::vector<std::string> & parameters() const {return parameters_;}

  // True if `message` (an initialized message of the type) passes. Thread-safe.
  bool matches(const void * message) const noexcept;

  // Deserializes a sample (encapsulation header + CDR) into the filter's own message and
  // evaluates it. A sample that does not deserialize passes: the take reports the error. Neither
  // sets nor leaves an rmw error message (it runs on engine threads). One call at a time.
  bool matches_serialized(const uint8_t * data, size_t size) noexcept;

private:
  ContentFilter() = default;

  std::string expression_;
  std::vector<std::string> parameters_;
  MessageTypeSupport type_;
  bool cpp_ = false;
  std::unique_ptr<filter::Condition> root_;
  void * scratch_ = nullptr;  // a message of the type, for matches_serialized
};
}  // namespace rmw_hdds

#endif  // RMW_HDDS__DETAIL__CONTENT_FILTER_HPP_
