// Copyright 2026 The rmw_hdds authors. Apache-2.0.
#include "detail/graph.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "detail/gid.hpp"
#include "detail/names.hpp"
#include "detail/qos_mapping.hpp"
#include "detail/take_in_place.hpp"
#include "rmw/error_handling.h"
#include "rmw/impl/cpp/key_value.hpp"
#include "rmw_dds_common/gid_utils.hpp"
#include "rosidl_typesupport_cpp/message_type_support.hpp"

namespace rmw_hdds
{
namespace
{
constexpr const char * kDiscoveryInfoTopic = "ros_discovery_info";

// The enclave a participant announces in USER_DATA ("enclave=/;", with or without trailing
// NULs); "" when it announces none (not a ROS participant, or another use of USER_DATA).
std::string enclave_from_user_data(const uint8_t * data, size_t len)
{
  if (data == nullptr || len == 0) {
    return "";
  }
  const auto map = rmw::impl::cpp::parse_key_value(std::vector<uint8_t>(data, data + len));
  const auto it = map.find("enclave");
  if (it == map.end()) {
    return "";
  }
  std::string enclave(it->second.begin(), it->second.end());
  enclave.erase(std::find(enclave.begin(), enclave.end(), '\0'), enclave.end());
  return enclave;
}
}  // namespace

Graph::Graph(HddsParticipant * participant, const rmw_gid_t & participant_gid)
: participant_(participant), gid_(participant_gid)
{
}

std::unique_ptr<Graph> Graph::create(
  HddsParticipant * participant, const rmw_gid_t & participant_gid, const std::string & enclave)
{
  std::unique_ptr<Graph> graph(new (std::nothrow) Graph(participant, participant_gid));
  if (!graph) {
    RMW_SET_ERROR_MSG("rmw_hdds: out of memory creating the graph");
    return nullptr;
  }
  if (graph->start(enclave) != RMW_RET_OK) {
    return nullptr;
  }
  return graph;
}

rmw_ret_t Graph::start(const std::string & enclave)
{
  cache_.set_on_change_callback([this]() {trigger_guards();});
  cache_.add_participant(gid_, enclave);

  rmw_ret_t ret = MessageTypeSupport::resolve(
    rosidl_typesupport_cpp::get_message_type_support_handle<
      rmw_dds_common::msg::ParticipantEntitiesInfo>(), &info_type_);
  if (ret != RMW_RET_OK) {
    return ret;
  }
  const std::string type = names::type_to_dds(info_type_.type_name());

  // Writer: reliable, transient-local, keep-last 1: a late joiner gets our latest state.
  // Reader: the same but keep-all, so no participant's state is overwritten by another's before
  // it is read; our own samples are not wanted.
  HddsQos qos;
  hdds_qos_default(&qos);
  qos.reliability = HDDS_RELIABILITY_RELIABLE;
  qos.durability = HDDS_DURABILITY_TRANSIENT_LOCAL;
  qos.history = HDDS_HISTORY_KEEP_LAST;
  qos.depth = 1;
  HddsWriter * writer = nullptr;
  if (hdds_writer_create_ex(
      participant_, kDiscoveryInfoTopic, type.c_str(), &qos, nullptr, &writer) != HDDS_RET_OK)
  {
    RMW_SET_ERROR_MSG(
      ("rmw_hdds: cannot create the ros_discovery_info writer: " + last_error()).c_str());
    return RMW_RET_ERROR;
  }
  info_writer_.reset(writer);

  qos.history = HDDS_HISTORY_KEEP_ALL;
  qos.depth = 0;
  HddsEndpointOptions options{};
  options.ignore_local_participant = true;
  HddsReader * reader = nullptr;
  if (hdds_reader_create_ex(
      participant_, kDiscoveryInfoTopic, type.c_str(), &qos, &options, &reader) != HDDS_RET_OK)
  {
    RMW_SET_ERROR_MSG(
      ("rmw_hdds: cannot create the ros_discovery_info reader: " + last_error()).c_str());
    return RMW_RET_ERROR;
  }
  info_reader_.reset(reader);

  if (hdds_reader_set_data_listener(info_reader_.get(), &Graph::on_discovery_info, this) !=
    HDDS_RET_OK)
  {
    RMW_SET_ERROR_MSG(("rmw_hdds: " + last_error()).c_str());
    return RMW_RET_ERROR;
  }
  // What arrived before the listener was set (transient-local replays).
  take_discovery_info();

  // Replays every participant and endpoint already known before it returns.
  if (hdds_participant_set_discovery_listener(
      participant_, &Graph::on_participant, &Graph::on_endpoint, this) != HDDS_RET_OK)
  {
    RMW_SET_ERROR_MSG(("rmw_hdds: " + last_error()).c_str());
    return RMW_RET_ERROR;
  }
  listening_ = true;
  return RMW_RET_OK;
}

Graph::~Graph()
{
  // Clearing a listener waits for its running calls: none runs once these return.
  if (listening_) {
    hdds_participant_set_discovery_listener(participant_, nullptr, nullptr, nullptr);
  }
  if (info_reader_) {
    hdds_reader_set_data_listener(info_reader_.get(), nullptr, nullptr);
  }
  info_reader_.reset();
  info_writer_.reset();
  cache_.clear_on_change_callback();
}

rmw_ret_t Graph::publish(const rmw_dds_common::msg::ParticipantEntitiesInfo & msg)
{
  size_t size = 0;
  rmw_ret_t ret = info_type_.serialized_size(&msg, &size);
  if (ret != RMW_RET_OK) {
    return ret;
  }
  publish_buffer_.resize(size);
  size_t written = 0;
  ret = info_type_.serialize(&msg, publish_buffer_.data(), publish_buffer_.size(), &written);
  if (ret != RMW_RET_OK) {
    return ret;
  }
  if (hdds_writer_write(info_writer_.get(), publish_buffer_.data(), written, nullptr) !=
    HDDS_RET_OK)
  {
    RMW_SET_ERROR_MSG(
      ("rmw_hdds: cannot publish on ros_discovery_info: " + last_error()).c_str());
    return RMW_RET_ERROR;
  }
  return RMW_RET_OK;
}

rmw_ret_t Graph::add_node(const std::string & name, const std::string & namespace_)
{
  std::lock_guard<std::mutex> lock(update_mutex_);
  rmw_ret_t ret = publish(cache_.add_node(gid_, name, namespace_));
  if (ret != RMW_RET_OK) {
    static_cast<void>(cache_.remove_node(gid_, name, namespace_));
  }
  return ret;
}

rmw_ret_t Graph::remove_node(const std::string & name, const std::string & namespace_)
{
  std::lock_guard<std::mutex> lock(update_mutex_);
  return publish(cache_.remove_node(gid_, name, namespace_));
}

rmw_ret_t Graph::add_endpoint(
  const LocalEndpoint & endpoint, const std::string & node_name,
  const std::string & node_namespace)
{
  std::lock_guard<std::mutex> lock(update_mutex_);
  // Usually already there: the engine reports a local endpoint while creating it.
  cache_.add_entity(
    endpoint.gid, endpoint.dds_topic, endpoint.dds_type, gid_, endpoint.qos, endpoint.is_reader);
  const auto msg = endpoint.is_reader ?
    cache_.associate_reader(endpoint.gid, gid_, node_name, node_namespace) :
    cache_.associate_writer(endpoint.gid, gid_, node_name, node_namespace);
  rmw_ret_t ret = publish(msg);
  if (ret != RMW_RET_OK) {
    static_cast<void>(
      endpoint.is_reader ?
      cache_.dissociate_reader(endpoint.gid, gid_, node_name, node_namespace) :
      cache_.dissociate_writer(endpoint.gid, gid_, node_name, node_namespace));
  }
  return ret;
}

rmw_ret_t Graph::remove_endpoint(
  const rmw_gid_t & gid, bool is_reader, const std::string & node_name,
  const std::string & node_namespace)
{
  std::lock_guard<std::mutex> lock(update_mutex_);
  const auto msg = is_reader ?
    cache_.dissociate_reader(gid, gid_, node_name, node_namespace) :
    cache_.dissociate_writer(gid, gid_, node_name, node_namespace);
  // The engine reports the endpoint gone too when it is deleted; removing it here as well makes
  // queries right as soon as the rmw destroy call returns.
  cache_.remove_entity(gid, is_reader);
  return publish(msg);
}

void Graph::add_guard(const HddsGuardCondition * guard)
{
  std::lock_guard<std::mutex> lock(guards_mutex_);
  guards_.push_back(guard);
}

void Graph::remove_guard(const HddsGuardCondition * guard)
{
  std::lock_guard<std::mutex> lock(guards_mutex_);
  guards_.erase(std::remove(guards_.begin(), guards_.end(), guard), guards_.end());
}

void Graph::trigger_guards()
{
  std::lock_guard<std::mutex> lock(guards_mutex_);
  for (const HddsGuardCondition * guard : guards_) {
    // Cannot fail for a live guard condition; nothing useful to do on an engine thread if it did.
    static_cast<void>(hdds_guard_condition_trigger(guard));
  }
}

void Graph::take_discovery_info()
{
  std::lock_guard<std::mutex> lock(info_mutex_);
  rmw_dds_common::msg::ParticipantEntitiesInfo msg;
  bool got = false;  // a sample was taken (even one that does not deserialize)
  auto read = [&](const uint8_t * data, size_t len, const HddsSampleInfo &) {
      got = true;
      return info_type_.deserialize(data, len, &msg);
    };
  for (;;) {
    got = false;
    bool taken = false;
    const rmw_ret_t ret = take_in_place(info_reader_.get(), read, &taken);
    if (!got) {
      if (ret != RMW_RET_OK) {
        rmw_reset_error();  // on an engine thread: nobody to tell; the next sample tries again
      }
      return;
    }
    if (!taken) {
      // A malformed announcement from a peer: skipped, it changes nothing.
      rmw_reset_error();
      continue;
    }
    rmw_gid_t from;
    rmw_dds_common::convert_msg_to_gid(&msg.gid, &from);
    if (std::memcmp(from.data, gid_.data, sizeof(from.data)) == 0) {
      continue;  // our own state, already in the cache
    }
    cache_.update_participant_entities(msg);
  }
}

void Graph::on_discovery_info(const void * user, size_t /*count*/)
{
  engine_callback(
    [user]() {const_cast<Graph *>(static_cast<const Graph *>(user))->take_discovery_info();});
}

void Graph::on_participant(const void * user, const HddsParticipantEvent * ev)
{
  engine_callback(
    [&]() {
      auto * graph = const_cast<Graph *>(static_cast<const Graph *>(user));
      if (ev == nullptr || ev->local) {
        return;  // our own participant is in the cache from the start
      }
      const rmw_gid_t gid = gid_from_guid(ev->guid);
      if (ev->alive) {
        graph->cache_.add_participant(gid, enclave_from_user_data(ev->user_data, ev->user_data_len));
      } else {
        graph->cache_.remove_participant(gid);
      }
    });
}

std::optional<DiscoveredEndpoint> Graph::endpoint(const uint8_t guid[16]) const
{
  std::array<uint8_t, 16> key;
  std::copy(guid, guid + 16, key.begin());
  std::lock_guard<std::mutex> lock(endpoints_mutex_);
  const auto it = endpoints_.find(key);
  if (it == endpoints_.end()) {
    return std::nullopt;
  }
  return it->second;
}

std::vector<DiscoveredEndpoint> Graph::endpoints_on_topic(
  const std::string & dds_topic, bool readers) const
{
  std::vector<DiscoveredEndpoint> out;
  std::lock_guard<std::mutex> lock(endpoints_mutex_);
  for (const auto & entry : endpoints_) {
    if (entry.second.is_reader == readers && entry.second.dds_topic == dds_topic) {
      out.push_back(entry.second);
    }
  }
  return out;
}

void Graph::on_endpoint(const void * user, const HddsEndpointEvent * ev)
{
  engine_callback(
    [&]() {
      auto * graph = const_cast<Graph *>(static_cast<const Graph *>(user));
      if (ev == nullptr || ev->topic_name == nullptr || ev->type_name == nullptr) {
        return;
      }
      {
        std::array<uint8_t, 16> key;
        std::copy(ev->guid, ev->guid + 16, key.begin());
        std::lock_guard<std::mutex> lock(graph->endpoints_mutex_);
        if (ev->alive) {
          DiscoveredEndpoint e{};
          e.guid = key;
          std::copy(ev->participant_guid, ev->participant_guid + 16, e.participant_guid.begin());
          e.vendor_id = {ev->vendor_id[0], ev->vendor_id[1]};
          e.is_reader = ev->is_reader;
          e.local = ev->local;
          e.dds_topic = ev->topic_name;
          e.dds_type = ev->type_name;
          if (ev->user_data != nullptr) {
            e.user_data.assign(ev->user_data, ev->user_data + ev->user_data_len);
          }
          e.qos = ev->qos;
          graph->endpoints_[key] = std::move(e);
        } else {
          graph->endpoints_.erase(key);
        }
      }
      const rmw_gid_t gid = gid_from_guid(ev->guid);
      if (ev->alive) {
        graph->cache_.add_entity(
          gid, ev->topic_name, ev->type_name, gid_from_guid(ev->participant_guid),
          qos_from_hdds(ev->qos, nullptr), ev->is_reader);
      } else {
        graph->cache_.remove_entity(gid, ev->is_reader);
      }
    });
}
}  // namespace rmw_hdds
