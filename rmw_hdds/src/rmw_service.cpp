// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// Service servers (detail/service.hpp). rmw_service_t::data holds the Service as a Waitable, which
// is what rmw_wait reads (detail/wait_set.hpp).

#include <cstring>

#include "detail/identifier.hpp"
#include "detail/node.hpp"
#include "detail/service.hpp"
#include "rmw/allocators.h"
#include "rmw/error_handling.h"
#include "rmw/impl/cpp/macros.hpp"
#include "rmw/rmw.h"

namespace
{
#define HDDS_CHECK_SERVICE(srv, fail) \
  RMW_CHECK_ARGUMENT_FOR_NULL(srv, fail); \
  RMW_CHECK_TYPE_IDENTIFIERS_MATCH( \
    srv, (srv)->implementation_identifier, rmw_hdds::kIdentifier, \
    return RMW_RET_INCORRECT_RMW_IMPLEMENTATION)

rmw_hdds::Service * impl_of(const rmw_service_t * srv)
{
  return static_cast<rmw_hdds::Service *>(static_cast<rmw_hdds::Waitable *>(srv->data));
}

void free_rmw_service(rmw_service_t * srv)
{
  rmw_free(const_cast<char *>(srv->service_name));
  rmw_service_free(srv);
}
}  // namespace

extern "C" {

rmw_service_t *
rmw_create_service(
  const rmw_node_t * node, const rosidl_service_type_support_t * type_support,
  const char * service_name, const rmw_qos_profile_t * qos_profile)
{
  rmw_ret_t ret = RMW_RET_OK;
  rmw_hdds::Node * node_impl = rmw_hdds::node_from(node, &ret);
  if (node_impl == nullptr) {
    return nullptr;
  }
  RMW_CHECK_ARGUMENT_FOR_NULL(type_support, nullptr);
  RMW_CHECK_ARGUMENT_FOR_NULL(service_name, nullptr);
  RMW_CHECK_ARGUMENT_FOR_NULL(qos_profile, nullptr);

  rmw_service_t * srv = rmw_service_allocate();
  if (srv == nullptr) {
    RMW_SET_ERROR_MSG("rmw_hdds: out of memory creating the service");
    return nullptr;
  }
  *srv = rmw_service_t{};
  const size_t len = std::strlen(service_name) + 1;
  auto * name = static_cast<char *>(rmw_allocate(len));
  if (name == nullptr) {
    rmw_service_free(srv);
    RMW_SET_ERROR_MSG("rmw_hdds: out of memory creating the service");
    return nullptr;
  }
  std::memcpy(name, service_name, len);
  srv->service_name = name;

  rmw_hdds::Service * impl =
    rmw_hdds::Service::create(*node_impl, type_support, service_name, *qos_profile);
  if (impl == nullptr) {
    free_rmw_service(srv);
    return nullptr;  // create set the message
  }
  srv->implementation_identifier = rmw_hdds::kIdentifier;
  srv->data = static_cast<rmw_hdds::Waitable *>(impl);
  return srv;
}

rmw_ret_t
rmw_destroy_service(rmw_node_t * node, rmw_service_t * service)
{
  rmw_ret_t ret = RMW_RET_OK;
  if (rmw_hdds::node_from(node, &ret) == nullptr) {
    return ret;
  }
  HDDS_CHECK_SERVICE(service, RMW_RET_INVALID_ARGUMENT);
  delete impl_of(service);
  free_rmw_service(service);
  return RMW_RET_OK;
}

rmw_ret_t
rmw_take_request(
  const rmw_service_t * service, rmw_service_info_t * request_header, void * ros_request,
  bool * taken)
{
  HDDS_CHECK_SERVICE(service, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(request_header, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(ros_request, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(taken, RMW_RET_INVALID_ARGUMENT);
  return impl_of(service)->take_request(request_header, ros_request, taken);
}

rmw_ret_t
rmw_send_response(
  const rmw_service_t * service, rmw_request_id_t * request_header, void * ros_response)
{
  HDDS_CHECK_SERVICE(service, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(request_header, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(ros_response, RMW_RET_INVALID_ARGUMENT);
  return impl_of(service)->send_response(*request_header, ros_response);
}

rmw_ret_t
rmw_service_request_subscription_get_actual_qos(
  const rmw_service_t * service, rmw_qos_profile_t * qos)
{
  HDDS_CHECK_SERVICE(service, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(qos, RMW_RET_INVALID_ARGUMENT);
  *qos = impl_of(service)->actual_qos();
  return RMW_RET_OK;
}

rmw_ret_t
rmw_service_response_publisher_get_actual_qos(
  const rmw_service_t * service, rmw_qos_profile_t * qos)
{
  HDDS_CHECK_SERVICE(service, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(qos, RMW_RET_INVALID_ARGUMENT);
  *qos = impl_of(service)->actual_qos();
  return RMW_RET_OK;
}

rmw_ret_t
rmw_service_set_on_new_request_callback(
  rmw_service_t * service, rmw_event_callback_t callback, const void * user_data)
{
  HDDS_CHECK_SERVICE(service, RMW_RET_INVALID_ARGUMENT);
  return impl_of(service)->set_on_new_request_callback(callback, user_data);
}

}  // extern "C"
