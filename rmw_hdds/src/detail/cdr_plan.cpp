// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// Compiling a message type's introspection into a plan (see cdr_plan.hpp).
#include "detail/cdr_plan.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "detail/cdr_access.hpp"
#include "rcutils/error_handling.h"
#include "rosidl_runtime_c/message_type_support_struct.h"
#include "rosidl_typesupport_introspection_c/field_types.h"
#include "rosidl_typesupport_introspection_c/identifier.h"
#include "rosidl_typesupport_introspection_cpp/field_types.hpp"
#include "rosidl_typesupport_introspection_cpp/identifier.hpp"

namespace rmw_hdds
{
namespace cdr
{
namespace
{
namespace tsi = rosidl_typesupport_introspection_cpp;

// The C and C++ introspections number field types alike; the plan uses the C++ names for both.
static_assert(
  rosidl_typesupport_introspection_c__ROS_TYPE_MESSAGE == tsi::ROS_TYPE_MESSAGE &&
  rosidl_typesupport_introspection_c__ROS_TYPE_STRING == tsi::ROS_TYPE_STRING &&
  rosidl_typesupport_introspection_c__ROS_TYPE_WSTRING == tsi::ROS_TYPE_WSTRING &&
  rosidl_typesupport_introspection_c__ROS_TYPE_BOOLEAN == tsi::ROS_TYPE_BOOLEAN &&
  rosidl_typesupport_introspection_c__ROS_TYPE_LONG_DOUBLE == tsi::ROS_TYPE_LONG_DOUBLE,
  "introspection C and C++ field type ids differ");

// A fixed array of nested messages is flattened into its parent (one run with its neighbours)
// when the element type is plain data and the copies stay this small; otherwise it is one op
// that walks the element plan.
constexpr size_t kFlattenLeafLimit = 64;
// Message types cannot nest themselves; this only stops broken introspection data.
constexpr int kMaxDepth = 64;

// Bytes one element of a primitive type takes, in memory and in CDR; 0 if not a primitive.
// (rmw_cyclonedds_cpp: wchar 2, long double 16, everything else its natural size.)
uint8_t primitive_size(uint8_t type_id)
{
  switch (type_id) {
    case tsi::ROS_TYPE_BOOLEAN:
    case tsi::ROS_TYPE_OCTET:
    case tsi::ROS_TYPE_UINT8:
    case tsi::ROS_TYPE_INT8:
    case tsi::ROS_TYPE_CHAR:
      return 1;
    case tsi::ROS_TYPE_WCHAR:
    case tsi::ROS_TYPE_UINT16:
    case tsi::ROS_TYPE_INT16:
      return 2;
    case tsi::ROS_TYPE_FLOAT:
    case tsi::ROS_TYPE_UINT32:
    case tsi::ROS_TYPE_INT32:
      return 4;
    case tsi::ROS_TYPE_DOUBLE:
    case tsi::ROS_TYPE_UINT64:
    case tsi::ROS_TYPE_INT64:
      return 8;
    case tsi::ROS_TYPE_LONG_DOUBLE:
      return 16;
    default:
      return 0;
  }
}

const char * introspection_identifier(Lang lang)
{
  return lang == Lang::C ? rosidl_typesupport_introspection_c__identifier :
         tsi::typesupport_identifier;
}

// "test_msgs__msg" (C) or "test_msgs::msg" (C++) and "BasicTypes" -> "test_msgs/msg/BasicTypes".
std::string type_name(const char * ns, const char * name)
{
  std::string out = ns != nullptr ? ns : "";
  for (const char * sep : {"::", "__"}) {
    for (size_t at = out.find(sep); at != std::string::npos; at = out.find(sep, at + 1)) {
      out.replace(at, 2, "/");
    }
  }
  return out + "/" + (name != nullptr ? name : "?");
}

// Collects a plan's ops while the fields are flattened, merging consecutive leaves into runs.
class Builder
{
public:
  explicit Builder(Plan & plan)
  : plan_(plan) {}

  uint32_t name(std::string path)
  {
    plan_.names.push_back(std::move(path));
    return static_cast<uint32_t>(plan_.names.size() - 1);
  }

  void leaf(const Leaf & leaf, const std::string & path)
  {
    if (open_ && extends(leaf)) {
      run_.leaves.push_back(leaf);
      return;
    }
    close();
    run_ = Run{};
    run_.offset = leaf.offset;
    run_.first_align = leaf.align;
    run_.leaves.push_back(leaf);
    run_name_ = name(path);
    open_ = true;
  }

  void op(Op op)
  {
    close();
    plan_.ops.push_back(op);
  }

  void close()
  {
    if (!open_) {
      return;
    }
    open_ = false;
    finish(run_);
    Op op{};
    op.kind = OpKind::kRun;
    op.offset = run_.offset;
    op.index = static_cast<uint32_t>(plan_.runs.size());
    op.name = run_name_;
    plan_.runs.push_back(std::move(run_));
    plan_.ops.push_back(op);
  }

private:
  static size_t end_of(const Leaf & leaf)
  {
    return size_t{leaf.offset} + size_t{leaf.count} * leaf.size;
  }

  // The leaf continues the run if, with the stream congruent to memory modulo 8, CDR would put it
  // exactly where it is in memory.
  bool extends(const Leaf & leaf) const
  {
    return align_up(end_of(run_.leaves.back()), leaf.align) == leaf.offset;
  }

  static void finish(Run & run)
  {
    const size_t end = end_of(run.leaves.back());
    run.length = static_cast<uint32_t>(end - run.offset);
    size_t prev_end = run.offset;
    for (const Leaf & leaf : run.leaves) {
      if (leaf.offset > prev_end) {
        run.holes.emplace_back(
          static_cast<uint32_t>(prev_end - run.offset),
          static_cast<uint32_t>(leaf.offset - prev_end));
      }
      prev_end = end_of(leaf);
      run.has_bools = run.has_bools || leaf.is_bool;
    }
    // For each congruence d of the stream with memory, simulate CDR's placement of every leaf.
    run.fast_mask = 0;
    for (size_t d = 0; d < 8; ++d) {
      size_t pos = run.offset + d;
      bool same = true;
      for (const Leaf & leaf : run.leaves) {
        const size_t at = align_up(pos, leaf.align);
        if (at != leaf.offset + d) {
          same = false;
          break;
        }
        pos = at + size_t{leaf.count} * leaf.size;
      }
      if (same) {
        run.fast_mask = static_cast<uint8_t>(run.fast_mask | (1u << d));
      }
    }
  }

  Plan & plan_;
  Run run_{};
  uint32_t run_name_ = 0;
  bool open_ = false;
};

template<Lang L>
class Compiler
{
  using Members = typename Access<L>::Members;
  using Member = typename Access<L>::Member;

public:
  Compiler(Plan & plan, const SubPlanFn & sub, std::string * error)
  : builder_(plan), sub_(sub), error_(error) {}

  // Appends the fields of `members`, found at `base` from the plan's base, named `prefix`+field.
  bool add(const Members * members, size_t base, const std::string & prefix, int depth)
  {
    if (depth > kMaxDepth) {
      return fail(prefix, "message types nest deeper than " + std::to_string(kMaxDepth));
    }
    for (uint32_t i = 0; i < members->member_count_; ++i) {
      if (!add_member(members->members_[i], base, prefix, depth)) {
        return false;
      }
    }
    return true;
  }

  void finish() {builder_.close();}

private:
  bool add_member(const Member & m, size_t base, const std::string & prefix, int depth)
  {
    const std::string path = prefix + (m.name_ != nullptr ? m.name_ : "?");
    const size_t offset = base + m.offset_;
    if (offset > UINT32_MAX) {
      return fail(path, "message too large in memory");
    }
    const bool fixed_array = m.is_array_ && m.array_size_ != 0 && !m.is_upper_bound_;
    const bool sequence = m.is_array_ && !fixed_array;
    if (m.array_size_ > UINT32_MAX || m.string_upper_bound_ > UINT32_MAX) {
      return fail(path, "array size or bound beyond 2^32");
    }
    Op op{};
    op.offset = static_cast<uint32_t>(offset);
    op.count = fixed_array ? static_cast<uint32_t>(m.array_size_) : 0;
    op.bound = sequence && m.is_upper_bound_ ? static_cast<uint32_t>(m.array_size_) : 0;
    op.member = &m;

    if (m.type_id_ == tsi::ROS_TYPE_MESSAGE) {
      const void * nested = nested_members(L, m.members_, error_);
      if (nested == nullptr) {
        return fail(path, *error_);
      }
      auto nested_members = static_cast<const Members *>(nested);
      if (!m.is_array_) {
        return add(nested_members, offset, path + ".", depth + 1);
      }
      const Plan * sub = sub_(L, nested, error_);
      if (sub == nullptr) {
        return false;
      }
      if (fixed_array && is_plain(*sub) && leaf_count(*sub) * op.count <= kFlattenLeafLimit) {
        for (uint32_t k = 0; k < op.count; ++k) {
          const std::string element = path + "[" + std::to_string(k) + "].";
          if (!add(nested_members, offset + size_t{k} * sub->size_of, element, depth + 1)) {
            return false;
          }
        }
        return true;
      }
      op.kind = fixed_array ? OpKind::kStructArray : OpKind::kStructSeq;
      op.sub = sub;
    } else if (m.type_id_ == tsi::ROS_TYPE_STRING || m.type_id_ == tsi::ROS_TYPE_WSTRING) {
      const bool wide = m.type_id_ == tsi::ROS_TYPE_WSTRING;
      op.str_bound = static_cast<uint32_t>(m.string_upper_bound_);
      if (!m.is_array_) {
        op.kind = wide ? OpKind::kWString : OpKind::kString;
      } else if (fixed_array) {
        op.kind = wide ? OpKind::kWStringArray : OpKind::kStringArray;
      } else {
        op.kind = wide ? OpKind::kWStringSeq : OpKind::kStringSeq;
      }
    } else {
      const uint8_t size = primitive_size(m.type_id_);
      if (size == 0) {
        return fail(path, "unknown field type id " + std::to_string(m.type_id_));
      }
      if (m.type_id_ == tsi::ROS_TYPE_LONG_DOUBLE && sizeof(long double) != 16) {
        return fail(path, "long double is 16 bytes in CDR but not on this platform");
      }
      const uint8_t align = size < 8 ? size : 8;
      const bool is_bool = m.type_id_ == tsi::ROS_TYPE_BOOLEAN;
      if (!sequence) {
        builder_.leaf(Leaf{op.offset, fixed_array ? op.count : 1, size, align, is_bool}, path);
        return true;
      }
      if (L == Lang::Cpp && is_bool) {
        op.kind = OpKind::kBoolVector;
      } else {
        op.kind = OpKind::kPrimSeq;
        op.elem_size = size;
        op.elem_align = align;
        op.elem_bool = is_bool;
      }
    }
    if (sequence && !has_sequence_functions(m)) {
      return fail(path, "the introspection has no size/get/resize functions for this sequence");
    }
    op.name = builder_.name(path);
    builder_.op(op);
    return true;
  }

  static bool has_sequence_functions(const Member & m)
  {
    if (L == Lang::C) {
      return m.resize_function != nullptr;
    }
    const bool bools = m.type_id_ == tsi::ROS_TYPE_BOOLEAN;
    return m.size_function != nullptr && m.resize_function != nullptr &&
           (bools || (m.get_const_function != nullptr && m.get_function != nullptr));
  }

  static bool is_plain(const Plan & plan)
  {
    if (plan.empty) {
      return false;
    }
    for (const Op & op : plan.ops) {
      if (op.kind != OpKind::kRun) {
        return false;
      }
    }
    return true;
  }

  static size_t leaf_count(const Plan & plan)
  {
    size_t n = 0;
    for (const Run & run : plan.runs) {
      n += run.leaves.size();
    }
    return n;
  }

  bool fail(const std::string & path, const std::string & why)
  {
    *error_ = "field '" + path + "': " + why;
    return false;
  }

  Builder builder_;
  const SubPlanFn & sub_;
  std::string * error_;
};

size_t min_size_of(const Plan & plan)
{
  if (plan.empty) {
    return 1;
  }
  size_t n = 0;
  for (const Op & op : plan.ops) {
    switch (op.kind) {
      case OpKind::kRun:
        for (const Leaf & leaf : plan.runs[op.index].leaves) {
          n += size_t{leaf.count} * leaf.size;
        }
        break;
      case OpKind::kStringArray:
      case OpKind::kWStringArray:
        n += 4 * size_t{op.count};
        break;
      case OpKind::kStructArray:
        n += op.count * op.sub->min_size;
        break;
      default:  // a u32 length or count at least
        n += 4;
        break;
    }
  }
  return n;
}

template<Lang L>
std::unique_ptr<Plan> compile(const void * members_ptr, const SubPlanFn & sub, std::string * error)
{
  auto members = static_cast<const typename Access<L>::Members *>(members_ptr);
  auto plan = std::make_unique<Plan>();
  plan->lang = L;
  plan->members = members_ptr;
  plan->type_name = type_name(members->message_namespace_, members->message_name_);
  plan->size_of = members->size_of_;
  plan->member_count = members->member_count_;
  plan->empty = members->member_count_ == 0;
  Compiler<L> compiler(*plan, sub, error);
  if (!compiler.add(members, 0, "", 0)) {
    *error = plan->type_name + ": " + *error;
    return nullptr;
  }
  compiler.finish();
  plan->min_size = min_size_of(*plan);
  plan->uniform = plan->ops.size() == 1 && plan->runs.size() == 1 &&
    plan->runs[0].offset == 0 && plan->runs[0].length == plan->size_of;
  if (plan->uniform) {
    for (const Leaf & leaf : plan->runs[0].leaves) {
      plan->align = std::max<size_t>(plan->align, leaf.size);
    }
  }
  return plan;
}
}  // namespace

std::unique_ptr<Plan> compile_plan(
  Lang lang, const void * members, const SubPlanFn & sub, std::string * error)
{
  return lang == Lang::C ? compile<Lang::C>(members, sub, error) :
         compile<Lang::Cpp>(members, sub, error);
}

const void * nested_members(Lang lang, const void * type_support_handle, std::string * error)
{
  auto handle = static_cast<const rosidl_message_type_support_t *>(type_support_handle);
  const char * identifier = introspection_identifier(lang);
  if (handle == nullptr) {
    *error = "nested message without a type support handle";
    return nullptr;
  }
  if (handle->typesupport_identifier != nullptr &&
    std::strcmp(handle->typesupport_identifier, identifier) == 0)
  {
    return handle->data;
  }
  if (handle->func != nullptr) {
    const rosidl_message_type_support_t * found =
      get_message_typesupport_handle(handle, identifier);
    if (found != nullptr) {
      return found->data;
    }
    rcutils_reset_error();
  }
  *error = std::string("nested message type support has no ") + identifier;
  return nullptr;
}

bool is_fixed_size(const Plan & plan)
{
  for (const Op & op : plan.ops) {
    const bool fixed = op.kind == OpKind::kRun ||
      (op.kind == OpKind::kStructArray && is_fixed_size(*op.sub));
    if (!fixed) {
      return false;
    }
  }
  return true;
}
}  // namespace cdr
}  // namespace rmw_hdds
