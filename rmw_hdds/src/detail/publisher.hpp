// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// A ROS publisher: one DDS writer on the mangled topic ("rt/<name>") with the mapped QoS,
// registered under its node in the graph. publish() serializes on the caller's thread straight
// into the buffer the engine keeps for the sample (hdds_writer_write_into: no copy), which it
// then delivers to same-process readers and sends on the same thread.
#ifndef RMW_HDDS__DETAIL__PUBLISHER_HPP_
#define RMW_HDDS__DETAIL__PUBLISHER_HPP_

#include <memory>
#include <string>

#include "detail/event.hpp"
#include "detail/hdds_handle.hpp"
#include "detail/loans.hpp"
#include "detail/type_support.hpp"
#include "rmw/types.h"

namespace rmw_hdds
{
class Node;

class Publisher
{
public:
  // Arguments are checked by the caller except the topic name, QoS and type support, checked
  // here. On failure sets the rmw error message and returns nullptr.
  static Publisher * create(
    Node & node, const rosidl_message_type_support_t * type_support, const char * topic_name,
    const rmw_qos_profile_t & qos);
  // Unregisters from the graph and deletes the writer (disposed in SEDP at once).
  ~Publisher();
  Publisher(const Publisher &) = delete;
  Publisher & operator=(const Publisher &) = delete;

  // Thread-safe.
  rmw_ret_t publish(const void * ros_message) const;
  rmw_ret_t publish_serialized(const rmw_serialized_message_t & message) const;
  rmw_ret_t matched_count(size_t * count) const;
  rmw_ret_t assert_liveliness() const;
  rmw_ret_t wait_for_all_acked(rmw_time_t timeout) const;

  // Loans, for fixed-size types only (can_loan() false otherwise; see detail/loans.hpp).
  bool can_loan() const {return loans_ != nullptr;}
  // A new message to fill and publish_loaned: in place in the sample same-host subscribers will
  // read when the type allows it (see detail/loans.hpp), else on the heap. `type_support` must be
  // the publisher's type (RMW_RET_INVALID_ARGUMENT otherwise).
  rmw_ret_t borrow(const rosidl_message_type_support_t * type_support, void ** msg);
  // Publishes a loan of this publisher and frees it, published or not. RMW_RET_INVALID_ARGUMENT
  // (msg untouched) if it is not one.
  rmw_ret_t publish_loaned(void * msg);
  // Frees a loan of this publisher unpublished. RMW_RET_ERROR (msg untouched) if it is not one.
  rmw_ret_t return_loan(void * msg);

  const rmw_qos_profile_t & actual_qos() const {return actual_qos_;}
  const rmw_gid_t & gid() const {return gid_;}
  const HddsWriter * writer() const {return writer_.get();}
  EventSource & events() {return *events_;}

private:
  Publisher(
    Node & node, WriterHandle writer, const rosidl_message_type_support_t * type_support_handle,
    const MessageTypeSupport & type_support);
  rmw_ret_t write(const uint8_t * data, size_t len) const;
  // A message placed in the next sample of the writer's shared-memory ring (zero copy), when the
  // type's memory is its CDR and same-host subscribers are matched; *msg stays nullptr otherwise
  // (RMW_RET_OK: borrow from the heap).
  rmw_ret_t borrow_in_ring(void ** msg);

  Node & node_;
  WriterHandle writer_;
  const rosidl_message_type_support_t * type_support_handle_;  // as given to create
  MessageTypeSupport type_support_;
  rmw_qos_profile_t actual_qos_{};
  rmw_gid_t gid_{};
  bool registered_ = false;
  std::unique_ptr<EventSource> events_;
  std::unique_ptr<Loans> loans_;  // fixed-size types only
};
}  // namespace rmw_hdds

#endif  // RMW_HDDS__DETAIL__PUBLISHER_HPP_
