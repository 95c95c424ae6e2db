// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// A ROS node: a name in the graph (ros_discovery_info) that owns endpoints, and the node's graph
// guard condition, triggered on every change of the graph.
//
// For services (rmw-services): check `node->implementation_identifier`, then
// `static_cast<Node *>(node->data)`; create the DDS endpoints on node->context().participant(),
// then register_endpoint() each one (and unregister_endpoint() before destroying it).
#ifndef RMW_HDDS__DETAIL__NODE_HPP_
#define RMW_HDDS__DETAIL__NODE_HPP_

#include <string>

#include "detail/context.hpp"
#include "detail/graph.hpp"
#include "rmw/types.h"

namespace rmw_hdds
{
class Node
{
public:
  // Validates name and namespace, adds the node to the graph and announces it. On failure sets
  // the rmw error message and returns nullptr.
  static Node * create(rmw_context_t * context, const char * name, const char * namespace_);
  // Removes the node from the graph and announces it.
  ~Node();
  Node(const Node &) = delete;
  Node & operator=(const Node &) = delete;

  Context & context() const {return *context_;}
  const std::string & name() const {return name_;}
  const std::string & namespace_() const {return namespace__;}
  const rmw_guard_condition_t * graph_guard_condition() const {return graph_guard_;}

  // Associates an endpoint of this node's participant with the node in the graph.
  rmw_ret_t register_endpoint(const LocalEndpoint & endpoint);
  rmw_ret_t unregister_endpoint(const rmw_gid_t & gid, bool is_reader);

private:
  Node(Context * context, std::string name, std::string namespace_);

  Context * context_;
  std::string name_;
  std::string namespace__;
  rmw_guard_condition_t * graph_guard_ = nullptr;
  bool in_graph_ = false;
};

// The Node behind an rmw_node_t after the usual checks (non-null, our implementation); sets the
// error and returns nullptr otherwise, with *ret the rmw return code to give.
Node * node_from(const rmw_node_t * node, rmw_ret_t * ret);
}  // namespace rmw_hdds

#endif  // RMW_HDDS__DETAIL__NODE_HPP_
