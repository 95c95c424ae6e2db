// Copyright 2026 The rmw_hdds authors. Apache-2.0.
#include "detail/discovered_endpoints.hpp"

namespace rmw_hdds
{
void DiscoveredEndpoints::update(Endpoint endpoint, bool alive)
{
  std::lock_guard<std::mutex> lock(mutex_);
  const auto old = topic_of_.find(endpoint.guid);
  if (old != topic_of_.end()) {
    const auto t = by_topic_.find(old->second);
    if (t != by_topic_.end()) {
      t->second.erase(endpoint.guid);
      if (t->second.empty()) {
        by_topic_.erase(t);
      }
    }
    topic_of_.erase(old);
  }
  if (!alive) {
    return;
  }
  TopicKey key(endpoint.topic_name, endpoint.is_reader);
  topic_of_.emplace(endpoint.guid, key);
  const Guid guid = endpoint.guid;
  by_topic_[key].insert_or_assign(guid, std::move(endpoint));
}

void DiscoveredEndpoints::update(
  const Guid & guid, const Guid & participant_guid, const service_format::VendorId & vendor,
  bool is_reader, const char * topic_name, const uint8_t * user_data, size_t user_data_len,
  bool alive)
{
  Endpoint e;
  e.guid = guid;
  if (alive) {
    e.participant_guid = participant_guid;
    e.vendor = vendor;
    e.is_reader = is_reader;
    e.topic_name = topic_name != nullptr ? topic_name : "";
    e.client_id = service_format::user_data_value(
      user_data, user_data_len, service_format::kClientIdKey).value_or("");
    e.service_id = service_format::user_data_value(
      user_data, user_data_len, service_format::kServiceIdKey).value_or("");
  }
  update(std::move(e), alive);
}

bool DiscoveredEndpoints::find(const Guid & guid, Endpoint * out) const
{
  std::lock_guard<std::mutex> lock(mutex_);
  const auto key = topic_of_.find(guid);
  if (key == topic_of_.end()) {
    return false;
  }
  *out = by_topic_.at(key->second).at(guid);
  return true;
}

bool DiscoveredEndpoints::contains(const Guid & guid) const
{
  std::lock_guard<std::mutex> lock(mutex_);
  return topic_of_.count(guid) != 0;
}

service_format::VendorId DiscoveredEndpoints::vendor_of(const Guid & guid) const
{
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto key = topic_of_.find(guid);
    if (key != topic_of_.end()) {
      return by_topic_.at(key->second).at(guid).vendor;
    }
  }
  return service_format::vendor_of_guid(guid);
}
}  // namespace rmw_hdds
