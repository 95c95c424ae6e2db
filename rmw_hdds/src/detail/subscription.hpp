// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// A ROS subscription: one DDS reader on the mangled topic with the mapped QoS, registered under
// its node in the graph. take*() run on the caller's thread: the engine shows the sample's CDR
// bytes in place (hdds_reader_take_with: no copy, no handle allocated), deserialized straight
// into the caller's message.
//
// The new-message callback (rmw_subscription_set_on_new_message_callback) is called by the
// engine's data listener on the thread that delivered the sample (detail/data_callback.hpp: once
// the setter returns, the old callback is not running; samples already waiting when a callback is
// set are reported to it at once, with their count).
#ifndef RMW_HDDS__DETAIL__SUBSCRIPTION_HPP_
#define RMW_HDDS__DETAIL__SUBSCRIPTION_HPP_

#include <memory>
#include <mutex>
#include <string>

#include "detail/content_filter.hpp"
#include "detail/data_callback.hpp"
#include "detail/event.hpp"
#include "detail/hdds_handle.hpp"
#include "detail/loans.hpp"
#include "detail/type_support.hpp"
#include "rmw/event_callback_type.h"
#include "rmw/message_sequence.h"
#include "rmw/subscription_content_filter_options.h"
#include "rmw/types.h"

namespace rmw_hdds
{
class Node;

// Message info from the engine's sample info (used by services for their requests too):
// timestamps, the publication sequence number, the 24-byte publisher gid holding the writer's
// GUID. from_intra_process is always false: in ROS 2 it means "delivered by rclcpp's
// intra-process manager" (rclcpp sets it there, and resets it before taking from the RMW), and a
// sample the RMW delivers, even from a writer of the same participant, did not come that way.
void fill_message_info(const HddsSampleInfo & info, rmw_message_info_t * out);

class Subscription
{
public:
  // The caller checked the pointers; topic name, QoS, type support and options are checked here.
  // On failure sets the rmw error message and returns nullptr.
  static Subscription * create(
    Node & node, const rosidl_message_type_support_t * type_support, const char * topic_name,
    const rmw_qos_profile_t & qos, const rmw_subscription_options_t & options);
  ~Subscription();
  Subscription(const Subscription &) = delete;
  Subscription & operator=(const Subscription &) = delete;

  // Thread-safe. *taken = false and RMW_RET_OK when nothing is waiting. `info` may be null.
  rmw_ret_t take(void * ros_message, rmw_message_info_t * info, bool * taken);
  rmw_ret_t take_serialized(
    rmw_serialized_message_t * message, rmw_message_info_t * info, bool * taken);
  rmw_ret_t take_sequence(
    size_t count, rmw_message_sequence_t * messages, rmw_message_info_sequence_t * infos,
    size_t * taken);
  rmw_ret_t matched_count(size_t * count) const;

  // Loans, for fixed-size types only (can_loan() false otherwise; see detail/loans.hpp).
  bool can_loan() const {return loans_ != nullptr;}
  // As take, into a loan put in *msg (for return_loan) when *taken: the message where it lies in
  // its same-host writer's shared-memory ring when MessageTypeSupport::in_place allows (zero copy,
  // read-only: other subscriptions read the same slot), else a heap message deserialized into.
  // From the first call on, the engine leaves this subscription's same-host samples in the ring.
  rmw_ret_t take_loaned(void ** msg, rmw_message_info_t * info, bool * taken);
  // Frees a loan of this subscription. RMW_RET_ERROR (msg untouched) if it is not one.
  rmw_ret_t return_loan(void * msg);

  rmw_ret_t set_on_new_message_callback(rmw_event_callback_t callback, const void * user_data);

  // Content filter (detail/content_filter.hpp), installed in the engine reader: samples that do
  // not pass are dropped as they arrive, and those already waiting when it is set. An empty
  // expression removes the filter. On a bad expression or parameter: RMW_RET_INVALID_ARGUMENT
  // (message set), the previous filter stays. Thread-safe.
  rmw_ret_t set_content_filter(
    const char * expression, size_t parameter_count, const char * const * parameters);
  bool has_content_filter() const;
  // The filter's expression and parameters, allocated with `allocator` into `out`.
  // RMW_RET_ERROR (message set) when no filter is set.
  rmw_ret_t get_content_filter(
    rcutils_allocator_t * allocator, rmw_subscription_content_filter_options_t * out) const;

  const rmw_qos_profile_t & actual_qos() const {return actual_qos_;}
  const rmw_gid_t & gid() const {return gid_;}
  const HddsReader * reader() const {return reader_.get();}
  EventSource & events() {return *events_;}

private:
  Subscription(Node & node, ReaderHandle reader, const MessageTypeSupport & type_support);
  static bool filter_sample(const void * user, const uint8_t * data, size_t len);
  // Puts `filter` (nullptr: none) in the engine reader and keeps it. Call with filter_mutex_ held.
  rmw_ret_t install_filter(std::unique_ptr<ContentFilter> filter);

  Node & node_;
  ReaderHandle reader_;
  MessageTypeSupport type_support_;
  rmw_qos_profile_t actual_qos_{};
  rmw_gid_t gid_{};
  bool registered_ = false;
  std::unique_ptr<EventSource> events_;
  std::unique_ptr<Loans> loans_;  // fixed-size types only

  DataCallback data_callback_;

  mutable std::mutex filter_mutex_;
  // The engine reader calls filter_->matches_serialized, one call at a time.
  std::unique_ptr<ContentFilter> filter_;  // guarded by filter_mutex_
};
}  // namespace rmw_hdds

#endif  // RMW_HDDS__DETAIL__SUBSCRIPTION_HPP_
