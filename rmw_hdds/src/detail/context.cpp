// Copyright 2026 The rmw_hdds authors. Apache-2.0.
#include "detail/context.hpp"

#include <new>
#include <string>
#include <utility>

#include "rmw/error_handling.h"

namespace rmw_hdds
{
Context::Context(ParticipantHandle participant, uint32_t domain_id)
: participant_(std::move(participant)), domain_id_(domain_id)
{
}

Context * Context::create(uint32_t domain_id)
{
  HddsParticipant * raw = nullptr;
  if (hdds_participant_create(domain_id, &raw) != HDDS_RET_OK) {
    RMW_SET_ERROR_MSG(("rmw_hdds: cannot create the DDS participant: " + last_error()).c_str());
    return nullptr;
  }
  ParticipantHandle participant(raw);
  auto * ctx = new (std::nothrow) Context(std::move(participant), domain_id);
  if (ctx == nullptr) {
    RMW_SET_ERROR_MSG("rmw_hdds: out of memory creating the context");
  }
  return ctx;
}
}  // namespace rmw_hdds
