// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// An rmw wait set over the engine's HddsWaitSet: one per rmw_wait_set_t, with its own entry
// array reused from wait to wait (no allocation per rmw_wait once it has held that many entries).
// The engine attaches to every entry before it checks readiness, so a sample or trigger arriving
// between the check and the sleep is not lost. One thread at a time waits on a wait set (rmw's
// rule).
//
// For services (rmw-services): Service and Client derive from Waitable and store
// `static_cast<Waitable *>(impl)` in rmw_service_t::data / rmw_client_t::data, so that rmw_wait
// can ask them what to wait on (their reader's data, usually).
#ifndef RMW_HDDS__DETAIL__WAIT_SET_HPP_
#define RMW_HDDS__DETAIL__WAIT_SET_HPP_

#include <vector>

#include "detail/hdds_handle.hpp"
#include "rmw/types.h"

namespace rmw_hdds
{
class Waitable
{
public:
  virtual ~Waitable() = default;
  // The entry rmw_wait gives the engine for this service or client (ready = false).
  virtual HddsWaitEntry wait_entry() const = 0;
};

class WaitSet
{
public:
  // On failure sets the rmw error message and returns nullptr.
  static WaitSet * create();

  // rmw_wait: the arrays hold what rcl puts there, the entities' `data` pointers (Subscription,
  // GuardCondition, Waitable) and, for events, the rmw_event_t itself. Leaves the ready entries
  // in place and sets the others to nullptr.
  // RMW_RET_TIMEOUT when nothing was ready within `timeout` (nullptr: forever; {0, 0}: just
  // check).
  rmw_ret_t wait(
    rmw_subscriptions_t * subscriptions, rmw_guard_conditions_t * guard_conditions,
    rmw_services_t * services, rmw_clients_t * clients, rmw_events_t * events,
    const rmw_time_t * timeout);

private:
  explicit WaitSet(WaitSetHandle handle);

  WaitSetHandle handle_;
  std::vector<HddsWaitEntry> entries_;
};
}  // namespace rmw_hdds

#endif  // RMW_HDDS__DETAIL__WAIT_SET_HPP_
