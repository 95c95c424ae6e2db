// Copyright 2026 The rmw_hdds authors. Apache-2.0.
#include "detail/wait_set.hpp"

#include <new>
#include <string>
#include <utility>

#include "detail/event.hpp"
#include "detail/guard_condition.hpp"
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

rmw_ret_t WaitSet::wait(
  rmw_subscriptions_t * subscriptions, rmw_guard_conditions_t * guard_conditions,
  rmw_services_t * services, rmw_clients_t * clients, rmw_events_t * events,
  const rmw_time_t * timeout)
{
  const size_t n_sub = subscriptions ? subscriptions->subscriber_count : 0;
  const size_t n_gc = guard_conditions ? guard_conditions->guard_condition_count : 0;
  const size_t n_srv = services ? services->service_count : 0;
  const size_t n_cli = clients ? clients->client_count : 0;
  const size_t n_ev = events ? events->event_count : 0;

  // clear() keeps the capacity and reserve() grows it only when needed: no allocation once the
  // wait set has held this many entries.
  entries_.clear();
  entries_.reserve(n_sub + n_gc + n_srv + n_cli + n_ev);
  if (n_sub) {
    for_each<Subscription>(
      subscriptions->subscribers, n_sub, [this](Subscription * sub) {
        entries_.push_back(entry_of(HDDS_WAIT_READER_DATA, sub->reader()));
      });
  }
  if (n_gc) {
    for_each<GuardCondition>(
      guard_conditions->guard_conditions, n_gc, [this](GuardCondition * gc) {
        entries_.push_back(entry_of(HDDS_WAIT_GUARD, gc->handle()));
      });
  }
  if (n_srv) {
    for_each<Waitable>(
      services->services, n_srv, [this](Waitable * s) {
        entries_.push_back(s->wait_entry());
      });
  }
  if (n_cli) {
    for_each<Waitable>(
      clients->clients, n_cli, [this](Waitable * c) {
        entries_.push_back(c->wait_entry());
      });
  }
  if (n_ev) {
    for_each<rmw_event_t>(
      events->events, n_ev, [this](rmw_event_t * e) {
        entries_.push_back(static_cast<EventSource *>(e->data)->wait_entry(e->event_type));
      });
  }

  const int64_t timeout_ns = timeout == nullptr ? HDDS_DURATION_INFINITE : duration_to_ns(*timeout);
  const HddsRet r = hdds_waitset_wait(handle_.get(), entries_.data(), entries_.size(), timeout_ns);
  if (r != HDDS_RET_OK && r != HDDS_RET_TIMEOUT) {
    RMW_SET_ERROR_MSG(("rmw_hdds: wait failed: " + last_error()).c_str());
    return RMW_RET_ERROR;
  }
  size_t next = 0;
  if (n_sub) {
    keep_ready(subscriptions->subscribers, n_sub, entries_.data(), &next);
  }
  if (n_gc) {
    keep_ready(guard_conditions->guard_conditions, n_gc, entries_.data(), &next);
  }
  if (n_srv) {
    keep_ready(services->services, n_srv, entries_.data(), &next);
  }
  if (n_cli) {
    keep_ready(clients->clients, n_cli, entries_.data(), &next);
  }
  if (n_ev) {
    keep_ready(events->events, n_ev, entries_.data(), &next);
  }
  return r == HDDS_RET_TIMEOUT ? RMW_RET_TIMEOUT : RMW_RET_OK;
}
}  // namespace rmw_hdds
