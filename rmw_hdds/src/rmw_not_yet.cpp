// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// The entry points of Humble's RMW API that rmw_hdds does not implement yet. Each one fails
// loudly: RMW_RET_UNSUPPORTED (or NULL / false where the API returns a pointer or a bool) with an
// error message naming the function, so a user sees at once what is missing. Entry points leave
// this file, one API area at a time, as the RMW layer lands (see README, "What does not work yet").

#include "rmw/error_handling.h"
#include "rmw/event.h"
#include "rmw/features.h"
#include "rmw/get_network_flow_endpoints.h"
#include "rmw/get_node_info_and_types.h"
#include "rmw/get_service_names_and_types.h"
#include "rmw/get_topic_endpoint_info.h"
#include "rmw/get_topic_names_and_types.h"
#include "rmw/qos_profiles.h"
#include "rmw/rmw.h"

#define HDDS_NOT_YET(function, failure) \
  RMW_SET_ERROR_MSG("rmw_hdds: " #function " is not implemented yet"); \
  return failure

extern "C" {

rmw_node_t *
rmw_create_node(rmw_context_t *, const char *, const char *)
{
  HDDS_NOT_YET(rmw_create_node, nullptr);
}

rmw_ret_t
rmw_destroy_node(rmw_node_t *)
{
  HDDS_NOT_YET(rmw_destroy_node, RMW_RET_UNSUPPORTED);
}

const rmw_guard_condition_t *
rmw_node_get_graph_guard_condition(const rmw_node_t *)
{
  HDDS_NOT_YET(rmw_node_get_graph_guard_condition, nullptr);
}

rmw_ret_t
rmw_init_publisher_allocation(const rosidl_message_type_support_t *, const rosidl_runtime_c__Sequence__bound *, rmw_publisher_allocation_t *)
{
  HDDS_NOT_YET(rmw_init_publisher_allocation, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_fini_publisher_allocation(rmw_publisher_allocation_t *)
{
  HDDS_NOT_YET(rmw_fini_publisher_allocation, RMW_RET_UNSUPPORTED);
}

rmw_publisher_t *
rmw_create_publisher(const rmw_node_t *, const rosidl_message_type_support_t *, const char *, const rmw_qos_profile_t *, const rmw_publisher_options_t *)
{
  HDDS_NOT_YET(rmw_create_publisher, nullptr);
}

rmw_ret_t
rmw_destroy_publisher(rmw_node_t *, rmw_publisher_t *)
{
  HDDS_NOT_YET(rmw_destroy_publisher, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_borrow_loaned_message(const rmw_publisher_t *, const rosidl_message_type_support_t *, void **)
{
  HDDS_NOT_YET(rmw_borrow_loaned_message, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_return_loaned_message_from_publisher(const rmw_publisher_t *, void *)
{
  HDDS_NOT_YET(rmw_return_loaned_message_from_publisher, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_publish(const rmw_publisher_t *, const void *, rmw_publisher_allocation_t *)
{
  HDDS_NOT_YET(rmw_publish, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_publish_loaned_message(const rmw_publisher_t *, void *, rmw_publisher_allocation_t *)
{
  HDDS_NOT_YET(rmw_publish_loaned_message, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_publisher_count_matched_subscriptions(const rmw_publisher_t *, size_t *)
{
  HDDS_NOT_YET(rmw_publisher_count_matched_subscriptions, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_publisher_get_actual_qos(const rmw_publisher_t *, rmw_qos_profile_t *)
{
  HDDS_NOT_YET(rmw_publisher_get_actual_qos, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_publisher_event_init(rmw_event_t *, const rmw_publisher_t *, rmw_event_type_t)
{
  HDDS_NOT_YET(rmw_publisher_event_init, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_publish_serialized_message(const rmw_publisher_t *, const rmw_serialized_message_t *, rmw_publisher_allocation_t *)
{
  HDDS_NOT_YET(rmw_publish_serialized_message, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_publisher_assert_liveliness(const rmw_publisher_t *)
{
  HDDS_NOT_YET(rmw_publisher_assert_liveliness, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_publisher_wait_for_all_acked(const rmw_publisher_t *, rmw_time_t)
{
  HDDS_NOT_YET(rmw_publisher_wait_for_all_acked, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_init_subscription_allocation(const rosidl_message_type_support_t *, const rosidl_runtime_c__Sequence__bound *, rmw_subscription_allocation_t *)
{
  HDDS_NOT_YET(rmw_init_subscription_allocation, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_fini_subscription_allocation(rmw_subscription_allocation_t *)
{
  HDDS_NOT_YET(rmw_fini_subscription_allocation, RMW_RET_UNSUPPORTED);
}

rmw_subscription_t *
rmw_create_subscription(const rmw_node_t *, const rosidl_message_type_support_t *, const char *, const rmw_qos_profile_t *, const rmw_subscription_options_t *)
{
  HDDS_NOT_YET(rmw_create_subscription, nullptr);
}

rmw_ret_t
rmw_destroy_subscription(rmw_node_t *, rmw_subscription_t *)
{
  HDDS_NOT_YET(rmw_destroy_subscription, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_subscription_count_matched_publishers(const rmw_subscription_t *, size_t *)
{
  HDDS_NOT_YET(rmw_subscription_count_matched_publishers, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_subscription_get_actual_qos(const rmw_subscription_t *, rmw_qos_profile_t *)
{
  HDDS_NOT_YET(rmw_subscription_get_actual_qos, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_subscription_event_init(rmw_event_t *, const rmw_subscription_t *, rmw_event_type_t)
{
  HDDS_NOT_YET(rmw_subscription_event_init, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_subscription_set_content_filter(rmw_subscription_t *, const rmw_subscription_content_filter_options_t *)
{
  HDDS_NOT_YET(rmw_subscription_set_content_filter, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_subscription_get_content_filter(const rmw_subscription_t *, rcutils_allocator_t *, rmw_subscription_content_filter_options_t *)
{
  HDDS_NOT_YET(rmw_subscription_get_content_filter, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_take(const rmw_subscription_t *, void *, bool *, rmw_subscription_allocation_t *)
{
  HDDS_NOT_YET(rmw_take, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_take_with_info(const rmw_subscription_t *, void *, bool *, rmw_message_info_t *, rmw_subscription_allocation_t *)
{
  HDDS_NOT_YET(rmw_take_with_info, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_take_serialized_message(const rmw_subscription_t *, rmw_serialized_message_t *, bool *, rmw_subscription_allocation_t *)
{
  HDDS_NOT_YET(rmw_take_serialized_message, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_take_serialized_message_with_info(const rmw_subscription_t *, rmw_serialized_message_t *, bool *, rmw_message_info_t *, rmw_subscription_allocation_t *)
{
  HDDS_NOT_YET(rmw_take_serialized_message_with_info, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_take_loaned_message(const rmw_subscription_t *, void **, bool *, rmw_subscription_allocation_t *)
{
  HDDS_NOT_YET(rmw_take_loaned_message, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_take_loaned_message_with_info(const rmw_subscription_t *, void **, bool *, rmw_message_info_t *, rmw_subscription_allocation_t *)
{
  HDDS_NOT_YET(rmw_take_loaned_message_with_info, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_return_loaned_message_from_subscription(const rmw_subscription_t *, void *)
{
  HDDS_NOT_YET(rmw_return_loaned_message_from_subscription, RMW_RET_UNSUPPORTED);
}

rmw_client_t *
rmw_create_client(const rmw_node_t *, const rosidl_service_type_support_t *, const char *, const rmw_qos_profile_t *)
{
  HDDS_NOT_YET(rmw_create_client, nullptr);
}

rmw_ret_t
rmw_destroy_client(rmw_node_t *, rmw_client_t *)
{
  HDDS_NOT_YET(rmw_destroy_client, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_send_request(const rmw_client_t *, const void *, int64_t *)
{
  HDDS_NOT_YET(rmw_send_request, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_take_response(const rmw_client_t *, rmw_service_info_t *, void *, bool *)
{
  HDDS_NOT_YET(rmw_take_response, RMW_RET_UNSUPPORTED);
}

rmw_service_t *
rmw_create_service(const rmw_node_t *, const rosidl_service_type_support_t *, const char *, const rmw_qos_profile_t *)
{
  HDDS_NOT_YET(rmw_create_service, nullptr);
}

rmw_ret_t
rmw_destroy_service(rmw_node_t *, rmw_service_t *)
{
  HDDS_NOT_YET(rmw_destroy_service, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_take_request(const rmw_service_t *, rmw_service_info_t *, void *, bool *)
{
  HDDS_NOT_YET(rmw_take_request, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_send_response(const rmw_service_t *, rmw_request_id_t *, void *)
{
  HDDS_NOT_YET(rmw_send_response, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_take_event(const rmw_event_t *, void *, bool *)
{
  HDDS_NOT_YET(rmw_take_event, RMW_RET_UNSUPPORTED);
}

rmw_guard_condition_t *
rmw_create_guard_condition(rmw_context_t *)
{
  HDDS_NOT_YET(rmw_create_guard_condition, nullptr);
}

rmw_ret_t
rmw_destroy_guard_condition(rmw_guard_condition_t *)
{
  HDDS_NOT_YET(rmw_destroy_guard_condition, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_trigger_guard_condition(const rmw_guard_condition_t *)
{
  HDDS_NOT_YET(rmw_trigger_guard_condition, RMW_RET_UNSUPPORTED);
}

rmw_wait_set_t *
rmw_create_wait_set(rmw_context_t *, size_t)
{
  HDDS_NOT_YET(rmw_create_wait_set, nullptr);
}

rmw_ret_t
rmw_destroy_wait_set(rmw_wait_set_t *)
{
  HDDS_NOT_YET(rmw_destroy_wait_set, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_wait(rmw_subscriptions_t *, rmw_guard_conditions_t *, rmw_services_t *, rmw_clients_t *, rmw_events_t *, rmw_wait_set_t *, const rmw_time_t *)
{
  HDDS_NOT_YET(rmw_wait, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_get_publisher_names_and_types_by_node(const rmw_node_t *, rcutils_allocator_t *, const char *, const char *, bool, rmw_names_and_types_t *)
{
  HDDS_NOT_YET(rmw_get_publisher_names_and_types_by_node, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_get_subscriber_names_and_types_by_node(const rmw_node_t *, rcutils_allocator_t *, const char *, const char *, bool, rmw_names_and_types_t *)
{
  HDDS_NOT_YET(rmw_get_subscriber_names_and_types_by_node, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_get_service_names_and_types_by_node(const rmw_node_t *, rcutils_allocator_t *, const char *, const char *, rmw_names_and_types_t *)
{
  HDDS_NOT_YET(rmw_get_service_names_and_types_by_node, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_get_client_names_and_types_by_node(const rmw_node_t *, rcutils_allocator_t *, const char *, const char *, rmw_names_and_types_t *)
{
  HDDS_NOT_YET(rmw_get_client_names_and_types_by_node, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_get_topic_names_and_types(const rmw_node_t *, rcutils_allocator_t *, bool, rmw_names_and_types_t *)
{
  HDDS_NOT_YET(rmw_get_topic_names_and_types, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_get_service_names_and_types(const rmw_node_t *, rcutils_allocator_t *, rmw_names_and_types_t *)
{
  HDDS_NOT_YET(rmw_get_service_names_and_types, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_get_node_names(const rmw_node_t *, rcutils_string_array_t *, rcutils_string_array_t *)
{
  HDDS_NOT_YET(rmw_get_node_names, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_get_node_names_with_enclaves(const rmw_node_t *, rcutils_string_array_t *, rcutils_string_array_t *, rcutils_string_array_t *)
{
  HDDS_NOT_YET(rmw_get_node_names_with_enclaves, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_count_publishers(const rmw_node_t *, const char *, size_t *)
{
  HDDS_NOT_YET(rmw_count_publishers, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_count_subscribers(const rmw_node_t *, const char *, size_t *)
{
  HDDS_NOT_YET(rmw_count_subscribers, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_get_gid_for_publisher(const rmw_publisher_t *, rmw_gid_t *)
{
  HDDS_NOT_YET(rmw_get_gid_for_publisher, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_service_response_publisher_get_actual_qos(const rmw_service_t *, rmw_qos_profile_t *)
{
  HDDS_NOT_YET(rmw_service_response_publisher_get_actual_qos, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_service_request_subscription_get_actual_qos(const rmw_service_t *, rmw_qos_profile_t *)
{
  HDDS_NOT_YET(rmw_service_request_subscription_get_actual_qos, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_service_server_is_available(const rmw_node_t *, const rmw_client_t *, bool *)
{
  HDDS_NOT_YET(rmw_service_server_is_available, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_set_log_severity(rmw_log_severity_t)
{
  HDDS_NOT_YET(rmw_set_log_severity, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_get_publishers_info_by_topic(const rmw_node_t *, rcutils_allocator_t *, const char *, bool, rmw_topic_endpoint_info_array_t *)
{
  HDDS_NOT_YET(rmw_get_publishers_info_by_topic, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_get_subscriptions_info_by_topic(const rmw_node_t *, rcutils_allocator_t *, const char *, bool, rmw_topic_endpoint_info_array_t *)
{
  HDDS_NOT_YET(rmw_get_subscriptions_info_by_topic, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_qos_profile_check_compatible(const rmw_qos_profile_t, const rmw_qos_profile_t, rmw_qos_compatibility_type_t *, char *, size_t)
{
  HDDS_NOT_YET(rmw_qos_profile_check_compatible, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_publisher_get_network_flow_endpoints(const rmw_publisher_t *, rcutils_allocator_t *, rmw_network_flow_endpoint_array_t *)
{
  HDDS_NOT_YET(rmw_publisher_get_network_flow_endpoints, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_subscription_get_network_flow_endpoints(const rmw_subscription_t *, rcutils_allocator_t *, rmw_network_flow_endpoint_array_t *)
{
  HDDS_NOT_YET(rmw_subscription_get_network_flow_endpoints, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_client_request_publisher_get_actual_qos(const rmw_client_t *, rmw_qos_profile_t *)
{
  HDDS_NOT_YET(rmw_client_request_publisher_get_actual_qos, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_client_response_subscription_get_actual_qos(const rmw_client_t *, rmw_qos_profile_t *)
{
  HDDS_NOT_YET(rmw_client_response_subscription_get_actual_qos, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_subscription_set_on_new_message_callback(rmw_subscription_t *, rmw_event_callback_t, const void *)
{
  HDDS_NOT_YET(rmw_subscription_set_on_new_message_callback, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_service_set_on_new_request_callback(rmw_service_t *, rmw_event_callback_t, const void *)
{
  HDDS_NOT_YET(rmw_service_set_on_new_request_callback, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_client_set_on_new_response_callback(rmw_client_t *, rmw_event_callback_t, const void *)
{
  HDDS_NOT_YET(rmw_client_set_on_new_response_callback, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_event_set_callback(rmw_event_t *, rmw_event_callback_t, const void *)
{
  HDDS_NOT_YET(rmw_event_set_callback, RMW_RET_UNSUPPORTED);
}
}  // extern "C"
