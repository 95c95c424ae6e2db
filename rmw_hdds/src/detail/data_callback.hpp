// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// A reader's "new data" callback as rmw_subscription_set_on_new_message_callback (and the service
// and client variants) set it: the engine's data listener starts at the first set, and every
// sample is reported exactly once. What arrived before the first set, or while no callback was
// set, is reported when one is set (rclcpp sets a callback twice in a row and counts what it is
// told; a sample arriving during the first set can be counted twice, never missed).
//
// Thread model: the engine calls on_data on its delivering thread with no engine lock held; one
// mutex guards the callback and the count of unreported samples. The owner calls stop() before
// its reader goes: clearing the listener waits for a running on_data, so stop() must not hold
// that mutex (it does not).
#ifndef RMW_HDDS__DETAIL__DATA_CALLBACK_HPP_
#define RMW_HDDS__DETAIL__DATA_CALLBACK_HPP_

#include <cstddef>
#include <mutex>

#include "hdds/hdds.h"
#include "rmw/event_callback_type.h"
#include "rmw/ret_types.h"

namespace rmw_hdds
{
class DataCallback
{
public:
  DataCallback() = default;
  DataCallback(const DataCallback &) = delete;
  DataCallback & operator=(const DataCallback &) = delete;

  // Sets (or, with nullptr, clears) the callback of `reader`'s new samples; this object must stay
  // where it is until stop(). RMW_RET_ERROR (message set) if the engine refuses the listener.
  rmw_ret_t set(HddsReader * reader, rmw_event_callback_t callback, const void * user_data);
  // Stops the engine's listener of `reader` if set() started it.
  void stop(HddsReader * reader);

private:
  static void on_data(const void * user, size_t count);

  std::mutex mutex_;
  rmw_event_callback_t callback_ = nullptr;  // guarded by mutex_
  const void * user_data_ = nullptr;  // guarded by mutex_
  bool listening_ = false;  // guarded by mutex_
  size_t unreported_ = 0;  // guarded by mutex_
};
}  // namespace rmw_hdds

#endif  // RMW_HDDS__DETAIL__DATA_CALLBACK_HPP_
