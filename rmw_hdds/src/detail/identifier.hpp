// Copyright 2026 The rmw_hdds authors. Apache-2.0.
#ifndef RMW_HDDS__DETAIL__IDENTIFIER_HPP_
#define RMW_HDDS__DETAIL__IDENTIFIER_HPP_

namespace rmw_hdds
{
// What every rmw handle created here carries, and what rmw_implementation matches on.
// rmw's RMW_CHECK_TYPE_IDENTIFIERS_MATCH compares the pointers, not the strings, so the identifier
// must have one address in the whole library: an inline variable does (a `constexpr const char *`
// to a literal is one pointer per translation unit, equal only if the linker merges the literals,
// which it does not under ASan).
inline constexpr char kIdentifier[] = "rmw_hdds";
// The only serialization format: XCDR1, as every ROS 2 DDS RMW uses it.
inline constexpr char kSerializationFormat[] = "cdr";
}  // namespace rmw_hdds

#endif  // RMW_HDDS__DETAIL__IDENTIFIER_HPP_
