// Copyright 2026 The rmw_hdds authors. Apache-2.0.
#include "detail/context.hpp"

#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <utility>

#include "detail/gid.hpp"
#include "rcutils/env.h"
#include "rmw/error_handling.h"
#include "rmw/localhost.h"

namespace rmw_hdds
{
namespace
{
// RMW_LOCALHOST_ONLY_DEFAULT means "as ROS_LOCALHOST_ONLY says" (rcl resolves it before rmw_init;
// a program calling rmw_init directly gets the same answer here).
bool localhost_only(rmw_localhost_only_t option)
{
  if (option != RMW_LOCALHOST_ONLY_DEFAULT) {
    return option == RMW_LOCALHOST_ONLY_ENABLED;
  }
  const char * value = nullptr;
  if (rcutils_get_env("ROS_LOCALHOST_ONLY", &value) != nullptr || value == nullptr) {
    return false;
  }
  return std::strcmp(value, "1") == 0;
}
}  // namespace

Context::Context(ParticipantHandle participant, uint32_t domain_id, const rmw_gid_t & gid)
: participant_(std::move(participant)), domain_id_(domain_id), gid_(gid)
{
}

Context::~Context()
{
  // The graph stops its listeners before the participant goes.
  graph_.reset();
}

Context * Context::create(const rmw_init_options_t & options, uint32_t domain_id)
{
  const std::string enclave = options.enclave != nullptr ? options.enclave : "/";
  const std::string user_data = "enclave=" + enclave + ";";

  HddsParticipantConfig config;
  hdds_participant_config_default(&config);
  config.domain_id = domain_id;
  config.network = true;
  config.localhost_only = localhost_only(options.localhost_only);
  config.user_data = reinterpret_cast<const uint8_t *>(user_data.data());
  config.user_data_len = user_data.size();

  HddsParticipant * raw = nullptr;
  if (hdds_participant_create_with_config(&config, &raw) != HDDS_RET_OK) {
    RMW_SET_ERROR_MSG(("rmw_hdds: cannot create the DDS participant: " + last_error()).c_str());
    return nullptr;
  }
  ParticipantHandle participant(raw);
  uint8_t guid[16];
  if (hdds_participant_guid(participant.get(), guid) != HDDS_RET_OK) {
    RMW_SET_ERROR_MSG(("rmw_hdds: " + last_error()).c_str());
    return nullptr;
  }
  std::unique_ptr<Context> ctx(
    new (std::nothrow) Context(std::move(participant), domain_id, gid_from_guid(guid)));
  if (!ctx) {
    RMW_SET_ERROR_MSG("rmw_hdds: out of memory creating the context");
    return nullptr;
  }
  ctx->graph_ = Graph::create(ctx->participant(), ctx->gid_, enclave);
  if (!ctx->graph_) {
    return nullptr;  // Graph::create set the message.
  }
  return ctx.release();
}
}  // namespace rmw_hdds
