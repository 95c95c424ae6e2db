// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// How the plan's executors reach strings and sequences in a message, for each introspection.
// C: rosidl_runtime_c strings and sequences, resized with the rosidl runtime (the member's
// resize_function is the generated fini + init). C++: std::string / std::u16string directly, and
// sequences through the member's size/get/resize functions, except two that are std::vectors
// whatever the member's functions: bool sequences (packed bits, no get function) and, when
// deserializing, sequences of one-byte elements (filled without resize's zero fill).
#ifndef RMW_HDDS__DETAIL__CDR_ACCESS_HPP_
#define RMW_HDDS__DETAIL__CDR_ACCESS_HPP_

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "detail/cdr_plan.hpp"
#include "detail/copy_bytes.hpp"
#include "rmw/ret_types.h"
#include "rosidl_runtime_c/primitives_sequence.h"
#include "rosidl_runtime_c/string.h"
#include "rosidl_runtime_c/string_functions.h"
#include "rosidl_runtime_c/u16string.h"
#include "rosidl_runtime_c/u16string_functions.h"
#include "rosidl_typesupport_introspection_c/message_introspection.h"
#include "rosidl_typesupport_introspection_cpp/field_types.hpp"
#include "rosidl_typesupport_introspection_cpp/message_introspection.hpp"

namespace rmw_hdds
{
namespace cdr
{
// The layout every rosidl C sequence shares (rosidl_runtime_c__*__Sequence and the generated
// pkg__msg__Type__Sequence): a pointer to the elements, their number, the allocated number.
struct CSequence
{
  void * data;
  size_t size;
  size_t capacity;
};
static_assert(sizeof(CSequence) == sizeof(rosidl_runtime_c__double__Sequence), "C sequence");
static_assert(sizeof(bool) == 1, "CDR booleans are one byte, and so must bool be");

template<Lang L>
struct Access;

template<>
struct Access<Lang::C>
{
  using Members = rosidl_typesupport_introspection_c__MessageMembers;
  using Member = rosidl_typesupport_introspection_c__MessageMember;
  using String = rosidl_runtime_c__String;
  using WString = rosidl_runtime_c__U16String;

  static std::pair<const void *, size_t> seq(const Op &, const void * field)
  {
    auto s = static_cast<const CSequence *>(field);
    return {s->data, s->size};
  }
  // Makes the sequence hold n initialized elements (existing ones are kept when the size is
  // already right: deserialization overwrites every field of each).
  static rmw_ret_t resize(const Op & op, void * field, size_t n, void ** data)
  {
    auto s = static_cast<CSequence *>(field);
    if (s->size != n) {
      auto member = static_cast<const Member *>(op.member);
      if (member->resize_function == nullptr) {
        return RMW_RET_ERROR;
      }
      if (!member->resize_function(field, n)) {
        return RMW_RET_BAD_ALLOC;
      }
    }
    *data = s->data;
    return RMW_RET_OK;
  }
  static const char * string(const void * field, size_t * n)
  {
    auto s = static_cast<const String *>(field);
    *n = s->size;
    return s->data;
  }
  static bool assign(void * field, const char * value, size_t n)
  {
    return rosidl_runtime_c__String__assignn(static_cast<String *>(field), value, n);
  }
  static const uint16_t * wstring(const void * field, size_t * n)
  {
    auto s = static_cast<const WString *>(field);
    *n = s->size;
    return s->data;
  }
  static uint16_t * wresize(void * field, size_t n)
  {
    auto s = static_cast<WString *>(field);
    return rosidl_runtime_c__U16String__resize(s, n) ? s->data : nullptr;
  }
};

template<>
struct Access<Lang::Cpp>
{
  using Members = rosidl_typesupport_introspection_cpp::MessageMembers;
  using Member = rosidl_typesupport_introspection_cpp::MessageMember;
  using String = std::string;
  using WString = std::u16string;

  static std::pair<const void *, size_t> seq(const Op & op, const void * field)
  {
    auto member = static_cast<const Member *>(op.member);
    const size_t n = member->size_function(field);
    return {n != 0 ? member->get_const_function(field, 0) : nullptr, n};
  }
  // May throw std::bad_alloc, which the deserializer turns into RMW_RET_BAD_ALLOC.
  static rmw_ret_t resize(const Op & op, void * field, size_t n, void ** data)
  {
    auto member = static_cast<const Member *>(op.member);
    member->resize_function(field, n);
    *data = n != 0 ? member->get_function(field, 0) : nullptr;
    return RMW_RET_OK;
  }
  static const char * string(const void * field, size_t * n)
  {
    auto s = static_cast<const String *>(field);
    *n = s->size();
    return s->data();
  }
  static bool assign(void * field, const char * value, size_t n)
  {
    static_cast<String *>(field)->assign(value, n);
    return true;
  }
  static const uint16_t * wstring(const void * field, size_t * n)
  {
    auto s = static_cast<const WString *>(field);
    *n = s->size();
    return reinterpret_cast<const uint16_t *>(s->data());
  }
  static uint16_t * wresize(void * field, size_t n)
  {
    auto s = static_cast<WString *>(field);
    s->resize(n);
    return reinterpret_cast<uint16_t *>(&(*s)[0]);
  }
  // A C++ bool sequence is a std::vector<bool> (a BoundedVector<bool> wraps one): the generated
  // introspection casts it so too, and has no get functions for its packed bits.
  static const std::vector<bool> & bools(const void * field)
  {
    return *static_cast<const std::vector<bool> *>(field);
  }
  static std::vector<bool> & bools(void * field)
  {
    return *static_cast<std::vector<bool> *>(field);
  }
  // Sets a sequence of one-byte elements (int8, uint8, char, octet) to the n bytes at `src`
  // (rmw_hdds::assign_bytes: no zero fill before the copy). The generated introspection casts
  // every sequence to std::vector<T> (a BoundedVector is one underneath), as
  // rmw_fastrtps_dynamic_cpp's type support does; T is int8_t for int8, unsigned char otherwise.
  static void assign_bytes(const Op & op, void * field, const uint8_t * src, size_t n)
  {
    if (static_cast<const Member *>(op.member)->type_id_ ==
      rosidl_typesupport_introspection_cpp::ROS_TYPE_INT8)
    {
      rmw_hdds::assign_bytes(*static_cast<std::vector<int8_t> *>(field), src, n);
    } else {
      rmw_hdds::assign_bytes(*static_cast<std::vector<unsigned char> *>(field), src, n);
    }
  }
};

inline size_t align_up(size_t pos, size_t align)
{
  return (pos + align - 1) & ~(align - 1);
}

// True when the run can be copied as one block with the stream at `pos` (already aligned).
inline bool run_is_fast(const Run & run, size_t pos)
{
  return ((run.fast_mask >> ((pos - run.offset) & 7u)) & 1u) != 0;
}
}  // namespace cdr
}  // namespace rmw_hdds

#endif  // RMW_HDDS__DETAIL__CDR_ACCESS_HPP_
