// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// The largest CDR body a bounded message type can take (for rmw_get_serialized_message_size).
//
// Padding depends on where each field lands modulo 8, so the largest size is not the sum of the
// largest fields. The computation keeps, for each residue of the position modulo 8, the largest
// reachable position: every CDR step maps p + 8k to f(p) + 8k, so the largest start in a residue
// class gives the largest result, and eight states capture every choice of lengths exactly.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

#include "detail/cdr_access.hpp"
#include "detail/cdr_codec.hpp"

namespace rmw_hdds
{
namespace cdr
{
namespace
{
constexpr size_t kNone = SIZE_MAX;
using State = std::array<size_t, 8>;
// Sequences longer than this are bounded by a per-element worst case instead of exactly, to keep
// the computation short whatever the IDL bound.
constexpr size_t kExactElements = 65536;

State empty_state()
{
  State s;
  s.fill(kNone);
  return s;
}

void merge(State & s, size_t pos)
{
  size_t & slot = s[pos & 7u];
  if (slot == kNone || pos > slot) {
    slot = pos;
  }
}

void merge(State & s, const State & other)
{
  for (size_t p : other) {
    if (p != kNone) {
      merge(s, p);
    }
  }
}

class MaxSizer
{
public:
  explicit MaxSizer(std::string * unbounded)
  : unbounded_(unbounded) {}

  bool message(const Plan & plan, State & s)
  {
    if (plan.empty) {
      shift(s, 1);
      return true;
    }
    for (const Op & op : plan.ops) {
      if (!field(plan, op, s)) {
        return false;
      }
    }
    return true;
  }

private:
  bool field(const Plan & plan, const Op & op, State & s)
  {
    const bool is_sequence = op.kind == OpKind::kPrimSeq || op.kind == OpKind::kBoolVector ||
      op.kind == OpKind::kStringSeq || op.kind == OpKind::kWStringSeq ||
      op.kind == OpKind::kStructSeq;
    const bool has_string = op.kind == OpKind::kString || op.kind == OpKind::kWString ||
      op.kind == OpKind::kStringArray || op.kind == OpKind::kWStringArray ||
      op.kind == OpKind::kStringSeq || op.kind == OpKind::kWStringSeq;
    if ((is_sequence && op.bound == 0) || (has_string && op.str_bound == 0)) {
      *unbounded_ = plan.type_name + "." + plan.names[op.name];
      return false;
    }
    switch (op.kind) {
      case OpKind::kRun:
        each(s, [&](size_t p) {return run(plan.runs[op.index], p);});
        return true;
      case OpKind::kString:
      case OpKind::kWString:
        string(op, s);
        return true;
      case OpKind::kStringArray:
      case OpKind::kWStringArray:
        for (uint32_t i = 0; i < op.count; ++i) {
          string(op, s);
        }
        return true;
      case OpKind::kStructArray:
        for (uint32_t i = 0; i < op.count; ++i) {
          if (!message(*op.sub, s)) {
            return false;
          }
        }
        return true;
      case OpKind::kPrimSeq:
      case OpKind::kBoolVector: {
          const size_t size = op.kind == OpKind::kPrimSeq ? op.elem_size : 1;
          const size_t align = op.kind == OpKind::kPrimSeq ? op.elem_align : 1;
          State out = empty_state();
          for (size_t p : s) {
            if (p == kNone) {
              continue;
            }
            const size_t q = align_up(p, 4) + 4;
            merge(out, q);  // no elements: no alignment either
            for (size_t c = op.bound > 8 ? op.bound - 7 : 1; c <= op.bound; ++c) {
              merge(out, align_up(q, align) + c * size);
            }
          }
          s = out;
          return true;
        }
      default:  // kStringSeq, kWStringSeq, kStructSeq: each element count from 0 to the bound
        each(s, [](size_t p) {return align_up(p, 4) + 4;});
        return elements(op, s);
    }
  }

  bool elements(const Op & op, State & s)
  {
    State all = s;
    State cur = s;
    const size_t exact = std::min<size_t>(op.bound, kExactElements);
    for (size_t k = 0; k < exact; ++k) {
      if (!element(op, cur)) {
        return false;
      }
      merge(all, cur);
    }
    if (op.bound > exact) {
      // Beyond that, no element grows the position by more than its largest growth from any
      // residue: an upper bound rather than the exact maximum.
      size_t growth = 0;
      for (size_t r = 0; r < 8; ++r) {
        State one = empty_state();
        one[r] = r;
        if (!element(op, one)) {
          return false;
        }
        for (size_t p : one) {
          if (p != kNone) {
            growth = std::max(growth, p - r);
          }
        }
      }
      size_t top = 0;
      for (size_t p : all) {
        top = p != kNone ? std::max(top, p) : top;
      }
      merge(all, top + (op.bound - exact) * growth + 7);
    }
    s = all;
    return true;
  }

  bool element(const Op & op, State & s)
  {
    if (op.kind == OpKind::kStructSeq) {
      return message(*op.sub, s);
    }
    string(op, s);
    return true;
  }

  // A string or wstring of any length up to its bound.
  static void string(const Op & op, State & s)
  {
    const bool wide = op.kind == OpKind::kWString || op.kind == OpKind::kWStringArray ||
      op.kind == OpKind::kWStringSeq;
    State out = empty_state();
    for (size_t p : s) {
      if (p == kNone) {
        continue;
      }
      const size_t q = align_up(p, 4) + 4;
      for (size_t len = op.str_bound > 7 ? op.str_bound - 7 : 0; len <= op.str_bound; ++len) {
        merge(out, wide ? q + 4 * len : q + len + 1);
      }
    }
    s = out;
  }

  static size_t run(const Run & run, size_t p)
  {
    for (const Leaf & leaf : run.leaves) {
      p = align_up(p, leaf.align) + size_t{leaf.count} * leaf.size;
    }
    return p;
  }

  template<class F>
  static void each(State & s, F f)
  {
    State out = empty_state();
    for (size_t p : s) {
      if (p != kNone) {
        merge(out, f(p));
      }
    }
    s = out;
  }

  static void shift(State & s, size_t n)
  {
    each(s, [n](size_t p) {return p + n;});
  }

  std::string * unbounded_;
};
}  // namespace

bool max_body_size(const Plan & plan, size_t * size, std::string * unbounded)
{
  State s = empty_state();
  s[0] = 0;
  if (!MaxSizer(unbounded).message(plan, s)) {
    return false;
  }
  size_t top = 0;
  for (size_t p : s) {
    if (p != kNone) {
      top = std::max(top, p);
    }
  }
  *size = top;
  return true;
}
}  // namespace cdr
}  // namespace rmw_hdds
