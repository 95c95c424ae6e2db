// Copyright 2026 The rmw_hdds authors. Apache-2.0.

#include "detail/data_callback.hpp"

#include "detail/hdds_handle.hpp"
#include "rmw/error_handling.h"

namespace rmw_hdds
{
rmw_ret_t DataCallback::set(
  HddsReader * reader, rmw_event_callback_t callback, const void * user_data)
{
  std::lock_guard<std::mutex> lock(mutex_);
  if (!listening_) {
    // The first set: no call of ours can be running, so the engine does not wait on mutex_.
    if (hdds_reader_set_data_listener(reader, &DataCallback::on_data, this) != HDDS_RET_OK) {
      set_hdds_error("cannot set the data listener");
      return RMW_RET_ERROR;
    }
    listening_ = true;
    size_t unread = 0;
    if (hdds_reader_unread_count(reader, &unread) != HDDS_RET_OK) {
      set_hdds_error("cannot count the waiting samples");
      return RMW_RET_ERROR;
    }
    unreported_ = unread;
  }
  callback_ = callback;
  user_data_ = user_data;
  if (callback != nullptr && unreported_ > 0) {
    callback(user_data, unreported_);
    unreported_ = 0;
  }
  return RMW_RET_OK;
}

void DataCallback::stop(HddsReader * reader)
{
  bool listening = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    listening = listening_;
  }
  // Not under mutex_: clearing waits for a running on_data, which takes it.
  if (listening) {
    hdds_reader_set_data_listener(reader, nullptr, nullptr);
  }
}

void DataCallback::on_data(const void * user, size_t count)
{
  engine_callback(
    [&]() {
      auto * self = const_cast<DataCallback *>(static_cast<const DataCallback *>(user));
      std::lock_guard<std::mutex> lock(self->mutex_);
      if (self->callback_ != nullptr) {
        self->callback_(self->user_data_, count);
      } else {
        self->unreported_ += count;
      }
    });
}
}  // namespace rmw_hdds
