// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// A ROS message type compiled once, from rosidl introspection (C or C++), into a flat list of
// CDR operations: the "plan" that serializes, sizes and deserializes every instance of the type.
//
// The byte layout is XCDR1 as rmw_cyclonedds_cpp (Humble) writes it: alignment counted from the
// start of the payload (after the 4-byte encapsulation header), 8 bytes at most; strings as a u32
// length that counts the NUL, then the bytes and the NUL; wstrings as a u32 count of UTF-16 code
// units, then each unit widened to 4 bytes; sequences as a u32 count, then the elements; nested
// structs inline, without alignment of their own; long double as 16 bytes aligned to 8.
#ifndef RMW_HDDS__DETAIL__CDR_PLAN_HPP_
#define RMW_HDDS__DETAIL__CDR_PLAN_HPP_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace rmw_hdds
{
namespace cdr
{
// Which rosidl introspection the plan reads the in-memory message through.
enum class Lang : uint8_t {C, Cpp};

// One primitive field, or a fixed array of one primitive type, at a memory offset from the
// plan's base. In memory and in CDR one element takes `size` bytes.
struct Leaf
{
  uint32_t offset;
  uint32_t count;
  uint8_t size;   // 1, 2, 4, 8 or 16
  uint8_t align;  // CDR alignment: min(size, 8)
  bool is_bool;   // bytes read from the wire are normalized to 0/1
};

// Consecutive leaves whose in-memory layout is their CDR layout, given the right alignment of the
// stream: then the whole run is one memcpy (plus zeroing the padding holes, which CDR writes as
// zeros and memory leaves undefined). `fast_mask` bit d is set when the run is memcpy-able with the
// stream position congruent to `offset + d` modulo 8; otherwise the leaves are copied one by one.
struct Run
{
  uint32_t offset;       // memory offset of the first leaf
  uint32_t length;       // bytes from the first leaf's start to the last leaf's end
  uint8_t first_align;   // CDR alignment of the first leaf
  uint8_t fast_mask;
  bool has_bools;
  std::vector<Leaf> leaves;
  std::vector<std::pair<uint32_t, uint32_t>> holes;  // (offset from `offset`, length) of padding
};

enum class OpKind : uint8_t
{
  kRun,           // runs[index]
  kString,        // one string
  kWString,       // one wstring
  kStringArray,   // `count` strings inline
  kWStringArray,  // `count` wstrings inline
  kPrimSeq,       // sequence of a primitive type (not C++ bool)
  kBoolVector,    // C++ sequence of bool: std::vector<bool>, packed in memory
  kStringSeq,     // sequence of strings
  kWStringSeq,    // sequence of wstrings
  kStructArray,   // `count` nested messages inline
  kStructSeq,     // sequence of nested messages
};

struct Plan;

struct Op
{
  OpKind kind;
  uint8_t elem_size = 0;   // kPrimSeq: bytes per element
  uint8_t elem_align = 0;  // kPrimSeq: CDR alignment of an element
  bool elem_bool = false;  // kPrimSeq: elements are bools (normalized on read)
  uint32_t offset = 0;     // memory offset of the field from the plan's base
  uint32_t count = 0;      // fixed arrays: number of elements
  uint32_t bound = 0;      // sequences: maximum number of elements, 0 if unbounded
  uint32_t str_bound = 0;  // strings and wstrings: maximum length, 0 if unbounded
  uint32_t index = 0;      // kRun: index into Plan::runs
  uint32_t name = 0;       // index into Plan::names, for error messages
  const Plan * sub = nullptr;      // kStructArray, kStructSeq: the element type's plan
  const void * member = nullptr;   // sequences: the introspection MessageMember (C or C++),
                                   // whose size/get/resize functions reach the storage
};

// A compiled message type. Immutable once built; shared by every thread and kept for the life of
// the process by the type support cache (detail/type_support.cpp).
struct Plan
{
  Lang lang = Lang::C;
  const void * members = nullptr;  // the MessageMembers it was compiled from
  std::string type_name;           // "pkg/msg/Name", for error messages
  size_t size_of = 0;              // sizeof the message struct
  uint32_t member_count = 0;
  std::vector<Op> ops;
  std::vector<Run> runs;
  std::vector<std::string> names;  // field paths ("a.b[2].c") named by Op::name
  // Fewest CDR bytes an instance takes: a sequence announcing more elements than the remaining
  // bytes can hold is rejected before anything is allocated.
  size_t min_size = 0;
  // No members at all (hand-written introspection): CDR carries one zero byte, as for the
  // generated dummy member `structure_needs_at_least_one_member`.
  bool empty = false;
  // Exactly one run covering [0, size_of): an array of this type is one memcpy when fast.
  bool uniform = false;
  // Uniform plans: what a message's address must be a multiple of to be read in place, the size
  // of its widest primitive (a primitive's alignment is at most its size on every ABI ROS 2 runs
  // on, and a struct's is its widest member's).
  size_t align = 1;
};

// Finds or compiles the plan of a nested message type (given its MessageMembers): supplied by the
// cache, so that nested types are compiled once and shared.
using SubPlanFn = std::function<const Plan *(Lang, const void * members, std::string * error)>;

// Compiles `members` (a rosidl_typesupport_introspection_c__MessageMembers or a
// rosidl_typesupport_introspection_cpp::MessageMembers, by `lang`). On failure (an unknown type
// id, a nested type without introspection, a long double that is not 16 bytes) returns nullptr
// and describes why in `error`.
std::unique_ptr<Plan> compile_plan(
  Lang lang, const void * members, const SubPlanFn & sub, std::string * error);

// True when no string, wstring or sequence occurs in the type, nested types included: every
// instance has the same size and owns no memory beyond its struct.
bool is_fixed_size(const Plan & plan);

// The MessageMembers of a nested message member's type support handle (`members_` of a
// MessageMember), in the given introspection; nullptr and `error` if it has none.
const void * nested_members(Lang lang, const void * type_support_handle, std::string * error);
}  // namespace cdr
}  // namespace rmw_hdds

#endif  // RMW_HDDS__DETAIL__CDR_PLAN_HPP_
