// Copyright 2026 The rmw_hdds authors. Apache-2.0.
#include "detail/node.hpp"

#include <memory>
#include <new>
#include <string>
#include <utility>

#include "detail/guard_condition.hpp"
#include "detail/identifier.hpp"
#include "detail/names.hpp"
#include "rmw/error_handling.h"

namespace rmw_hdds
{
Node::Node(Context * context, std::string name, std::string namespace_)
: context_(context), name_(std::move(name)), namespace__(std::move(namespace_))
{
}

Node * Node::create(rmw_context_t * context, const char * name, const char * namespace_)
{
  if (names::check_node_name(name) != RMW_RET_OK ||
    names::check_namespace(namespace_) != RMW_RET_OK)
  {
    return nullptr;
  }
  Context * ctx = context->impl->context;
  std::unique_ptr<Node> node(new (std::nothrow) Node(ctx, name, namespace_));
  if (!node) {
    RMW_SET_ERROR_MSG("rmw_hdds: out of memory creating the node");
    return nullptr;
  }
  node->graph_guard_ = create_rmw_guard_condition(context);
  if (node->graph_guard_ == nullptr) {
    return nullptr;
  }
  ctx->graph().add_guard(static_cast<GuardCondition *>(node->graph_guard_->data)->handle());
  if (ctx->graph().add_node(node->name_, node->namespace__) != RMW_RET_OK) {
    return nullptr;
  }
  node->in_graph_ = true;
  return node.release();
}

Node::~Node()
{
  if (in_graph_) {
    // Nothing to give back to a caller from a destructor: the node is gone locally either way.
    if (context_->graph().remove_node(name_, namespace__) != RMW_RET_OK) {
      rmw_reset_error();
    }
  }
  if (graph_guard_ != nullptr) {
    context_->graph().remove_guard(
      static_cast<GuardCondition *>(graph_guard_->data)->handle());
    destroy_rmw_guard_condition(graph_guard_);
  }
}

rmw_ret_t Node::register_endpoint(const LocalEndpoint & endpoint)
{
  return context_->graph().add_endpoint(endpoint, name_, namespace__);
}

rmw_ret_t Node::unregister_endpoint(const rmw_gid_t & gid, bool is_reader)
{
  return context_->graph().remove_endpoint(gid, is_reader, name_, namespace__);
}

Node * node_from(const rmw_node_t * node, rmw_ret_t * ret)
{
  if (node == nullptr) {
    RMW_SET_ERROR_MSG("node argument is null");
    *ret = RMW_RET_INVALID_ARGUMENT;
    return nullptr;
  }
  if (node->implementation_identifier != kIdentifier) {
    RMW_SET_ERROR_MSG("node implementation identifier does not match rmw_hdds");
    *ret = RMW_RET_INCORRECT_RMW_IMPLEMENTATION;
    return nullptr;
  }
  *ret = RMW_RET_OK;
  return static_cast<Node *>(node->data);
}
}  // namespace rmw_hdds
