// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// GUIDs (16 bytes, what the engine and RTPS use) as rmw_gid_t (24 bytes on Humble: the GUID,
// then zeros, as rmw_cyclonedds_cpp and rmw_fastrtps_cpp fill it, so gids compare equal across
// RMWs in ros_discovery_info).
#ifndef RMW_HDDS__DETAIL__GID_HPP_
#define RMW_HDDS__DETAIL__GID_HPP_

#include <array>
#include <cstdint>
#include <cstring>

#include "detail/identifier.hpp"
#include "rmw/types.h"

namespace rmw_hdds
{
using Guid = std::array<uint8_t, 16>;

// The 12-byte prefix every entity of one participant shares.
constexpr size_t kGuidPrefixSize = 12;

inline rmw_gid_t gid_from_guid(const uint8_t guid[16])
{
  rmw_gid_t gid{};
  gid.implementation_identifier = kIdentifier;
  static_assert(RMW_GID_STORAGE_SIZE >= 16, "rmw_gid_t holds a 16-byte GUID");
  std::memcpy(gid.data, guid, 16);
  return gid;
}

inline rmw_gid_t gid_from_guid(const Guid & guid) {return gid_from_guid(guid.data());}

inline bool same_participant(const uint8_t a[16], const uint8_t b[16])
{
  return std::memcmp(a, b, kGuidPrefixSize) == 0;
}
}  // namespace rmw_hdds

#endif  // RMW_HDDS__DETAIL__GID_HPP_
