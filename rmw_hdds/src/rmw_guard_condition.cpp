// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// Guard conditions.

#include "detail/context.hpp"
#include "detail/guard_condition.hpp"
#include "detail/hot.hpp"
#include "detail/identifier.hpp"
#include "rmw/error_handling.h"
#include "rmw/impl/cpp/macros.hpp"
#include "rmw/rmw.h"

extern "C" {

rmw_guard_condition_t *
rmw_create_guard_condition(rmw_context_t * context)
{
  RMW_CHECK_ARGUMENT_FOR_NULL(context, nullptr);
  RMW_CHECK_TYPE_IDENTIFIERS_MATCH(
    context, context->implementation_identifier, rmw_hdds::kIdentifier, return nullptr);
  RMW_CHECK_FOR_NULL_WITH_MSG(context->impl, "expected initialized context", return nullptr);
  return rmw_hdds::create_rmw_guard_condition(context);
}

rmw_ret_t
rmw_destroy_guard_condition(rmw_guard_condition_t * guard_condition)
{
  RMW_CHECK_ARGUMENT_FOR_NULL(guard_condition, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_TYPE_IDENTIFIERS_MATCH(
    guard_condition, guard_condition->implementation_identifier, rmw_hdds::kIdentifier,
    return RMW_RET_INCORRECT_RMW_IMPLEMENTATION);
  rmw_hdds::destroy_rmw_guard_condition(guard_condition);
  return RMW_RET_OK;
}

RMW_HDDS_HOT rmw_ret_t
rmw_trigger_guard_condition(const rmw_guard_condition_t * guard_condition)
{
  RMW_CHECK_ARGUMENT_FOR_NULL(guard_condition, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_TYPE_IDENTIFIERS_MATCH(
    guard_condition, guard_condition->implementation_identifier, rmw_hdds::kIdentifier,
    return RMW_RET_INCORRECT_RMW_IMPLEMENTATION);
  return static_cast<const rmw_hdds::GuardCondition *>(guard_condition->data)->trigger();
}

}  // extern "C"
