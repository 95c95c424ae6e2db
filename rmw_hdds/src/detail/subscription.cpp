// Copyright 2026 The rmw_hdds authors. Apache-2.0.
#include "detail/subscription.hpp"

#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "detail/gid.hpp"
#include "detail/hot.hpp"
#include "detail/names.hpp"
#include "detail/node.hpp"
#include "detail/qos_mapping.hpp"
#include "detail/take_in_place.hpp"
#include "rmw/error_handling.h"
#include "rmw/serialized_message.h"

namespace rmw_hdds
{
void fill_message_info(const HddsSampleInfo & info, rmw_message_info_t * out)
{
  out->source_timestamp = info.source_timestamp_ns;
  out->received_timestamp = info.reception_timestamp_ns;
  out->publication_sequence_number = static_cast<uint64_t>(info.sequence_number);
  out->reception_sequence_number = RMW_MESSAGE_INFO_SEQUENCE_NUMBER_UNSUPPORTED;
  out->publisher_gid = gid_from_guid(info.writer_guid);
  out->from_intra_process = false;
}

Subscription::Subscription(
  Node & node, ReaderHandle reader, const MessageTypeSupport & type_support)
: node_(node), reader_(std::move(reader)), type_support_(type_support)
{
}

Subscription * Subscription::create(
  Node & node, const rosidl_message_type_support_t * type_support, const char * topic_name,
  const rmw_qos_profile_t & qos, const rmw_subscription_options_t & options)
{
  if (names::check_topic_name(topic_name, qos.avoid_ros_namespace_conventions) != RMW_RET_OK) {
    return nullptr;
  }
  if (options.require_unique_network_flow_endpoints ==
    RMW_UNIQUE_NETWORK_FLOW_ENDPOINTS_STRICTLY_REQUIRED)
  {
    RMW_SET_ERROR_MSG(
      "rmw_hdds does not support unique network flow endpoints (every endpoint of a context "
      "shares its participant's ports): create the subscription with "
      "require_unique_network_flow_endpoints NOT_REQUIRED or OPTIONALLY_REQUIRED");
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
  // A bad filter fails before anything exists (no reader, nothing in the graph).
  std::unique_ptr<ContentFilter> filter;
  const rmw_subscription_content_filter_options_t * cft = options.content_filter_options;
  if (cft != nullptr && cft->filter_expression != nullptr && cft->filter_expression[0] != '\0' &&
    ContentFilter::create(
      ts, cft->filter_expression, cft->expression_parameters.size,
      cft->expression_parameters.data, &filter) != RMW_RET_OK)
  {
    return nullptr;
  }
  const std::string dds_topic = names::topic_to_dds(topic_name, qos.avoid_ros_namespace_conventions);
  const std::string dds_type = names::type_to_dds(ts.type_name());

  HddsEndpointOptions endpoint_options{};
  endpoint_options.ignore_local_participant = options.ignore_local_publications;
  HddsReader * raw = nullptr;
  if (hdds_reader_create_ex(
      node.context().participant(), dds_topic.c_str(), dds_type.c_str(), &hqos,
      &endpoint_options, &raw) != HDDS_RET_OK)
  {
    RMW_SET_ERROR_MSG_WITH_FORMAT_STRING(
      "rmw_hdds: cannot create the reader of topic '%s': %s", topic_name, last_error().c_str());
    return nullptr;
  }
  ReaderHandle reader(raw);
  std::unique_ptr<Subscription> sub(
    new (std::nothrow) Subscription(node, std::move(reader), ts));
  if (!sub) {
    RMW_SET_ERROR_MSG("rmw_hdds: out of memory creating the subscription");
    return nullptr;
  }
  sub->events_.reset(new (std::nothrow) EventSource(sub->reader_.get()));
  if (!sub->events_) {
    RMW_SET_ERROR_MSG("rmw_hdds: out of memory creating the subscription");
    return nullptr;
  }
  if (ts.is_fixed_size()) {
    sub->loans_.reset(new (std::nothrow) Loans(ts));
    if (!sub->loans_) {
      RMW_SET_ERROR_MSG("rmw_hdds: out of memory creating the subscription");
      return nullptr;
    }
  }
  uint8_t guid[16];
  if (hdds_reader_guid(sub->reader_.get(), guid) != HDDS_RET_OK) {
    RMW_SET_ERROR_MSG(("rmw_hdds: " + last_error()).c_str());
    return nullptr;
  }
  sub->gid_ = gid_from_guid(guid);
  sub->actual_qos_ = qos_from_hdds(hqos, &qos);
  if (node.register_endpoint({sub->gid_, dds_topic, dds_type, sub->actual_qos_, true}) !=
    RMW_RET_OK)
  {
    return nullptr;
  }
  sub->registered_ = true;
  if (filter) {
    // Also filters what arrived since the reader was created (a TRANSIENT_LOCAL history).
    std::lock_guard<std::mutex> lock(sub->filter_mutex_);
    if (sub->install_filter(std::move(filter)) != RMW_RET_OK) {
      return nullptr;
    }
  }
  return sub.release();
}

Subscription::~Subscription()
{
  if (registered_ && node_.unregister_endpoint(gid_, true) != RMW_RET_OK) {
    rmw_reset_error();  // the subscription is gone locally either way
  }
  data_callback_.stop(reader_.get());
  if (filter_) {
    // Waits for a running call: the filter can go after this.
    hdds_reader_set_sample_filter(reader_.get(), nullptr, nullptr);
  }
  events_.reset();
  reader_.reset();
}

RMW_HDDS_HOT rmw_ret_t Subscription::take(void * ros_message, rmw_message_info_t * info, bool * taken)
{
  auto read = [&](const uint8_t * data, size_t len, const HddsSampleInfo & si) {
      rmw_ret_t ret = type_support_.deserialize(data, len, ros_message);
      if (ret == RMW_RET_OK && info != nullptr) {
        fill_message_info(si, info);
      }
      return ret;
    };
  return take_in_place(reader_.get(), read, taken);
}

rmw_ret_t Subscription::take_loaned(void ** msg, rmw_message_info_t * info, bool * taken)
{
  *taken = false;
  HddsReaderLoan * raw = nullptr;
  const HddsRet r = hdds_reader_take_loan(reader_.get(), &raw);
  if (r == HDDS_RET_NO_DATA) {
    return RMW_RET_OK;
  }
  if (r != HDDS_RET_OK) {
    set_hdds_error("cannot take");
    return RMW_RET_ERROR;
  }
  ReaderLoanHandle engine_loan(raw);
  size_t len = 0;
  const uint8_t * data = hdds_reader_loan_data(raw, &len);
  HddsSampleInfo si{};
  if (data == nullptr || hdds_reader_loan_info(raw, &si) != HDDS_RET_OK) {
    set_hdds_error("cannot read a taken loan");
    return RMW_RET_ERROR;
  }
  // In place (zero copy) when the payload is the message as it lies in memory; else a heap loan,
  // deserialized, and the engine's loan goes back at once. A sample whose read fails is gone.
  void * loan = const_cast<void *>(type_support_.in_place(data, len));
  rmw_ret_t ret;
  if (loan != nullptr) {
    ret = loans_->lend_in_place(loan, std::move(engine_loan));
  } else {
    ret = loans_->lend(&loan);
    if (ret == RMW_RET_OK) {
      ret = type_support_.deserialize(data, len, loan);
      if (ret != RMW_RET_OK) {
        loans_->take_back(loan);  // freed as the Returned goes
      }
    }
  }
  if (ret != RMW_RET_OK) {
    return ret;
  }
  if (info != nullptr) {
    fill_message_info(si, info);
  }
  *msg = loan;
  *taken = true;
  return RMW_RET_OK;
}

rmw_ret_t Subscription::return_loan(void * msg)
{
  if (!loans_->take_back(msg)) {
    RMW_SET_ERROR_MSG("rmw_hdds: the message was not loaned by this subscription");
    return RMW_RET_ERROR;
  }
  return RMW_RET_OK;
}

rmw_ret_t Subscription::take_serialized(
  rmw_serialized_message_t * message, rmw_message_info_t * info, bool * taken)
{
  auto read = [&](const uint8_t * data, size_t len, const HddsSampleInfo & si) {
      if (message->buffer_capacity < len) {
        rmw_ret_t ret = rmw_serialized_message_resize(message, len);
        if (ret != RMW_RET_OK) {
          return ret;
        }
      }
      std::memcpy(message->buffer, data, len);
      message->buffer_length = len;
      if (info != nullptr) {
        fill_message_info(si, info);
      }
      return RMW_RET_OK;
    };
  return take_in_place(reader_.get(), read, taken);
}

rmw_ret_t Subscription::take_sequence(
  size_t count, rmw_message_sequence_t * messages, rmw_message_info_sequence_t * infos,
  size_t * taken)
{
  *taken = 0;
  messages->size = 0;
  infos->size = 0;
  for (size_t i = 0; i < count; ++i) {
    bool one = false;
    rmw_ret_t ret = take(messages->data[i], &infos->data[i], &one);
    if (ret != RMW_RET_OK) {
      return ret;
    }
    if (!one) {
      break;
    }
    ++*taken;
    messages->size = *taken;
    infos->size = *taken;
  }
  return RMW_RET_OK;
}

rmw_ret_t Subscription::matched_count(size_t * count) const
{
  // The C ABI has no hdds_reader_matched_count: the SUBSCRIPTION_MATCHED status carries the
  // same number (reading it resets only its change counters, which no Humble event exposes).
  HddsStatus status{};
  if (hdds_reader_get_status(reader_.get(), HDDS_STATUS_SUBSCRIPTION_MATCHED, &status) !=
    HDDS_RET_OK)
  {
    RMW_SET_ERROR_MSG(("rmw_hdds: " + last_error()).c_str());
    return RMW_RET_ERROR;
  }
  *count = status.current_count < 0 ? 0u : static_cast<size_t>(status.current_count);
  return RMW_RET_OK;
}

rmw_ret_t Subscription::set_on_new_message_callback(
  rmw_event_callback_t callback, const void * user_data)
{
  return data_callback_.set(reader_.get(), callback, user_data);
}

rmw_ret_t Subscription::set_content_filter(
  const char * expression, size_t parameter_count, const char * const * parameters)
{
  std::unique_ptr<ContentFilter> filter;
  if (expression[0] != '\0') {
    const rmw_ret_t ret =
      ContentFilter::create(type_support_, expression, parameter_count, parameters, &filter);
    if (ret != RMW_RET_OK) {
      return ret;
    }
  }
  std::lock_guard<std::mutex> lock(filter_mutex_);
  return install_filter(std::move(filter));
}

rmw_ret_t Subscription::install_filter(std::unique_ptr<ContentFilter> filter)
{
  if (!filter && !filter_) {
    return RMW_RET_OK;
  }
  const HddsRet r = filter ?
    hdds_reader_set_sample_filter(reader_.get(), &Subscription::filter_sample, filter.get()) :
    hdds_reader_set_sample_filter(reader_.get(), nullptr, nullptr);
  if (r != HDDS_RET_OK) {
    RMW_SET_ERROR_MSG(("rmw_hdds: cannot set the content filter: " + last_error()).c_str());
    return RMW_RET_ERROR;
  }
  // The engine no longer calls the old filter: it can go.
  filter_ = std::move(filter);
  return RMW_RET_OK;
}

bool Subscription::has_content_filter() const
{
  std::lock_guard<std::mutex> lock(filter_mutex_);
  return filter_ != nullptr;
}

rmw_ret_t Subscription::get_content_filter(
  rcutils_allocator_t * allocator, rmw_subscription_content_filter_options_t * out) const
{
  std::lock_guard<std::mutex> lock(filter_mutex_);
  if (!filter_) {
    RMW_SET_ERROR_MSG(
      "rmw_hdds: this subscription has no content filter (set one with "
      "rmw_subscription_set_content_filter or in the subscription options)");
    return RMW_RET_ERROR;
  }
  std::vector<const char *> parameters;
  for (const std::string & p : filter_->parameters()) {
    parameters.push_back(p.c_str());
  }
  return rmw_subscription_content_filter_options_init(
    filter_->expression().c_str(), parameters.size(), parameters.data(), allocator, out);
}

bool Subscription::filter_sample(const void * user, const uint8_t * data, size_t len)
{
  // matches_serialized is noexcept and touches neither rmw error state nor logging.
  return static_cast<ContentFilter *>(const_cast<void *>(user))->matches_serialized(data, len);
}
}  // namespace rmw_hdds
