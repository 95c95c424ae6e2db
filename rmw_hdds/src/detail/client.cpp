// Copyright 2026 The rmw_hdds authors. Apache-2.0.
#include "detail/client.hpp"

#include <cstring>
#include <new>
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
sf::Guid to_guid(const uint8_t (&bytes)[16])
{
  sf::Guid g;
  std::memcpy(g.data(), bytes, g.size());
  return g;
}
}  // namespace

Client::Client(std::unique_ptr<ServiceEndpoints> endpoints)
: endpoints_(std::move(endpoints)),
  cyclone_handle_(sf::cyclone_client_handle(endpoints_->writer_guid()))
{
}

Client * Client::create(
  Node & node, const rosidl_service_type_support_t * type_support, const char * service_name,
  const rmw_qos_profile_t & qos)
{
  auto endpoints = ServiceEndpoints::create(node, false, type_support, service_name, qos);
  if (!endpoints) {
    return nullptr;
  }
  Client * client = new (std::nothrow) Client(std::move(endpoints));
  if (client == nullptr) {
    RMW_SET_ERROR_MSG("rmw_hdds: out of memory creating the client");
  }
  return client;
}

void Client::collect_targets()
{
  targets_.clear();
  const auto readers = endpoints_->endpoints_on_topic(endpoints_->written_topic(), true);
  for (const DiscoveredEndpoint & ep : readers) {
    targets_.push_back(Target{ep.guid, sf::format_of_vendor(ep.vendor_id)});
  }
  size_t kept = 0;
  for (const Target & t : targets_) {
    if (endpoints_->writer_matches(t.reader)) {
      targets_[kept++] = t;
    }
  }
  targets_.resize(kept);
}

rmw_ret_t Client::send_request(const void * ros_request, int64_t * sequence_id)
{
  std::lock_guard<std::mutex> lock(mutex_);
  collect_targets();
  size_t cyclone = 0;
  for (const Target & t : targets_) {
    cyclone += t.format == sf::Format::kCycloneHeader ? 1 : 0;
  }
  const int64_t id = next_sequence_id_;
  rmw_ret_t ret = RMW_RET_OK;
  if (cyclone == 0 || cyclone == targets_.size()) {
    ret = write_request(
      ros_request, cyclone == 0 ? sf::Format::kSampleIdentity : sf::Format::kCycloneHeader,
      nullptr, id);
  } else {
    // Servers of both kinds: each gets the request in its own format, and only that one. A
    // server that left since collect_targets is skipped (the directed write to it fails).
    size_t sent = 0;
    for (const Target & t : targets_) {
      ret = write_request(ros_request, t.format, &t.reader, id);
      if (ret == RMW_RET_OK) {
        sent++;
      } else if (!endpoints_->writer_matches(t.reader)) {
        rmw_reset_error();
        ret = RMW_RET_OK;
      } else {
        break;
      }
    }
    if (ret == RMW_RET_OK && sent == 0) {
      // Every server left: write it for whoever comes, as with no server at all.
      ret = write_request(ros_request, sf::Format::kSampleIdentity, nullptr, id);
    }
  }
  if (ret != RMW_RET_OK) {
    return ret;
  }
  ++next_sequence_id_;
  *sequence_id = id;
  return RMW_RET_OK;
}

rmw_ret_t Client::write_request(
  const void * ros_request, sf::Format format, const Guid * directed_to, int64_t sequence_id)
{
  const MessageTypeSupport & type = endpoints_->written_type();
  size_t size = 0;
  rmw_ret_t ret = type.serialized_size(ros_request, &size);
  if (ret != RMW_RET_OK) {
    return ret;
  }
  const bool cyclone = format == sf::Format::kCycloneHeader;
  const size_t offset = cyclone ? sf::kCycloneHeaderSize : 0;
  if (send_buffer_.size() < offset + size) {
    send_buffer_.resize(offset + size);
  }
  size_t written = 0;
  ret = type.serialize(ros_request, send_buffer_.data() + offset, size, &written);
  if (ret != RMW_RET_OK) {
    return ret;
  }
  HddsWriteOptions options{};
  if (cyclone) {
    const sf::CycloneHeader header{cyclone_handle_, sequence_id};
    if (!sf::add_cyclone_header(send_buffer_.data(), header)) {
      RMW_SET_ERROR_MSG("rmw_hdds: internal error: the serialized request is not CDR");
      return RMW_RET_ERROR;
    }
  } else {
    // As rmw_fastrtps_cpp: the identity names our reply reader, which the server waits for.
    options.has_related_sample_identity = true;
    const Guid & reader = endpoints_->reader_guid();
    std::memcpy(options.related_writer_guid, reader.data(), reader.size());
    options.related_sequence_number = sf::kSequenceNumberUnknown;
  }
  if (directed_to != nullptr) {
    options.directed = true;
    std::memcpy(options.directed_reader_guid, directed_to->data(), directed_to->size());
  }
  int64_t sn = 0;
  if (hdds_writer_write_ex(
      endpoints_->writer(), send_buffer_.data(), offset + written, &options, &sn) != HDDS_RET_OK)
  {
    set_hdds_error("cannot send the request");
    return RMW_RET_ERROR;
  }
  if (!cyclone) {
    if (pending_.size() >= kMaxPendingRequests) {
      pending_.erase(pending_.begin());
    }
    pending_[sn] = sequence_id;
  }
  return RMW_RET_OK;
}

rmw_ret_t Client::take_response(rmw_service_info_t * info, void * ros_response, bool * taken)
{
  std::lock_guard<std::mutex> take_lock(take_mutex_);
  // False when the sample just taken is not an answer to one of our pending requests.
  bool ours = false;
  auto read = [&](const uint8_t * data, size_t len, const HddsSampleInfo & si) {
      ours = false;
      const Guid writer = to_guid(si.writer_guid);
      const MessageTypeSupport & type = endpoints_->read_type();
      int64_t id = 0;
      rmw_ret_t ret = RMW_RET_OK;
      if (si.has_related_sample_identity) {
        if (!sf::reply_names_client(
            to_guid(si.related_writer_guid), endpoints_->reader_guid(), endpoints_->writer_guid()))
        {
          return RMW_RET_OK;  // another client's reply
        }
        {
          std::lock_guard<std::mutex> lock(mutex_);
          const auto it = pending_.find(si.related_sequence_number);
          if (it == pending_.end()) {
            // A second server's answer to a request already answered, or forgotten.
            return RMW_RET_OK;
          }
          id = it->second;
          pending_.erase(it);
        }
        ret = type.deserialize(data, len, ros_response);
      } else if (
        sf::format_of_vendor(endpoints_->vendor_of(writer)) ==
        sf::Format::kCycloneHeader)
      {
        sf::CycloneHeader header;
        if (!sf::read_cyclone_header(data, len, &header) ||
          header.client_handle != cyclone_handle_)
        {
          // Another client's reply (Cyclone servers send every reply to every client).
          return RMW_RET_OK;
        }
        id = header.sequence_number;
        take_buffer_.resize(len - sf::kCycloneHeaderSize);
        sf::remove_cyclone_header(data, len, take_buffer_.data());
        ret = type.deserialize(take_buffer_.data(), take_buffer_.size(), ros_response);
      } else {
        return RMW_RET_OK;  // a reply that names no request: nobody's
      }
      if (ret != RMW_RET_OK) {
        return ret;
      }
      info->source_timestamp = si.source_timestamp_ns;
      info->received_timestamp = si.reception_timestamp_ns;
      std::memcpy(
        info->request_id.writer_guid, endpoints_->writer_guid().data(),
        sizeof(info->request_id.writer_guid));
      info->request_id.sequence_number = id;
      ours = true;
      return RMW_RET_OK;
    };
  // Replies for other clients of the service (and stale ones) are taken and dropped until ours.
  for (;;) {
    rmw_ret_t ret = take_in_place(endpoints_->reader(), read, taken);
    if (ret != RMW_RET_OK || !*taken || ours) {
      return ret;
    }
  }
}

bool Client::server_is_available() const
{
  struct Seen
  {
    Guid guid;
    std::string service_id;
  };
  std::vector<Seen> readers;
  std::vector<Seen> writers;
  for (const DiscoveredEndpoint & ep :
    endpoints_->endpoints_on_topic(endpoints_->written_topic(), true))
  {
    readers.push_back({ep.guid, ServiceEndpoints::pairing_id(ep, sf::kServiceIdKey)});
  }
  for (const DiscoveredEndpoint & ep :
    endpoints_->endpoints_on_topic(endpoints_->read_topic(), false))
  {
    writers.push_back({ep.guid, ServiceEndpoints::pairing_id(ep, sf::kServiceIdKey)});
  }
  for (const Seen & r : readers) {
    // The service's reader must know our writer: a request written before it does would be
    // dropped (Cyclone's volatile readers even skip it once they learn of the writer).
    if (!endpoints_->writer_known_by(r.guid)) {
      continue;
    }
    for (const Seen & w : writers) {
      const bool pair = r.service_id.empty() ?
        same_participant(r.guid.data(), w.guid.data()) : r.service_id == w.service_id;
      // The service's writer must know our reader: else the reply has nowhere to go, and the
      // server gives up on it after 100 ms (Service::kReplyReaderWait).
      if (pair && endpoints_->reader_known_by(w.guid)) {
        return true;
      }
    }
  }
  return false;
}
}  // namespace rmw_hdds
