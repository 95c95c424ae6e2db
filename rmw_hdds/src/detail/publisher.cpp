// Copyright 2026 The rmw_hdds authors. Apache-2.0.
#include "detail/publisher.hpp"

#include <memory>
#include <new>
#include <string>
#include <utility>

#include "detail/gid.hpp"
#include "detail/hot.hpp"
#include "detail/names.hpp"
#include "detail/node.hpp"
#include "detail/qos_mapping.hpp"
#include "rmw/error_handling.h"

namespace rmw_hdds
{
Publisher::Publisher(
  Node & node, WriterHandle writer, const rosidl_message_type_support_t * type_support_handle,
  const MessageTypeSupport & type_support)
: node_(node), writer_(std::move(writer)), type_support_handle_(type_support_handle),
  type_support_(type_support)
{
}

Publisher * Publisher::create(
  Node & node, const rosidl_message_type_support_t * type_support, const char * topic_name,
  const rmw_qos_profile_t & qos)
{
  rmw_ret_t ret = names::check_topic_name(topic_name, qos.avoid_ros_namespace_conventions);
  if (ret != RMW_RET_OK) {
    return nullptr;
  }
  HddsQos hqos;
  if (qos_to_hdds(qos, &hqos) != RMW_RET_OK) {
    return nullptr;
  }
  MessageTypeSupport ts;
  if (MessageTypeSupport::resolve(type_support, &ts) != RMW_RET_OK) {
    return nullptr;
  }
  const std::string dds_topic = names::topic_to_dds(topic_name, qos.avoid_ros_namespace_conventions);
  const std::string dds_type = names::type_to_dds(ts.type_name());

  HddsWriter * raw = nullptr;
  if (hdds_writer_create_ex(
      node.context().participant(), dds_topic.c_str(), dds_type.c_str(), &hqos, nullptr,
      &raw) != HDDS_RET_OK)
  {
    RMW_SET_ERROR_MSG_WITH_FORMAT_STRING(
      "rmw_hdds: cannot create the writer of topic '%s': %s", topic_name, last_error().c_str());
    return nullptr;
  }
  WriterHandle writer(raw);
  std::unique_ptr<Publisher> pub(
    new (std::nothrow) Publisher(node, std::move(writer), type_support, ts));
  if (!pub) {
    RMW_SET_ERROR_MSG("rmw_hdds: out of memory creating the publisher");
    return nullptr;
  }
  if (ts.is_fixed_size()) {
    pub->loans_.reset(new (std::nothrow) Loans(ts));
    if (!pub->loans_) {
      RMW_SET_ERROR_MSG("rmw_hdds: out of memory creating the publisher");
      return nullptr;
    }
  }
  pub->events_.reset(new (std::nothrow) EventSource(pub->writer_.get()));
  if (!pub->events_) {
    RMW_SET_ERROR_MSG("rmw_hdds: out of memory creating the publisher");
    return nullptr;
  }
  uint8_t guid[16];
  if (hdds_writer_guid(pub->writer_.get(), guid) != HDDS_RET_OK) {
    RMW_SET_ERROR_MSG(("rmw_hdds: " + last_error()).c_str());
    return nullptr;
  }
  pub->gid_ = gid_from_guid(guid);
  pub->actual_qos_ = qos_from_hdds(hqos, &qos);
  if (node.register_endpoint({pub->gid_, dds_topic, dds_type, pub->actual_qos_, false}) !=
    RMW_RET_OK)
  {
    return nullptr;
  }
  pub->registered_ = true;
  return pub.release();
}

Publisher::~Publisher()
{
  // The writer goes after its events (whose listener it holds) and after the graph forgets it.
  if (registered_ && node_.unregister_endpoint(gid_, false) != RMW_RET_OK) {
    rmw_reset_error();  // the publisher is gone locally either way
  }
  events_.reset();
  loans_.reset();  // loans in the writer's ring go back to it while it lives
  writer_.reset();
}

namespace
{
// What an engine write returned, as rmw says it (a KEEP_ALL writer that waited too long: timeout).
RMW_HDDS_HOT rmw_ret_t publish_result(HddsRet r)
{
  if (r == HDDS_RET_OK) {
    return RMW_RET_OK;
  }
  RMW_SET_ERROR_MSG(("rmw_hdds: cannot publish: " + last_error()).c_str());
  return r == HDDS_RET_TIMEOUT ? RMW_RET_TIMEOUT : RMW_RET_ERROR;
}
}  // namespace

rmw_ret_t Publisher::write(const uint8_t * data, size_t len) const
{
  return publish_result(hdds_writer_write(writer_.get(), data, len, nullptr));
}

RMW_HDDS_HOT rmw_ret_t Publisher::publish(const void * ros_message) const
{
  size_t size = 0;
  rmw_ret_t ret = type_support_.serialized_size(ros_message, &size);
  if (ret != RMW_RET_OK) {
    return ret;
  }
  // Serialized straight into the buffer the engine keeps for the sample (no copy): with same-host
  // subscribers in other processes, the slot of the writer's shared-memory ring they read.
  struct Fill
  {
    const MessageTypeSupport & type_support;
    const void * message;
    rmw_ret_t ret;
  };
  Fill fill{type_support_, ros_message, RMW_RET_ERROR};
  const HddsRet r = hdds_writer_write_into(
    writer_.get(), size, [](void * user, uint8_t * buf, size_t len, size_t * written) {
      // The engine calls back on this thread; no exception may unwind into it.
      Fill & f = *static_cast<Fill *>(user);
      f.ret = in_engine_callback(
        "serializing a message", [&] {return f.type_support.serialize(f.message, buf, len, written);});
      return f.ret == RMW_RET_OK;
    }, &fill, nullptr);
  if (r != HDDS_RET_OK && fill.ret != RMW_RET_OK) {
    return fill.ret;  // the serializer set the error
  }
  return publish_result(r);
}

rmw_ret_t Publisher::publish_serialized(const rmw_serialized_message_t & message) const
{
  if (message.buffer == nullptr || message.buffer_length < kEncapsulationSize) {
    RMW_SET_ERROR_MSG(
      "serialized message is too short: it needs at least the 4-byte CDR encapsulation header "
      "(serialize it with rmw_serialize)");
    return RMW_RET_INVALID_ARGUMENT;
  }
  return write(message.buffer, message.buffer_length);
}

rmw_ret_t Publisher::matched_count(size_t * count) const
{
  if (hdds_writer_matched_count(writer_.get(), count) != HDDS_RET_OK) {
    RMW_SET_ERROR_MSG(("rmw_hdds: " + last_error()).c_str());
    return RMW_RET_ERROR;
  }
  return RMW_RET_OK;
}

rmw_ret_t Publisher::assert_liveliness() const
{
  if (hdds_writer_assert_liveliness(writer_.get()) != HDDS_RET_OK) {
    RMW_SET_ERROR_MSG(("rmw_hdds: cannot assert liveliness: " + last_error()).c_str());
    return RMW_RET_ERROR;
  }
  return RMW_RET_OK;
}

rmw_ret_t Publisher::wait_for_all_acked(rmw_time_t timeout) const
{
  if (actual_qos_.reliability == RMW_QOS_POLICY_RELIABILITY_BEST_EFFORT) {
    return RMW_RET_OK;  // nothing is ever acknowledged: rmw says return at once
  }
  const HddsRet r = hdds_writer_wait_for_acks(writer_.get(), duration_to_ns(timeout));
  if (r == HDDS_RET_OK) {
    return RMW_RET_OK;
  }
  if (r == HDDS_RET_TIMEOUT) {
    return RMW_RET_TIMEOUT;
  }
  RMW_SET_ERROR_MSG(("rmw_hdds: " + last_error()).c_str());
  return RMW_RET_ERROR;
}

rmw_ret_t Publisher::borrow(const rosidl_message_type_support_t * type_support, void ** msg)
{
  if (type_support != type_support_handle_) {
    // Another handle of the same type (the introspection behind a dispatcher) is fine too.
    MessageTypeSupport given;
    rmw_ret_t ret = MessageTypeSupport::resolve(type_support, &given);
    if (ret != RMW_RET_OK) {
      return ret;
    }
    if (!given.same_type(type_support_)) {
      RMW_SET_ERROR_MSG_WITH_FORMAT_STRING(
        "rmw_hdds: cannot loan a %s%s from a publisher of %s%s: borrow with the publisher's "
        "type support", given.type_name(), given.is_cpp() ? " (C++)" : " (C)",
        type_support_.type_name(), type_support_.is_cpp() ? " (C++)" : " (C)");
      return RMW_RET_INVALID_ARGUMENT;
    }
  }
  void * placed = nullptr;
  const rmw_ret_t ret = borrow_in_ring(&placed);
  if (ret != RMW_RET_OK || placed != nullptr) {
    *msg = placed;
    return ret;
  }
  return loans_->lend(msg);
}

rmw_ret_t Publisher::borrow_in_ring(void ** msg)
{
  const size_t len = type_support_.in_place_size();
  if (len == 0) {
    return RMW_RET_OK;
  }
  HddsLoan * raw = nullptr;
  const HddsRet r = hdds_writer_loan_in_shared_memory(writer_.get(), len, &raw);
  if (r == HDDS_RET_NO_DATA) {
    // No same-host subscriber: a heap message serves as well (serialized once when published).
    return RMW_RET_OK;
  }
  if (r != HDDS_RET_OK) {
    // A reliable KEEP_ALL writer whose same-host subscribers took nothing for max_blocking_time.
    RMW_SET_ERROR_MSG(("rmw_hdds: cannot borrow a message: " + last_error()).c_str());
    return r == HDDS_RET_TIMEOUT ? RMW_RET_TIMEOUT : RMW_RET_ERROR;
  }
  WriterLoanHandle loan(raw);
  uint8_t * data = nullptr;
  size_t got = 0;
  if (hdds_loan_data(raw, &data, &got) != HDDS_RET_OK) {
    set_hdds_error("cannot read a writer loan");
    return RMW_RET_ERROR;
  }
  // The message lies in the sample its same-host subscribers read.
  void * placed = type_support_.place_in(data, got);
  if (placed == nullptr) {
    return RMW_RET_OK;  // not aligned for the type (cannot happen: LENT_LEAD): `loan` goes back
  }
  const rmw_ret_t ret = loans_->lend_in_place(placed, std::move(loan));
  if (ret == RMW_RET_OK) {
    *msg = placed;
  }
  return ret;
}

rmw_ret_t Publisher::publish_loaned(void * msg)
{
  Loans::Returned loan = loans_->take_back(msg);
  if (!loan) {
    RMW_SET_ERROR_MSG(
      "rmw_hdds: the message was not loaned by this publisher: publish it with rmw_publish");
    return RMW_RET_INVALID_ARGUMENT;
  }
  if (WriterLoanHandle in_ring = loan.release_writer_loan()) {
    // Filled in place in the writer's ring: published as it lies (the engine consumes the loan).
    return publish_result(hdds_loan_publish(in_ring.release(), nullptr, nullptr));
  }
  return publish(loan.get());
}

rmw_ret_t Publisher::return_loan(void * msg)
{
  if (!loans_->take_back(msg)) {
    RMW_SET_ERROR_MSG("rmw_hdds: the message was not loaned by this publisher");
    return RMW_RET_ERROR;
  }
  return RMW_RET_OK;
}
}  // namespace rmw_hdds
