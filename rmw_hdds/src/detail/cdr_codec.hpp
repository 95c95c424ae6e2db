// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// Running a plan: the CDR body (everything after the 4-byte encapsulation header) of a message.
// Positions, and so alignment, count from the start of the body. Every function sets the rmw
// error message when it fails, naming the type and the field.
#ifndef RMW_HDDS__DETAIL__CDR_CODEC_HPP_
#define RMW_HDDS__DETAIL__CDR_CODEC_HPP_

#include <cstddef>
#include <cstdint>
#include <string>

#include "detail/cdr_plan.hpp"
#include "rmw/ret_types.h"

namespace rmw_hdds
{
namespace cdr
{
// Bytes the body of `msg` takes. Fails if a string or sequence exceeds its bound (or a string is
// longer than CDR's u32 length can say).
bool body_size(const Plan & plan, const void * msg, size_t * size);

// Writes the body of `msg` (in this host's byte order) into [dst, dst + capacity). Fails, as
// body_size, or if `capacity` is too small.
bool write_body(const Plan & plan, const void * msg, uint8_t * dst, size_t capacity,
  size_t * written);

// Reads a body into `msg`, an initialized message of the plan's type; `swap` when the body's
// byte order is not this host's. Never reads outside [body, body + size). RMW_RET_ERROR on
// malformed input (truncated, a length beyond the data or beyond a bound, a string without its
// NUL), RMW_RET_BAD_ALLOC when memory runs out. On failure the message stays valid (finalizable)
// but partly overwritten.
rmw_ret_t read_body(const Plan & plan, const uint8_t * body, size_t size, bool swap, void * msg);

// The largest body any instance can take, if every string and sequence in the type is bounded;
// otherwise false and the path of an unbounded field in `unbounded`. Sets no error message.
bool max_body_size(const Plan & plan, size_t * size, std::string * unbounded);
}  // namespace cdr
}  // namespace rmw_hdds

#endif  // RMW_HDDS__DETAIL__CDR_CODEC_HPP_
