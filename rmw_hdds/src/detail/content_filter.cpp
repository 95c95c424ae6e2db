// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// Binding a parsed filter (content_filter_parser.hpp) to a message type: the tree that
// content_filter_eval.cpp evaluates.
#include "detail/content_filter.hpp"

#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "detail/cdr_plan.hpp"
#include "detail/content_filter_eval.hpp"
#include "detail/content_filter_parser.hpp"
#include "rmw/error_handling.h"
#include "rosidl_typesupport_introspection_c/message_introspection.h"
#include "rosidl_typesupport_introspection_cpp/field_types.hpp"
#include "rosidl_typesupport_introspection_cpp/message_introspection.hpp"

namespace rmw_hdds
{
namespace filter
{
namespace tsi = rosidl_typesupport_introspection_cpp;

namespace
{
const char * type_name_of(uint8_t type_id)
{
  switch (type_id) {
    case tsi::ROS_TYPE_FLOAT: return "float32";
    case tsi::ROS_TYPE_DOUBLE: return "float64";
    case tsi::ROS_TYPE_LONG_DOUBLE: return "long double";
    case tsi::ROS_TYPE_CHAR: return "char";
    case tsi::ROS_TYPE_WCHAR: return "wchar";
    case tsi::ROS_TYPE_BOOLEAN: return "bool";
    case tsi::ROS_TYPE_OCTET: return "byte";
    case tsi::ROS_TYPE_UINT8: return "uint8";
    case tsi::ROS_TYPE_INT8: return "int8";
    case tsi::ROS_TYPE_UINT16: return "uint16";
    case tsi::ROS_TYPE_INT16: return "int16";
    case tsi::ROS_TYPE_UINT32: return "uint32";
    case tsi::ROS_TYPE_INT32: return "int32";
    case tsi::ROS_TYPE_UINT64: return "uint64";
    case tsi::ROS_TYPE_INT64: return "int64";
    case tsi::ROS_TYPE_STRING: return "string";
    case tsi::ROS_TYPE_WSTRING: return "wstring";
    case tsi::ROS_TYPE_MESSAGE: return "message";
    default: return "unknown type";
  }
}

// "an int32", "a string": for messages.
std::string a_type(uint8_t type_id)
{
  const std::string name = type_name_of(type_id);
  const bool vowel = name[0] == 'a' || name[0] == 'e' || name[0] == 'i' || name[0] == 'o';
  return (vowel ? "an " : "a ") + name;
}

bool is_string_type(uint8_t t) {return t == tsi::ROS_TYPE_STRING || t == tsi::ROS_TYPE_WSTRING;}

// Fields a one-character string constant ('a') compares with, by the character's code.
bool is_char_like(uint8_t t)
{
  return t == tsi::ROS_TYPE_CHAR || t == tsi::ROS_TYPE_WCHAR || t == tsi::ROS_TYPE_OCTET ||
         t == tsi::ROS_TYPE_UINT8 || t == tsi::ROS_TYPE_INT8;
}

// Length of the UTF-8 sequence starting at s[i] (1 for a stray byte), cut to the string's end.

// The code point of a string that is exactly one UTF-8 character; false otherwise.
bool single_code_point(const std::string & s, uint32_t * out)
{
  if (s.empty() || utf8_char_length(s, 0) != s.size()) {
    return false;
  }
  const auto c0 = static_cast<unsigned char>(s[0]);
  if (s.size() == 1) {
    *out = c0;
    return true;
  }
  uint32_t cp = c0 & (0x7Fu >> s.size());
  for (size_t i = 1; i < s.size(); ++i) {
    cp = (cp << 6) | (static_cast<unsigned char>(s[i]) & 0x3Fu);
  }
  *out = cp;
  return true;
}

// Field access through one introspection (C or C++): both have the same member layout and
// function signatures, under different type names.
struct MemberView
{
  const char * name;
  uint8_t type_id;
  const rosidl_message_type_support_t * members;
  bool is_array;
  size_t array_size;
  bool is_upper_bound;
  uint32_t offset;
  size_t (* size_fn)(const void *);
  const void * (*get_fn)(const void *, size_t);
  void (* fetch_fn)(const void *, size_t, void *);
};

template<typename Members>
bool find_member(const void * members, const std::string & name, MemberView * out,
  std::string * names)
{
  const auto * ms = static_cast<const Members *>(members);
  for (uint32_t i = 0; i < ms->member_count_; ++i) {
    const auto & m = ms->members_[i];
    if (name == m.name_) {
      *out = {m.name_, m.type_id_, m.members_, m.is_array_, m.array_size_, m.is_upper_bound_,
        m.offset_, m.size_function, m.get_const_function, m.fetch_function};
      return true;
    }
    *names += (i == 0 ? "" : ", ") + std::string(m.name_);
  }
  return false;
}

std::string type_label(bool cpp, const void * members)
{
  if (cpp) {
    const auto * m = static_cast<const rosidl_typesupport_introspection_cpp::MessageMembers *>(
      members);
    return std::string(m->message_namespace_) + "::" + m->message_name_;
  }
  const auto * m = static_cast<const rosidl_typesupport_introspection_c__MessageMembers *>(
    members);
  return std::string(m->message_namespace_) + "__" + m->message_name_;
}

class Binder
{
public:
  Binder(bool cpp, const void * members, std::vector<Literal> parameter_values)
  : cpp_(cpp), members_(members), values_(std::move(parameter_values)) {}

  // The bound condition, or nullptr with error()/position() set.
  std::unique_ptr<Condition> bind(const Node & n)
  {
    auto c = std::make_unique<Condition>();
    c->kind = n.kind;
    c->op = n.op;
    c->negated = n.negated;
    switch (n.kind) {
      case Node::Kind::And:
      case Node::Kind::Or:
        c->left = bind(*n.left);
        c->right = c->left ? bind(*n.right) : nullptr;
        return c->left && c->right ? std::move(c) : nullptr;
      case Node::Kind::Not:
        c->left = bind(*n.left);
        return c->left ? std::move(c) : nullptr;
      case Node::Kind::Compare:
        return bind_compare(n, std::move(c));
      case Node::Kind::Between:
        return bind_between(n, std::move(c));
    }
    return nullptr;
  }

  const std::string & error() const {return error_;}
  size_t position() const {return position_;}

private:
  std::unique_ptr<Condition> fail(size_t position, const std::string & message)
  {
    position_ = position;
    error_ = message;
    return nullptr;
  }

  std::unique_ptr<Condition> bind_compare(const Node & n, std::unique_ptr<Condition> c)
  {
    const Operand & a = n.a;
    const Operand & b = n.b;
    const bool af = a.kind == Operand::Kind::Field;
    const bool bf = b.kind == Operand::Kind::Field;
    if (n.op == RelOp::Like) {
      if (!af || bf) {
        return fail(
          n.position, "LIKE compares a string field with a pattern: write field LIKE 'pattern'");
      }
      if (!field(a, &c->a)) {
        return nullptr;
      }
      if (!c->a.is_string) {
        return fail(a.position, "LIKE needs a string field; '" + a.spelling + "' is " +
                 a_type(c->a.type_id));
      }
      Literal pattern;
      if (!constant(b, &pattern)) {
        return nullptr;
      }
      if (pattern.kind != Literal::Kind::String) {
        return fail(b.position, "the pattern of LIKE is a string in single quotes, e.g. 'abc%'");
      }
      c->b.is_string = true;
      c->b.text = pattern.text;
      return c;
    }
    if (!af && !bf) {
      return fail(n.position, "the comparison has no field: one side must name a field");
    }
    // The field first: `3 < x` becomes `x > 3`.
    const Operand & f = af ? a : b;
    const Operand & other = af ? b : a;
    if (!af) {
      static const RelOp mirror[] = {RelOp::Eq, RelOp::Ne, RelOp::Gt, RelOp::Ge, RelOp::Lt,
        RelOp::Le, RelOp::Like};
      c->op = mirror[static_cast<int>(n.op)];
    }
    if (!field(f, &c->a) || !operand_like(other, c->a, f, &c->b)) {
      return nullptr;
    }
    return c;
  }

  std::unique_ptr<Condition> bind_between(const Node & n, std::unique_ptr<Condition> c)
  {
    if (n.a.kind != Operand::Kind::Field) {
      return fail(n.a.position, "BETWEEN tests a field: write field BETWEEN low AND high");
    }
    if (!field(n.a, &c->a) || !operand_like(n.b, c->a, n.a, &c->b) ||
      !operand_like(n.c, c->a, n.a, &c->c))
    {
      return nullptr;
    }
    return c;
  }

  // `o` (a field or a constant) as a term comparable with the field term `f` (spelled `fo`).
  bool operand_like(const Operand & o, const Term & f, const Operand & fo, Term * out)
  {
    if (o.kind == Operand::Kind::Field) {
      if (!field(o, out)) {
        return false;
      }
      if (out->is_string != f.is_string) {
        fail(o.position, "'" + fo.spelling + "' is " + a_type(f.type_id) + " but '" +
          o.spelling + "' is " + a_type(out->type_id) + ": they do not compare");
        return false;
      }
      return true;
    }
    Literal l;
    if (!constant(o, &l)) {
      return false;
    }
    out->is_string = f.is_string;
    if (f.is_string) {
      if (l.kind != Literal::Kind::String) {
        fail(o.position, "'" + fo.spelling + "' is " + a_type(f.type_id) +
          ": compare it with a string in single quotes, e.g. 'text'");
        return false;
      }
      out->text = l.text;
      return true;
    }
    switch (l.kind) {
      case Literal::Kind::Integer:
      case Literal::Kind::Boolean:
        out->number = integer(l.negative, l.magnitude);
        return true;
      case Literal::Kind::Float:
        // Against a float32 field, at float precision: `x = 3.14` matches the float 3.14f.
        out->number = real_number(
          f.type_id == tsi::ROS_TYPE_FLOAT ? static_cast<long double>(static_cast<float>(l.real)) :
          static_cast<long double>(l.real));
        return true;
      case Literal::Kind::String: {
          uint32_t cp = 0;
          const uint32_t max = f.type_id == tsi::ROS_TYPE_WCHAR ? 0xFFFF : 0xFF;
          if (!is_char_like(f.type_id) || !single_code_point(l.text, &cp) || cp > max) {
            fail(o.position, "'" + fo.spelling + "' is " + a_type(f.type_id) +
              ", not a string: compare it with a number" +
              (is_char_like(f.type_id) ? " or a single character ('a')" : ""));
            return false;
          }
          out->number = integer(false, cp);
          return true;
        }
    }
    return false;
  }

  // A literal or a parameter's value.
  bool constant(const Operand & o, Literal * out)
  {
    if (o.kind == Operand::Kind::Literal) {
      *out = o.literal;
      return true;
    }
    if (o.parameter >= values_.size()) {
      fail(o.position, o.spelling + " is used but " + std::to_string(values_.size()) +
        " parameter" + (values_.size() == 1 ? " was" : "s were") + " given");
      return false;
    }
    *out = values_[o.parameter];
    return true;
  }

  bool field(const Operand & o, Term * out)
  {
    out->is_field = true;
    const void * members = members_;
    std::string prefix;
    for (size_t i = 0; i < o.path.size(); ++i) {
      const PathStep & ps = o.path[i];
      const bool last = i + 1 == o.path.size();
      MemberView m{};
      std::string names;
      const bool found = cpp_ ?
        find_member<rosidl_typesupport_introspection_cpp::MessageMembers>(
        members, ps.name, &m, &names) :
        find_member<rosidl_typesupport_introspection_c__MessageMembers>(
        members, ps.name, &m, &names);
      const std::string here = prefix + ps.name;
      if (!found) {
        fail(o.position, "'" + here + "': " + type_label(cpp_, members) + " has no field '" +
          ps.name + "' (its fields: " + names + ")");
        return false;
      }
      Step step;
      step.offset = m.offset;
      if (m.is_array && !ps.indexed) {
        fail(o.position, "'" + here + "' is an array or sequence: name one element, e.g. " +
          here + "[0]");
        return false;
      }
      if (!m.is_array && ps.indexed) {
        fail(o.position, "'" + here + "' is not an array or sequence: it has no [index]");
        return false;
      }
      if (m.is_array) {
        if (m.array_size != 0 && ps.index >= m.array_size) {  // 0: an unbounded sequence
          fail(o.position, "'" + here + "[" + std::to_string(ps.index) + "]' is past its end: " +
            (m.is_upper_bound ? "at most " : "") + std::to_string(m.array_size) + " elements");
          return false;
        }
        if (m.size_fn == nullptr || m.fetch_fn == nullptr ||
          (m.get_fn == nullptr && (is_string_type(m.type_id) || m.type_id == tsi::ROS_TYPE_MESSAGE)))
        {
          fail(o.position, "the type support of '" + here + "' gives no access to its elements");
          return false;
        }
        step.element = true;
        step.index = ps.index;
        step.size_fn = m.size_fn;
        step.get_fn = m.get_fn;
        step.fetch_fn = m.fetch_fn;
      }
      out->steps.push_back(step);
      if (m.type_id == tsi::ROS_TYPE_MESSAGE) {
        if (last) {
          fail(o.position, "'" + here + "' is a message: name one of its fields, e.g. " + here +
            ".something");
          return false;
        }
        std::string error;
        members = cdr::nested_members(cpp_ ? cdr::Lang::Cpp : cdr::Lang::C, m.members, &error);
        if (members == nullptr) {
          fail(o.position, "'" + here + "': " + error);
          return false;
        }
        prefix = here + (ps.indexed ? "[" + std::to_string(ps.index) + "]" : "") + ".";
        continue;
      }
      if (!last) {
        fail(o.position, "'" + here + "' is " + a_type(m.type_id) +
          ", not a message: it has no field '" + o.path[i + 1].name + "'");
        return false;
      }
      out->type_id = m.type_id;
      out->is_string = is_string_type(m.type_id);
    }
    return true;
  }

  bool cpp_;
  const void * members_;
  std::vector<Literal> values_;
  std::string error_;
  size_t position_ = 0;
};
}  // namespace
}  // namespace filter

rmw_ret_t ContentFilter::create(
  const MessageTypeSupport & type, const char * expression, size_t parameter_count,
  const char * const * parameters, std::unique_ptr<ContentFilter> * out)
{
  try {
    std::unique_ptr<ContentFilter> f(new ContentFilter());
    f->expression_ = expression;
    f->type_ = type;
    f->cpp_ = type.is_cpp();
    auto fail = [&](size_t position, const std::string & message) {
        RMW_SET_ERROR_MSG_WITH_FORMAT_STRING(
          "rmw_hdds: content filter \"%s\": at character %zu: %s", expression, position + 1,
          message.c_str());
        return RMW_RET_INVALID_ARGUMENT;
      };
    if (parameter_count > 100) {
      return fail(0, "at most 100 parameters (%0 to %99) are allowed, " +
               std::to_string(parameter_count) + " were given");
    }
    std::vector<filter::Literal> values(parameter_count);
    for (size_t i = 0; i < parameter_count; ++i) {
      if (parameters[i] == nullptr) {
        return fail(0, "parameter %" + std::to_string(i) + " is NULL");
      }
      f->parameters_.emplace_back(parameters[i]);
      filter::SyntaxError e;
      if (!filter::parse_literal(f->parameters_.back(), &values[i], &e)) {
        RMW_SET_ERROR_MSG_WITH_FORMAT_STRING(
          "rmw_hdds: content filter \"%s\": parameter %%%zu (\"%s\"), at its character %zu: %s",
          expression, i, parameters[i], e.position + 1, e.message.c_str());
        return RMW_RET_INVALID_ARGUMENT;
      }
    }
    filter::SyntaxError e;
    const auto tree = filter::parse(f->expression_, &e);
    if (!tree) {
      return fail(e.position, e.message);
    }
    filter::Binder binder(f->cpp_, type.introspection(), std::move(values));
    f->root_ = binder.bind(*tree);
    if (!f->root_) {
      return fail(binder.position(), binder.error());
    }
    const rmw_ret_t ret = type.new_message(&f->scratch_);
    if (ret != RMW_RET_OK) {
      return ret;
    }
    *out = std::move(f);
    return RMW_RET_OK;
  } catch (const std::bad_alloc &) {
    RMW_SET_ERROR_MSG("rmw_hdds: out of memory compiling a content filter");
    return RMW_RET_BAD_ALLOC;
  }
}

ContentFilter::~ContentFilter()
{
  if (scratch_ != nullptr) {
    type_.delete_message(scratch_);
  }
}

bool ContentFilter::matches(const void * message) const noexcept
{
  try {
    return filter::evaluate(*root_, cpp_, message);
  } catch (...) {
    return true;  // only bad_alloc, from a wstring's conversion: let the sample through
  }
}

bool ContentFilter::matches_serialized(const uint8_t * data, size_t size) noexcept
{
  try {
    if (type_.deserialize(data, size, scratch_) != RMW_RET_OK) {
      rmw_reset_error();
      return true;
    }
  } catch (...) {
    return true;
  }
  return matches(scratch_);
}
}  // namespace rmw_hdds
