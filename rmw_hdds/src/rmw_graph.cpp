// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// Graph queries, answered from the context's GraphCache (detail/graph.hpp), and the QoS
// compatibility check.

#include <string>

#include "detail/context.hpp"
#include "detail/identifier.hpp"
#include "detail/names.hpp"
#include "detail/node.hpp"
#include "rcutils/error_handling.h"
#include "rmw/error_handling.h"
#include "rmw/get_node_info_and_types.h"
#include "rmw/get_service_names_and_types.h"
#include "rmw/get_topic_endpoint_info.h"
#include "rmw/get_topic_names_and_types.h"
#include "rmw/impl/cpp/macros.hpp"
#include "rmw/names_and_types.h"
#include "rmw/rmw.h"
#include "rmw/sanity_checks.h"
#include "rmw/topic_endpoint_info_array.h"
#include "rmw_dds_common/qos.hpp"

namespace
{
using rmw_dds_common::GraphCache;
using Demangle = GraphCache::DemangleFunctionT;

// The graph of the node's context after the checks every query starts with.
GraphCache * graph_of(const rmw_node_t * node, rmw_ret_t * ret)
{
  rmw_hdds::Node * impl = rmw_hdds::node_from(node, ret);
  return impl == nullptr ? nullptr : &impl->context().graph().cache();
}

rmw_ret_t check_allocator(rcutils_allocator_t * allocator)
{
  RCUTILS_CHECK_ALLOCATOR_WITH_MSG(
    allocator, "allocator argument is invalid", return RMW_RET_INVALID_ARGUMENT);
  return RMW_RET_OK;
}

// A node name and namespace given to a "by node" query.
rmw_ret_t check_node_name_and_namespace(const char * node_name, const char * node_namespace)
{
  rmw_ret_t ret = rmw_hdds::names::check_node_name(node_name);
  return ret != RMW_RET_OK ? ret : rmw_hdds::names::check_namespace(node_namespace);
}

// A ROS topic name given to a count query, checked and mangled as publishers mangle it.
rmw_ret_t mangled_topic(const char * topic_name, std::string * out)
{
  rmw_ret_t ret = rmw_hdds::names::check_topic_name(topic_name, false);
  if (ret == RMW_RET_OK) {
    *out = rmw_hdds::names::topic_to_dds(topic_name, false);
  }
  return ret;
}

enum class Side { Writers, Readers };

rmw_ret_t names_and_types_by_node(
  const rmw_node_t * node, rcutils_allocator_t * allocator, const char * node_name,
  const char * node_namespace, Side side, Demangle demangle_topic, Demangle demangle_type,
  rmw_names_and_types_t * out)
{
  rmw_ret_t ret = RMW_RET_OK;
  GraphCache * graph = graph_of(node, &ret);
  if (graph == nullptr) {
    return ret;
  }
  if ((ret = check_allocator(allocator)) != RMW_RET_OK ||
    (ret = check_node_name_and_namespace(node_name, node_namespace)) != RMW_RET_OK ||
    (ret = rmw_names_and_types_check_zero(out)) != RMW_RET_OK)
  {
    return ret;
  }
  return side == Side::Writers ?
         graph->get_writer_names_and_types_by_node(
    node_name, node_namespace, demangle_topic, demangle_type, allocator, out) :
         graph->get_reader_names_and_types_by_node(
    node_name, node_namespace, demangle_topic, demangle_type, allocator, out);
}

rmw_ret_t count(const rmw_node_t * node, const char * topic_name, size_t * count, Side side)
{
  rmw_ret_t ret = RMW_RET_OK;
  GraphCache * graph = graph_of(node, &ret);
  if (graph == nullptr) {
    return ret;
  }
  std::string topic;
  if ((ret = mangled_topic(topic_name, &topic)) != RMW_RET_OK) {
    return ret;
  }
  RMW_CHECK_ARGUMENT_FOR_NULL(count, RMW_RET_INVALID_ARGUMENT);
  return side == Side::Writers ? graph->get_writer_count(topic, count) :
         graph->get_reader_count(topic, count);
}

rmw_ret_t endpoints_info(
  const rmw_node_t * node, rcutils_allocator_t * allocator, const char * topic_name,
  bool no_mangle, Side side, rmw_topic_endpoint_info_array_t * out)
{
  rmw_ret_t ret = RMW_RET_OK;
  GraphCache * graph = graph_of(node, &ret);
  if (graph == nullptr) {
    return ret;
  }
  if ((ret = check_allocator(allocator)) != RMW_RET_OK) {
    return ret;
  }
  RMW_CHECK_ARGUMENT_FOR_NULL(topic_name, RMW_RET_INVALID_ARGUMENT);
  if (rmw_topic_endpoint_info_array_check_zero(out) != RMW_RET_OK) {
    return RMW_RET_INVALID_ARGUMENT;
  }
  // As rmw_cyclonedds_cpp: any name is a valid question here (no_mangle asks about DDS names).
  const std::string topic =
    no_mangle ? std::string(topic_name) : rmw_hdds::names::topic_to_dds(topic_name, false);
  const Demangle demangle_type =
    no_mangle ? rmw_hdds::names::identity : rmw_hdds::names::type_from_dds;
  return side == Side::Writers ?
         graph->get_writers_info_by_topic(topic, demangle_type, allocator, out) :
         graph->get_readers_info_by_topic(topic, demangle_type, allocator, out);
}
}  // namespace

extern "C" {

rmw_ret_t
rmw_get_node_names(
  const rmw_node_t * node, rcutils_string_array_t * node_names,
  rcutils_string_array_t * node_namespaces)
{
  rmw_ret_t ret = RMW_RET_OK;
  GraphCache * graph = graph_of(node, &ret);
  if (graph == nullptr) {
    return ret;
  }
  if (rmw_check_zero_rmw_string_array(node_names) != RMW_RET_OK ||
    rmw_check_zero_rmw_string_array(node_namespaces) != RMW_RET_OK)
  {
    return RMW_RET_INVALID_ARGUMENT;
  }
  rcutils_allocator_t allocator = rcutils_get_default_allocator();
  return graph->get_node_names(node_names, node_namespaces, nullptr, &allocator);
}

rmw_ret_t
rmw_get_node_names_with_enclaves(
  const rmw_node_t * node, rcutils_string_array_t * node_names,
  rcutils_string_array_t * node_namespaces, rcutils_string_array_t * enclaves)
{
  rmw_ret_t ret = RMW_RET_OK;
  GraphCache * graph = graph_of(node, &ret);
  if (graph == nullptr) {
    return ret;
  }
  if (rmw_check_zero_rmw_string_array(node_names) != RMW_RET_OK ||
    rmw_check_zero_rmw_string_array(node_namespaces) != RMW_RET_OK ||
    rmw_check_zero_rmw_string_array(enclaves) != RMW_RET_OK)
  {
    return RMW_RET_INVALID_ARGUMENT;
  }
  rcutils_allocator_t allocator = rcutils_get_default_allocator();
  return graph->get_node_names(node_names, node_namespaces, enclaves, &allocator);
}

rmw_ret_t
rmw_get_topic_names_and_types(
  const rmw_node_t * node, rcutils_allocator_t * allocator, bool no_demangle,
  rmw_names_and_types_t * topic_names_and_types)
{
  rmw_ret_t ret = RMW_RET_OK;
  GraphCache * graph = graph_of(node, &ret);
  if (graph == nullptr) {
    return ret;
  }
  if ((ret = check_allocator(allocator)) != RMW_RET_OK) {
    return ret;
  }
  if (rmw_names_and_types_check_zero(topic_names_and_types) != RMW_RET_OK) {
    return RMW_RET_INVALID_ARGUMENT;
  }
  if (no_demangle) {
    return graph->get_names_and_types(
      rmw_hdds::names::identity, rmw_hdds::names::identity, allocator, topic_names_and_types);
  }
  return graph->get_names_and_types(
    rmw_hdds::names::topic_from_dds, rmw_hdds::names::type_from_dds, allocator,
    topic_names_and_types);
}

rmw_ret_t
rmw_get_service_names_and_types(
  const rmw_node_t * node, rcutils_allocator_t * allocator,
  rmw_names_and_types_t * service_names_and_types)
{
  rmw_ret_t ret = RMW_RET_OK;
  GraphCache * graph = graph_of(node, &ret);
  if (graph == nullptr) {
    return ret;
  }
  if ((ret = check_allocator(allocator)) != RMW_RET_OK) {
    return ret;
  }
  if (rmw_names_and_types_check_zero(service_names_and_types) != RMW_RET_OK) {
    return RMW_RET_INVALID_ARGUMENT;
  }
  // One entry per service: its request topic names it.
  return graph->get_names_and_types(
    rmw_hdds::names::service_from_request_topic, rmw_hdds::names::service_type_from_dds,
    allocator, service_names_and_types);
}

rmw_ret_t
rmw_get_publisher_names_and_types_by_node(
  const rmw_node_t * node, rcutils_allocator_t * allocator, const char * node_name,
  const char * node_namespace, bool no_demangle, rmw_names_and_types_t * topic_names_and_types)
{
  return names_and_types_by_node(
    node, allocator, node_name, node_namespace, Side::Writers,
    no_demangle ? rmw_hdds::names::identity : rmw_hdds::names::topic_from_dds,
    no_demangle ? rmw_hdds::names::identity : rmw_hdds::names::type_from_dds,
    topic_names_and_types);
}

rmw_ret_t
rmw_get_subscriber_names_and_types_by_node(
  const rmw_node_t * node, rcutils_allocator_t * allocator, const char * node_name,
  const char * node_namespace, bool no_demangle, rmw_names_and_types_t * topic_names_and_types)
{
  return names_and_types_by_node(
    node, allocator, node_name, node_namespace, Side::Readers,
    no_demangle ? rmw_hdds::names::identity : rmw_hdds::names::topic_from_dds,
    no_demangle ? rmw_hdds::names::identity : rmw_hdds::names::type_from_dds,
    topic_names_and_types);
}

rmw_ret_t
rmw_get_service_names_and_types_by_node(
  const rmw_node_t * node, rcutils_allocator_t * allocator, const char * node_name,
  const char * node_namespace, rmw_names_and_types_t * service_names_and_types)
{
  // A service server reads requests.
  return names_and_types_by_node(
    node, allocator, node_name, node_namespace, Side::Readers,
    rmw_hdds::names::service_from_request_topic, rmw_hdds::names::service_type_from_dds,
    service_names_and_types);
}

rmw_ret_t
rmw_get_client_names_and_types_by_node(
  const rmw_node_t * node, rcutils_allocator_t * allocator, const char * node_name,
  const char * node_namespace, rmw_names_and_types_t * service_names_and_types)
{
  // A client reads replies.
  return names_and_types_by_node(
    node, allocator, node_name, node_namespace, Side::Readers,
    rmw_hdds::names::service_from_reply_topic, rmw_hdds::names::service_type_from_dds,
    service_names_and_types);
}

rmw_ret_t
rmw_count_publishers(const rmw_node_t * node, const char * topic_name, size_t * count)
{
  return ::count(node, topic_name, count, Side::Writers);
}

rmw_ret_t
rmw_count_subscribers(const rmw_node_t * node, const char * topic_name, size_t * count)
{
  return ::count(node, topic_name, count, Side::Readers);
}

rmw_ret_t
rmw_get_publishers_info_by_topic(
  const rmw_node_t * node, rcutils_allocator_t * allocator, const char * topic_name,
  bool no_mangle, rmw_topic_endpoint_info_array_t * publishers_info)
{
  return endpoints_info(node, allocator, topic_name, no_mangle, Side::Writers, publishers_info);
}

rmw_ret_t
rmw_get_subscriptions_info_by_topic(
  const rmw_node_t * node, rcutils_allocator_t * allocator, const char * topic_name,
  bool no_mangle, rmw_topic_endpoint_info_array_t * subscriptions_info)
{
  return endpoints_info(
    node, allocator, topic_name, no_mangle, Side::Readers, subscriptions_info);
}

rmw_ret_t
rmw_qos_profile_check_compatible(
  const rmw_qos_profile_t publisher_profile, const rmw_qos_profile_t subscription_profile,
  rmw_qos_compatibility_type_t * compatibility, char * reason, size_t reason_size)
{
  return rmw_dds_common::qos_profile_check_compatible(
    publisher_profile, subscription_profile, compatibility, reason, reason_size);
}

}  // extern "C"
