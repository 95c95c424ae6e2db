// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// Network flow endpoints (rmw_publisher/subscription_get_network_flow_endpoints) from the
// engine's locators: a subscription reports where it receives (the participant's user unicast
// port on each interface), a publisher where it sends from (the participant's send socket), as
// rmw_fastrtps_cpp reports listening and sending locators. Every endpoint of a context shares
// them: unique network flow endpoints are not offered (a publisher or subscription that
// STRICTLY_REQUIRES them is refused at creation; OPTIONALLY_REQUIRED gets the shared ones).
#ifndef RMW_HDDS__DETAIL__NETWORK_FLOW_HPP_
#define RMW_HDDS__DETAIL__NETWORK_FLOW_HPP_

#include "detail/hdds_handle.hpp"
#include "rcutils/allocator.h"
#include "rmw/network_flow_endpoint_array.h"
#include "rmw/ret_types.h"

namespace rmw_hdds
{
// Fills `out` (which must be zero-initialized) using `allocator`; leaves it empty when the
// context has no network (none to report). RMW_RET_INVALID_ARGUMENT (message set) for a null or
// non-zero `out` or an invalid allocator; RMW_RET_BAD_ALLOC; RMW_RET_ERROR if the engine fails.
rmw_ret_t writer_network_flow_endpoints(
  const HddsWriter * writer, rcutils_allocator_t * allocator,
  rmw_network_flow_endpoint_array_t * out);
rmw_ret_t reader_network_flow_endpoints(
  const HddsReader * reader, rcutils_allocator_t * allocator,
  rmw_network_flow_endpoint_array_t * out);
}  // namespace rmw_hdds

#endif  // RMW_HDDS__DETAIL__NETWORK_FLOW_HPP_
