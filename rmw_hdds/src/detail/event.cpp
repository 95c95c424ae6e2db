// Copyright 2026 The rmw_hdds authors. Apache-2.0.
#include "detail/event.hpp"

#include <string>

#include "detail/hot.hpp"
#include "detail/qos_mapping.hpp"
#include "rmw/error_handling.h"
#include "rmw/events_statuses/events_statuses.h"

namespace rmw_hdds
{
namespace
{
int bit_index(uint32_t bit)
{
  int i = 0;
  while (bit > 1u) {
    bit >>= 1;
    ++i;
  }
  return i;
}

bool is_reader_event(rmw_event_type_t type)
{
  switch (type) {
    case RMW_EVENT_LIVELINESS_CHANGED:
    case RMW_EVENT_REQUESTED_DEADLINE_MISSED:
    case RMW_EVENT_REQUESTED_QOS_INCOMPATIBLE:
    case RMW_EVENT_MESSAGE_LOST:
      return true;
    default:
      return false;
  }
}
}  // namespace

uint32_t status_bit(rmw_event_type_t type)
{
  switch (type) {
    case RMW_EVENT_LIVELINESS_CHANGED:
      return HDDS_STATUS_LIVELINESS_CHANGED;
    case RMW_EVENT_REQUESTED_DEADLINE_MISSED:
      return HDDS_STATUS_REQUESTED_DEADLINE_MISSED;
    case RMW_EVENT_REQUESTED_QOS_INCOMPATIBLE:
      return HDDS_STATUS_REQUESTED_INCOMPATIBLE_QOS;
    case RMW_EVENT_MESSAGE_LOST:
      return HDDS_STATUS_SAMPLE_LOST;
    case RMW_EVENT_LIVELINESS_LOST:
      return HDDS_STATUS_LIVELINESS_LOST;
    case RMW_EVENT_OFFERED_DEADLINE_MISSED:
      return HDDS_STATUS_OFFERED_DEADLINE_MISSED;
    case RMW_EVENT_OFFERED_QOS_INCOMPATIBLE:
      return HDDS_STATUS_OFFERED_INCOMPATIBLE_QOS;
    default:
      return 0;
  }
}

EventSource::EventSource(const HddsWriter * writer)
: writer_(writer)
{
}

EventSource::EventSource(const HddsReader * reader)
: reader_(reader)
{
}

EventSource::~EventSource()
{
  // Not under mutex_: clearing waits for a running on_status, which takes it. No set_callback
  // can run concurrently with the entity's destruction.
  if (listening_) {
    if (reader_ != nullptr) {
      hdds_reader_set_status_listener(reader_, nullptr, nullptr);
    } else {
      hdds_writer_set_status_listener(writer_, nullptr, nullptr);
    }
  }
}

bool EventSource::supports(rmw_event_type_t type) const
{
  return status_bit(type) != 0 && is_reader_event(type) == is_reader();
}

RMW_HDDS_HOT HddsWaitEntry EventSource::wait_entry(rmw_event_type_t type) const
{
  HddsWaitEntry entry{};
  entry.kind = is_reader() ? HDDS_WAIT_READER_STATUS : HDDS_WAIT_WRITER_STATUS;
  entry.handle = is_reader() ? static_cast<const void *>(reader_) :
    static_cast<const void *>(writer_);
  entry.status_mask = status_bit(type);
  entry.ready = false;
  return entry;
}

rmw_ret_t EventSource::take(rmw_event_type_t type, void * info, bool * taken)
{
  *taken = false;
  if (!supports(type)) {
    RMW_SET_ERROR_MSG_WITH_FORMAT_STRING(
      "event type %d does not belong to a %s", static_cast<int>(type),
      is_reader() ? "subscription" : "publisher");
    return RMW_RET_INVALID_ARGUMENT;
  }
  HddsStatus s{};
  const HddsRet r = is_reader() ?
    hdds_reader_get_status(reader_, status_bit(type), &s) :
    hdds_writer_get_status(writer_, status_bit(type), &s);
  if (r != HDDS_RET_OK) {
    RMW_SET_ERROR_MSG(("rmw_hdds: cannot read the status: " + last_error()).c_str());
    return RMW_RET_ERROR;
  }
  switch (type) {
    case RMW_EVENT_LIVELINESS_CHANGED: {
        // The engine keeps alive_count in current_count and not_alive_count in total_count.
        auto * out = static_cast<rmw_liveliness_changed_status_t *>(info);
        out->alive_count = s.current_count;
        out->alive_count_change = s.current_count_change;
        out->not_alive_count = s.total_count;
        out->not_alive_count_change = s.total_count_change;
        break;
      }
    case RMW_EVENT_REQUESTED_DEADLINE_MISSED: {
        auto * out = static_cast<rmw_requested_deadline_missed_status_t *>(info);
        out->total_count = s.total_count;
        out->total_count_change = s.total_count_change;
        break;
      }
    case RMW_EVENT_OFFERED_DEADLINE_MISSED: {
        auto * out = static_cast<rmw_offered_deadline_missed_status_t *>(info);
        out->total_count = s.total_count;
        out->total_count_change = s.total_count_change;
        break;
      }
    case RMW_EVENT_LIVELINESS_LOST: {
        auto * out = static_cast<rmw_liveliness_lost_status_t *>(info);
        out->total_count = s.total_count;
        out->total_count_change = s.total_count_change;
        break;
      }
    case RMW_EVENT_REQUESTED_QOS_INCOMPATIBLE:
    case RMW_EVENT_OFFERED_QOS_INCOMPATIBLE: {
        auto * out = static_cast<rmw_qos_incompatible_event_status_t *>(info);
        out->total_count = s.total_count;
        out->total_count_change = s.total_count_change;
        out->last_policy_kind = policy_kind_from_dds(s.last_policy_id);
        break;
      }
    case RMW_EVENT_MESSAGE_LOST: {
        auto * out = static_cast<rmw_message_lost_status_t *>(info);
        out->total_count = static_cast<size_t>(s.total_count < 0 ? 0 : s.total_count);
        out->total_count_change =
          static_cast<size_t>(s.total_count_change < 0 ? 0 : s.total_count_change);
        break;
      }
    default:
      break;  // excluded by supports()
  }
  *taken = true;
  return RMW_RET_OK;
}

bool EventSource::pending(rmw_event_type_t type)
{
  if (!probe_) {
    HddsWaitSet * ws = nullptr;
    if (hdds_waitset_create(&ws) != HDDS_RET_OK) {
      return false;
    }
    probe_.reset(ws);
  }
  HddsWaitEntry entry = wait_entry(type);
  return hdds_waitset_wait(probe_.get(), &entry, 1, 0) == HDDS_RET_OK && entry.ready;
}

rmw_ret_t EventSource::listen()
{
  std::lock_guard<std::mutex> lock(mutex_);
  return listen_locked();
}

rmw_ret_t EventSource::listen_locked()
{
  if (listening_) {
    return RMW_RET_OK;
  }
  // The first call: no on_status of ours can be running, so the engine does not wait on mutex_.
  const HddsRet r = is_reader() ?
    hdds_reader_set_status_listener(reader_, &EventSource::on_status, this) :
    hdds_writer_set_status_listener(writer_, &EventSource::on_status, this);
  if (r != HDDS_RET_OK) {
    RMW_SET_ERROR_MSG(("rmw_hdds: cannot set the status listener: " + last_error()).c_str());
    return RMW_RET_ERROR;
  }
  listening_ = true;
  return RMW_RET_OK;
}

rmw_ret_t EventSource::set_callback(
  rmw_event_type_t type, rmw_event_callback_t callback, const void * user_data)
{
  if (!supports(type)) {
    RMW_SET_ERROR_MSG_WITH_FORMAT_STRING(
      "event type %d does not belong to a %s", static_cast<int>(type),
      is_reader() ? "subscription" : "publisher");
    return RMW_RET_INVALID_ARGUMENT;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (listen_locked() != RMW_RET_OK) {
    return RMW_RET_ERROR;
  }
  Slot & slot = slots_[bit_index(status_bit(type))];
  if (!slot.primed) {
    // The listener counts changes from the event's creation on; a change from before it, still
    // untaken, counts once.
    slot.primed = true;
    if (slot.unreported == 0 && pending(type)) {
      slot.unreported = 1;
    }
  }
  slot.callback = callback;
  slot.user_data = user_data;
  // Under mutex_: a change arriving now is reported after this one, by on_status.
  if (callback != nullptr && slot.unreported > 0) {
    callback(user_data, slot.unreported);
    slot.unreported = 0;
  }
  return RMW_RET_OK;
}

void EventSource::on_status(const void * user, uint32_t status)
{
  engine_callback(
    [&]() {
      auto * self = const_cast<EventSource *>(static_cast<const EventSource *>(user));
      const int i = bit_index(status);
      if (status == 0 || i >= kSlots) {
        return;
      }
      std::lock_guard<std::mutex> lock(self->mutex_);
      Slot & slot = self->slots_[i];
      if (slot.callback != nullptr) {
        slot.callback(slot.user_data, 1);
      } else {
        ++slot.unreported;
      }
    });
}
}  // namespace rmw_hdds
