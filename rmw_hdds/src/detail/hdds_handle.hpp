// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// RAII over the hdds C ABI: one owning pointer type per handle kind, and the engine's last error
// as a string for RMW_SET_ERROR_MSG.
#ifndef RMW_HDDS__DETAIL__HDDS_HANDLE_HPP_
#define RMW_HDDS__DETAIL__HDDS_HANDLE_HPP_

#include <memory>
#include <new>
#include <string>
#include <utility>

#include "detail/hot.hpp"
#include "hdds/hdds.h"
#include "rmw/error_handling.h"
#include "rmw/ret_types.h"

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
using GuardConditionHandle = std::unique_ptr<HddsGuardCondition,
    HddsDeleter<HddsGuardCondition, hdds_guard_condition_destroy>>;
using WaitSetHandle = std::unique_ptr<HddsWaitSet, HddsDeleter<HddsWaitSet, hdds_waitset_destroy>>;
using ReaderLoanHandle =
  std::unique_ptr<HddsReaderLoan, HddsDeleter<HddsReaderLoan, hdds_reader_return_loan>>;
using WriterLoanHandle = std::unique_ptr<HddsLoan, HddsDeleter<HddsLoan, hdds_loan_return>>;

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

// Runs `f` (returning rmw_ret_t) inside a callback from the engine, which no exception may
// unwind into: an exception becomes RMW_RET_BAD_ALLOC or RMW_RET_ERROR with a message naming
// what was `doing` ("serializing a message").
template<typename F>
RMW_HDDS_HOT rmw_ret_t in_engine_callback(const char * doing, F && f) noexcept
{
  try {
    return std::forward<F>(f)();
  } catch (const std::bad_alloc &) {
    RMW_SET_ERROR_MSG_WITH_FORMAT_STRING("rmw_hdds: out of memory %s", doing);
    return RMW_RET_BAD_ALLOC;
  } catch (...) {
    RMW_SET_ERROR_MSG_WITH_FORMAT_STRING("rmw_hdds: unexpected exception %s", doing);
    return RMW_RET_ERROR;
  }
}
}  // namespace rmw_hdds

#endif  // RMW_HDDS__DETAIL__HDDS_HANDLE_HPP_
