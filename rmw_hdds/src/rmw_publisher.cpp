// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// Publishers. Messages are loaned for fixed-size types only (can_loan_messages, detail/loans.hpp);
// publisher allocations are not offered. What is not offered says so with RMW_RET_UNSUPPORTED, as
// rmw documents for that case.

#include <cstring>

#include "detail/hot.hpp"
#include "detail/identifier.hpp"
#include "detail/network_flow.hpp"
#include "detail/node.hpp"
#include "detail/publisher.hpp"
#include "rmw/allocators.h"
#include "rmw/error_handling.h"
#include "rmw/get_network_flow_endpoints.h"
#include "rmw/impl/cpp/macros.hpp"
#include "rmw/rmw.h"

namespace
{
#define HDDS_CHECK_PUBLISHER(pub, fail) \
  RMW_CHECK_ARGUMENT_FOR_NULL(pub, fail); \
  RMW_CHECK_TYPE_IDENTIFIERS_MATCH( \
    pub, (pub)->implementation_identifier, rmw_hdds::kIdentifier, \
    return RMW_RET_INCORRECT_RMW_IMPLEMENTATION)

rmw_hdds::Publisher * impl_of(const rmw_publisher_t * pub)
{
  return static_cast<rmw_hdds::Publisher *>(pub->data);
}

void free_rmw_publisher(rmw_publisher_t * pub)
{
  rmw_free(const_cast<char *>(pub->topic_name));
  rmw_publisher_free(pub);
}

rmw_ret_t loans_unsupported()
{
  RMW_SET_ERROR_MSG(
    "rmw_hdds loans only messages without strings or sequences, and this publisher's type has "
    "some (can_loan_messages is false): publish with rmw_publish");
  return RMW_RET_UNSUPPORTED;
}
}  // namespace

extern "C" {

rmw_publisher_t *
rmw_create_publisher(
  const rmw_node_t * node, const rosidl_message_type_support_t * type_support,
  const char * topic_name, const rmw_qos_profile_t * qos_profile,
  const rmw_publisher_options_t * publisher_options)
{
  rmw_ret_t ret = RMW_RET_OK;
  rmw_hdds::Node * node_impl = rmw_hdds::node_from(node, &ret);
  if (node_impl == nullptr) {
    return nullptr;
  }
  RMW_CHECK_ARGUMENT_FOR_NULL(type_support, nullptr);
  RMW_CHECK_ARGUMENT_FOR_NULL(topic_name, nullptr);
  RMW_CHECK_ARGUMENT_FOR_NULL(qos_profile, nullptr);
  RMW_CHECK_ARGUMENT_FOR_NULL(publisher_options, nullptr);
  if (publisher_options->require_unique_network_flow_endpoints ==
    RMW_UNIQUE_NETWORK_FLOW_ENDPOINTS_STRICTLY_REQUIRED)
  {
    RMW_SET_ERROR_MSG(
      "rmw_hdds does not support unique network flow endpoints (every endpoint of a context "
      "shares its participant's ports): create the publisher with "
      "require_unique_network_flow_endpoints NOT_REQUIRED or OPTIONALLY_REQUIRED");
    return nullptr;
  }

  rmw_publisher_t * pub = rmw_publisher_allocate();
  if (pub == nullptr) {
    RMW_SET_ERROR_MSG("out of memory creating the publisher");
    return nullptr;
  }
  *pub = rmw_publisher_t{};
  const size_t len = std::strlen(topic_name) + 1;
  auto * name = static_cast<char *>(rmw_allocate(len));
  if (name == nullptr) {
    rmw_publisher_free(pub);
    RMW_SET_ERROR_MSG("out of memory creating the publisher");
    return nullptr;
  }
  std::memcpy(name, topic_name, len);
  pub->topic_name = name;

  rmw_hdds::Publisher * impl =
    rmw_hdds::Publisher::create(*node_impl, type_support, topic_name, *qos_profile);
  if (impl == nullptr) {
    free_rmw_publisher(pub);
    return nullptr;  // create set the message
  }
  pub->implementation_identifier = rmw_hdds::kIdentifier;
  pub->data = impl;
  pub->options = *publisher_options;
  pub->can_loan_messages = impl->can_loan();
  return pub;
}

rmw_ret_t
rmw_destroy_publisher(rmw_node_t * node, rmw_publisher_t * publisher)
{
  rmw_ret_t ret = RMW_RET_OK;
  if (rmw_hdds::node_from(node, &ret) == nullptr) {
    return ret;
  }
  HDDS_CHECK_PUBLISHER(publisher, RMW_RET_INVALID_ARGUMENT);
  delete impl_of(publisher);
  free_rmw_publisher(publisher);
  return RMW_RET_OK;
}

RMW_HDDS_HOT rmw_ret_t
rmw_publish(
  const rmw_publisher_t * publisher, const void * ros_message,
  rmw_publisher_allocation_t * allocation)
{
  (void)allocation;  // none is ever handed out (rmw_init_publisher_allocation is unsupported)
  HDDS_CHECK_PUBLISHER(publisher, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(ros_message, RMW_RET_INVALID_ARGUMENT);
  return impl_of(publisher)->publish(ros_message);
}

rmw_ret_t
rmw_publish_serialized_message(
  const rmw_publisher_t * publisher, const rmw_serialized_message_t * serialized_message,
  rmw_publisher_allocation_t * allocation)
{
  (void)allocation;
  HDDS_CHECK_PUBLISHER(publisher, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(serialized_message, RMW_RET_INVALID_ARGUMENT);
  return impl_of(publisher)->publish_serialized(*serialized_message);
}

rmw_ret_t
rmw_publisher_count_matched_subscriptions(
  const rmw_publisher_t * publisher, size_t * subscription_count)
{
  HDDS_CHECK_PUBLISHER(publisher, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(subscription_count, RMW_RET_INVALID_ARGUMENT);
  return impl_of(publisher)->matched_count(subscription_count);
}

rmw_ret_t
rmw_publisher_get_actual_qos(const rmw_publisher_t * publisher, rmw_qos_profile_t * qos)
{
  HDDS_CHECK_PUBLISHER(publisher, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(qos, RMW_RET_INVALID_ARGUMENT);
  *qos = impl_of(publisher)->actual_qos();
  return RMW_RET_OK;
}

rmw_ret_t
rmw_publisher_assert_liveliness(const rmw_publisher_t * publisher)
{
  HDDS_CHECK_PUBLISHER(publisher, RMW_RET_INVALID_ARGUMENT);
  return impl_of(publisher)->assert_liveliness();
}

rmw_ret_t
rmw_publisher_wait_for_all_acked(const rmw_publisher_t * publisher, rmw_time_t wait_timeout)
{
  HDDS_CHECK_PUBLISHER(publisher, RMW_RET_INVALID_ARGUMENT);
  return impl_of(publisher)->wait_for_all_acked(wait_timeout);
}

rmw_ret_t
rmw_get_gid_for_publisher(const rmw_publisher_t * publisher, rmw_gid_t * gid)
{
  HDDS_CHECK_PUBLISHER(publisher, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(gid, RMW_RET_INVALID_ARGUMENT);
  *gid = impl_of(publisher)->gid();
  return RMW_RET_OK;
}

rmw_ret_t
rmw_init_publisher_allocation(
  const rosidl_message_type_support_t * type_support,
  const rosidl_runtime_c__Sequence__bound * message_bounds,
  rmw_publisher_allocation_t * allocation)
{
  (void)type_support;
  (void)message_bounds;
  (void)allocation;
  RMW_SET_ERROR_MSG(
    "rmw_hdds does not use publisher allocations: publish with a null allocation");
  return RMW_RET_UNSUPPORTED;
}

rmw_ret_t
rmw_fini_publisher_allocation(rmw_publisher_allocation_t * allocation)
{
  (void)allocation;
  RMW_SET_ERROR_MSG(
    "rmw_hdds does not use publisher allocations: publish with a null allocation");
  return RMW_RET_UNSUPPORTED;
}

// The loan entry points ask the publisher itself, not the handle's can_loan_messages field, which
// the caller can write.
rmw_ret_t
rmw_borrow_loaned_message(
  const rmw_publisher_t * publisher, const rosidl_message_type_support_t * type_support,
  void ** ros_message)
{
  HDDS_CHECK_PUBLISHER(publisher, RMW_RET_INVALID_ARGUMENT);
  if (!impl_of(publisher)->can_loan()) {
    return loans_unsupported();
  }
  RMW_CHECK_ARGUMENT_FOR_NULL(type_support, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(ros_message, RMW_RET_INVALID_ARGUMENT);
  if (*ros_message != nullptr) {
    RMW_SET_ERROR_MSG(
      "*ros_message is not NULL: it would be overwritten (and leak); pass a pointer set to NULL");
    return RMW_RET_INVALID_ARGUMENT;
  }
  return impl_of(publisher)->borrow(type_support, ros_message);
}

rmw_ret_t
rmw_return_loaned_message_from_publisher(const rmw_publisher_t * publisher, void * loaned_message)
{
  HDDS_CHECK_PUBLISHER(publisher, RMW_RET_INVALID_ARGUMENT);
  if (!impl_of(publisher)->can_loan()) {
    return loans_unsupported();
  }
  RMW_CHECK_ARGUMENT_FOR_NULL(loaned_message, RMW_RET_INVALID_ARGUMENT);
  return impl_of(publisher)->return_loan(loaned_message);
}

rmw_ret_t
rmw_publish_loaned_message(
  const rmw_publisher_t * publisher, void * ros_message, rmw_publisher_allocation_t * allocation)
{
  (void)allocation;  // none is ever handed out (rmw_init_publisher_allocation is unsupported)
  HDDS_CHECK_PUBLISHER(publisher, RMW_RET_INVALID_ARGUMENT);
  if (!impl_of(publisher)->can_loan()) {
    return loans_unsupported();
  }
  RMW_CHECK_ARGUMENT_FOR_NULL(ros_message, RMW_RET_INVALID_ARGUMENT);
  return impl_of(publisher)->publish_loaned(ros_message);
}

rmw_ret_t
rmw_publisher_get_network_flow_endpoints(
  const rmw_publisher_t * publisher, rcutils_allocator_t * allocator,
  rmw_network_flow_endpoint_array_t * network_flow_endpoint_array)
{
  HDDS_CHECK_PUBLISHER(publisher, RMW_RET_INVALID_ARGUMENT);
  return rmw_hdds::writer_network_flow_endpoints(
    impl_of(publisher)->writer(), allocator, network_flow_endpoint_array);
}

}  // extern "C"
