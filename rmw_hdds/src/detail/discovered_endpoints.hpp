// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// The endpoints a context's participant knows of (its own and remote ones), with what services
// need and the ROS graph cache does not keep: the vendor of each endpoint's participant, and the
// clientid=/serviceid= of its USER_DATA (DESIGN.md section 3, "Services").
//
// Fed by the participant's discovery listener (engine threads, and the creating thread for local
// endpoints); read by services and clients on the user's threads. One mutex; no callback into the
// engine or rcutils logging while it is held.
#ifndef RMW_HDDS__DETAIL__DISCOVERED_ENDPOINTS_HPP_
#define RMW_HDDS__DETAIL__DISCOVERED_ENDPOINTS_HPP_

#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "detail/service_format.hpp"

namespace rmw_hdds
{
class DiscoveredEndpoints
{
public:
  using Guid = service_format::Guid;

  struct Endpoint
  {
    Guid guid{};
    Guid participant_guid{};
    service_format::VendorId vendor{};
    bool is_reader = false;
    std::string topic_name;
    // The value of "clientid=" or "serviceid=" in the endpoint's USER_DATA; empty if none.
    std::string client_id;
    std::string service_id;
  };

  // Records an endpoint that appeared (alive) or forgets one that went away.
  void update(Endpoint endpoint, bool alive);
  // Same, from the endpoint's raw USER_DATA.
  void update(
    const Guid & guid, const Guid & participant_guid, const service_format::VendorId & vendor,
    bool is_reader, const char * topic_name, const uint8_t * user_data, size_t user_data_len,
    bool alive);

  // Copies the endpoint to *out if it is known (alive).
  bool find(const Guid & guid, Endpoint * out) const;
  bool contains(const Guid & guid) const;

  // The vendor of the endpoint's participant as discovery reported it, else the one the GUID
  // prefix names.
  service_format::VendorId vendor_of(const Guid & guid) const;

  // Calls f(const Endpoint &) for each known reader (or writer) on `topic_name`, with the lock
  // held: f must not call back into this object.
  template<class F>
  void for_each_on_topic(const std::string & topic_name, bool readers, F && f) const
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = by_topic_.find(std::make_pair(topic_name, readers));
    if (it == by_topic_.end()) {
      return;
    }
    for (const auto & entry : it->second) {
      f(entry.second);
    }
  }

private:
  using TopicKey = std::pair<std::string, bool>;  // (topic, is_reader)

  mutable std::mutex mutex_;
  std::map<Guid, TopicKey> topic_of_;
  std::map<TopicKey, std::map<Guid, Endpoint>> by_topic_;
};
}  // namespace rmw_hdds

#endif  // RMW_HDDS__DETAIL__DISCOVERED_ENDPOINTS_HPP_
