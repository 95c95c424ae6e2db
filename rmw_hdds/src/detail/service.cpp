// Copyright 2026 The rmw_hdds authors. Apache-2.0.
#include "detail/service.hpp"

#include <cstring>
#include <new>
#include <thread>
#include <utility>
#include <vector>

#include "detail/gid.hpp"
#include "detail/take_in_place.hpp"
#include "rmw/error_handling.h"

namespace rmw_hdds
{
namespace sf = service_format;

namespace
{
// How often send_response looks again for a reply reader that has not matched yet. The engine
// has no "reader matched" wake-up for one GUID; rmw_cyclonedds_cpp polls every 10 ms.
constexpr std::chrono::milliseconds kMatchPoll{2};

sf::Guid to_guid(const uint8_t (&bytes)[16])
{
  sf::Guid g;
  std::memcpy(g.data(), bytes, g.size());
  return g;
}
}  // namespace

Service::Service(std::unique_ptr<ServiceEndpoints> endpoints)
: endpoints_(std::move(endpoints))
{
}

Service * Service::create(
  Node & node, const rosidl_service_type_support_t * type_support, const char * service_name,
  const rmw_qos_profile_t & qos)
{
  auto endpoints = ServiceEndpoints::create(node, true, type_support, service_name, qos);
  if (!endpoints) {
    return nullptr;
  }
  Service * service = new (std::nothrow) Service(std::move(endpoints));
  if (service == nullptr) {
    RMW_SET_ERROR_MSG("rmw_hdds: out of memory creating the service");
  }
  return service;
}

rmw_ret_t Service::take_request(rmw_service_info_t * info, void * ros_request, bool * taken)
{
  std::lock_guard<std::mutex> lock(take_mutex_);
  auto read = [&](const uint8_t * data, size_t len, const HddsSampleInfo & si) {
      const Guid writer = to_guid(si.writer_guid);
      const MessageTypeSupport & type = endpoints_->read_type();
      rmw_request_id_t id;
      if (!si.has_related_sample_identity &&
        sf::format_of_vendor(endpoints_->vendor_of(writer)) == sf::Format::kCycloneHeader)
      {
        sf::CycloneHeader header;
        if (!sf::read_cyclone_header(data, len, &header)) {
          RMW_SET_ERROR_MSG_WITH_FORMAT_STRING(
            "rmw_hdds: a request of %zu bytes from a Cyclone DDS client has no 16-byte request "
            "header (or is not CDR): dropped", len);
          return RMW_RET_ERROR;
        }
        take_buffer_.resize(len - sf::kCycloneHeaderSize);
        sf::remove_cyclone_header(data, len, take_buffer_.data());
        rmw_ret_t ret = type.deserialize(take_buffer_.data(), take_buffer_.size(), ros_request);
        if (ret != RMW_RET_OK) {
          return ret;
        }
        remember_cyclone_client(writer, header.client_handle);
        id = sf::request_id_from_cyclone(writer, header);
      } else {
        rmw_ret_t ret = type.deserialize(data, len, ros_request);
        if (ret != RMW_RET_OK) {
          return ret;
        }
        sf::RequestSample rs;
        rs.writer_guid = writer;
        rs.sequence_number = si.sequence_number;
        rs.has_related_identity = si.has_related_sample_identity;
        rs.related_guid = to_guid(si.related_writer_guid);
        id = sf::request_id_from_identity(rs);
        const Guid named = sf::guid_of(id);
        if (named != writer && sf::is_reader_guid(named)) {
          remember_requester(named, writer);
        }
      }
      info->source_timestamp = si.source_timestamp_ns;
      info->received_timestamp = si.reception_timestamp_ns;
      info->request_id = id;
      return RMW_RET_OK;
    };
  return take_in_place(endpoints_->reader(), read, taken);
}

void Service::remember_cyclone_client(const Guid & writer, uint64_t handle)
{
  const auto ep = endpoints_->endpoint(writer);
  std::lock_guard<std::mutex> lock(requesters_mutex_);
  auto it = cyclone_clients_.find(writer);
  if (it == cyclone_clients_.end()) {
    // A new requester: forget those that left, so the table follows the live clients.
    for (auto i = cyclone_clients_.begin(); i != cyclone_clients_.end(); ) {
      i = endpoints_->is_known(i->first) ? std::next(i) : cyclone_clients_.erase(i);
    }
    it = cyclone_clients_.emplace(writer, CycloneClient{}).first;
  }
  it->second.client_handle = handle;
  if (ep) {
    it->second.client_id = ServiceEndpoints::pairing_id(*ep, sf::kClientIdKey);
  }
}

void Service::remember_requester(const Guid & reply_reader, const Guid & request_writer)
{
  std::lock_guard<std::mutex> lock(requesters_mutex_);
  if (requesters_.count(reply_reader) == 0) {
    for (auto i = requesters_.begin(); i != requesters_.end(); ) {
      i = endpoints_->is_known(i->second) ? std::next(i) : requesters_.erase(i);
    }
  }
  requesters_[reply_reader] = request_writer;
}

Service::Requester Service::find_cyclone_reader(
  const Guid & writer, const CycloneClient & client, Guid * reader)
{
  if (!endpoints_->is_known(writer)) {
    return Requester::kGone;
  }
  std::vector<Guid> candidates;
  const auto readers = endpoints_->endpoints_on_topic(endpoints_->written_topic(), true);
  for (const DiscoveredEndpoint & ep : readers) {
    if (same_participant(ep.guid.data(), writer.data()) &&
      ServiceEndpoints::pairing_id(ep, sf::kClientIdKey) == client.client_id)
    {
      candidates.push_back(ep.guid);
    }
  }
  for (const Guid & c : candidates) {
    if (endpoints_->writer_matches(c)) {
      *reader = c;
      return Requester::kPresent;
    }
  }
  return Requester::kNotMatched;
}

Service::Requester Service::route_reply(const rmw_request_id_t & id, ReplyRoute * route)
{
  const Guid named = sf::guid_of(id);
  bool cyclone = false;
  CycloneClient client;
  bool writer_known = false;
  Guid writer{};
  {
    std::lock_guard<std::mutex> lock(requesters_mutex_);
    const auto c = cyclone_clients_.find(named);
    if (c != cyclone_clients_.end()) {
      cyclone = true;
      client = c->second;
    }
    const auto r = requesters_.find(named);
    if (r != requesters_.end()) {
      writer_known = true;
      writer = r->second;
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + kReplyReaderWait;
  if (cyclone) {
    route->format = sf::Format::kCycloneHeader;
    route->cyclone_client_handle = client.client_handle;
    if (client.client_id.empty()) {
      // A Cyclone client without a clientid (before 0.8): every client filters on the handle.
      route->directed = false;
      return Requester::kPresent;
    }
    route->directed = true;
    for (;;) {
      const Requester r = find_cyclone_reader(named, client, &route->reader);
      if (r != Requester::kNotMatched || std::chrono::steady_clock::now() >= deadline) {
        return r;
      }
      std::this_thread::sleep_for(kMatchPoll);
    }
  }
  route->format = sf::Format::kSampleIdentity;
  if (!sf::is_reader_guid(named)) {
    // The requester named no reply reader (the id names its request writer): every client
    // filters on the identity. A Cyclone client forgotten because it left lands here too.
    route->directed = false;
    return endpoints_->is_known(named) ? Requester::kPresent : Requester::kGone;
  }
  if (!writer_known) {
    // take_request records every requester that names a reply reader, and forgets it only once
    // its request writer is gone.
    return Requester::kGone;
  }
  route->directed = true;
  route->reader = named;
  for (;;) {
    if (endpoints_->writer_matches(named)) {
      return Requester::kPresent;
    }
    if (!endpoints_->is_known(writer)) {
      return Requester::kGone;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      return Requester::kNotMatched;
    }
    std::this_thread::sleep_for(kMatchPoll);
  }
}

rmw_ret_t Service::send_response(const rmw_request_id_t & id, const void * ros_response)
{
  ReplyRoute route;
  switch (route_reply(id, &route)) {
    case Requester::kGone:
      return RMW_RET_OK;  // the client left: nobody to answer (as rmw_cyclonedds_cpp/fastrtps)
    case Requester::kNotMatched:
      RMW_SET_ERROR_MSG(
        "rmw_hdds: the client's reply reader has not matched this service's reply writer within "
        "100 ms: the response was not sent (the client will not receive it)");
      return RMW_RET_TIMEOUT;
    case Requester::kPresent:
      break;
  }
  const MessageTypeSupport & type = endpoints_->written_type();
  std::lock_guard<std::mutex> lock(send_mutex_);
  size_t size = 0;
  rmw_ret_t ret = type.serialized_size(ros_response, &size);
  if (ret != RMW_RET_OK) {
    return ret;
  }
  const bool cyclone = route.format == sf::Format::kCycloneHeader;
  const size_t offset = cyclone ? sf::kCycloneHeaderSize : 0;
  if (send_buffer_.size() < offset + size) {
    send_buffer_.resize(offset + size);
  }
  size_t written = 0;
  ret = type.serialize(ros_response, send_buffer_.data() + offset, size, &written);
  if (ret != RMW_RET_OK) {
    return ret;
  }
  HddsWriteOptions options{};
  if (cyclone) {
    if (!sf::add_cyclone_header(
        send_buffer_.data(), sf::CycloneHeader{route.cyclone_client_handle, id.sequence_number}))
    {
      RMW_SET_ERROR_MSG("rmw_hdds: internal error: the serialized response is not CDR");
      return RMW_RET_ERROR;
    }
  } else {
    options.has_related_sample_identity = true;
    std::memcpy(options.related_writer_guid, id.writer_guid, sizeof(options.related_writer_guid));
    options.related_sequence_number = id.sequence_number;
  }
  if (route.directed) {
    options.directed = true;
    std::memcpy(options.directed_reader_guid, route.reader.data(), route.reader.size());
  }
  if (hdds_writer_write_ex(
      endpoints_->writer(), send_buffer_.data(), offset + written, &options, nullptr) !=
    HDDS_RET_OK)
  {
    set_hdds_error("cannot send the response");
    return RMW_RET_ERROR;
  }
  return RMW_RET_OK;
}
}  // namespace rmw_hdds
