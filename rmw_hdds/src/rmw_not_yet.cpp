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
rmw_service_set_on_new_request_callback(rmw_service_t *, rmw_event_callback_t, const void *)
{
  HDDS_NOT_YET(rmw_service_set_on_new_request_callback, RMW_RET_UNSUPPORTED);
}

rmw_ret_t
rmw_client_set_on_new_response_callback(rmw_client_t *, rmw_event_callback_t, const void *)
{
  HDDS_NOT_YET(rmw_client_set_on_new_response_callback, RMW_RET_UNSUPPORTED);
}

}  // extern "C"
