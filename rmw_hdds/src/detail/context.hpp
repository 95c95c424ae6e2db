// Copyright 2026 The rmw_hdds authors. Apache-2.0.
#ifndef RMW_HDDS__DETAIL__CONTEXT_HPP_
#define RMW_HDDS__DETAIL__CONTEXT_HPP_

#include <atomic>
#include <cstdint>
#include <string>

#include "detail/hdds_handle.hpp"
#include "rmw/init.h"

namespace rmw_hdds
{
// One ROS context: one DDS participant (DESIGN.md section 3), created by rmw_init and destroyed
// by rmw_context_fini.
class Context
{
public:
  // Creates the participant; on failure sets the rmw error message and returns nullptr.
  static Context * create(uint32_t domain_id);

  HddsParticipant * participant() const {return participant_.get();}
  uint32_t domain_id() const {return domain_id_;}
  bool is_shutdown() const {return shutdown_.load();}
  void shutdown() {shutdown_.store(true);}

private:
  Context(ParticipantHandle participant, uint32_t domain_id);

  ParticipantHandle participant_;
  uint32_t domain_id_;
  std::atomic<bool> shutdown_{false};
};
}  // namespace rmw_hdds

// rmw.h declares the opaque context implementation type under this name.
struct rmw_context_impl_s
{
  rmw_hdds::Context * context;
};

#endif  // RMW_HDDS__DETAIL__CONTEXT_HPP_
