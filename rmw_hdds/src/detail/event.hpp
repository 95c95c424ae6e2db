// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// QoS events (Humble: liveliness changed/lost, deadline missed, incompatible QoS, message lost)
// over the engine's DDS statuses. Each Publisher and Subscription owns one EventSource (its
// writer's or reader's statuses); an rmw_event_t points to it (rmw_event_fini is rmw's and frees
// nothing, so an event owns nothing) and carries the event type.
//
// Callbacks: the engine calls one status listener per writer/reader, on the thread that changed
// the status; EventSource dispatches it to the callback set for that event type, under a mutex
// (so that once set_callback returns, the old callback is not running). The listener is set
// when the first rmw_event_t of the entity is initialized; changes while no callback is set are
// counted and reported, once, to the next callback set (an untaken change from before counts 1).
#ifndef RMW_HDDS__DETAIL__EVENT_HPP_
#define RMW_HDDS__DETAIL__EVENT_HPP_

#include <cstdint>
#include <mutex>

#include "detail/hdds_handle.hpp"
#include "rmw/event.h"
#include "rmw/event_callback_type.h"

namespace rmw_hdds
{
class EventSource
{
public:
  explicit EventSource(const HddsWriter * writer);
  explicit EventSource(const HddsReader * reader);
  // Clears the engine listener (waits for a running call to return).
  ~EventSource();
  EventSource(const EventSource &) = delete;
  EventSource & operator=(const EventSource &) = delete;

  bool is_reader() const {return reader_ != nullptr;}
  // True if this entity has `type` (reader events for a subscription, writer ones for a
  // publisher).
  bool supports(rmw_event_type_t type) const;

  // rmw_take_event: fills the rmw_*_status_t `info` of `type` and resets its change counters.
  rmw_ret_t take(rmw_event_type_t type, void * info, bool * taken);
  // Starts counting status changes (rmw_*_event_init): a callback set later is told how many
  // happened meanwhile (rclcpp's tests expect every deadline missed since, not just one).
  rmw_ret_t listen();
  rmw_ret_t set_callback(
    rmw_event_type_t type, rmw_event_callback_t callback, const void * user_data);
  // The wait set entry that is ready while `type` has a change not yet taken.
  HddsWaitEntry wait_entry(rmw_event_type_t type) const;

private:
  static constexpr int kSlots = 16;
  struct Slot
  {
    rmw_event_callback_t callback = nullptr;
    const void * user_data = nullptr;
    // Changes no callback has been told about (each is reported once: rclcpp sets a callback
    // twice in a row and counts what it is told); primed once the status before the listener
    // existed has been looked at.
    size_t unreported = 0;
    bool primed = false;
  };
  static void on_status(const void * user, uint32_t status);
  rmw_ret_t listen_locked();  // under mutex_
  bool pending(rmw_event_type_t type);

  const HddsWriter * writer_ = nullptr;
  const HddsReader * reader_ = nullptr;
  std::mutex mutex_;
  Slot slots_[kSlots];   // indexed by status bit number; guarded by mutex_
  bool listening_ = false;  // guarded by mutex_
  WaitSetHandle probe_;  // a wait set for pending(), made at the first set_callback
};

// The HDDS_STATUS_* bit of an event type, 0 for RMW_EVENT_INVALID and unknown values.
uint32_t status_bit(rmw_event_type_t type);
}  // namespace rmw_hdds

#endif  // RMW_HDDS__DETAIL__EVENT_HPP_
