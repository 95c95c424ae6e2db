// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// Service clients (detail/client.hpp). rmw_client_t::data holds the Client as a Waitable, which
// is what rmw_wait reads (detail/wait_set.hpp).

#include <cstring>

#include "detail/client.hpp"
#include "detail/identifier.hpp"
#include "detail/node.hpp"
#include "rmw/allocators.h"
#include "rmw/error_handling.h"
#include "rmw/impl/cpp/macros.hpp"
#include "rmw/rmw.h"

namespace
{
#define HDDS_CHECK_CLIENT(cli, fail) \
  RMW_CHECK_ARGUMENT_FOR_NULL(cli, fail); \
  RMW_CHECK_TYPE_IDENTIFIERS_MATCH( \
    cli, (cli)->implementation_identifier, rmw_hdds::kIdentifier, \
    return RMW_RET_INCORRECT_RMW_IMPLEMENTATION)

rmw_hdds::Client * impl_of(const rmw_client_t * cli)
{
  return static_cast<rmw_hdds::Client *>(static_cast<rmw_hdds::Waitable *>(cli->data));
}

void free_rmw_client(rmw_client_t * cli)
{
  rmw_free(const_cast<char *>(cli->service_name));
  rmw_client_free(cli);
}
}  // namespace

extern "C" {

rmw_client_t *
rmw_create_client(
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

  rmw_client_t * cli = rmw_client_allocate();
  if (cli == nullptr) {
    RMW_SET_ERROR_MSG("rmw_hdds: out of memory creating the client");
    return nullptr;
  }
  *cli = rmw_client_t{};
  const size_t len = std::strlen(service_name) + 1;
  auto * name = static_cast<char *>(rmw_allocate(len));
  if (name == nullptr) {
    rmw_client_free(cli);
    RMW_SET_ERROR_MSG("rmw_hdds: out of memory creating the client");
    return nullptr;
  }
  std::memcpy(name, service_name, len);
  cli->service_name = name;

  rmw_hdds::Client * impl =
    rmw_hdds::Client::create(*node_impl, type_support, service_name, *qos_profile);
  if (impl == nullptr) {
    free_rmw_client(cli);
    return nullptr;  // create set the message
  }
  cli->implementation_identifier = rmw_hdds::kIdentifier;
  cli->data = static_cast<rmw_hdds::Waitable *>(impl);
  return cli;
}

rmw_ret_t
rmw_destroy_client(rmw_node_t * node, rmw_client_t * client)
{
  rmw_ret_t ret = RMW_RET_OK;
  if (rmw_hdds::node_from(node, &ret) == nullptr) {
    return ret;
  }
  HDDS_CHECK_CLIENT(client, RMW_RET_INVALID_ARGUMENT);
  delete impl_of(client);
  free_rmw_client(client);
  return RMW_RET_OK;
}

rmw_ret_t
rmw_send_request(const rmw_client_t * client, const void * ros_request, int64_t * sequence_id)
{
  HDDS_CHECK_CLIENT(client, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(ros_request, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(sequence_id, RMW_RET_INVALID_ARGUMENT);
  return impl_of(client)->send_request(ros_request, sequence_id);
}

rmw_ret_t
rmw_take_response(
  const rmw_client_t * client, rmw_service_info_t * request_header, void * ros_response,
  bool * taken)
{
  HDDS_CHECK_CLIENT(client, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(request_header, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(ros_response, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(taken, RMW_RET_INVALID_ARGUMENT);
  return impl_of(client)->take_response(request_header, ros_response, taken);
}

rmw_ret_t
rmw_client_request_publisher_get_actual_qos(const rmw_client_t * client, rmw_qos_profile_t * qos)
{
  HDDS_CHECK_CLIENT(client, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(qos, RMW_RET_INVALID_ARGUMENT);
  *qos = impl_of(client)->actual_qos();
  return RMW_RET_OK;
}

rmw_ret_t
rmw_client_response_subscription_get_actual_qos(
  const rmw_client_t * client, rmw_qos_profile_t * qos)
{
  HDDS_CHECK_CLIENT(client, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(qos, RMW_RET_INVALID_ARGUMENT);
  *qos = impl_of(client)->actual_qos();
  return RMW_RET_OK;
}

rmw_ret_t
rmw_client_set_on_new_response_callback(
  rmw_client_t * client, rmw_event_callback_t callback, const void * user_data)
{
  HDDS_CHECK_CLIENT(client, RMW_RET_INVALID_ARGUMENT);
  return impl_of(client)->set_on_new_response_callback(callback, user_data);
}

rmw_ret_t
rmw_service_server_is_available(
  const rmw_node_t * node, const rmw_client_t * client, bool * is_available)
{
  // rmw documents RMW_RET_ERROR (not INVALID_ARGUMENT) for null arguments here, and
  // test_rmw_implementation checks it.
  RMW_CHECK_FOR_NULL_WITH_MSG(node, "node argument is null", return RMW_RET_ERROR);
  RMW_CHECK_TYPE_IDENTIFIERS_MATCH(
    node, node->implementation_identifier, rmw_hdds::kIdentifier,
    return RMW_RET_INCORRECT_RMW_IMPLEMENTATION);
  RMW_CHECK_FOR_NULL_WITH_MSG(client, "client argument is null", return RMW_RET_ERROR);
  RMW_CHECK_TYPE_IDENTIFIERS_MATCH(
    client, client->implementation_identifier, rmw_hdds::kIdentifier,
    return RMW_RET_INCORRECT_RMW_IMPLEMENTATION);
  RMW_CHECK_FOR_NULL_WITH_MSG(is_available, "is_available argument is null", return RMW_RET_ERROR);
  *is_available = impl_of(client)->server_is_available();
  return RMW_RET_OK;
}

}  // extern "C"
