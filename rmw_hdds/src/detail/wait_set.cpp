// Copyright 2026 The rmw_hdds authors. Apache-2.0.
#include "detail/wait_set.hpp"

#include <new>
#include <string>
#include <utility>

#include "detail/event.hpp"
#include "detail/guard_condition.hpp"
#include "detail/hot.hpp"
#include "detail/qos_mapping.hpp"
#include "detail/subscription.hpp"
#include "rmw/error_handling.h"
#include "rmw/event.h"

namespace rmw_hdds
{
namespace
{
HddsWaitEntry entry_of(uint32_t kind, const void * handle, uint32_t mask = 0)
{
  HddsWaitEntry e{};
  e.kind = kind;
  e.handle = handle;
  e.status_mask = mask;
  e.ready = false;
  return e;
}

// Calls f(entry) for every non-null element of an rmw array of `count` pointers, in order.
template<typename T, typename F>
void for_each(void ** array, size_t count, F && f)
{
  for (size_t i = 0; i < count; ++i) {
    if (array[i] != nullptr) {
      f(static_cast<T *>(array[i]));
    }
  }
}

// Second pass: keeps ready elements, clears the others; `next` walks the entries in the order
// the first pass added them.
void keep_ready(void ** array, size_t count, const HddsWaitEntry * entries, size_t * next)
{
  for (size_t i = 0; i < count; ++i) {
    if (array[i] != nullptr) {
      if (!entries[(*next)++].ready) {
        array[i] = nullptr;
      }
    }
  }
}
}  // namespace

WaitSet::WaitSet(WaitSetHandle handle)
: handle_(std::move(handle))
{
}

WaitSet * WaitSet::create()
{
  HddsWaitSet * raw = nullptr;
  if (hdds_waitset_create(&raw) != HDDS_RET_OK) {
    RMW_SET_ERROR_MSG(("rmw_hdds: cannot create the wait set: " + last_error()).c_str());
    return nullptr;
  }
  WaitSetHandle handle(raw);
  auto * ws = new (std::nothrow) WaitSet(std::move(handle));
  if (ws == nullptr) {
    RMW_SET_ERROR_MSG("rmw_hdds: out of memory creating the wait set");
  }
  return ws;
}

RMW_HDDS_HOT rmw_ret_t WaitSet::wait(
  rmw_subscriptions_t * subscriptions, rmw_guard_conditions_t * guard_conditions,
  rmw_services_t * services, rmw_clients_t * clients, rmw_events_t * events,
  const rmw_time_t * timeout)
{
  const size_t n_sub = subscriptions ? subscriptions->subscriber_count : 0;
  const size_t n_gc = guard_conditions ? guard_conditions->guard_condition_count : 0;
  const size_t n_srv = services ? services->service_count : 0;
  const size_t n_cli = clients ? clients->client_count : 0;
  const size_t n_ev = events ? events->event_count : 0;

  // The array only grows (no allocation once the wait set has held this many entries); entries
  // are written in place, not pushed: rmw_wait runs twice per sample in an executor (rclcpp
  // triggers its interrupt guard condition after every callback, which ends the next wait at once).
  const size_t most = n_sub + n_gc + n_srv + n_cli + n_ev;
  if (entries_.size() < most) {
    entries_.resize(most);
  }
  HddsWaitEntry * out = entries_.data();
  size_t n = 0;
  if (n_sub) {
    for_each<Subscription>(
      subscriptions->subscribers, n_sub, [out, &n](Subscription * sub) {
        out[n++] = entry_of(HDDS_WAIT_READER_DATA, sub->reader());
      });
  }
  if (n_gc) {
    for_each<GuardCondition>(
      guard_conditions->guard_conditions, n_gc, [out, &n](GuardCondition * gc) {
        out[n++] = entry_of(HDDS_WAIT_GUARD, gc->handle());
      });
  }
  if (n_srv) {
    for_each<Waitable>(
      services->services, n_srv, [out, &n](Waitable * s) {
        out[n++] = s->wait_entry();
      });
  }
  if (n_cli) {
    for_each<Waitable>(
      clients->clients, n_cli, [out, &n](Waitable * c) {
        out[n++] = c->wait_entry();
      });
  }
  if (n_ev) {
    for_each<rmw_event_t>(
      events->events, n_ev, [out, &n](rmw_event_t * e) {
        out[n++] = static_cast<EventSource *>(e->data)->wait_entry(e->event_type);
      });
  }

  const int64_t timeout_ns = timeout == nullptr ? HDDS_DURATION_INFINITE : duration_to_ns(*timeout);
  const HddsRet r = hdds_waitset_wait(handle_.get(), out, n, timeout_ns);
  if (r != HDDS_RET_OK && r != HDDS_RET_TIMEOUT) {
    RMW_SET_ERROR_MSG(("rmw_hdds: wait failed: " + last_error()).c_str());
    return RMW_RET_ERROR;
  }
  size_t next = 0;
  if (n_sub) {
    keep_ready(subscriptions->subscribers, n_sub, out, &next);
  }
  if (n_gc) {
    keep_ready(guard_conditions->guard_conditions, n_gc, out, &next);
  }
  if (n_srv) {
    keep_ready(services->services, n_srv, out, &next);
  }
  if (n_cli) {
    keep_ready(clients->clients, n_cli, out, &next);
  }
  if (n_ev) {
    keep_ready(events->events, n_ev, out, &next);
  }
  return r == HDDS_RET_TIMEOUT ? RMW_RET_TIMEOUT : RMW_RET_OK;
}
}  // namespace rmw_hdds
