// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// ROS QoS profiles (Humble) <-> the engine's HddsQos. Humble's rules, as rmw_cyclonedds_cpp
// applies them (Humble has no BEST_AVAILABLE):
//   SYSTEM_DEFAULT reliability -> RELIABLE, durability -> VOLATILE, liveliness -> AUTOMATIC,
//   history -> KEEP_LAST; depth 0 (RMW_QOS_POLICY_DEPTH_SYSTEM_DEFAULT) with KEEP_LAST -> 1;
//   deadline / lifespan / lease duration UNSPECIFIED ({0, 0}) -> infinite.
//   UNKNOWN values and the deprecated MANUAL_BY_NODE liveliness are refused.
// Services use the same mapping for their request and reply endpoints.
#ifndef RMW_HDDS__DETAIL__QOS_MAPPING_HPP_
#define RMW_HDDS__DETAIL__QOS_MAPPING_HPP_

#include <cstdint>

#include "hdds/hdds.h"
#include "rmw/qos_policy_kind.h"
#include "rmw/ret_types.h"
#include "rmw/time.h"
#include "rmw/types.h"

namespace rmw_hdds
{
// Fills *out; RMW_RET_INVALID_ARGUMENT with a message naming the bad policy otherwise.
rmw_ret_t qos_to_hdds(const rmw_qos_profile_t & in, HddsQos * out);

// The profile the engine really applies (rmw_*_get_actual_qos, graph endpoint info):
// `avoid_ros_namespace_conventions` is copied from `requested`, which may be null.
rmw_qos_profile_t qos_from_hdds(const HddsQos & q, const rmw_qos_profile_t * requested);

// The profile the engine applies for `requested` (qos_to_hdds, then back), for actual QoS.
// Same failures as qos_to_hdds.
rmw_ret_t resolve_qos(const rmw_qos_profile_t & requested, rmw_qos_profile_t * actual);

int64_t duration_to_ns(const rmw_time_t & t);
rmw_time_t duration_from_ns(int64_t ns);

// DDS QosPolicyId_t (DURABILITY 2, DEADLINE 4, LIVELINESS 8, RELIABILITY 11, HISTORY 13,
// LIFESPAN 21) -> the rmw policy kind; RMW_QOS_POLICY_INVALID for the rest.
rmw_qos_policy_kind_t policy_kind_from_dds(int32_t dds_policy_id);
}  // namespace rmw_hdds

#endif  // RMW_HDDS__DETAIL__QOS_MAPPING_HPP_
