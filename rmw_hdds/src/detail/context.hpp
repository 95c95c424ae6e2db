// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// One ROS context: one networked DDS participant (DESIGN.md section 3) and the graph of the
// domain as this participant sees it. rmw_init creates it, rmw_context_fini destroys it; every
// node, publisher, subscription, service and client of the context uses its participant.
//
// For services (rmw-services): create endpoints on participant(), register them with the node
// (Node::register_endpoint) so ros_discovery_info names their node; gid() is the participant's.
#ifndef RMW_HDDS__DETAIL__CONTEXT_HPP_
#define RMW_HDDS__DETAIL__CONTEXT_HPP_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "detail/graph.hpp"
#include "detail/hdds_handle.hpp"
#include "rmw/init.h"
#include "rmw/types.h"

namespace rmw_hdds
{
class Context
{
public:
  // Creates the participant (domain, localhost-only, USER_DATA "enclave=<enclave>;") and the
  // graph; on failure sets the rmw error message and returns nullptr.
  static Context * create(const rmw_init_options_t & options, uint32_t domain_id);
  ~Context();
  Context(const Context &) = delete;
  Context & operator=(const Context &) = delete;

  HddsParticipant * participant() const {return participant_.get();}
  // The participant's GUID as a gid, which ros_discovery_info and the graph key nodes by.
  const rmw_gid_t & gid() const {return gid_;}
  const uint8_t * guid() const {return gid_.data;}
  Graph & graph() {return *graph_;}
  uint32_t domain_id() const {return domain_id_;}
  bool is_shutdown() const {return shutdown_.load();}
  void shutdown() {shutdown_.store(true);}

private:
  Context(ParticipantHandle participant, uint32_t domain_id, const rmw_gid_t & gid);

  ParticipantHandle participant_;
  uint32_t domain_id_;
  rmw_gid_t gid_;
  // Declared after the participant: destroyed first (it holds the participant's listener).
  std::unique_ptr<Graph> graph_;
  std::atomic<bool> shutdown_{false};
};
}  // namespace rmw_hdds

// rmw.h declares the opaque context implementation type under this name.
struct rmw_context_impl_s
{
  rmw_hdds::Context * context;
};

#endif  // RMW_HDDS__DETAIL__CONTEXT_HPP_
