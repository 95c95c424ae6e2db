// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// Nodes.

#include <cstring>

#include "detail/context.hpp"
#include "detail/identifier.hpp"
#include "detail/node.hpp"
#include "rcutils/strdup.h"
#include "rmw/allocators.h"
#include "rmw/error_handling.h"
#include "rmw/impl/cpp/macros.hpp"
#include "rmw/rmw.h"

namespace
{
char * copy_string(const char * s)
{
  const size_t len = std::strlen(s) + 1;
  auto * copy = static_cast<char *>(rmw_allocate(len));
  if (copy != nullptr) {
    std::memcpy(copy, s, len);
  }
  return copy;
}

void free_rmw_node(rmw_node_t * node)
{
  rmw_free(const_cast<char *>(node->name));
  rmw_free(const_cast<char *>(node->namespace_));
  rmw_node_free(node);
}
}  // namespace

extern "C" {

rmw_node_t *
rmw_create_node(rmw_context_t * context, const char * name, const char * namespace_)
{
  RMW_CHECK_ARGUMENT_FOR_NULL(context, nullptr);
  RMW_CHECK_TYPE_IDENTIFIERS_MATCH(
    context, context->implementation_identifier, rmw_hdds::kIdentifier, return nullptr);
  RMW_CHECK_FOR_NULL_WITH_MSG(context->impl, "expected initialized context", return nullptr);
  if (context->impl->context->is_shutdown()) {
    RMW_SET_ERROR_MSG("context has been shut down: create nodes before rmw_shutdown");
    return nullptr;
  }
  RMW_CHECK_ARGUMENT_FOR_NULL(name, nullptr);
  RMW_CHECK_ARGUMENT_FOR_NULL(namespace_, nullptr);

  rmw_node_t * node = rmw_node_allocate();
  if (node == nullptr) {
    RMW_SET_ERROR_MSG("out of memory creating the node");
    return nullptr;
  }
  *node = rmw_node_t{};
  node->name = copy_string(name);
  node->namespace_ = copy_string(namespace_);
  if (node->name == nullptr || node->namespace_ == nullptr) {
    free_rmw_node(node);
    RMW_SET_ERROR_MSG("out of memory creating the node");
    return nullptr;
  }
  rmw_hdds::Node * impl = rmw_hdds::Node::create(context, name, namespace_);
  if (impl == nullptr) {
    free_rmw_node(node);
    return nullptr;  // Node::create set the message.
  }
  node->implementation_identifier = rmw_hdds::kIdentifier;
  node->data = impl;
  node->context = context;
  return node;
}

rmw_ret_t
rmw_destroy_node(rmw_node_t * node)
{
  rmw_ret_t ret = RMW_RET_OK;
  rmw_hdds::Node * impl = rmw_hdds::node_from(node, &ret);
  if (impl == nullptr) {
    return ret;
  }
  delete impl;
  free_rmw_node(node);
  return RMW_RET_OK;
}

const rmw_guard_condition_t *
rmw_node_get_graph_guard_condition(const rmw_node_t * node)
{
  rmw_ret_t ret = RMW_RET_OK;
  rmw_hdds::Node * impl = rmw_hdds::node_from(node, &ret);
  return impl == nullptr ? nullptr : impl->graph_guard_condition();
}

}  // extern "C"
