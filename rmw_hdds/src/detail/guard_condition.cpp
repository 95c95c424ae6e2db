// Copyright 2026 The rmw_hdds authors. Apache-2.0.
#include "detail/guard_condition.hpp"

#include <new>
#include <string>
#include <utility>

#include "detail/context.hpp"
#include "detail/hot.hpp"
#include "detail/identifier.hpp"
#include "rmw/allocators.h"
#include "rmw/error_handling.h"

namespace rmw_hdds
{
GuardCondition::GuardCondition(GuardConditionHandle handle)
: handle_(std::move(handle))
{
}

GuardCondition * GuardCondition::create(const HddsParticipant * participant)
{
  HddsGuardCondition * raw = nullptr;
  if (hdds_guard_condition_create(participant, &raw) != HDDS_RET_OK) {
    RMW_SET_ERROR_MSG(("rmw_hdds: cannot create a guard condition: " + last_error()).c_str());
    return nullptr;
  }
  GuardConditionHandle handle(raw);
  auto * gc = new (std::nothrow) GuardCondition(std::move(handle));
  if (gc == nullptr) {
    RMW_SET_ERROR_MSG("rmw_hdds: out of memory creating a guard condition");
  }
  return gc;
}

RMW_HDDS_HOT rmw_ret_t GuardCondition::trigger() const
{
  if (hdds_guard_condition_trigger(handle_.get()) != HDDS_RET_OK) {
    RMW_SET_ERROR_MSG(("rmw_hdds: cannot trigger the guard condition: " + last_error()).c_str());
    return RMW_RET_ERROR;
  }
  return RMW_RET_OK;
}

rmw_guard_condition_t * create_rmw_guard_condition(rmw_context_t * context)
{
  GuardCondition * impl = GuardCondition::create(context->impl->context->participant());
  if (impl == nullptr) {
    return nullptr;
  }
  rmw_guard_condition_t * gc = rmw_guard_condition_allocate();
  if (gc == nullptr) {
    delete impl;
    RMW_SET_ERROR_MSG("rmw_hdds: out of memory creating a guard condition");
    return nullptr;
  }
  gc->implementation_identifier = kIdentifier;
  gc->data = impl;
  gc->context = context;
  return gc;
}

void destroy_rmw_guard_condition(rmw_guard_condition_t * gc)
{
  if (gc != nullptr) {
    delete static_cast<GuardCondition *>(gc->data);
    rmw_guard_condition_free(gc);
  }
}
}  // namespace rmw_hdds
