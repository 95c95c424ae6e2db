// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// What the RMW-layer gtests share: contexts that stay on loopback in a domain of their own (so
// that tests running at the same time on this machine never see each other), nodes, and a
// bounded wait for a condition.
#ifndef RMW_TEST_FIXTURES_HPP_
#define RMW_TEST_FIXTURES_HPP_

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>

#include "rcutils/allocator.h"
#include "rcutils/strdup.h"
#include "rmw/error_handling.h"
#include "rmw/init.h"
#include "rmw/init_options.h"
#include "rmw/rmw.h"

namespace rmw_test
{
inline std::string take_error()
{
  std::string msg = rmw_error_is_set() ? rmw_get_error_string().str : "";
  rmw_reset_error();
  return msg;
}

// A domain per test process, from its pid: 120..219 (valid RTPS port ranges up to 232).
inline size_t test_domain()
{
  return 120u + static_cast<size_t>(getpid()) % 100u;
}

// Polls `done` every 10 ms for up to `timeout`; true as soon as it holds.
inline bool wait_until(
  const std::function<bool()> & done,
  std::chrono::milliseconds timeout = std::chrono::milliseconds(5000))
{
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) {
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

// One initialized context on loopback in the test domain.
class Context
{
public:
  explicit Context(const char * enclave = "/")
  {
    rmw_init_options_t options = rmw_get_zero_initialized_init_options();
    EXPECT_EQ(RMW_RET_OK, rmw_init_options_init(&options, rcutils_get_default_allocator()));
    options.enclave = rcutils_strdup(enclave, rcutils_get_default_allocator());
    options.domain_id = test_domain();
    options.localhost_only = RMW_LOCALHOST_ONLY_ENABLED;
    ok_ = rmw_init(&options, &context_) == RMW_RET_OK;
    EXPECT_TRUE(ok_) << take_error();
    EXPECT_EQ(RMW_RET_OK, rmw_init_options_fini(&options));
  }
  ~Context()
  {
    if (ok_) {
      EXPECT_EQ(RMW_RET_OK, rmw_shutdown(&context_)) << take_error();
      EXPECT_EQ(RMW_RET_OK, rmw_context_fini(&context_)) << take_error();
    }
  }
  Context(const Context &) = delete;
  Context & operator=(const Context &) = delete;

  bool ok() const {return ok_;}
  rmw_context_t * get() {return &context_;}

private:
  rmw_context_t context_ = rmw_get_zero_initialized_context();
  bool ok_ = false;
};

// Two contexts of this process started with HDDS_TRANSPORT=`transport` (read when a context
// starts, unset again once both have): without `intra`, they meet as two processes' would.
class ContextPair
{
public:
  explicit ContextPair(const char * transport)
  : set_(transport)
  {
    EXPECT_EQ(0, unsetenv("HDDS_TRANSPORT"));
  }

  bool ok() const {return first.ok() && second.ok();}

private:
  struct SetTransport
  {
    explicit SetTransport(const char * transport)
    {
      EXPECT_EQ(0, setenv("HDDS_TRANSPORT", transport, 1));
    }
  };
  SetTransport set_;  // first: set before the contexts start

public:
  Context first;
  Context second;
};

// A node that destroys itself.
class Node
{
public:
  Node(Context & context, const char * name, const char * namespace_ = "/")
  : node_(rmw_create_node(context.get(), name, namespace_))
  {
    EXPECT_NE(nullptr, node_) << take_error();
  }
  ~Node()
  {
    if (node_ != nullptr) {
      EXPECT_EQ(RMW_RET_OK, rmw_destroy_node(node_)) << take_error();
    }
  }
  Node(const Node &) = delete;
  Node & operator=(const Node &) = delete;

  rmw_node_t * get() const {return node_;}

private:
  rmw_node_t * node_;
};
}  // namespace rmw_test

#endif  // RMW_TEST_FIXTURES_HPP_
