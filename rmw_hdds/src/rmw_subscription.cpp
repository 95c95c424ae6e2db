// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// Subscriptions. Messages are loaned for fixed-size types only (can_loan_messages,
// detail/loans.hpp); content filters are DDS-SQL expressions evaluated as samples arrive
// (detail/content_filter.hpp; is_cft_enabled while one is set); subscription allocations are not
// offered. What is not offered says so with RMW_RET_UNSUPPORTED, as rmw documents for that case.

#include <cstring>

#include "detail/hot.hpp"
#include "detail/identifier.hpp"
#include "detail/network_flow.hpp"
#include "detail/node.hpp"
#include "detail/subscription.hpp"
#include "rmw/allocators.h"
#include "rmw/error_handling.h"
#include "rmw/get_network_flow_endpoints.h"
#include "rmw/impl/cpp/macros.hpp"
#include "rmw/rmw.h"

namespace
{
#define HDDS_CHECK_SUBSCRIPTION(sub, fail) \
  RMW_CHECK_ARGUMENT_FOR_NULL(sub, fail); \
  RMW_CHECK_TYPE_IDENTIFIERS_MATCH( \
    sub, (sub)->implementation_identifier, rmw_hdds::kIdentifier, \
    return RMW_RET_INCORRECT_RMW_IMPLEMENTATION)

rmw_hdds::Subscription * impl_of(const rmw_subscription_t * sub)
{
  return static_cast<rmw_hdds::Subscription *>(sub->data);
}

void free_rmw_subscription(rmw_subscription_t * sub)
{
  rmw_free(const_cast<char *>(sub->topic_name));
  rmw_subscription_free(sub);
}

rmw_ret_t loans_unsupported()
{
  RMW_SET_ERROR_MSG(
    "rmw_hdds loans only messages without strings or sequences, and this subscription's type "
    "has some (can_loan_messages is false): take with rmw_take");
  return RMW_RET_UNSUPPORTED;
}

rmw_ret_t loan_not_null()
{
  RMW_SET_ERROR_MSG(
    "*loaned_message is not NULL: it would be overwritten (and leak); pass a pointer set to NULL");
  return RMW_RET_INVALID_ARGUMENT;
}
}  // namespace

extern "C" {

rmw_subscription_t *
rmw_create_subscription(
  const rmw_node_t * node, const rosidl_message_type_support_t * type_support,
  const char * topic_name, const rmw_qos_profile_t * qos_policies,
  const rmw_subscription_options_t * subscription_options)
{
  rmw_ret_t ret = RMW_RET_OK;
  rmw_hdds::Node * node_impl = rmw_hdds::node_from(node, &ret);
  if (node_impl == nullptr) {
    return nullptr;
  }
  RMW_CHECK_ARGUMENT_FOR_NULL(type_support, nullptr);
  RMW_CHECK_ARGUMENT_FOR_NULL(topic_name, nullptr);
  RMW_CHECK_ARGUMENT_FOR_NULL(qos_policies, nullptr);
  RMW_CHECK_ARGUMENT_FOR_NULL(subscription_options, nullptr);

  rmw_subscription_t * sub = rmw_subscription_allocate();
  if (sub == nullptr) {
    RMW_SET_ERROR_MSG("out of memory creating the subscription");
    return nullptr;
  }
  *sub = rmw_subscription_t{};
  const size_t len = std::strlen(topic_name) + 1;
  auto * name = static_cast<char *>(rmw_allocate(len));
  if (name == nullptr) {
    rmw_subscription_free(sub);
    RMW_SET_ERROR_MSG("out of memory creating the subscription");
    return nullptr;
  }
  std::memcpy(name, topic_name, len);
  sub->topic_name = name;

  rmw_hdds::Subscription * impl = rmw_hdds::Subscription::create(
    *node_impl, type_support, topic_name, *qos_policies, *subscription_options);
  if (impl == nullptr) {
    free_rmw_subscription(sub);
    return nullptr;  // create set the message
  }
  sub->implementation_identifier = rmw_hdds::kIdentifier;
  sub->data = impl;
  sub->options = *subscription_options;
  // The filter given here lives in the Subscription (rmw_subscription_get_content_filter); the
  // caller's options are not kept.
  sub->options.content_filter_options = nullptr;
  sub->can_loan_messages = impl->can_loan();
  sub->is_cft_enabled = impl->has_content_filter();
  return sub;
}

rmw_ret_t
rmw_destroy_subscription(rmw_node_t * node, rmw_subscription_t * subscription)
{
  rmw_ret_t ret = RMW_RET_OK;
  if (rmw_hdds::node_from(node, &ret) == nullptr) {
    return ret;
  }
  HDDS_CHECK_SUBSCRIPTION(subscription, RMW_RET_INVALID_ARGUMENT);
  delete impl_of(subscription);
  free_rmw_subscription(subscription);
  return RMW_RET_OK;
}

rmw_ret_t
rmw_subscription_count_matched_publishers(
  const rmw_subscription_t * subscription, size_t * publisher_count)
{
  HDDS_CHECK_SUBSCRIPTION(subscription, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(publisher_count, RMW_RET_INVALID_ARGUMENT);
  return impl_of(subscription)->matched_count(publisher_count);
}

rmw_ret_t
rmw_subscription_get_actual_qos(const rmw_subscription_t * subscription, rmw_qos_profile_t * qos)
{
  HDDS_CHECK_SUBSCRIPTION(subscription, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(qos, RMW_RET_INVALID_ARGUMENT);
  *qos = impl_of(subscription)->actual_qos();
  return RMW_RET_OK;
}

RMW_HDDS_HOT rmw_ret_t
rmw_take(
  const rmw_subscription_t * subscription, void * ros_message, bool * taken,
  rmw_subscription_allocation_t * allocation)
{
  (void)allocation;  // none is ever handed out (rmw_init_subscription_allocation is unsupported)
  HDDS_CHECK_SUBSCRIPTION(subscription, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(ros_message, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(taken, RMW_RET_INVALID_ARGUMENT);
  return impl_of(subscription)->take(ros_message, nullptr, taken);
}

RMW_HDDS_HOT rmw_ret_t
rmw_take_with_info(
  const rmw_subscription_t * subscription, void * ros_message, bool * taken,
  rmw_message_info_t * message_info, rmw_subscription_allocation_t * allocation)
{
  (void)allocation;
  HDDS_CHECK_SUBSCRIPTION(subscription, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(ros_message, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(taken, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(message_info, RMW_RET_INVALID_ARGUMENT);
  return impl_of(subscription)->take(ros_message, message_info, taken);
}

rmw_ret_t
rmw_take_sequence(
  const rmw_subscription_t * subscription, size_t count, rmw_message_sequence_t * message_sequence,
  rmw_message_info_sequence_t * message_info_sequence, size_t * taken,
  rmw_subscription_allocation_t * allocation)
{
  (void)allocation;
  HDDS_CHECK_SUBSCRIPTION(subscription, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(message_sequence, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(message_info_sequence, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(taken, RMW_RET_INVALID_ARGUMENT);
  if (count == 0) {
    RMW_SET_ERROR_MSG("count is 0: ask for at least one message");
    return RMW_RET_INVALID_ARGUMENT;
  }
  if (count > message_sequence->capacity) {
    RMW_SET_ERROR_MSG("count exceeds the capacity of the message sequence");
    return RMW_RET_INVALID_ARGUMENT;
  }
  if (count > message_info_sequence->capacity) {
    RMW_SET_ERROR_MSG("count exceeds the capacity of the message info sequence");
    return RMW_RET_INVALID_ARGUMENT;
  }
  return impl_of(subscription)->take_sequence(
    count, message_sequence, message_info_sequence, taken);
}

rmw_ret_t
rmw_take_serialized_message(
  const rmw_subscription_t * subscription, rmw_serialized_message_t * serialized_message,
  bool * taken, rmw_subscription_allocation_t * allocation)
{
  (void)allocation;
  HDDS_CHECK_SUBSCRIPTION(subscription, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(serialized_message, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(taken, RMW_RET_INVALID_ARGUMENT);
  return impl_of(subscription)->take_serialized(serialized_message, nullptr, taken);
}

rmw_ret_t
rmw_take_serialized_message_with_info(
  const rmw_subscription_t * subscription, rmw_serialized_message_t * serialized_message,
  bool * taken, rmw_message_info_t * message_info, rmw_subscription_allocation_t * allocation)
{
  (void)allocation;
  HDDS_CHECK_SUBSCRIPTION(subscription, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(serialized_message, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(taken, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(message_info, RMW_RET_INVALID_ARGUMENT);
  return impl_of(subscription)->take_serialized(serialized_message, message_info, taken);
}

rmw_ret_t
rmw_subscription_set_on_new_message_callback(
  rmw_subscription_t * subscription, rmw_event_callback_t callback, const void * user_data)
{
  HDDS_CHECK_SUBSCRIPTION(subscription, RMW_RET_INVALID_ARGUMENT);
  return impl_of(subscription)->set_on_new_message_callback(callback, user_data);
}

rmw_ret_t
rmw_init_subscription_allocation(
  const rosidl_message_type_support_t * type_support,
  const rosidl_runtime_c__Sequence__bound * message_bounds,
  rmw_subscription_allocation_t * allocation)
{
  (void)type_support;
  (void)message_bounds;
  (void)allocation;
  RMW_SET_ERROR_MSG("rmw_hdds does not use subscription allocations: take with a null allocation");
  return RMW_RET_UNSUPPORTED;
}

rmw_ret_t
rmw_fini_subscription_allocation(rmw_subscription_allocation_t * allocation)
{
  (void)allocation;
  RMW_SET_ERROR_MSG("rmw_hdds does not use subscription allocations: take with a null allocation");
  return RMW_RET_UNSUPPORTED;
}

rmw_ret_t
rmw_take_loaned_message(
  const rmw_subscription_t * subscription, void ** loaned_message, bool * taken,
  rmw_subscription_allocation_t * allocation)
{
  (void)allocation;  // none is ever handed out (rmw_init_subscription_allocation is unsupported)
  HDDS_CHECK_SUBSCRIPTION(subscription, RMW_RET_INVALID_ARGUMENT);
  if (!impl_of(subscription)->can_loan()) {
    return loans_unsupported();
  }
  RMW_CHECK_ARGUMENT_FOR_NULL(loaned_message, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(taken, RMW_RET_INVALID_ARGUMENT);
  if (*loaned_message != nullptr) {
    return loan_not_null();
  }
  return impl_of(subscription)->take_loaned(loaned_message, nullptr, taken);
}

rmw_ret_t
rmw_take_loaned_message_with_info(
  const rmw_subscription_t * subscription, void ** loaned_message, bool * taken,
  rmw_message_info_t * message_info, rmw_subscription_allocation_t * allocation)
{
  (void)allocation;
  HDDS_CHECK_SUBSCRIPTION(subscription, RMW_RET_INVALID_ARGUMENT);
  if (!impl_of(subscription)->can_loan()) {
    return loans_unsupported();
  }
  RMW_CHECK_ARGUMENT_FOR_NULL(loaned_message, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(taken, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(message_info, RMW_RET_INVALID_ARGUMENT);
  if (*loaned_message != nullptr) {
    return loan_not_null();
  }
  return impl_of(subscription)->take_loaned(loaned_message, message_info, taken);
}

rmw_ret_t
rmw_return_loaned_message_from_subscription(
  const rmw_subscription_t * subscription, void * loaned_message)
{
  HDDS_CHECK_SUBSCRIPTION(subscription, RMW_RET_INVALID_ARGUMENT);
  if (!impl_of(subscription)->can_loan()) {
    return loans_unsupported();
  }
  RMW_CHECK_ARGUMENT_FOR_NULL(loaned_message, RMW_RET_INVALID_ARGUMENT);
  return impl_of(subscription)->return_loan(loaned_message);
}

rmw_ret_t
rmw_subscription_set_content_filter(
  rmw_subscription_t * subscription, const rmw_subscription_content_filter_options_t * options)
{
  HDDS_CHECK_SUBSCRIPTION(subscription, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(options, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(options->filter_expression, RMW_RET_INVALID_ARGUMENT);
  if (options->expression_parameters.size > 0) {
    RMW_CHECK_ARGUMENT_FOR_NULL(options->expression_parameters.data, RMW_RET_INVALID_ARGUMENT);
  }
  rmw_hdds::Subscription * impl = impl_of(subscription);
  const rmw_ret_t ret = impl->set_content_filter(
    options->filter_expression, options->expression_parameters.size,
    options->expression_parameters.data);
  subscription->is_cft_enabled = impl->has_content_filter();
  return ret;
}

rmw_ret_t
rmw_subscription_get_content_filter(
  const rmw_subscription_t * subscription, rcutils_allocator_t * allocator,
  rmw_subscription_content_filter_options_t * options)
{
  HDDS_CHECK_SUBSCRIPTION(subscription, RMW_RET_INVALID_ARGUMENT);
  RCUTILS_CHECK_ALLOCATOR_WITH_MSG(
    allocator, "allocator is invalid", return RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(options, RMW_RET_INVALID_ARGUMENT);
  return impl_of(subscription)->get_content_filter(allocator, options);
}

rmw_ret_t
rmw_subscription_get_network_flow_endpoints(
  const rmw_subscription_t * subscription, rcutils_allocator_t * allocator,
  rmw_network_flow_endpoint_array_t * network_flow_endpoint_array)
{
  HDDS_CHECK_SUBSCRIPTION(subscription, RMW_RET_INVALID_ARGUMENT);
  return rmw_hdds::reader_network_flow_endpoints(
    impl_of(subscription)->reader(), allocator, network_flow_endpoint_array);
}

}  // extern "C"
