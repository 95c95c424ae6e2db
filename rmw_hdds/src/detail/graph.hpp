// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// The ROS graph as one context sees it: rmw_dds_common's GraphCache, fed by
//   - the engine's discovery listener: participants (enclave from their USER_DATA) and endpoints
//     of every vendor, local ones included;
//   - the ros_discovery_info topic (DESIGN.md section 3): which node owns which endpoint. Our
//     participant republishes its whole state (ParticipantEntitiesInfo) on every change.
// Every change of the cache triggers the registered graph guard conditions (one per node).
//
// Threads: the discovery callbacks run on the thread that creates or destroys a local entity and
// on the engine's receive/timer threads; the ros_discovery_info data listener on the thread that
// delivered the sample. Both only update the cache (mutex-protected, never logs) and trigger guard
// conditions: nothing here blocks for long or calls rcutils logging on an engine thread.
// Lock order: update_mutex_ or info_mutex_, then the cache's mutex, then guards_mutex_;
// endpoints_mutex_ is never held with another.
//
// For services (rmw-services): a service's or client's endpoints are registered through
// Node::register_endpoint like a publisher's; the service queries read cache() with the
// names:: service demanglers.
#ifndef RMW_HDDS__DETAIL__GRAPH_HPP_
#define RMW_HDDS__DETAIL__GRAPH_HPP_

#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "detail/hdds_handle.hpp"
#include "detail/type_support.hpp"
#include "rmw/types.h"
#include "rmw_dds_common/graph_cache.hpp"
#include "rmw_dds_common/msg/participant_entities_info.hpp"

namespace rmw_hdds
{
// An endpoint of this participant as the graph records it (DDS names).
struct LocalEndpoint
{
  rmw_gid_t gid;
  std::string dds_topic;
  std::string dds_type;
  rmw_qos_profile_t qos;
  bool is_reader;
};

// An endpoint discovery reported (any vendor, local ones included), with what services need
// to pair endpoints: vendor id and USER_DATA (Cyclone's clientid= / serviceid=).
struct DiscoveredEndpoint
{
  std::array<uint8_t, 16> guid;
  std::array<uint8_t, 16> participant_guid;
  std::array<uint8_t, 2> vendor_id;
  bool is_reader;
  bool local;
  std::string dds_topic;
  std::string dds_type;
  std::vector<uint8_t> user_data;
  HddsQos qos;
};

class Graph
{
public:
  // Creates the ros_discovery_info writer and reader and starts listening to discovery. On
  // failure sets the rmw error message and returns nullptr.
  static std::unique_ptr<Graph> create(
    HddsParticipant * participant, const rmw_gid_t & participant_gid, const std::string & enclave);
  ~Graph();
  Graph(const Graph &) = delete;
  Graph & operator=(const Graph &) = delete;

  rmw_dds_common::GraphCache & cache() {return cache_;}
  const rmw_dds_common::GraphCache & cache() const {return cache_;}

  // Each updates the cache and publishes the participant's new state; on a failed publish the
  // change is undone and the rmw error is set.
  rmw_ret_t add_node(const std::string & name, const std::string & namespace_);
  rmw_ret_t remove_node(const std::string & name, const std::string & namespace_);
  // Puts the endpoint in the cache at once (a query right after creation sees it) and under its
  // node in ros_discovery_info.
  rmw_ret_t add_endpoint(
    const LocalEndpoint & endpoint, const std::string & node_name,
    const std::string & node_namespace);
  rmw_ret_t remove_endpoint(
    const rmw_gid_t & gid, bool is_reader, const std::string & node_name,
    const std::string & node_namespace);

  // The endpoint discovery reported with this GUID, if it is alive. Thread-safe.
  std::optional<DiscoveredEndpoint> endpoint(const uint8_t guid[16]) const;
  // The alive readers (or writers) of a DDS topic ("rq/fooRequest"). Thread-safe.
  std::vector<DiscoveredEndpoint> endpoints_on_topic(
    const std::string & dds_topic, bool readers) const;

  // Graph guard conditions (not owned) triggered on every change until removed.
  void add_guard(const HddsGuardCondition * guard);
  void remove_guard(const HddsGuardCondition * guard);

private:
  Graph(HddsParticipant * participant, const rmw_gid_t & participant_gid);
  rmw_ret_t start(const std::string & enclave);
  // Caller holds update_mutex_.
  rmw_ret_t publish(const rmw_dds_common::msg::ParticipantEntitiesInfo & msg);
  void trigger_guards();
  void take_discovery_info();

  static void on_participant(const void * user, const HddsParticipantEvent * ev);
  static void on_endpoint(const void * user, const HddsEndpointEvent * ev);
  static void on_discovery_info(const void * user, size_t count);

  HddsParticipant * participant_;
  rmw_gid_t gid_;
  rmw_dds_common::GraphCache cache_;
  MessageTypeSupport info_type_;
  WriterHandle info_writer_;
  ReaderHandle info_reader_;
  bool listening_ = false;

  // Makes "update the cache, then publish the result" atomic: two nodes changing at once could
  // otherwise publish their states in the wrong order, the older one last.
  std::mutex update_mutex_;
  std::vector<uint8_t> publish_buffer_;  // guarded by update_mutex_

  // Serializes take-then-apply of ros_discovery_info: two threads taking one participant's
  // consecutive states could otherwise apply them in the wrong order.
  std::mutex info_mutex_;

  mutable std::mutex endpoints_mutex_;
  std::map<std::array<uint8_t, 16>, DiscoveredEndpoint> endpoints_;  // guarded by endpoints_mutex_

  std::mutex guards_mutex_;
  std::vector<const HddsGuardCondition *> guards_;
};
}  // namespace rmw_hdds

#endif  // RMW_HDDS__DETAIL__GRAPH_HPP_
