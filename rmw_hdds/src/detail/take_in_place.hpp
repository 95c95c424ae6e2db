// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// The way the RMW layer takes a sample from an engine reader (subscriptions, services, clients,
// the discovery-info reader): hdds_reader_take_with, which hands the payload and its sample info
// (writer GUID, sequence number, related sample identity, timestamps) to a callback in place, in
// the engine's buffer, so nothing is copied or allocated for the take. The one exception is a
// subscription's loaned take (Subscription::take_loaned), whose message may outlive the call:
// it holds the sample with hdds_reader_take_loan instead.
#ifndef RMW_HDDS__DETAIL__TAKE_IN_PLACE_HPP_
#define RMW_HDDS__DETAIL__TAKE_IN_PLACE_HPP_

#include <cstddef>
#include <cstdint>

#include "detail/hdds_handle.hpp"
#include "detail/hot.hpp"
#include "hdds/hdds.h"
#include "rmw/error_handling.h"
#include "rmw/ret_types.h"

namespace rmw_hdds
{
// Takes the oldest sample of `reader` and runs `read(data, len, info)` (returning rmw_ret_t) on
// it, on this thread, before returning; `data` is valid during the call only. *taken is true
// when a sample was taken and `read` returned RMW_RET_OK; nothing waiting is RMW_RET_OK with
// *taken false. A sample whose `read` fails is gone (taken) and its error is returned.
template<typename Read>
RMW_HDDS_HOT rmw_ret_t take_in_place(const HddsReader * reader, Read & read, bool * taken)
{
  struct Call
  {
    Read & read;
    rmw_ret_t ret;
  };
  Call call{read, RMW_RET_ERROR};
  // The engine calls back on this thread; no exception may unwind into it.
  const HddsRet r = hdds_reader_take_with(
    reader, [](void * user, const uint8_t * data, size_t len, const HddsSampleInfo * info) {
      Call & c = *static_cast<Call *>(user);
      c.ret = in_engine_callback("reading a taken sample", [&] {return c.read(data, len, *info);});
    }, &call);
  *taken = false;
  if (r == HDDS_RET_NO_DATA) {
    return RMW_RET_OK;
  }
  if (r != HDDS_RET_OK) {
    set_hdds_error("cannot take");
    return RMW_RET_ERROR;
  }
  *taken = call.ret == RMW_RET_OK;
  return call.ret;
}
}  // namespace rmw_hdds

#endif  // RMW_HDDS__DETAIL__TAKE_IN_PLACE_HPP_
