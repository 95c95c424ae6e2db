// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// RAII over the hdds C ABI: one owning pointer type per handle kind, and the engine's last error
// as a string for RMW_SET_ERROR_MSG.
#ifndef RMW_HDDS__DETAIL__HDDS_HANDLE_HPP_
#define RMW_HDDS__DETAIL__HDDS_HANDLE_HPP_

#include <memory>
#include <string>

#include "hdds/hdds.h"
#include "rmw/error_handling.h"

namespace rmw_hdds
{
template<typename T, void (* Destroy)(T *)>
struct HddsDeleter
{
  void operator()(T * p) const noexcept {Destroy(p);}
};

using ParticipantHandle =
  std::unique_ptr<HddsParticipant, HddsDeleter<HddsParticipant, hdds_participant_destroy>>;
using WriterHandle = std::unique_ptr<HddsWriter, HddsDeleter<HddsWriter, hdds_writer_destroy>>;
using ReaderHandle = std::unique_ptr<HddsReader, HddsDeleter<HddsReader, hdds_reader_destroy>>;
using SampleHandle = std::unique_ptr<HddsSample, HddsDeleter<HddsSample, hdds_sample_free>>;
using GuardConditionHandle = std::unique_ptr<HddsGuardCondition,
    HddsDeleter<HddsGuardCondition, hdds_guard_condition_destroy>>;
using WaitSetHandle = std::unique_ptr<HddsWaitSet, HddsDeleter<HddsWaitSet, hdds_waitset_destroy>>;

// Runs the body of a callback the engine calls (listeners, discovery): no C++ exception may
// unwind into the engine's frames below it. The only one possible is std::bad_alloc; the
// notification it was handling is then dropped.
template<typename F>
void engine_callback(F && body) noexcept
{
  try {
    body();
  } catch (...) {
  }
}

// The message of the engine's last failure on this thread, e.g. "hdds_participant_create: ...".
inline std::string last_error()
{
  return std::string(hdds_last_error());
}

// The rmw error message for a failed hdds call: "rmw_hdds: <what>: <engine's last error>".
inline void set_hdds_error(const char * what)
{
  RMW_SET_ERROR_MSG_WITH_FORMAT_STRING("rmw_hdds: %s: %s", what, last_error().c_str());
}
}  // namespace rmw_hdds

#endif  // RMW_HDDS__DETAIL__HDDS_HANDLE_HPP_
