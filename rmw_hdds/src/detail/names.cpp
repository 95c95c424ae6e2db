// Copyright 2026 The rmw_hdds authors. Apache-2.0.
#include "detail/names.hpp"

#include <string>

#include "rmw/error_handling.h"
#include "rmw/validate_full_topic_name.h"
#include "rmw/validate_namespace.h"
#include "rmw/validate_node_name.h"

namespace rmw_hdds
{
namespace names
{
namespace
{
constexpr const char * kTopicPrefix = "rt";
constexpr const char * kRequestPrefix = "rq";
constexpr const char * kReplyPrefix = "rr";
constexpr const char * kDdsNamespace = "dds_::";

bool starts_with(const std::string & s, const std::string & prefix)
{
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

bool ends_with(const std::string & s, const std::string & suffix)
{
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// "rt/x" -> "/x" for prefix "rt"; "" if `dds` does not start with prefix + '/'.
std::string strip_prefix(const std::string & dds, const char * prefix)
{
  const std::string p = std::string(prefix) + "/";
  return starts_with(dds, p) ? dds.substr(p.size() - 1) : std::string();
}

std::string replace_all(std::string s, const std::string & from, const std::string & to)
{
  for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size())) {
    s.replace(pos, from.size(), to);
  }
  return s;
}

std::string service_from_topic(const std::string & dds, const char * prefix, const char * suffix)
{
  std::string name = strip_prefix(dds, prefix);
  if (name.empty() || !ends_with(name, suffix)) {
    return "";
  }
  name.resize(name.size() - std::char_traits<char>::length(suffix));
  return name;
}
}  // namespace

std::string topic_to_dds(const std::string & ros_topic, bool avoid_ros_namespace_conventions)
{
  return avoid_ros_namespace_conventions ? ros_topic : kTopicPrefix + ros_topic;
}

std::string request_topic(const std::string & ros_service, bool avoid_ros_namespace_conventions)
{
  return avoid_ros_namespace_conventions ? ros_service :
         kRequestPrefix + ros_service + "Request";
}

std::string reply_topic(const std::string & ros_service, bool avoid_ros_namespace_conventions)
{
  return avoid_ros_namespace_conventions ? ros_service : kReplyPrefix + ros_service + "Reply";
}

std::string type_to_dds(const std::string & ros_type)
{
  const size_t last = ros_type.rfind('/');
  if (last == std::string::npos) {
    return ros_type + "_";
  }
  return replace_all(ros_type.substr(0, last + 1), "/", "::") + kDdsNamespace +
         ros_type.substr(last + 1) + "_";
}

std::string topic_from_dds(const std::string & dds_topic)
{
  return strip_prefix(dds_topic, kTopicPrefix);
}

std::string type_from_dds(const std::string & dds_type)
{
  const size_t ns = dds_type.find(kDdsNamespace);
  if (ns == std::string::npos || !ends_with(dds_type, "_")) {
    return dds_type;
  }
  const size_t start = ns + std::char_traits<char>::length(kDdsNamespace);
  return replace_all(dds_type.substr(0, ns), "::", "/") +
         dds_type.substr(start, dds_type.size() - 1 - start);
}

std::string service_from_request_topic(const std::string & dds_topic)
{
  return service_from_topic(dds_topic, kRequestPrefix, "Request");
}

std::string service_from_reply_topic(const std::string & dds_topic)
{
  return service_from_topic(dds_topic, kReplyPrefix, "Reply");
}

std::string service_type_from_dds(const std::string & dds_type)
{
  const size_t ns = dds_type.find(kDdsNamespace);
  if (ns == std::string::npos) {
    return "";
  }
  for (const char * suffix : {"_Request_", "_Response_"}) {
    if (ends_with(dds_type, suffix)) {
      const size_t start = ns + std::char_traits<char>::length(kDdsNamespace);
      const size_t end = dds_type.size() - std::char_traits<char>::length(suffix);
      if (end <= start) {
        return "";
      }
      return replace_all(dds_type.substr(0, ns), "::", "/") + dds_type.substr(start, end - start);
    }
  }
  return "";
}

std::string identity(const std::string & name)
{
  return name;
}

rmw_ret_t check_topic_name(const char * name, bool avoid_ros_namespace_conventions)
{
  RMW_CHECK_ARGUMENT_FOR_NULL(name, RMW_RET_INVALID_ARGUMENT);
  if (name[0] == '\0') {
    RMW_SET_ERROR_MSG("topic name is empty");
    return RMW_RET_INVALID_ARGUMENT;
  }
  if (avoid_ros_namespace_conventions) {
    return RMW_RET_OK;
  }
  int result = RMW_TOPIC_VALID;
  size_t index = 0;
  if (rmw_validate_full_topic_name(name, &result, &index) != RMW_RET_OK) {
    return RMW_RET_ERROR;
  }
  if (result != RMW_TOPIC_VALID) {
    RMW_SET_ERROR_MSG_WITH_FORMAT_STRING(
      "invalid topic name '%s': %s (at character %zu)", name,
      rmw_full_topic_name_validation_result_string(result), index);
    return RMW_RET_INVALID_ARGUMENT;
  }
  return RMW_RET_OK;
}

rmw_ret_t check_node_name(const char * name)
{
  RMW_CHECK_ARGUMENT_FOR_NULL(name, RMW_RET_INVALID_ARGUMENT);
  int result = RMW_NODE_NAME_VALID;
  size_t index = 0;
  if (rmw_validate_node_name(name, &result, &index) != RMW_RET_OK) {
    return RMW_RET_ERROR;
  }
  if (result != RMW_NODE_NAME_VALID) {
    RMW_SET_ERROR_MSG_WITH_FORMAT_STRING(
      "invalid node name '%s': %s (at character %zu)", name,
      rmw_node_name_validation_result_string(result), index);
    return RMW_RET_INVALID_ARGUMENT;
  }
  return RMW_RET_OK;
}

rmw_ret_t check_namespace(const char * namespace_)
{
  RMW_CHECK_ARGUMENT_FOR_NULL(namespace_, RMW_RET_INVALID_ARGUMENT);
  int result = RMW_NAMESPACE_VALID;
  size_t index = 0;
  if (rmw_validate_namespace(namespace_, &result, &index) != RMW_RET_OK) {
    return RMW_RET_ERROR;
  }
  if (result != RMW_NAMESPACE_VALID) {
    RMW_SET_ERROR_MSG_WITH_FORMAT_STRING(
      "invalid node namespace '%s': %s (at character %zu)", namespace_,
      rmw_namespace_validation_result_string(result), index);
    return RMW_RET_INVALID_ARGUMENT;
  }
  return RMW_RET_OK;
}
}  // namespace names
}  // namespace rmw_hdds
