// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// The RMW layer's type support: any ROS message to and from XCDR1, byte for byte as
// rmw_cyclonedds_cpp (Humble) writes it, through rosidl introspection (C or C++).
//
// Publishers, subscriptions, services and clients resolve their type support handle once, at
// creation, and keep the MessageTypeSupport (a pointer-sized value): serializing then costs no
// lookup, no lock and, into a buffer that is already large enough, no allocation.
#ifndef RMW_HDDS__DETAIL__TYPE_SUPPORT_HPP_
#define RMW_HDDS__DETAIL__TYPE_SUPPORT_HPP_

#include <cstddef>
#include <cstdint>

#include "rcutils/types/uint8_array.h"
#include "rmw/ret_types.h"
#include "rosidl_runtime_c/message_type_support_struct.h"
#include "rosidl_runtime_c/service_type_support_struct.h"

namespace rmw_hdds
{
namespace cdr
{
struct Plan;
}

// The 4-byte encapsulation header in front of every payload: CDR (XCDR1) in this host's byte
// order, 00 01 00 00 on little-endian hosts; options 0.
constexpr size_t kEncapsulationSize = 4;

class MessageTypeSupport
{
public:
  MessageTypeSupport() = default;

  // Resolves a rosidl_typesupport_c or rosidl_typesupport_cpp dispatcher handle, or an
  // introspection C / C++ handle, to the type's compiled plan (compiled at the first use of the
  // type in the process, then cached). On failure sets the rmw error message, returns
  // RMW_RET_ERROR (or RMW_RET_INVALID_ARGUMENT for a null handle) and leaves `out` unchanged.
  static rmw_ret_t resolve(
    const rosidl_message_type_support_t * type_support, MessageTypeSupport * out);

  bool valid() const {return plan_ != nullptr;}
  // The type's rosidl introspection MessageMembers (C or C++, as is_cpp() says), for code that
  // walks fields by name (content filters).
  const void * introspection() const;
  // "pkg/msg/Name" (services: "pkg/srv/Name_Request"), for messages and logs.
  const char * type_name() const;
  // True if the type support is rosidl_typesupport_introspection_cpp (the message is a C++
  // object), false for the C introspection (a C struct).
  bool is_cpp() const;
  // sizeof the message struct or class.
  size_t message_size() const;
  // The same compiled type: e.g. the C dispatcher and the C introspection handle of one message
  // (the C and C++ type supports of a message are two types: their memory layouts differ).
  bool same_type(const MessageTypeSupport & other) const {return plan_ == other.plan_;}
  // No string, wstring or sequence anywhere in the type: an instance owns no memory beyond its
  // struct (the types rmw_hdds loans, see detail/loans.hpp).
  bool is_fixed_size() const;
  // The message inside the serialized sample [data, data + size), usable in place (rmw_hdds's
  // zero-copy rmw_take_loaned_message), or nullptr when it has to be deserialized. In place only
  // when the type's memory layout is its CDR layout (one memcpy-able run covering the whole
  // struct, see cdr::Plan::uniform), the sample is CDR in this host's byte order and at least the
  // struct's size, its body (after the encapsulation header) is aligned for the struct
  // (cdr::Plan::align), and every bool is 0 or 1.
  const void * in_place(const uint8_t * data, size_t size) const;
  // The bytes of a serialized sample whose message lies in it as in memory (the encapsulation
  // header and sizeof the message), or 0 when the type's memory layout is not its CDR layout.
  size_t in_place_size() const;
  // A new message placed in the serialized sample buffer [data, data + size) for the caller to
  // fill in place (rmw_hdds's zero-copy rmw_borrow_loaned_message): the encapsulation header is
  // written and the body initialized as new_message does; the buffer then holds the serialized
  // message as it is filled. nullptr (nothing written, no message set) when in_place_size() is 0
  // or more than `size`, or the body would not be aligned for the struct. RMW_RET_BAD_ALLOC is not
  // possible: the types placed own no memory.
  void * place_in(uint8_t * data, size_t size) const;

  // A new message of this type on the heap, initialized as the generated code does (C: the init
  // function, C++: the constructor), to be given to delete_message. RMW_RET_BAD_ALLOC (message
  // set) when memory runs out.
  rmw_ret_t new_message(void ** out) const;
  // Finalizes (C: fini function, C++: destructor) and frees a message from new_message.
  void delete_message(void * msg) const;

  // Bytes `msg` serializes to, the encapsulation header included. RMW_RET_ERROR (message set)
  // if a string or sequence exceeds its bound: such a message is never sent.
  rmw_ret_t serialized_size(const void * msg, size_t * size) const;

  // Writes header + body into [dst, dst + capacity) and the count into `written`.
  // RMW_RET_ERROR if `capacity` is too small (see serialized_size) or a bound is exceeded.
  rmw_ret_t serialize(const void * msg, uint8_t * dst, size_t capacity, size_t * written) const;

  // Serializes into `buffer` (an initialized rcutils_uint8_array_t / rmw_serialized_message_t),
  // growing it with its own allocator only when its capacity is too small; sets buffer_length.
  // RMW_RET_BAD_ALLOC if growing fails.
  rmw_ret_t serialize(const void * msg, rcutils_uint8_array_t * buffer) const;

  // Reads header + body from [data, data + size) into `msg`, an initialized message of this
  // type. Accepts little- and big-endian CDR (encapsulation 00 01 and 00 00); never reads outside
  // the buffer. RMW_RET_ERROR (message set) on malformed data, RMW_RET_BAD_ALLOC when memory runs
  // out; `msg` then stays valid but partly overwritten.
  rmw_ret_t deserialize(const uint8_t * data, size_t size, void * msg) const;

  // The largest serialized size (header included) of any message of this type.
  // RMW_RET_UNSUPPORTED (message set) if the type has an unbounded string or sequence.
  rmw_ret_t max_serialized_size(size_t * size) const;

private:
  // Zeroes [msg, msg + sizeof) and initializes a message there as the generated code does.
  // RMW_RET_BAD_ALLOC (message set) if a constructor runs out of memory.
  rmw_ret_t init_message(void * msg) const;
  friend struct ServiceTypeSupport;
  explicit MessageTypeSupport(const cdr::Plan * plan)
  : plan_(plan) {}

  const cdr::Plan * plan_ = nullptr;
};

// A service's request and response types. (The request header that each vendor puts in front of
// the request, Cyclone's 16 bytes or Fast DDS's inline sample identity, is the service layer's.)
struct ServiceTypeSupport
{
  MessageTypeSupport request;
  MessageTypeSupport response;

  // As MessageTypeSupport::resolve, for a rosidl_service_type_support_t.
  static rmw_ret_t resolve(
    const rosidl_service_type_support_t * type_support, ServiceTypeSupport * out);
};
}  // namespace rmw_hdds

#endif  // RMW_HDDS__DETAIL__TYPE_SUPPORT_HPP_
