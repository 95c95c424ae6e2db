// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// The middleware's log severity, as rmw_set_log_severity last set it (RMW_LOG_SEVERITY_WARN until
// then). Nothing in rmw_hdds logs yet; whatever logs later must drop messages below it.
// Process-wide, thread-safe.
#ifndef RMW_HDDS__DETAIL__LOGGING_HPP_
#define RMW_HDDS__DETAIL__LOGGING_HPP_

#include <atomic>

#include "rmw/types.h"

namespace rmw_hdds
{
inline std::atomic<int> & log_severity_storage()
{
  static std::atomic<int> severity{RMW_LOG_SEVERITY_WARN};
  return severity;
}

inline rmw_log_severity_t log_severity()
{
  return static_cast<rmw_log_severity_t>(log_severity_storage().load(std::memory_order_relaxed));
}

inline void set_log_severity(rmw_log_severity_t severity)
{
  log_severity_storage().store(severity, std::memory_order_relaxed);
}
}  // namespace rmw_hdds

#endif  // RMW_HDDS__DETAIL__LOGGING_HPP_
