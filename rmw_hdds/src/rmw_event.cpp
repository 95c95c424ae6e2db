// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// QoS events of publishers and subscriptions.

#include "detail/event.hpp"
#include "detail/identifier.hpp"
#include "detail/publisher.hpp"
#include "detail/subscription.hpp"
#include "rmw/error_handling.h"
#include "rmw/event.h"
#include "rmw/impl/cpp/macros.hpp"
#include "rmw/rmw.h"

namespace
{
rmw_ret_t init_event(
  rmw_event_t * event, rmw_hdds::EventSource & source, rmw_event_type_t event_type)
{
  if (!source.supports(event_type)) {
    RMW_SET_ERROR_MSG_WITH_FORMAT_STRING(
      "event type %d is not an event of a %s in rmw_hdds", static_cast<int>(event_type),
      source.is_reader() ? "subscription" : "publisher");
    return RMW_RET_UNSUPPORTED;
  }
  if (source.listen() != RMW_RET_OK) {
    return RMW_RET_ERROR;
  }
  event->implementation_identifier = rmw_hdds::kIdentifier;
  event->data = &source;
  event->event_type = event_type;
  return RMW_RET_OK;
}

#define HDDS_CHECK_EVENT(event) \
  RMW_CHECK_ARGUMENT_FOR_NULL(event, RMW_RET_INVALID_ARGUMENT); \
  RMW_CHECK_TYPE_IDENTIFIERS_MATCH( \
    event, (event)->implementation_identifier, rmw_hdds::kIdentifier, \
    return RMW_RET_INCORRECT_RMW_IMPLEMENTATION)
}  // namespace

extern "C" {

rmw_ret_t
rmw_publisher_event_init(
  rmw_event_t * rmw_event, const rmw_publisher_t * publisher, rmw_event_type_t event_type)
{
  RMW_CHECK_ARGUMENT_FOR_NULL(rmw_event, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(publisher, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_TYPE_IDENTIFIERS_MATCH(
    publisher, publisher->implementation_identifier, rmw_hdds::kIdentifier,
    return RMW_RET_INCORRECT_RMW_IMPLEMENTATION);
  if (rmw_event->implementation_identifier != nullptr) {
    RMW_SET_ERROR_MSG("expected a zero-initialized event");
    return RMW_RET_INVALID_ARGUMENT;
  }
  return init_event(
    rmw_event, static_cast<rmw_hdds::Publisher *>(publisher->data)->events(), event_type);
}

rmw_ret_t
rmw_subscription_event_init(
  rmw_event_t * rmw_event, const rmw_subscription_t * subscription, rmw_event_type_t event_type)
{
  RMW_CHECK_ARGUMENT_FOR_NULL(rmw_event, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(subscription, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_TYPE_IDENTIFIERS_MATCH(
    subscription, subscription->implementation_identifier, rmw_hdds::kIdentifier,
    return RMW_RET_INCORRECT_RMW_IMPLEMENTATION);
  if (rmw_event->implementation_identifier != nullptr) {
    RMW_SET_ERROR_MSG("expected a zero-initialized event");
    return RMW_RET_INVALID_ARGUMENT;
  }
  return init_event(
    rmw_event, static_cast<rmw_hdds::Subscription *>(subscription->data)->events(), event_type);
}

rmw_ret_t
rmw_take_event(const rmw_event_t * event_handle, void * event_info, bool * taken)
{
  HDDS_CHECK_EVENT(event_handle);
  RMW_CHECK_ARGUMENT_FOR_NULL(event_info, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(taken, RMW_RET_INVALID_ARGUMENT);
  return static_cast<rmw_hdds::EventSource *>(event_handle->data)->take(
    event_handle->event_type, event_info, taken);
}

rmw_ret_t
rmw_event_set_callback(rmw_event_t * event, rmw_event_callback_t callback, const void * user_data)
{
  HDDS_CHECK_EVENT(event);
  return static_cast<rmw_hdds::EventSource *>(event->data)->set_callback(
    event->event_type, callback, user_data);
}

}  // extern "C"
