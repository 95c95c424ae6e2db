// Copyright 2026 The rmw_hdds authors. Apache-2.0.
#ifndef RMW_HDDS__DETAIL__IDENTIFIER_HPP_
#define RMW_HDDS__DETAIL__IDENTIFIER_HPP_

namespace rmw_hdds
{
// What every rmw handle created here carries, and what rmw_implementation matches on.
constexpr const char * kIdentifier = "rmw_hdds";
// The only serialization format: XCDR1, as every ROS 2 DDS RMW uses it.
constexpr const char * kSerializationFormat = "cdr";
}  // namespace rmw_hdds

#endif  // RMW_HDDS__DETAIL__IDENTIFIER_HPP_
