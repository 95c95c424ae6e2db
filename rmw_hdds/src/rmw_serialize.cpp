// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// Serialization outside any publisher: rmw_serialize, rmw_deserialize and
// rmw_get_serialized_message_size. The bytes are exactly what a publisher sends (see
// detail/type_support.hpp): CDR, the encapsulation header included, as rmw_cyclonedds_cpp writes.

#include "detail/type_support.hpp"
#include "rmw/error_handling.h"
#include "rmw/rmw.h"
#include "rmw/serialized_message.h"

extern "C" {

rmw_ret_t
rmw_serialize(
  const void * ros_message,
  const rosidl_message_type_support_t * type_support,
  rmw_serialized_message_t * serialized_message)
{
  RMW_CHECK_ARGUMENT_FOR_NULL(ros_message, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(type_support, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(serialized_message, RMW_RET_INVALID_ARGUMENT);
  rmw_hdds::MessageTypeSupport ts;
  rmw_ret_t ret = rmw_hdds::MessageTypeSupport::resolve(type_support, &ts);
  if (ret != RMW_RET_OK) {
    return ret;
  }
  // Grows the buffer (with its own allocator) only when it is too small.
  return ts.serialize(ros_message, serialized_message);
}

rmw_ret_t
rmw_deserialize(
  const rmw_serialized_message_t * serialized_message,
  const rosidl_message_type_support_t * type_support,
  void * ros_message)
{
  RMW_CHECK_ARGUMENT_FOR_NULL(serialized_message, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(type_support, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(ros_message, RMW_RET_INVALID_ARGUMENT);
  if (serialized_message->buffer == nullptr && serialized_message->buffer_length != 0) {
    RMW_SET_ERROR_MSG("serialized message has a length but no buffer");
    return RMW_RET_INVALID_ARGUMENT;
  }
  rmw_hdds::MessageTypeSupport ts;
  rmw_ret_t ret = rmw_hdds::MessageTypeSupport::resolve(type_support, &ts);
  if (ret != RMW_RET_OK) {
    return ret;
  }
  return ts.deserialize(
    serialized_message->buffer, serialized_message->buffer_length, ros_message);
}

// rmw_cyclonedds_cpp and rmw_fastrtps_cpp (Humble) return RMW_RET_UNSUPPORTED here. rmw_hdds
// answers what the type alone determines: the largest serialized size of a message of this type
// (header included), which is exact and finite when every string and sequence in it is bounded.
// For a type with an unbounded field it returns RMW_RET_UNSUPPORTED: `message_bounds` was meant to
// supply artificial bounds, but no rosidl generator produces bounds in Humble, so non-null bounds
// are refused the same way rather than ignored.
rmw_ret_t
rmw_get_serialized_message_size(
  const rosidl_message_type_support_t * type_support,
  const rosidl_runtime_c__Sequence__bound * message_bounds,
  size_t * size)
{
  RMW_CHECK_ARGUMENT_FOR_NULL(type_support, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(size, RMW_RET_INVALID_ARGUMENT);
  if (message_bounds != nullptr) {
    RMW_SET_ERROR_MSG(
      "rmw_hdds: message bounds are not supported (Humble's rosidl generates none); "
      "pass NULL to get the largest size of a bounded type");
    return RMW_RET_UNSUPPORTED;
  }
  rmw_hdds::MessageTypeSupport ts;
  rmw_ret_t ret = rmw_hdds::MessageTypeSupport::resolve(type_support, &ts);
  if (ret != RMW_RET_OK) {
    return ret;
  }
  return ts.max_serialized_size(size);
}

}  // extern "C"
