// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// The entry points of Humble's RMW API that rmw_hdds does not implement yet. Each one fails
// loudly: RMW_RET_UNSUPPORTED (or NULL / false where the API returns a pointer or a bool) with an
// error message naming the function, so a user sees at once what is missing. Entry points leave
// this file, one API area at a time, as the RMW layer lands (see README, "What does not work yet").

#include "rmw/error_handling.h"
#include "rmw/event.h"
#include "rmw/features.h"
#include "rmw/get_network_flow_endpoints.h"
#include "rmw/get_node_info_and_types.h"
#include "rmw/get_service_names_and_types.h"
#include "rmw/get_topic_endpoint_info.h"
#include "rmw/get_topic_names_and_types.h"
#include "rmw/qos_profiles.h"
#include "rmw/rmw.h"

#define HDDS_NOT_YET(function, failure) \
  RMW_SET_ERROR_MSG("rmw_hdds: " #function " is not implemented yet"); \
  return failure

extern "C" {

rmw_ret_t
rmw_set_log_severity(rmw_log_severity_t)
{
  HDDS_NOT_YET(rmw_set_log_severity, RMW_RET_UNSUPPORTED);
}

}  // extern "C"
