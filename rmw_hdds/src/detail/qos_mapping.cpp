// Copyright 2026 The rmw_hdds authors. Apache-2.0.
#include "detail/qos_mapping.hpp"

#include <cstdint>
#include <limits>

#include "detail/hot.hpp"
#include "rmw/error_handling.h"
#include "rmw/qos_profiles.h"

namespace rmw_hdds
{
namespace
{
bool is_unspecified(const rmw_time_t & t)
{
  return t.sec == 0 && t.nsec == 0;
}

// A duration policy: UNSPECIFIED means "the default", which is infinite for all three.
int64_t duration_policy(const rmw_time_t & t)
{
  return is_unspecified(t) ? HDDS_DURATION_INFINITE : duration_to_ns(t);
}
}  // namespace

RMW_HDDS_HOT int64_t duration_to_ns(const rmw_time_t & t)
{
  const rmw_time_t infinite = RMW_DURATION_INFINITE;
  if (rmw_time_equal(t, infinite)) {
    return HDDS_DURATION_INFINITE;
  }
  // rmw_time_total_nsec saturates at INT64_MAX, which is the engine's infinite too.
  return rmw_time_total_nsec(t);
}

rmw_time_t duration_from_ns(int64_t ns)
{
  if (ns == HDDS_DURATION_INFINITE) {
    return RMW_DURATION_INFINITE;
  }
  return rmw_time_from_nsec(ns);
}

rmw_ret_t qos_to_hdds(const rmw_qos_profile_t & in, HddsQos * out)
{
  HddsQos q;
  if (hdds_qos_default(&q) != HDDS_RET_OK) {
    RMW_SET_ERROR_MSG("rmw_hdds: hdds_qos_default failed");
    return RMW_RET_ERROR;
  }
  switch (in.history) {
    case RMW_QOS_POLICY_HISTORY_SYSTEM_DEFAULT:
    case RMW_QOS_POLICY_HISTORY_KEEP_LAST:
      if (in.depth > std::numeric_limits<int32_t>::max()) {
        RMW_SET_ERROR_MSG_WITH_FORMAT_STRING(
          "QoS history depth %zu is too large (at most %d)", in.depth,
          std::numeric_limits<int32_t>::max());
        return RMW_RET_INVALID_ARGUMENT;
      }
      q.history = HDDS_HISTORY_KEEP_LAST;
      q.depth = in.depth == RMW_QOS_POLICY_DEPTH_SYSTEM_DEFAULT ? 1u :
        static_cast<uint32_t>(in.depth);
      break;
    case RMW_QOS_POLICY_HISTORY_KEEP_ALL:
      q.history = HDDS_HISTORY_KEEP_ALL;
      q.depth = 0;
      break;
    default:
      RMW_SET_ERROR_MSG("QoS history is unknown: use KEEP_LAST, KEEP_ALL or SYSTEM_DEFAULT");
      return RMW_RET_INVALID_ARGUMENT;
  }
  switch (in.reliability) {
    case RMW_QOS_POLICY_RELIABILITY_SYSTEM_DEFAULT:
    case RMW_QOS_POLICY_RELIABILITY_RELIABLE:
      q.reliability = HDDS_RELIABILITY_RELIABLE;
      break;
    case RMW_QOS_POLICY_RELIABILITY_BEST_EFFORT:
      q.reliability = HDDS_RELIABILITY_BEST_EFFORT;
      break;
    default:
      RMW_SET_ERROR_MSG(
        "QoS reliability is unknown: use RELIABLE, BEST_EFFORT or SYSTEM_DEFAULT");
      return RMW_RET_INVALID_ARGUMENT;
  }
  switch (in.durability) {
    case RMW_QOS_POLICY_DURABILITY_SYSTEM_DEFAULT:
    case RMW_QOS_POLICY_DURABILITY_VOLATILE:
      q.durability = HDDS_DURABILITY_VOLATILE;
      break;
    case RMW_QOS_POLICY_DURABILITY_TRANSIENT_LOCAL:
      q.durability = HDDS_DURABILITY_TRANSIENT_LOCAL;
      break;
    default:
      RMW_SET_ERROR_MSG(
        "QoS durability is unknown: use VOLATILE, TRANSIENT_LOCAL or SYSTEM_DEFAULT");
      return RMW_RET_INVALID_ARGUMENT;
  }
  switch (static_cast<int>(in.liveliness)) {
    case RMW_QOS_POLICY_LIVELINESS_SYSTEM_DEFAULT:
    case RMW_QOS_POLICY_LIVELINESS_AUTOMATIC:
      q.liveliness = HDDS_LIVELINESS_AUTOMATIC;
      break;
    case RMW_QOS_POLICY_LIVELINESS_MANUAL_BY_TOPIC:
      q.liveliness = HDDS_LIVELINESS_MANUAL_BY_TOPIC;
      break;
    case 2:  // RMW_QOS_POLICY_LIVELINESS_MANUAL_BY_NODE, deprecated (the name warns when used)
      RMW_SET_ERROR_MSG(
        "QoS liveliness MANUAL_BY_NODE is deprecated and not supported: use MANUAL_BY_TOPIC");
      return RMW_RET_INVALID_ARGUMENT;
    default:
      RMW_SET_ERROR_MSG(
        "QoS liveliness is unknown: use AUTOMATIC, MANUAL_BY_TOPIC or SYSTEM_DEFAULT");
      return RMW_RET_INVALID_ARGUMENT;
  }
  q.deadline_ns = duration_policy(in.deadline);
  q.lifespan_ns = duration_policy(in.lifespan);
  q.liveliness_lease_duration_ns = duration_policy(in.liveliness_lease_duration);
  *out = q;
  return RMW_RET_OK;
}

rmw_qos_profile_t qos_from_hdds(const HddsQos & q, const rmw_qos_profile_t * requested)
{
  rmw_qos_profile_t p = rmw_qos_profile_unknown;
  if (q.history == HDDS_HISTORY_KEEP_ALL) {
    p.history = RMW_QOS_POLICY_HISTORY_KEEP_ALL;
    // As rmw_cyclonedds_cpp: depth is meaningless for KEEP_ALL and tools expect a small number.
    p.depth = 0;
  } else {
    p.history = RMW_QOS_POLICY_HISTORY_KEEP_LAST;
    p.depth = q.depth;
  }
  p.reliability = q.reliability == HDDS_RELIABILITY_BEST_EFFORT ?
    RMW_QOS_POLICY_RELIABILITY_BEST_EFFORT : RMW_QOS_POLICY_RELIABILITY_RELIABLE;
  p.durability = q.durability == HDDS_DURABILITY_TRANSIENT_LOCAL ?
    RMW_QOS_POLICY_DURABILITY_TRANSIENT_LOCAL : RMW_QOS_POLICY_DURABILITY_VOLATILE;
  switch (q.liveliness) {
    case HDDS_LIVELINESS_AUTOMATIC:
      p.liveliness = RMW_QOS_POLICY_LIVELINESS_AUTOMATIC;
      break;
    case HDDS_LIVELINESS_MANUAL_BY_TOPIC:
      p.liveliness = RMW_QOS_POLICY_LIVELINESS_MANUAL_BY_TOPIC;
      break;
    default:
      // MANUAL_BY_PARTICIPANT (a remote DDS endpoint's) has no ROS name.
      p.liveliness = RMW_QOS_POLICY_LIVELINESS_UNKNOWN;
      break;
  }
  p.deadline = duration_from_ns(q.deadline_ns);
  p.lifespan = duration_from_ns(q.lifespan_ns);
  p.liveliness_lease_duration = duration_from_ns(q.liveliness_lease_duration_ns);
  p.avoid_ros_namespace_conventions =
    requested != nullptr && requested->avoid_ros_namespace_conventions;
  return p;
}

rmw_ret_t resolve_qos(const rmw_qos_profile_t & requested, rmw_qos_profile_t * actual)
{
  HddsQos q;
  rmw_ret_t ret = qos_to_hdds(requested, &q);
  if (ret == RMW_RET_OK) {
    *actual = qos_from_hdds(q, &requested);
  }
  return ret;
}

rmw_qos_policy_kind_t policy_kind_from_dds(int32_t dds_policy_id)
{
  switch (dds_policy_id) {
    case 2:
      return RMW_QOS_POLICY_DURABILITY;
    case 4:
      return RMW_QOS_POLICY_DEADLINE;
    case 8:
      return RMW_QOS_POLICY_LIVELINESS;
    case 11:
      return RMW_QOS_POLICY_RELIABILITY;
    case 13:
      return RMW_QOS_POLICY_HISTORY;
    case 21:
      return RMW_QOS_POLICY_LIFESPAN;
    default:
      return RMW_QOS_POLICY_INVALID;
  }
}
}  // namespace rmw_hdds
