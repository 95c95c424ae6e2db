// Copyright 2026 The rmw_hdds authors. Apache-2.0.
#include "detail/network_flow.hpp"

#include <arpa/inet.h>

#include <array>
#include <cstring>
#include <string>

#include "rmw/error_handling.h"
#include "rmw/network_flow_endpoint.h"

namespace rmw_hdds
{
namespace
{
// An endpoint has one locator per interface; more than this many interfaces is not a host.
constexpr size_t kMaxLocators = 64;

constexpr int32_t kLocatorUdpV4 = 1;
constexpr int32_t kLocatorUdpV6 = 2;

rmw_ret_t check_arguments(rcutils_allocator_t * allocator, rmw_network_flow_endpoint_array_t * out)
{
  RCUTILS_CHECK_ALLOCATOR_WITH_MSG(
    allocator, "allocator is invalid", return RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(out, RMW_RET_INVALID_ARGUMENT);
  if (out->size != 0 || out->network_flow_endpoint != nullptr || out->allocator != nullptr) {
    RMW_SET_ERROR_MSG(
      "network_flow_endpoint_array is not zero-initialized (it may hold an earlier result: "
      "fini it first)");
    return RMW_RET_INVALID_ARGUMENT;
  }
  return RMW_RET_OK;
}

rmw_ret_t fill(const HddsLocator & l, rmw_network_flow_endpoint_t * e)
{
  e->transport_protocol = RMW_TRANSPORT_PROTOCOL_UDP;
  e->transport_port = static_cast<uint16_t>(l.port);
  char text[INET6_ADDRSTRLEN] = {};
  const char * ok = nullptr;
  if (l.kind == kLocatorUdpV4) {
    e->internet_protocol = RMW_INTERNET_PROTOCOL_IPV4;
    ok = inet_ntop(AF_INET, l.address + 12, text, sizeof text);
  } else if (l.kind == kLocatorUdpV6) {
    e->internet_protocol = RMW_INTERNET_PROTOCOL_IPV6;
    ok = inet_ntop(AF_INET6, l.address, text, sizeof text);
  }
  if (ok == nullptr) {
    RMW_SET_ERROR_MSG_WITH_FORMAT_STRING(
      "rmw_hdds: the engine reported a locator of unknown kind %d", static_cast<int>(l.kind));
    return RMW_RET_ERROR;
  }
  return rmw_network_flow_endpoint_set_internet_address(e, text, std::strlen(text));
}

rmw_ret_t to_array(
  const HddsLocator * locators, size_t count, rcutils_allocator_t * allocator,
  rmw_network_flow_endpoint_array_t * out)
{
  if (count == 0) {
    return RMW_RET_OK;  // a same-process-only context: no flow to report
  }
  rmw_ret_t ret = rmw_network_flow_endpoint_array_init(out, count, allocator);
  if (ret != RMW_RET_OK) {
    return ret;
  }
  for (size_t i = 0; i < count; ++i) {
    ret = fill(locators[i], &out->network_flow_endpoint[i]);
    if (ret != RMW_RET_OK) {
      (void)rmw_network_flow_endpoint_array_fini(out);
      return ret;
    }
  }
  return RMW_RET_OK;
}

template<typename Handle>
rmw_ret_t endpoints(
  HddsRet (* locators_of)(const Handle *, HddsLocator *, size_t, size_t *), const Handle * h,
  rcutils_allocator_t * allocator, rmw_network_flow_endpoint_array_t * out)
{
  rmw_ret_t ret = check_arguments(allocator, out);
  if (ret != RMW_RET_OK) {
    return ret;
  }
  std::array<HddsLocator, kMaxLocators> locators{};
  size_t count = 0;
  if (locators_of(h, locators.data(), locators.size(), &count) != HDDS_RET_OK) {
    RMW_SET_ERROR_MSG(("rmw_hdds: cannot read the endpoint's locators: " + last_error()).c_str());
    return RMW_RET_ERROR;
  }
  return to_array(locators.data(), count < kMaxLocators ? count : kMaxLocators, allocator, out);
}
}  // namespace

rmw_ret_t writer_network_flow_endpoints(
  const HddsWriter * writer, rcutils_allocator_t * allocator,
  rmw_network_flow_endpoint_array_t * out)
{
  return endpoints(&hdds_writer_locators, writer, allocator, out);
}

rmw_ret_t reader_network_flow_endpoints(
  const HddsReader * reader, rcutils_allocator_t * allocator,
  rmw_network_flow_endpoint_array_t * out)
{
  return endpoints(&hdds_reader_locators, reader, allocator, out);
}
}  // namespace rmw_hdds
