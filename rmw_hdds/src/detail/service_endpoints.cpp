// Copyright 2026 The rmw_hdds authors. Apache-2.0.
#include "detail/service_endpoints.hpp"

#include <algorithm>
#include <atomic>
#include <new>
#include <string>
#include <utility>

#include "detail/gid.hpp"
#include "detail/names.hpp"
#include "detail/node.hpp"
#include "detail/qos_mapping.hpp"
#include "rmw/error_handling.h"

namespace rmw_hdds
{
ServiceEndpoints::ServiceEndpoints(Node & node)
: node_(node)
{
}

std::unique_ptr<ServiceEndpoints> ServiceEndpoints::create(
  Node & node, bool is_service, const rosidl_service_type_support_t * type_support,
  const char * service_name, const rmw_qos_profile_t & qos)
{
  if (names::check_topic_name(service_name, qos.avoid_ros_namespace_conventions) != RMW_RET_OK) {
    return nullptr;
  }
  HddsQos hqos;
  if (qos_to_hdds(qos, &hqos) != RMW_RET_OK) {
    return nullptr;
  }
  ServiceTypeSupport ts;
  if (ServiceTypeSupport::resolve(type_support, &ts) != RMW_RET_OK) {
    return nullptr;
  }
  std::unique_ptr<ServiceEndpoints> self(new (std::nothrow) ServiceEndpoints(node));
  if (!self) {
    RMW_SET_ERROR_MSG("rmw_hdds: out of memory creating a service or client");
    return nullptr;
  }
  self->is_service_ = is_service;
  const std::string request_topic =
    names::request_topic(service_name, qos.avoid_ros_namespace_conventions);
  const std::string reply_topic =
    names::reply_topic(service_name, qos.avoid_ros_namespace_conventions);
  self->written_topic_ = is_service ? reply_topic : request_topic;
  self->read_topic_ = is_service ? request_topic : reply_topic;
  self->written_type_ = is_service ? ts.response : ts.request;
  self->read_type_ = is_service ? ts.request : ts.response;
  const std::string written_dds_type = names::type_to_dds(self->written_type_.type_name());
  const std::string read_dds_type = names::type_to_dds(self->read_type_.type_name());

  // One pairing id for both endpoints, unique in the process (so in the participant too).
  static std::atomic<uint32_t> pairing_counter{0};
  Guid participant{};
  std::copy(node.context().guid(), node.context().guid() + 16, participant.begin());
  const std::string user_data = service_format::pairing_user_data(
    is_service, service_format::make_pairing_id(participant, ++pairing_counter));
  HddsEndpointOptions options{};
  options.user_data = reinterpret_cast<const uint8_t *>(user_data.data());
  options.user_data_len = user_data.size();
  // A client and a service of one participant talk to each other.
  options.ignore_local_participant = false;

  HddsWriter * w = nullptr;
  if (hdds_writer_create_ex(
      node.context().participant(), self->written_topic_.c_str(), written_dds_type.c_str(), &hqos,
      &options, &w) != HDDS_RET_OK)
  {
    RMW_SET_ERROR_MSG_WITH_FORMAT_STRING(
      "rmw_hdds: cannot create the writer of topic '%s' for service '%s': %s",
      self->written_topic_.c_str(), service_name, last_error().c_str());
    return nullptr;
  }
  self->writer_.reset(w);
  HddsReader * r = nullptr;
  if (hdds_reader_create_ex(
      node.context().participant(), self->read_topic_.c_str(), read_dds_type.c_str(), &hqos,
      &options, &r) != HDDS_RET_OK)
  {
    RMW_SET_ERROR_MSG_WITH_FORMAT_STRING(
      "rmw_hdds: cannot create the reader of topic '%s' for service '%s': %s",
      self->read_topic_.c_str(), service_name, last_error().c_str());
    return nullptr;
  }
  self->reader_.reset(r);
  if (hdds_writer_guid(self->writer_.get(), self->writer_guid_.data()) != HDDS_RET_OK ||
    hdds_reader_guid(self->reader_.get(), self->reader_guid_.data()) != HDDS_RET_OK)
  {
    set_hdds_error("cannot read an endpoint's GUID");
    return nullptr;
  }
  self->actual_qos_ = qos_from_hdds(hqos, &qos);
  if (node.register_endpoint(
      {gid_from_guid(self->writer_guid_), self->written_topic_, written_dds_type,
        self->actual_qos_, false}) != RMW_RET_OK)
  {
    return nullptr;
  }
  self->writer_registered_ = true;
  if (node.register_endpoint(
      {gid_from_guid(self->reader_guid_), self->read_topic_, read_dds_type, self->actual_qos_,
        true}) != RMW_RET_OK)
  {
    return nullptr;
  }
  self->reader_registered_ = true;
  return self;
}

ServiceEndpoints::~ServiceEndpoints()
{
  // The endpoints are going locally either way: a failed graph update is not an error here.
  if (reader_registered_ &&
    node_.unregister_endpoint(gid_from_guid(reader_guid_), true) != RMW_RET_OK)
  {
    rmw_reset_error();
  }
  if (writer_registered_ &&
    node_.unregister_endpoint(gid_from_guid(writer_guid_), false) != RMW_RET_OK)
  {
    rmw_reset_error();
  }
  data_callback_.stop(reader_.get());
  reader_.reset();
  writer_.reset();
}

service_format::VendorId ServiceEndpoints::vendor_of(const Guid & guid) const
{
  const auto ep = node_.context().graph().endpoint(guid.data());
  return ep ? ep->vendor_id : service_format::vendor_of_guid(guid);
}

bool ServiceEndpoints::is_known(const Guid & guid) const
{
  return endpoint(guid).has_value();
}

std::optional<DiscoveredEndpoint> ServiceEndpoints::endpoint(const Guid & guid) const
{
  return node_.context().graph().endpoint(guid.data());
}

std::string ServiceEndpoints::pairing_id(const DiscoveredEndpoint & endpoint, const char * key)
{
  return service_format::user_data_value(endpoint.user_data.data(), endpoint.user_data.size(), key)
         .value_or("");
}

std::vector<DiscoveredEndpoint> ServiceEndpoints::endpoints_on_topic(
  const std::string & topic, bool readers) const
{
  return node_.context().graph().endpoints_on_topic(topic, readers);
}

bool ServiceEndpoints::writer_matches(const Guid & reader) const
{
  bool matched = false;
  return hdds_writer_has_matched_reader(writer_.get(), reader.data(), &matched) == HDDS_RET_OK &&
         matched;
}

bool ServiceEndpoints::writer_known_by(const Guid & reader) const
{
  bool known = false;
  return hdds_writer_is_known_by_reader(writer_.get(), reader.data(), &known) == HDDS_RET_OK &&
         known;
}

bool ServiceEndpoints::reader_known_by(const Guid & writer) const
{
  bool known = false;
  return hdds_reader_is_known_by_writer(reader_.get(), writer.data(), &known) == HDDS_RET_OK &&
         known;
}

rmw_ret_t ServiceEndpoints::set_on_new_data_callback(
  rmw_event_callback_t callback, const void * user_data)
{
  return data_callback_.set(reader_.get(), callback, user_data);
}
}  // namespace rmw_hdds
