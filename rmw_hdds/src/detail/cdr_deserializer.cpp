// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// Reading a CDR body into a message by running its plan. The input is untrusted (it comes off the
// network): every length is checked against the bytes that remain, and against the field's bound,
// before anything is allocated or copied; the reader never reads outside the buffer it is given.
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#include "detail/cdr_access.hpp"
#include "detail/cdr_codec.hpp"
#include "detail/copy_bytes.hpp"
#include "detail/hot.hpp"
#include "rmw/error_handling.h"

namespace rmw_hdds
{
namespace cdr
{
namespace
{
// Copies n elements of `size` bytes from the wire, reversing each one's bytes if `swap`.
void copy_elements(uint8_t * dst, const uint8_t * src, size_t n, size_t size, bool swap)
{
  if (!swap || size == 1) {
    copy_bytes(dst, src, n * size);
    return;
  }
  for (size_t i = 0; i < n; ++i, dst += size, src += size) {
    for (size_t b = 0; b < size; ++b) {
      dst[b] = src[size - 1 - b];
    }
  }
}

// CDR booleans are one byte; anything but 0 is true (rmw_cyclonedds_cpp reads them so), and a
// bool object must hold exactly 0 or 1.
void normalize_bools(uint8_t * p, size_t n)
{
  for (size_t i = 0; i < n; ++i) {
    p[i] = p[i] != 0 ? 1 : 0;
  }
}

void normalize_run_bools(const Run & run, uint8_t * base)
{
  for (const Leaf & leaf : run.leaves) {
    if (leaf.is_bool) {
      normalize_bools(base + leaf.offset, leaf.count);
    }
  }
}

uint32_t bswap32(uint32_t v)
{
  return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
}

template<Lang L>
class Reader
{
  using A = Access<L>;

public:
  Reader(const Plan & top, const uint8_t * buf, size_t len, bool swap)
  : top_(top), buf_(buf), len_(len), swap_(swap) {}

  RMW_HDDS_HOT rmw_ret_t message(const Plan & plan, uint8_t * base)
  {
    if (plan.empty) {
      if (left() < 1) {
        return truncated(plan, nullptr);
      }
      pos_ += 1;
      return RMW_RET_OK;
    }
    for (const Op & op : plan.ops) {
      const rmw_ret_t ret = field(plan, op, base + op.offset);
      if (ret != RMW_RET_OK) {
        return ret;
      }
    }
    return RMW_RET_OK;
  }

private:
  rmw_ret_t field(const Plan & plan, const Op & op, uint8_t * field)
  {
    switch (op.kind) {
      case OpKind::kRun:
        return run(plan.runs[op.index], field - op.offset) ? RMW_RET_OK : truncated(plan, &op);
      case OpKind::kString:
        return string(plan, op, field);
      case OpKind::kWString:
        return wstring(plan, op, field);
      case OpKind::kStringArray:
        for (uint32_t i = 0; i < op.count; ++i) {
          const rmw_ret_t ret = string(plan, op, field + i * sizeof(typename A::String));
          if (ret != RMW_RET_OK) {
            return ret;
          }
        }
        return RMW_RET_OK;
      case OpKind::kWStringArray:
        for (uint32_t i = 0; i < op.count; ++i) {
          const rmw_ret_t ret = wstring(plan, op, field + i * sizeof(typename A::WString));
          if (ret != RMW_RET_OK) {
            return ret;
          }
        }
        return RMW_RET_OK;
      case OpKind::kStructArray:
        return structs(*op.sub, field, op.count);
      default:
        return sequence(plan, op, field);
    }
  }

  rmw_ret_t sequence(const Plan & plan, const Op & op, uint8_t * field)
  {
    uint32_t n = 0;
    if (!u32(&n)) {
      return truncated(plan, &op);
    }
    if (op.bound != 0 && n > op.bound) {
      return fail(plan, &op, "sequence of " + std::to_string(n) +
               " elements exceeds its bound of " + std::to_string(op.bound));
    }
    // The fewest bytes each element takes: more elements than the rest of the data can hold
    // is an error before any allocation.
    size_t element_min = 4;  // strings and wstrings: their length
    if (op.kind == OpKind::kPrimSeq) {
      element_min = op.elem_size;
      if (n != 0 && !align(op.elem_align)) {
        return truncated(plan, &op);
      }
    } else if (op.kind == OpKind::kBoolVector) {
      element_min = 1;
    } else if (op.kind == OpKind::kStructSeq) {
      element_min = op.sub->min_size;
    }
    if (n > left() / element_min) {
      return fail(plan, &op, "sequence of " + std::to_string(n) + " elements cannot fit in the " +
               std::to_string(left()) + " bytes left");
    }
    if constexpr (L == Lang::Cpp) {
      if (op.kind == OpKind::kBoolVector) {
        std::vector<bool> & v = A::bools(field);
        v.resize(n);
        for (size_t i = 0; i < n; ++i) {
          v[i] = buf_[pos_ + i] != 0;
        }
        pos_ += n;
        return RMW_RET_OK;
      }
      if (op.kind == OpKind::kPrimSeq && op.elem_size == 1 && !op.elem_bool) {
        A::assign_bytes(op, field, buf_ + pos_, n);
        pos_ += n;
        return RMW_RET_OK;
      }
    }
    void * data = nullptr;
    const rmw_ret_t ret = A::resize(op, field, n, &data);
    if (ret != RMW_RET_OK) {
      return fail(plan, &op, ret == RMW_RET_BAD_ALLOC ? "out of memory" :
               "the introspection has no resize function", ret);
    }
    auto elements = static_cast<uint8_t *>(data);
    switch (op.kind) {
      case OpKind::kPrimSeq:
        if (n != 0) {
          copy_elements(elements, buf_ + pos_, n, op.elem_size, swap_);
          if (op.elem_bool) {
            normalize_bools(elements, n);
          }
          pos_ += size_t{n} * op.elem_size;
        }
        return RMW_RET_OK;
      case OpKind::kStringSeq:
        for (size_t i = 0; i < n; ++i) {
          const rmw_ret_t r = string(plan, op, elements + i * sizeof(typename A::String));
          if (r != RMW_RET_OK) {
            return r;
          }
        }
        return RMW_RET_OK;
      case OpKind::kWStringSeq:
        for (size_t i = 0; i < n; ++i) {
          const rmw_ret_t r = wstring(plan, op, elements + i * sizeof(typename A::WString));
          if (r != RMW_RET_OK) {
            return r;
          }
        }
        return RMW_RET_OK;
      default:  // kStructSeq
        return structs(*op.sub, elements, n);
    }
  }

  bool run(const Run & run, uint8_t * base)
  {
    if (!align(run.first_align)) {
      return false;
    }
    if (!swap_ && run_is_fast(run, pos_)) {
      if (left() < run.length) {
        return false;
      }
      // The holes are struct padding: overwriting them is harmless.
      copy_bytes(base + run.offset, buf_ + pos_, run.length);
      pos_ += run.length;
      if (run.has_bools) {
        normalize_run_bools(run, base);
      }
      return true;
    }
    for (const Leaf & leaf : run.leaves) {
      const size_t n = size_t{leaf.count} * leaf.size;
      if (!align(leaf.align) || left() < n) {
        return false;
      }
      copy_elements(base + leaf.offset, buf_ + pos_, leaf.count, leaf.size, swap_);
      if (leaf.is_bool) {
        normalize_bools(base + leaf.offset, leaf.count);
      }
      pos_ += n;
    }
    return true;
  }

  rmw_ret_t structs(const Plan & sub, uint8_t * first, size_t n)
  {
    if (n == 0) {
      return RMW_RET_OK;
    }
    if (sub.uniform && !swap_) {
      const Run & run = sub.runs[0];
      if (!align(run.first_align)) {
        return truncated(sub, nullptr);
      }
      if (run_is_fast(run, pos_) && n <= left() / sub.size_of) {
        copy_bytes(first, buf_ + pos_, n * sub.size_of);
        pos_ += n * sub.size_of;
        if (run.has_bools) {
          for (size_t k = 0; k < n; ++k) {
            normalize_run_bools(run, first + k * sub.size_of);
          }
        }
        return RMW_RET_OK;
      }
    }
    for (size_t k = 0; k < n; ++k) {
      const rmw_ret_t ret = message(sub, first + k * sub.size_of);
      if (ret != RMW_RET_OK) {
        return ret;
      }
    }
    return RMW_RET_OK;
  }

  rmw_ret_t string(const Plan & plan, const Op & op, uint8_t * field)
  {
    uint32_t n = 0;
    if (!u32(&n)) {
      return truncated(plan, &op);
    }
    if (n > left()) {
      return fail(plan, &op, "string length " + std::to_string(n) + " exceeds the " +
               std::to_string(left()) + " bytes left");
    }
    // A length of 0 (no NUL at all) is read as the empty string, as rmw_cyclonedds_cpp does.
    size_t len = 0;
    if (n != 0) {
      if (buf_[pos_ + n - 1] != 0) {
        return fail(plan, &op, "string is not NUL-terminated");
      }
      len = n - 1;
    }
    if (op.str_bound != 0 && len > op.str_bound) {
      return fail(plan, &op, "string of " + std::to_string(len) +
               " bytes exceeds its bound of " + std::to_string(op.str_bound));
    }
    if (!A::assign(field, reinterpret_cast<const char *>(buf_ + pos_), len)) {
      return fail(plan, &op, "out of memory", RMW_RET_BAD_ALLOC);
    }
    pos_ += n;
    return RMW_RET_OK;
  }

  rmw_ret_t wstring(const Plan & plan, const Op & op, uint8_t * field)
  {
    uint32_t n = 0;
    if (!u32(&n)) {
      return truncated(plan, &op);
    }
    if (n > left() / 4) {
      return fail(plan, &op, "wstring of " + std::to_string(n) + " code units exceeds the " +
               std::to_string(left()) + " bytes left");
    }
    if (op.str_bound != 0 && n > op.str_bound) {
      return fail(plan, &op, "wstring of " + std::to_string(n) +
               " code units exceeds its bound of " + std::to_string(op.str_bound));
    }
    uint16_t * out = A::wresize(field, n);
    if (out == nullptr) {
      return fail(plan, &op, "out of memory", RMW_RET_BAD_ALLOC);
    }
    for (size_t i = 0; i < n; ++i) {
      uint32_t unit = 0;
      std::memcpy(&unit, buf_ + pos_ + 4 * i, 4);
      if (swap_) {
        unit = bswap32(unit);
      }
      // Each unit is a UTF-16 code unit widened to 4 bytes: anything larger is not ours to guess.
      if (unit > 0xffffu) {
        char what[64];
        std::snprintf(what, sizeof(what), "wstring code unit 0x%" PRIx32 " is not UTF-16", unit);
        return fail(plan, &op, what);
      }
      out[i] = static_cast<uint16_t>(unit);
    }
    pos_ += 4 * size_t{n};
    return RMW_RET_OK;
  }

  size_t left() const {return len_ - pos_;}

  bool align(size_t a)
  {
    const size_t next = align_up(pos_, a);
    if (next > len_) {
      return false;
    }
    pos_ = next;
    return true;
  }

  bool u32(uint32_t * v)
  {
    if (!align(4) || left() < 4) {
      return false;
    }
    std::memcpy(v, buf_ + pos_, 4);
    if (swap_) {
      *v = bswap32(*v);
    }
    pos_ += 4;
    return true;
  }

  rmw_ret_t truncated(const Plan & plan, const Op * op)
  {
    return fail(plan, op, "the data ends (at byte " + std::to_string(len_) + " of the body)");
  }

  rmw_ret_t fail(
    const Plan & plan, const Op * op, const std::string & what, rmw_ret_t ret = RMW_RET_ERROR)
  {
    std::string msg = "rmw_hdds: cannot deserialize " + top_.type_name + ": ";
    if (op != nullptr) {
      msg += "field '" + plan.names[op->name] + "'";
      if (&plan != &top_) {
        msg += " of " + plan.type_name;
      }
    } else {
      msg += plan.type_name;
    }
    msg += ": " + what;
    RMW_SET_ERROR_MSG(msg.c_str());
    return ret;
  }

  const Plan & top_;
  const uint8_t * buf_;
  size_t len_;
  size_t pos_ = 0;
  bool swap_;
};
}  // namespace

RMW_HDDS_HOT rmw_ret_t read_body(const Plan & plan, const uint8_t * body, size_t size, bool swap, void * msg)
{
  auto base = static_cast<uint8_t *>(msg);
  try {
    if (plan.lang == Lang::C) {
      return Reader<Lang::C>(plan, body, size, swap).message(plan, base);
    }
    return Reader<Lang::Cpp>(plan, body, size, swap).message(plan, base);
  } catch (const std::bad_alloc &) {
    rmw_reset_error();
    RMW_SET_ERROR_MSG_WITH_FORMAT_STRING(
      "rmw_hdds: cannot deserialize %s: out of memory", plan.type_name.c_str());
    return RMW_RET_BAD_ALLOC;
  } catch (const std::exception & e) {
    rmw_reset_error();
    RMW_SET_ERROR_MSG_WITH_FORMAT_STRING(
      "rmw_hdds: cannot deserialize %s: %s", plan.type_name.c_str(), e.what());
    return RMW_RET_ERROR;
  }
}
}  // namespace cdr
}  // namespace rmw_hdds
