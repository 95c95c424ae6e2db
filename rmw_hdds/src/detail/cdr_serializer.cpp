// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// Sizing and writing a message's CDR body by running its plan. One walker serves both: with a
// counting cursor it sizes, with a buffer cursor it writes, so the two can never disagree.
#include <cstring>
#include <string>

#include "detail/cdr_access.hpp"
#include "detail/cdr_codec.hpp"
#include "detail/copy_bytes.hpp"
#include "detail/hot.hpp"
#include "hdds/hdds.h"
#include "rmw/error_handling.h"

namespace rmw_hdds
{
namespace cdr
{
namespace
{
// Copies a run of the message into the buffer being serialized. From HDDS_STREAM_COPY_FROM bytes
// (4 MiB) on, as the engine writes a large sample (hdds_copy_to_reader: non-temporal stores): a
// buffer that size no longer fits in the caches, so its reader (a ring slot's other process, a
// subscription's executor, the kernel sending it) reads it from memory anyway, and the stores
// skip reading each destination line first. 4 MiB messages about 8 % faster, publish to callback,
// in one process and in two (results/ros_compare_stream_copy_ab.md).
void copy_out(uint8_t * dst, const void * src, size_t n)
{
  if (n >= HDDS_STREAM_COPY_FROM &&
    hdds_copy_to_reader(dst, static_cast<const uint8_t *>(src), n) == HDDS_RET_OK)
  {
    return;
  }
  copy_bytes(dst, src, n);
}

// Counts the bytes a body takes.
struct SizeCursor
{
  static constexpr bool kWrites = false;
  size_t pos = 0;

  bool align(size_t a)
  {
    pos = align_up(pos, a);
    return true;
  }
  bool put(const void *, size_t n)
  {
    pos += n;
    return true;
  }
  bool take(size_t n, uint8_t ** at)
  {
    *at = nullptr;
    pos += n;
    return true;
  }
};

// Writes into [buf, buf + cap); CDR padding is written as zeros, as rmw_cyclonedds_cpp does.
struct BufferCursor
{
  static constexpr bool kWrites = true;
  uint8_t * buf;
  size_t cap;
  size_t pos = 0;

  bool align(size_t a)
  {
    const size_t next = align_up(pos, a);
    if (next > cap) {
      return false;
    }
    std::memset(buf + pos, 0, next - pos);
    pos = next;
    return true;
  }
  bool put(const void * src, size_t n)
  {
    if (n > cap - pos) {
      return false;
    }
    if (n != 0) {
      copy_out(buf + pos, src, n);
    }
    pos += n;
    return true;
  }
  bool take(size_t n, uint8_t ** at)
  {
    if (n > cap - pos) {
      return false;
    }
    *at = buf + pos;
    pos += n;
    return true;
  }
};

template<Lang L, class Cursor>
class Writer
{
  using A = Access<L>;

public:
  Writer(const Plan & top, Cursor & out)
  : top_(top), out_(out) {}

  RMW_HDDS_HOT bool message(const Plan & plan, const uint8_t * base)
  {
    if (plan.empty) {
      const uint8_t zero = 0;
      return out_.put(&zero, 1) || overflow(plan);
    }
    for (const Op & op : plan.ops) {
      if (!field(plan, op, base + op.offset)) {
        return false;
      }
    }
    return true;
  }

private:
  bool field(const Plan & plan, const Op & op, const uint8_t * field)
  {
    switch (op.kind) {
      case OpKind::kRun:
        return run(plan.runs[op.index], field - op.offset) || overflow(plan);
      case OpKind::kString:
        return string(plan, op, field);
      case OpKind::kWString:
        return wstring(plan, op, field);
      case OpKind::kStringArray:
        for (uint32_t i = 0; i < op.count; ++i) {
          if (!string(plan, op, field + i * sizeof(typename A::String))) {
            return false;
          }
        }
        return true;
      case OpKind::kWStringArray:
        for (uint32_t i = 0; i < op.count; ++i) {
          if (!wstring(plan, op, field + i * sizeof(typename A::WString))) {
            return false;
          }
        }
        return true;
      case OpKind::kStructArray:
        return structs(*op.sub, field, op.count);
      case OpKind::kBoolVector:
        if constexpr (L == Lang::Cpp) {
          return bool_vector(plan, op, A::bools(field));
        }
        return false;  // never compiled for C
      default:
        return sequence(plan, op, field);
    }
  }

  bool sequence(const Plan & plan, const Op & op, const uint8_t * field)
  {
    const auto seq = A::seq(op, field);
    const auto data = static_cast<const uint8_t *>(seq.first);
    const size_t n = seq.second;
    if (!count(plan, op, n)) {
      return false;
    }
    switch (op.kind) {
      case OpKind::kPrimSeq:
        if (n != 0 &&
          (!out_.align(op.elem_align) || !out_.put(data, n * op.elem_size)))
        {
          return overflow(plan);
        }
        return true;
      case OpKind::kStringSeq:
        for (size_t i = 0; i < n; ++i) {
          if (!string(plan, op, data + i * sizeof(typename A::String))) {
            return false;
          }
        }
        return true;
      case OpKind::kWStringSeq:
        for (size_t i = 0; i < n; ++i) {
          if (!wstring(plan, op, data + i * sizeof(typename A::WString))) {
            return false;
          }
        }
        return true;
      default:  // kStructSeq
        return structs(*op.sub, data, n);
    }
  }

  // A sequence's element count, after checking it against the bound.
  bool count(const Plan & plan, const Op & op, size_t n)
  {
    if (op.bound != 0 && n > op.bound) {
      return fail(plan, op, "sequence of " + std::to_string(n) +
               " elements exceeds its bound of " + std::to_string(op.bound));
    }
    if (n > UINT32_MAX) {
      return fail(plan, op, "sequence too long for CDR's 32-bit count");
    }
    return u32(static_cast<uint32_t>(n)) || overflow(plan);
  }

  bool run(const Run & run, const uint8_t * base)
  {
    if (!out_.align(run.first_align)) {
      return false;
    }
    if (run_is_fast(run, out_.pos)) {
      uint8_t * at = nullptr;
      if (!out_.take(run.length, &at)) {
        return false;
      }
      if constexpr (Cursor::kWrites) {
        copy_out(at, base + run.offset, run.length);
        for (const auto & hole : run.holes) {
          std::memset(at + hole.first, 0, hole.second);
        }
      }
      return true;
    }
    for (const Leaf & leaf : run.leaves) {
      if (!out_.align(leaf.align) ||
        !out_.put(base + leaf.offset, size_t{leaf.count} * leaf.size))
      {
        return false;
      }
    }
    return true;
  }

  // n consecutive messages of type `sub` starting at `first`.
  bool structs(const Plan & sub, const uint8_t * first, size_t n)
  {
    if (n == 0) {
      return true;
    }
    if (sub.uniform) {
      // Memory and CDR strides are both size_of, so if the first element is one block, all are.
      const Run & run = sub.runs[0];
      if (!out_.align(run.first_align)) {
        return overflow(sub);
      }
      if (run_is_fast(run, out_.pos)) {
        uint8_t * at = nullptr;
        if (!out_.take(n * sub.size_of, &at)) {
          return overflow(sub);
        }
        if constexpr (Cursor::kWrites) {
          copy_out(at, first, n * sub.size_of);
          if (!run.holes.empty()) {
            for (size_t k = 0; k < n; ++k) {
              for (const auto & hole : run.holes) {
                std::memset(at + k * sub.size_of + hole.first, 0, hole.second);
              }
            }
          }
        }
        return true;
      }
    }
    for (size_t k = 0; k < n; ++k) {
      if (!message(sub, first + k * sub.size_of)) {
        return false;
      }
    }
    return true;
  }

  // u32 length counting the NUL, the bytes, the NUL.
  bool string(const Plan & plan, const Op & op, const uint8_t * field)
  {
    size_t n = 0;
    const char * s = A::string(field, &n);
    if (s == nullptr && n != 0) {
      return fail(plan, op, "string has a size but no data");
    }
    if (op.str_bound != 0 && n > op.str_bound) {
      return fail(plan, op, "string of " + std::to_string(n) +
               " bytes exceeds its bound of " + std::to_string(op.str_bound));
    }
    if (n >= UINT32_MAX) {
      return fail(plan, op, "string too long for CDR's 32-bit length");
    }
    const uint8_t nul = 0;
    if (!u32(static_cast<uint32_t>(n + 1)) || !out_.put(s, n) || !out_.put(&nul, 1)) {
      return overflow(plan);
    }
    return true;
  }

  // rmw_cyclonedds_cpp (Humble, CDR legacy): u32 count of UTF-16 code units, no terminator,
  // then each code unit as a 4-byte wchar_t.
  bool wstring(const Plan & plan, const Op & op, const uint8_t * field)
  {
    size_t n = 0;
    const uint16_t * s = A::wstring(field, &n);
    if (s == nullptr && n != 0) {
      return fail(plan, op, "wstring has a size but no data");
    }
    if (op.str_bound != 0 && n > op.str_bound) {
      return fail(plan, op, "wstring of " + std::to_string(n) +
               " code units exceeds its bound of " + std::to_string(op.str_bound));
    }
    if (n > UINT32_MAX) {
      return fail(plan, op, "wstring too long for CDR's 32-bit length");
    }
    uint8_t * at = nullptr;
    if (!u32(static_cast<uint32_t>(n)) || !out_.take(4 * n, &at)) {
      return overflow(plan);
    }
    if constexpr (Cursor::kWrites) {
      for (size_t i = 0; i < n; ++i) {
        const uint32_t unit = s[i];
        std::memcpy(at + 4 * i, &unit, 4);
      }
    }
    return true;
  }

  bool bool_vector(const Plan & plan, const Op & op, const std::vector<bool> & v)
  {
    if (!count(plan, op, v.size())) {
      return false;
    }
    uint8_t * at = nullptr;
    if (!out_.take(v.size(), &at)) {
      return overflow(plan);
    }
    if constexpr (Cursor::kWrites) {
      for (size_t i = 0; i < v.size(); ++i) {
        at[i] = v[i] ? 1 : 0;
      }
    }
    return true;
  }

  bool u32(uint32_t v)
  {
    return out_.align(4) && out_.put(&v, 4);
  }

  bool fail(const Plan & plan, const Op & op, const std::string & what)
  {
    std::string msg = "rmw_hdds: cannot serialize " + top_.type_name + ": field '" +
      plan.names[op.name] + "'";
    if (&plan != &top_) {
      msg += " of " + plan.type_name;
    }
    msg += ": " + what;
    RMW_SET_ERROR_MSG(msg.c_str());
    return false;
  }

  bool overflow(const Plan & plan)
  {
    std::string msg = "rmw_hdds: cannot serialize " + top_.type_name + ": the buffer of " +
      std::to_string(out_.pos) + " bytes is too small";
    if (&plan != &top_) {
      msg += " (in " + plan.type_name + ")";
    }
    msg += ", or the message changed while it was serialized";
    RMW_SET_ERROR_MSG(msg.c_str());
    return false;
  }

  const Plan & top_;
  Cursor & out_;
};

template<class Cursor>
bool run_writer(const Plan & plan, const void * msg, Cursor & cursor)
{
  auto base = static_cast<const uint8_t *>(msg);
  if (plan.lang == Lang::C) {
    return Writer<Lang::C, Cursor>(plan, cursor).message(plan, base);
  }
  return Writer<Lang::Cpp, Cursor>(plan, cursor).message(plan, base);
}
}  // namespace

RMW_HDDS_HOT bool body_size(const Plan & plan, const void * msg, size_t * size)
{
  SizeCursor cursor;
  if (!run_writer(plan, msg, cursor)) {
    return false;
  }
  *size = cursor.pos;
  return true;
}

RMW_HDDS_HOT bool write_body(
  const Plan & plan, const void * msg, uint8_t * dst, size_t capacity, size_t * written)
{
  BufferCursor cursor{dst, capacity};
  if (!run_writer(plan, msg, cursor)) {
    return false;
  }
  *written = cursor.pos;
  return true;
}
}  // namespace cdr
}  // namespace rmw_hdds
