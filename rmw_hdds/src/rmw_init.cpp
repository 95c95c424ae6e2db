// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// Init options, init, shutdown and context teardown.

#include <cstdint>

#include "detail/context.hpp"
#include "detail/identifier.hpp"
#include "rcutils/strdup.h"
#include "rmw/error_handling.h"
#include "rmw/impl/cpp/macros.hpp"
#include "rmw/init.h"
#include "rmw/init_options.h"
#include "rmw/security_options.h"

namespace
{
// What every call on an initialized context checks first.
rmw_ret_t check_initialized_context(const rmw_context_t * context)
{
  RMW_CHECK_ARGUMENT_FOR_NULL(context, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_FOR_NULL_WITH_MSG(
    context->impl, "expected initialized context", return RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_TYPE_IDENTIFIERS_MATCH(
    context, context->implementation_identifier, rmw_hdds::kIdentifier,
    return RMW_RET_INCORRECT_RMW_IMPLEMENTATION);
  return RMW_RET_OK;
}
}  // namespace

extern "C" {

rmw_ret_t
rmw_init_options_init(rmw_init_options_t * init_options, rcutils_allocator_t allocator)
{
  RMW_CHECK_ARGUMENT_FOR_NULL(init_options, RMW_RET_INVALID_ARGUMENT);
  RCUTILS_CHECK_ALLOCATOR_WITH_MSG(
    &allocator, "allocator argument is invalid", return RMW_RET_INVALID_ARGUMENT);
  if (init_options->implementation_identifier != nullptr) {
    RMW_SET_ERROR_MSG("expected zero-initialized init_options");
    return RMW_RET_INVALID_ARGUMENT;
  }
  init_options->instance_id = 0;
  init_options->implementation_identifier = rmw_hdds::kIdentifier;
  init_options->allocator = allocator;
  init_options->impl = nullptr;
  init_options->localhost_only = RMW_LOCALHOST_ONLY_DEFAULT;
  init_options->domain_id = RMW_DEFAULT_DOMAIN_ID;
  init_options->enclave = nullptr;
  init_options->security_options = rmw_get_zero_initialized_security_options();
  return RMW_RET_OK;
}

rmw_ret_t
rmw_init_options_copy(const rmw_init_options_t * src, rmw_init_options_t * dst)
{
  RMW_CHECK_ARGUMENT_FOR_NULL(src, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(dst, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_FOR_NULL_WITH_MSG(
    src->implementation_identifier, "expected initialized src", return RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_TYPE_IDENTIFIERS_MATCH(
    src, src->implementation_identifier, rmw_hdds::kIdentifier,
    return RMW_RET_INCORRECT_RMW_IMPLEMENTATION);
  if (dst->implementation_identifier != nullptr) {
    RMW_SET_ERROR_MSG("expected zero-initialized dst");
    return RMW_RET_INVALID_ARGUMENT;
  }
  const rcutils_allocator_t * allocator = &src->allocator;
  RCUTILS_CHECK_ALLOCATOR_WITH_MSG(
    allocator, "allocator argument is invalid", return RMW_RET_INVALID_ARGUMENT);

  rmw_init_options_t tmp = *src;
  tmp.enclave = rcutils_strdup(src->enclave, *allocator);
  if (src->enclave != nullptr && tmp.enclave == nullptr) {
    RMW_SET_ERROR_MSG("out of memory copying the enclave");
    return RMW_RET_BAD_ALLOC;
  }
  tmp.security_options = rmw_get_zero_initialized_security_options();
  rmw_ret_t ret = rmw_security_options_copy(&src->security_options, allocator, &tmp.security_options);
  if (ret != RMW_RET_OK) {
    allocator->deallocate(tmp.enclave, allocator->state);
    return ret;
  }
  *dst = tmp;
  return RMW_RET_OK;
}

rmw_ret_t
rmw_init_options_fini(rmw_init_options_t * init_options)
{
  RMW_CHECK_ARGUMENT_FOR_NULL(init_options, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_FOR_NULL_WITH_MSG(
    init_options->implementation_identifier, "expected initialized init_options",
    return RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_TYPE_IDENTIFIERS_MATCH(
    init_options, init_options->implementation_identifier, rmw_hdds::kIdentifier,
    return RMW_RET_INCORRECT_RMW_IMPLEMENTATION);
  rcutils_allocator_t * allocator = &init_options->allocator;
  RCUTILS_CHECK_ALLOCATOR_WITH_MSG(
    allocator, "allocator argument is invalid", return RMW_RET_INVALID_ARGUMENT);
  allocator->deallocate(init_options->enclave, allocator->state);
  rmw_ret_t ret = rmw_security_options_fini(&init_options->security_options, allocator);
  *init_options = rmw_get_zero_initialized_init_options();
  return ret;
}

rmw_ret_t
rmw_init(const rmw_init_options_t * options, rmw_context_t * context)
{
  RMW_CHECK_ARGUMENT_FOR_NULL(options, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(context, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_FOR_NULL_WITH_MSG(
    options->implementation_identifier, "expected initialized init options",
    return RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_TYPE_IDENTIFIERS_MATCH(
    options, options->implementation_identifier, rmw_hdds::kIdentifier,
    return RMW_RET_INCORRECT_RMW_IMPLEMENTATION);
  RMW_CHECK_FOR_NULL_WITH_MSG(
    options->enclave, "expected non-null enclave", return RMW_RET_INVALID_ARGUMENT);
  if (context->implementation_identifier != nullptr) {
    RMW_SET_ERROR_MSG("expected a zero-initialized context");
    return RMW_RET_INVALID_ARGUMENT;
  }
  // Never run insecure silently: ROS_SECURITY_STRATEGY=Enforce asks for DDS security, which
  // rmw_hdds does not have yet.
  if (options->security_options.enforce_security == RMW_SECURITY_ENFORCEMENT_ENFORCE) {
    RMW_SET_ERROR_MSG(
      "rmw_hdds does not support DDS security yet, and ROS_SECURITY_STRATEGY=Enforce requires it: "
      "unset ROS_SECURITY_STRATEGY (or set it to Permissive) or use an RMW with security support");
    return RMW_RET_UNSUPPORTED;
  }
  const size_t requested = options->domain_id;
  if (requested != RMW_DEFAULT_DOMAIN_ID && requested > UINT32_MAX) {
    RMW_SET_ERROR_MSG("domain id out of range: set ROS_DOMAIN_ID to a value from 0 to 232");
    return RMW_RET_INVALID_ARGUMENT;
  }
  const uint32_t domain_id =
    requested == RMW_DEFAULT_DOMAIN_ID ? 0u : static_cast<uint32_t>(requested);

  rmw_hdds::Context * ctx = rmw_hdds::Context::create(*options, domain_id);
  if (ctx == nullptr) {
    return RMW_RET_ERROR;  // Context::create set the message.
  }
  auto * impl = new (std::nothrow) rmw_context_impl_s{ctx};
  if (impl == nullptr) {
    delete ctx;
    RMW_SET_ERROR_MSG("out of memory creating the context");
    return RMW_RET_BAD_ALLOC;
  }
  context->instance_id = options->instance_id;
  context->implementation_identifier = rmw_hdds::kIdentifier;
  context->actual_domain_id = domain_id;
  context->options = rmw_get_zero_initialized_init_options();
  rmw_ret_t ret = rmw_init_options_copy(options, &context->options);
  if (ret != RMW_RET_OK) {
    delete ctx;
    delete impl;
    *context = rmw_get_zero_initialized_context();
    return ret;
  }
  context->impl = impl;
  return RMW_RET_OK;
}

rmw_ret_t
rmw_shutdown(rmw_context_t * context)
{
  rmw_ret_t ret = check_initialized_context(context);
  if (ret != RMW_RET_OK) {
    return ret;
  }
  context->impl->context->shutdown();
  return RMW_RET_OK;
}

rmw_ret_t
rmw_context_fini(rmw_context_t * context)
{
  rmw_ret_t ret = check_initialized_context(context);
  if (ret != RMW_RET_OK) {
    return ret;
  }
  if (!context->impl->context->is_shutdown()) {
    RMW_SET_ERROR_MSG("context has not been shut down: call rmw_shutdown first");
    return RMW_RET_INVALID_ARGUMENT;
  }
  ret = rmw_init_options_fini(&context->options);
  delete context->impl->context;
  delete context->impl;
  *context = rmw_get_zero_initialized_context();
  return ret;
}

}  // extern "C"
