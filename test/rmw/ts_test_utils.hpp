// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// Helpers for the type support tests: rmw_cyclonedds_cpp's serializer loaded at run time (the
// reference), C messages built from C++ ones through the two introspections (so the test_msgs
// C++ fixtures also drive the C type support), and byte comparisons that say where they differ.
#ifndef TS_TEST_UTILS_HPP_
#define TS_TEST_UTILS_HPP_

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "rcutils/allocator.h"
#include "rmw/error_handling.h"
#include "rmw/rmw.h"
#include "rmw/serialized_message.h"
#include "rosidl_runtime_c/string_functions.h"
#include "rosidl_runtime_c/u16string_functions.h"
#include "rosidl_typesupport_introspection_c/field_types.h"
#include "rosidl_typesupport_introspection_c/identifier.h"
#include "rosidl_typesupport_introspection_c/message_introspection.h"
#include "rosidl_typesupport_introspection_cpp/field_types.hpp"
#include "rosidl_typesupport_introspection_cpp/identifier.hpp"
#include "rosidl_typesupport_introspection_cpp/message_introspection.hpp"

namespace ts_test
{
using Bytes = std::vector<uint8_t>;
using CMembers = rosidl_typesupport_introspection_c__MessageMembers;
using CMember = rosidl_typesupport_introspection_c__MessageMember;
using CppMembers = rosidl_typesupport_introspection_cpp::MessageMembers;
using CppMember = rosidl_typesupport_introspection_cpp::MessageMember;
using SerializeFn = rmw_ret_t (*)(
  const void *, const rosidl_message_type_support_t *, rmw_serialized_message_t *);
using DeserializeFn = rmw_ret_t (*)(
  const rmw_serialized_message_t *, const rosidl_message_type_support_t *, void *);

inline std::string take_error()
{
  std::string msg = rmw_error_is_set() ? rmw_get_error_string().str : "";
  rmw_reset_error();
  return msg;
}

// rmw_cyclonedds_cpp's rmw_serialize / rmw_deserialize. Loaded with RTLD_LOCAL and looked up by
// handle: it exports the same rmw_* names as rmw_hdds, so it must never be linked.
class Cyclone
{
public:
  static Cyclone & get()
  {
    static Cyclone cyclone;
    return cyclone;
  }
  bool loaded() const {return serialize != nullptr && deserialize != nullptr;}
  const std::string & why() const {return why_;}

  SerializeFn serialize = nullptr;
  DeserializeFn deserialize = nullptr;

private:
  Cyclone()
  {
    // Never closed: Cyclone DDS registers exit handlers.
    void * lib = dlopen(HDDS_CYCLONE_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      why_ = std::string("cannot load rmw_cyclonedds_cpp (") + HDDS_CYCLONE_LIBRARY + "): " +
        dlerror() + ". It is a test dependency of rmw_hdds (package.xml): install "
        "ros-humble-rmw-cyclonedds-cpp; the byte-identity tests cannot pass without it.";
      return;
    }
    serialize = reinterpret_cast<SerializeFn>(dlsym(lib, "rmw_serialize"));
    deserialize = reinterpret_cast<DeserializeFn>(dlsym(lib, "rmw_deserialize"));
    if (!loaded()) {
      why_ = "rmw_cyclonedds_cpp has no rmw_serialize / rmw_deserialize";
    }
  }
  std::string why_;
};

inline Bytes serialize_with(
  SerializeFn fn, const void * msg, const rosidl_message_type_support_t * ts, rmw_ret_t * ret)
{
  rcutils_allocator_t allocator = rcutils_get_default_allocator();
  rmw_serialized_message_t sm = rmw_get_zero_initialized_serialized_message();
  Bytes out;
  if (rmw_serialized_message_init(&sm, 0, &allocator) != RMW_RET_OK) {
    *ret = RMW_RET_BAD_ALLOC;
    return out;
  }
  *ret = fn(msg, ts, &sm);
  if (*ret == RMW_RET_OK) {
    out.assign(sm.buffer, sm.buffer + sm.buffer_length);
  }
  (void)rmw_serialized_message_fini(&sm);
  return out;
}

inline rmw_ret_t deserialize_with(
  DeserializeFn fn, const Bytes & bytes, const rosidl_message_type_support_t * ts, void * msg)
{
  rmw_serialized_message_t sm = rmw_get_zero_initialized_serialized_message();
  sm.buffer = const_cast<uint8_t *>(bytes.data());
  sm.buffer_length = bytes.size();
  sm.buffer_capacity = bytes.size();
  sm.allocator = rcutils_get_default_allocator();
  return fn(&sm, ts, msg);
}

inline std::string hex(const Bytes & b, size_t from, size_t to)
{
  std::string out;
  char buf[4];
  for (size_t i = from; i < to && i < b.size(); ++i) {
    std::snprintf(buf, sizeof(buf), "%02x ", b[i]);
    out += buf;
  }
  return out;
}

inline ::testing::AssertionResult same_bytes(const Bytes & ours, const Bytes & theirs)
{
  if (ours == theirs) {
    return ::testing::AssertionSuccess();
  }
  size_t at = 0;
  while (at < ours.size() && at < theirs.size() && ours[at] == theirs[at]) {
    ++at;
  }
  const size_t from = at > 16 ? at - 16 : 0;
  return ::testing::AssertionFailure() << "rmw_hdds wrote " << ours.size() <<
         " bytes, rmw_cyclonedds_cpp " << theirs.size() << "; first difference at byte " << at <<
         "\n  rmw_hdds:           ..." << hex(ours, from, at + 16) <<
         "\n  rmw_cyclonedds_cpp: ..." << hex(theirs, from, at + 16);
}

inline const rosidl_message_type_support_t * introspection(
  const rosidl_message_type_support_t * ts, const char * identifier)
{
  const rosidl_message_type_support_t * h = get_message_typesupport_handle(ts, identifier);
  EXPECT_NE(nullptr, h) << "no " << identifier;
  return h;
}

// A C message allocated and initialized through its introspection; finalized when destroyed.
class CMessage
{
public:
  explicit CMessage(const CMembers * members)
  : members_(members), mem_(std::calloc(1, members->size_of_))
  {
    members_->init_function(mem_, ROSIDL_RUNTIME_C_MSG_INIT_ALL);
  }
  ~CMessage()
  {
    members_->fini_function(mem_);
    std::free(mem_);
  }
  CMessage(const CMessage &) = delete;
  CMessage & operator=(const CMessage &) = delete;
  void * get() {return mem_;}

private:
  const CMembers * members_;
  void * mem_;
};

inline const CMembers * c_members_of(const CMember & m)
{
  return static_cast<const CMembers *>(
    introspection(m.members_, rosidl_typesupport_introspection_c__identifier)->data);
}

inline const CppMembers * cpp_members_of(const CppMember & m)
{
  return static_cast<const CppMembers *>(m.members_->data);
}

inline size_t primitive_size(uint8_t type_id)
{
  namespace tsi = rosidl_typesupport_introspection_cpp;
  switch (type_id) {
    case tsi::ROS_TYPE_LONG_DOUBLE: return 16;
    case tsi::ROS_TYPE_DOUBLE: case tsi::ROS_TYPE_INT64: case tsi::ROS_TYPE_UINT64: return 8;
    case tsi::ROS_TYPE_FLOAT: case tsi::ROS_TYPE_INT32: case tsi::ROS_TYPE_UINT32: return 4;
    case tsi::ROS_TYPE_INT16: case tsi::ROS_TYPE_UINT16: case tsi::ROS_TYPE_WCHAR: return 2;
    default: return 1;
  }
}

// One primitive field, or element k of an array or sequence, through fetch/assign.
template<class From, class To>
void copy_primitive(const From & mf, const void * f, const To & mt, void * t, size_t k)
{
  if (mf.is_array_) {
    alignas(16) uint8_t value[16] = {};
    mf.fetch_function(f, k, value);
    mt.assign_function(t, k, value);
  } else {
    std::memcpy(t, f, primitive_size(mf.type_id_));
  }
}

// Copies a C++ message into an initialized C message of the same type, field by field, with the
// introspections' own accessors (independent of the code under test).
inline void cpp_to_c(const CppMembers * cpp, const void * from, const CMembers * c, void * to)
{
  namespace tsi = rosidl_typesupport_introspection_cpp;
  ASSERT_EQ(cpp->member_count_, c->member_count_);
  for (uint32_t i = 0; i < cpp->member_count_; ++i) {
    const CppMember & mf = cpp->members_[i];
    const CMember & mt = c->members_[i];
    const void * f = static_cast<const uint8_t *>(from) + mf.offset_;
    void * t = static_cast<uint8_t *>(to) + mt.offset_;
    const bool sequence = mf.is_array_ && (mf.array_size_ == 0 || mf.is_upper_bound_);
    const size_t n = mf.is_array_ ? mf.size_function(f) : 1;
    if (sequence) {
      ASSERT_TRUE(mt.resize_function(t, n));
    }
    for (size_t k = 0; k < n; ++k) {
      const void * fe = mf.is_array_ && mf.type_id_ != tsi::ROS_TYPE_BOOLEAN ?
        mf.get_const_function(f, k) : f;
      void * te = mt.is_array_ ? mt.get_function(t, k) : t;
      switch (mf.type_id_) {
        case tsi::ROS_TYPE_MESSAGE:
          cpp_to_c(cpp_members_of(mf), fe, c_members_of(mt), te);
          break;
        case tsi::ROS_TYPE_STRING: {
            auto s = static_cast<const std::string *>(fe);
            ASSERT_TRUE(rosidl_runtime_c__String__assignn(
                static_cast<rosidl_runtime_c__String *>(te), s->data(), s->size()));
            break;
          }
        case tsi::ROS_TYPE_WSTRING: {
            auto s = static_cast<const std::u16string *>(fe);
            ASSERT_TRUE(rosidl_runtime_c__U16String__assignn(
                static_cast<rosidl_runtime_c__U16String *>(te),
                reinterpret_cast<const uint16_t *>(s->data()), s->size()));
            break;
          }
        default:
          copy_primitive(mf, f, mt, t, k);
          break;
      }
    }
  }
}

// The reverse: a C message into a C++ message of the same type.
inline void c_to_cpp(const CMembers * c, const void * from, const CppMembers * cpp, void * to)
{
  namespace tsi = rosidl_typesupport_introspection_cpp;
  ASSERT_EQ(cpp->member_count_, c->member_count_);
  for (uint32_t i = 0; i < c->member_count_; ++i) {
    const CMember & mf = c->members_[i];
    const CppMember & mt = cpp->members_[i];
    const void * f = static_cast<const uint8_t *>(from) + mf.offset_;
    void * t = static_cast<uint8_t *>(to) + mt.offset_;
    const bool sequence = mf.is_array_ && (mf.array_size_ == 0 || mf.is_upper_bound_);
    const size_t n = mf.is_array_ ? mf.size_function(f) : 1;
    if (sequence) {
      mt.resize_function(t, n);
    }
    for (size_t k = 0; k < n; ++k) {
      const void * fe = mf.is_array_ ? mf.get_const_function(f, k) : f;
      void * te = mt.is_array_ && mt.type_id_ != tsi::ROS_TYPE_BOOLEAN ?
        mt.get_function(t, k) : t;
      switch (mf.type_id_) {
        case tsi::ROS_TYPE_MESSAGE:
          c_to_cpp(c_members_of(mf), fe, cpp_members_of(mt), te);
          break;
        case tsi::ROS_TYPE_STRING: {
            auto s = static_cast<const rosidl_runtime_c__String *>(fe);
            static_cast<std::string *>(te)->assign(s->data, s->size);
            break;
          }
        case tsi::ROS_TYPE_WSTRING: {
            auto s = static_cast<const rosidl_runtime_c__U16String *>(fe);
            static_cast<std::u16string *>(te)->assign(
              reinterpret_cast<const char16_t *>(s->data), s->size);
            break;
          }
        default:
          copy_primitive(mf, f, mt, t, k);
          break;
      }
    }
  }
}
}  // namespace ts_test

#endif  // TS_TEST_UTILS_HPP_
