// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// Wait sets and rmw_wait.

#include "detail/context.hpp"
#include "detail/hot.hpp"
#include "detail/identifier.hpp"
#include "detail/wait_set.hpp"
#include "rmw/allocators.h"
#include "rmw/error_handling.h"
#include "rmw/impl/cpp/macros.hpp"
#include "rmw/rmw.h"

extern "C" {

rmw_wait_set_t *
rmw_create_wait_set(rmw_context_t * context, size_t max_conditions)
{
  // max_conditions is a hint: the wait set grows to what rmw_wait is given.
  (void)max_conditions;
  RMW_CHECK_ARGUMENT_FOR_NULL(context, nullptr);
  RMW_CHECK_TYPE_IDENTIFIERS_MATCH(
    context, context->implementation_identifier, rmw_hdds::kIdentifier, return nullptr);
  RMW_CHECK_FOR_NULL_WITH_MSG(context->impl, "expected initialized context", return nullptr);
  rmw_hdds::WaitSet * impl = rmw_hdds::WaitSet::create();
  if (impl == nullptr) {
    return nullptr;
  }
  rmw_wait_set_t * ws = rmw_wait_set_allocate();
  if (ws == nullptr) {
    delete impl;
    RMW_SET_ERROR_MSG("out of memory creating the wait set");
    return nullptr;
  }
  ws->implementation_identifier = rmw_hdds::kIdentifier;
  ws->guard_conditions = nullptr;
  ws->data = impl;
  return ws;
}

rmw_ret_t
rmw_destroy_wait_set(rmw_wait_set_t * wait_set)
{
  // RMW_RET_ERROR, not INVALID_ARGUMENT: what Humble's RMWs return and its API tests expect.
  RMW_CHECK_ARGUMENT_FOR_NULL(wait_set, RMW_RET_ERROR);
  RMW_CHECK_TYPE_IDENTIFIERS_MATCH(
    wait_set, wait_set->implementation_identifier, rmw_hdds::kIdentifier,
    return RMW_RET_INCORRECT_RMW_IMPLEMENTATION);
  delete static_cast<rmw_hdds::WaitSet *>(wait_set->data);
  rmw_wait_set_free(wait_set);
  return RMW_RET_OK;
}

RMW_HDDS_HOT rmw_ret_t
rmw_wait(
  rmw_subscriptions_t * subscriptions, rmw_guard_conditions_t * guard_conditions,
  rmw_services_t * services, rmw_clients_t * clients, rmw_events_t * events,
  rmw_wait_set_t * wait_set, const rmw_time_t * wait_timeout)
{
  RMW_CHECK_ARGUMENT_FOR_NULL(wait_set, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_TYPE_IDENTIFIERS_MATCH(
    wait_set, wait_set->implementation_identifier, rmw_hdds::kIdentifier,
    return RMW_RET_INCORRECT_RMW_IMPLEMENTATION);
  return static_cast<rmw_hdds::WaitSet *>(wait_set->data)->wait(
    subscriptions, guard_conditions, services, clients, events, wait_timeout);
}

}  // extern "C"
