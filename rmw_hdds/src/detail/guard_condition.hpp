// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// An rmw guard condition: the engine's HddsGuardCondition, a flag that trigger() sets and that
// the wait set which finds it set resets (rmw semantics). Nodes use one as their graph guard
// condition, triggered by the Graph.
#ifndef RMW_HDDS__DETAIL__GUARD_CONDITION_HPP_
#define RMW_HDDS__DETAIL__GUARD_CONDITION_HPP_

#include "detail/hdds_handle.hpp"
#include "rmw/types.h"

namespace rmw_hdds
{
class GuardCondition
{
public:
  // On failure sets the rmw error message and returns nullptr. A trigger that wakes a sleeping
  // wait yields the CPU to it as the participant's publishes do (wait.yield_after_wake).
  static GuardCondition * create(const HddsParticipant * participant);

  // Thread-safe: wakes every wait set waiting on it.
  rmw_ret_t trigger() const;
  const HddsGuardCondition * handle() const {return handle_.get();}

private:
  explicit GuardCondition(GuardConditionHandle handle);
  GuardConditionHandle handle_;
};

// rmw_guard_condition_t around a new GuardCondition (data points to it); nullptr + error message
// on failure. Freed with destroy_rmw_guard_condition.
rmw_guard_condition_t * create_rmw_guard_condition(rmw_context_t * context);
void destroy_rmw_guard_condition(rmw_guard_condition_t * gc);
}  // namespace rmw_hdds

#endif  // RMW_HDDS__DETAIL__GUARD_CONDITION_HPP_
