// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// What the implementation is: its identifier, serialization format, optional features, and how
// its gids compare.

#include <cstring>

#include "detail/identifier.hpp"
#include "rmw/error_handling.h"
#include "rmw/features.h"
#include "rmw/impl/cpp/macros.hpp"
#include "rmw/rmw.h"

extern "C" {

const char *
rmw_get_implementation_identifier(void)
{
  return rmw_hdds::kIdentifier;
}

const char *
rmw_get_serialization_format(void)
{
  return rmw_hdds::kSerializationFormat;
}

bool
rmw_feature_supported(rmw_feature_t feature)
{
  switch (feature) {
    case RMW_FEATURE_MESSAGE_INFO_PUBLICATION_SEQUENCE_NUMBER:
      // The writer's RTPS sequence number: one per publish, so gaps count what was not received.
      return true;
    case RMW_FEATURE_MESSAGE_INFO_RECEPTION_SEQUENCE_NUMBER:
      // Not counted: samples a KEEP_LAST history overwrites never reach the RMW layer to be
      // numbered, so the count would not be the reception order rmw asks for.
    default:
      return false;
  }
}

rmw_ret_t
rmw_compare_gids_equal(const rmw_gid_t * gid1, const rmw_gid_t * gid2, bool * result)
{
  RMW_CHECK_ARGUMENT_FOR_NULL(gid1, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_TYPE_IDENTIFIERS_MATCH(
    gid1, gid1->implementation_identifier, rmw_hdds::kIdentifier,
    return RMW_RET_INCORRECT_RMW_IMPLEMENTATION);
  RMW_CHECK_ARGUMENT_FOR_NULL(gid2, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_TYPE_IDENTIFIERS_MATCH(
    gid2, gid2->implementation_identifier, rmw_hdds::kIdentifier,
    return RMW_RET_INCORRECT_RMW_IMPLEMENTATION);
  RMW_CHECK_ARGUMENT_FOR_NULL(result, RMW_RET_INVALID_ARGUMENT);
  *result = std::memcmp(gid1->data, gid2->data, sizeof(gid1->data)) == 0;
  return RMW_RET_OK;
}

}  // extern "C"
