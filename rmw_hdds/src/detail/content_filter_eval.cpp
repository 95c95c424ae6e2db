// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// Evaluating a bound content filter on one message (content_filter_eval.hpp).
#include "detail/content_filter_eval.hpp"

#include <cstring>
#include <string>
#include <string_view>

#include "rosidl_runtime_c/string.h"
#include "rosidl_runtime_c/u16string.h"
#include "rosidl_typesupport_introspection_cpp/field_types.hpp"

namespace rmw_hdds
{
namespace filter
{
namespace tsi = rosidl_typesupport_introspection_cpp;

size_t utf8_char_length(std::string_view s, size_t i)
{
  const auto c = static_cast<unsigned char>(s[i]);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
  return n < s.size() - i ? n : s.size() - i;
}

// The code point of a string that is exactly one UTF-8 character; false otherwise.

namespace
{
void append_utf8(uint32_t cp, std::string * out)
{
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// UTF-16 to UTF-8; a lone surrogate becomes U+FFFD.

// UTF-16 to UTF-8; a lone surrogate becomes U+FFFD.
void utf16_to_utf8(const uint16_t * data, size_t n, std::string * out)
{
  out->clear();
  for (size_t i = 0; i < n; ++i) {
    uint32_t u = data[i];
    if (u >= 0xD800 && u < 0xDC00 && i + 1 < n && data[i + 1] >= 0xDC00 && data[i + 1] < 0xE000) {
      u = 0x10000 + ((u - 0xD800) << 10) + (data[i + 1] - 0xDC00);
      ++i;
    } else if (u >= 0xD800 && u < 0xE000) {
      u = 0xFFFD;
    }
    append_utf8(u, out);
  }
}

// SQL LIKE: % any run of characters (none included), _ exactly one; the rest literally.

// SQL LIKE: % any run of characters (none included), _ exactly one; the rest literally.
bool like(std::string_view s, std::string_view p)
{
  size_t si = 0;
  size_t pi = 0;
  size_t star_p = std::string_view::npos;  // pattern position after the last %
  size_t star_s = 0;                       // where that % started matching in s
  while (si < s.size()) {
    if (pi < p.size() && p[pi] == '%') {
      star_p = ++pi;
      star_s = si;
      continue;
    }
    if (pi < p.size() && p[pi] == '_') {
      si += utf8_char_length(s, si);
      ++pi;
      continue;
    }
    if (pi < p.size()) {
      const size_t n = utf8_char_length(p, pi);
      if (s.substr(si, n) == p.substr(pi, n)) {
        si += n;
        pi += n;
        continue;
      }
    }
    if (star_p == std::string_view::npos) {
      return false;
    }
    star_s += utf8_char_length(s, star_s);
    si = star_s;
    pi = star_p;
  }
  while (pi < p.size() && p[pi] == '%') {
    ++pi;
  }
  return pi == p.size();
}

// -1, 0, 1, or 2 when unordered (a NaN is involved).

// -1, 0, 1, or 2 when unordered (a NaN is involved).
int compare(const Number & x, const Number & y)
{
  if (!x.is_float && !y.is_float) {
    if (x.negative != y.negative) {
      return x.negative ? -1 : 1;
    }
    if (x.magnitude == y.magnitude) {
      return 0;
    }
    const bool less = x.magnitude < y.magnitude;
    return (less != x.negative) ? -1 : 1;
  }
  auto as_real = [](const Number & n) {
      if (n.is_float) {
        return n.real;
      }
      const auto m = static_cast<long double>(n.magnitude);
      return n.negative ? -m : m;
    };
  const long double a = as_real(x);
  const long double b = as_real(y);
  if (a < b) {
    return -1;
  }
  if (a > b) {
    return 1;
  }
  return a == b ? 0 : 2;
}

bool holds(RelOp op, int c)
{
  switch (op) {
    case RelOp::Eq: return c == 0;
    case RelOp::Ne: return c != 0;
    case RelOp::Lt: return c == -1;
    case RelOp::Le: return c == -1 || c == 0;
    case RelOp::Gt: return c == 1;
    case RelOp::Ge: return c == 1 || c == 0;
    case RelOp::Like: return false;
  }
  return false;
}

Number signed_number(int64_t v)
{
  return v < 0 ? integer(true, uint64_t{0} - static_cast<uint64_t>(v)) :
         integer(false, static_cast<uint64_t>(v));
}

template<typename T>
T load(const void * p)
{
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

Number read_number(uint8_t type_id, const void * p)
{
  switch (type_id) {
    case tsi::ROS_TYPE_FLOAT: return real_number(load<float>(p));
    case tsi::ROS_TYPE_DOUBLE: return real_number(load<double>(p));
    case tsi::ROS_TYPE_LONG_DOUBLE: return real_number(load<long double>(p));
    case tsi::ROS_TYPE_BOOLEAN: return integer(false, load<bool>(p) ? 1 : 0);
    case tsi::ROS_TYPE_CHAR:  // a character: its code, 0..255
    case tsi::ROS_TYPE_OCTET:
    case tsi::ROS_TYPE_UINT8: return integer(false, load<uint8_t>(p));
    case tsi::ROS_TYPE_INT8: return signed_number(load<int8_t>(p));
    case tsi::ROS_TYPE_WCHAR:
    case tsi::ROS_TYPE_UINT16: return integer(false, load<uint16_t>(p));
    case tsi::ROS_TYPE_INT16: return signed_number(load<int16_t>(p));
    case tsi::ROS_TYPE_UINT32: return integer(false, load<uint32_t>(p));
    case tsi::ROS_TYPE_INT32: return signed_number(load<int32_t>(p));
    case tsi::ROS_TYPE_UINT64: return integer(false, load<uint64_t>(p));
    case tsi::ROS_TYPE_INT64: return signed_number(load<int64_t>(p));
    default: return Number{};
  }
}

// A term's value in one message. Strings are views into the message or into `buffer`.

// A term's value in one message. Strings are views into the message or into `buffer`.
struct Value
{
  Number number;
  std::string_view text;
};

// False when the field is absent (an element past a sequence's end).
bool read(const Term & t, bool cpp, const void * message, Value * v, std::string * buffer)
{
  if (!t.is_field) {
    v->number = t.number;
    v->text = t.text;
    return true;
  }
  // Primitive elements are fetched (a C++ vector<bool> has no element address), 16 bytes at
  // most: long double.
  alignas(16) unsigned char fetched[16];
  const unsigned char * p = static_cast<const unsigned char *>(message);
  for (size_t i = 0; i < t.steps.size(); ++i) {
    const Step & s = t.steps[i];
    p += s.offset;
    if (!s.element) {
      continue;
    }
    if (s.index >= s.size_fn(p)) {
      return false;
    }
    if (i + 1 == t.steps.size() && !t.is_string) {
      s.fetch_fn(p, s.index, fetched);
      p = fetched;
    } else {
      p = static_cast<const unsigned char *>(s.get_fn(p, s.index));
    }
  }
  if (t.type_id == tsi::ROS_TYPE_STRING) {
    if (cpp) {
      v->text = *reinterpret_cast<const std::string *>(p);
    } else {
      const auto * s = reinterpret_cast<const rosidl_runtime_c__String *>(p);
      v->text = s->data == nullptr ? std::string_view() : std::string_view(s->data, s->size);
    }
  } else if (t.type_id == tsi::ROS_TYPE_WSTRING) {
    if (cpp) {
      const auto * s = reinterpret_cast<const std::u16string *>(p);
      utf16_to_utf8(reinterpret_cast<const uint16_t *>(s->data()), s->size(), buffer);
    } else {
      const auto * s = reinterpret_cast<const rosidl_runtime_c__U16String *>(p);
      utf16_to_utf8(s->data, s->data == nullptr ? 0 : s->size, buffer);
    }
    v->text = *buffer;
  } else {
    v->number = read_number(t.type_id, p);
  }
  return true;
}

// 3-way comparison of two terms of the same kind; false if either is absent.
bool compare_terms(
  const Term & x, const Term & y, bool cpp, const void * msg, int * out, std::string * bx,
  std::string * by)
{
  Value a;
  Value b;
  if (!read(x, cpp, msg, &a, bx) || !read(y, cpp, msg, &b, by)) {
    return false;
  }
  if (x.is_string) {
    const int c = a.text.compare(b.text);
    *out = c < 0 ? -1 : c > 0 ? 1 : 0;
  } else {
    *out = compare(a.number, b.number);
  }
  return true;
}
}  // namespace

bool evaluate(const Condition & c, bool cpp, const void * msg)
{
  switch (c.kind) {
    case Node::Kind::And:
      return evaluate(*c.left, cpp, msg) && evaluate(*c.right, cpp, msg);
    case Node::Kind::Or:
      return evaluate(*c.left, cpp, msg) || evaluate(*c.right, cpp, msg);
    case Node::Kind::Not:
      return !evaluate(*c.left, cpp, msg);
    case Node::Kind::Compare: {
        std::string ba;
        std::string bb;
        if (c.op == RelOp::Like) {
          Value s;
          if (!read(c.a, cpp, msg, &s, &ba)) {
            return false;
          }
          return like(s.text, c.b.text) != c.negated;
        }
        int r = 0;
        return compare_terms(c.a, c.b, cpp, msg, &r, &ba, &bb) && holds(c.op, r);
      }
    case Node::Kind::Between: {
        std::string ba;
        std::string bb;
        int low = 0;
        int high = 0;
        if (!compare_terms(c.a, c.b, cpp, msg, &low, &ba, &bb) ||
          !compare_terms(c.a, c.c, cpp, msg, &high, &ba, &bb))
        {
          return false;
        }
        if (low == 2 || high == 2) {
          return false;
        }
        return (low >= 0 && high <= 0) != c.negated;
      }
  }
  return false;
}
}  // namespace filter
}  // namespace rmw_hdds
