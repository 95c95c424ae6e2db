// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// rmw_set_log_severity. Neither rmw_hdds nor its engine writes log output today (failures reach
// the caller through rmw's error state, and engine threads must not log, DESIGN.md section 4):
// the severity is validated and recorded (detail/logging.hpp) for the logging to come.

#include "detail/logging.hpp"
#include "rmw/error_handling.h"
#include "rmw/rmw.h"

extern "C" {

rmw_ret_t
rmw_set_log_severity(rmw_log_severity_t severity)
{
  switch (severity) {
    case RMW_LOG_SEVERITY_DEBUG:
    case RMW_LOG_SEVERITY_INFO:
    case RMW_LOG_SEVERITY_WARN:
    case RMW_LOG_SEVERITY_ERROR:
    case RMW_LOG_SEVERITY_FATAL:
      rmw_hdds::set_log_severity(severity);
      return RMW_RET_OK;
  }
  RMW_SET_ERROR_MSG_WITH_FORMAT_STRING(
    "rmw_set_log_severity: %d is not a severity: use RMW_LOG_SEVERITY_DEBUG, _INFO, _WARN, "
    "_ERROR or _FATAL", static_cast<int>(severity));
  return RMW_RET_INVALID_ARGUMENT;
}

}  // extern "C"
