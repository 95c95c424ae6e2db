// Copyright 2026 The rmw_hdds authors. Apache-2.0.
#ifndef RMW_HDDS__DETAIL__IDENTIFIER_HPP_
#define RMW_HDDS__DETAIL__IDENTIFIER_HPP_

namespace rmw_hdds
{
// What every rmw handle created here carries, and what rmw_implementation matches on.
// One object for the whole library (a C++17 inline variable): rmw's
// RMW_CHECK_TYPE_IDENTIFIERS_MATCH compares the pointers, not the strings, and a string literal
// in a header is one object per translation unit unless the linker happens to merge them (it
// does not under AddressSanitizer: every handle from another .cpp was refused).
inline constexpr char kIdentifier[] = "rmw_hdds";
// The only serialization format: XCDR1, as every ROS 2 DDS RMW uses it.
constexpr const char * kSerializationFormat = "cdr";
}  // namespace rmw_hdds

#endif  // RMW_HDDS__DETAIL__IDENTIFIER_HPP_
