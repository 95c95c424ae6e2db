// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// Resolving rosidl type support handles to compiled plans, the plan cache, and the encapsulation
// header around the CDR body.
#include "detail/type_support.hpp"

#include <cstddef>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "detail/cdr_codec.hpp"
#include "detail/cdr_plan.hpp"
#include "detail/hot.hpp"
#include "rcutils/error_handling.h"
#include "rmw/error_handling.h"
#include "rmw/serialized_message.h"
#include "rosidl_typesupport_introspection_c/identifier.h"
#include "rosidl_typesupport_introspection_c/message_introspection.h"
#include "rosidl_typesupport_introspection_c/service_introspection.h"
#include "rosidl_typesupport_introspection_cpp/identifier.hpp"
#include "rosidl_typesupport_introspection_cpp/message_introspection.hpp"
#include "rosidl_typesupport_introspection_cpp/service_introspection.hpp"

namespace rmw_hdds
{
namespace
{
using cdr::Lang;
using cdr::Plan;

#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__)
constexpr bool kHostLittleEndian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
#else
#error "rmw_hdds needs __BYTE_ORDER__ to know the host's byte order"
#endif

const char * introspection_id(Lang lang)
{
  return lang == Lang::C ? rosidl_typesupport_introspection_c__identifier :
         rosidl_typesupport_introspection_cpp::typesupport_identifier;
}

// Where the generated introspection describes a message: the fields every lookup checks.
template<class Members>
bool describes(const Plan & plan, const Members * m)
{
  const size_t n = m->message_name_ != nullptr ? std::strlen(m->message_name_) : 0;
  const std::string & name = plan.type_name;
  return m->size_of_ == plan.size_of && m->member_count_ == plan.member_count &&
         name.size() > n && name[name.size() - n - 1] == '/' &&
         name.compare(name.size() - n, n, m->message_name_ != nullptr ? m->message_name_ : "") == 0;
}

// The error the rosidl dispatcher left (if any), consumed.
std::string take_rcutils_error()
{
  std::string msg = rcutils_error_is_set() ? rcutils_get_error_string().str : "no reason given";
  rcutils_reset_error();
  return msg;
}

// Every message type the process has used, compiled once, by the address of its introspection
// MessageMembers. The cache and its plans are never destroyed: entities anywhere hold plan
// pointers, also during static destruction.
class PlanCache
{
public:
  static PlanCache & instance()
  {
    static PlanCache * cache = new PlanCache();
    return *cache;
  }

  // The lock also serializes the rosidl dispatchers, which load type support libraries lazily
  // without a lock of their own.
  const Plan * message(const rosidl_message_type_support_t * ts, std::string * error)
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Lang lang = Lang::C;
    const void * members = nullptr;
    if (!resolve(ts, &lang, &members, error)) {
      return nullptr;
    }
    return plan(lang, members, error);
  }

  bool service(
    const rosidl_service_type_support_t * ts, const Plan ** request, const Plan ** response,
    std::string * error)
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Lang lang = Lang::C;
    const void * service_members = nullptr;
    if (!resolve(ts, &lang, &service_members, error)) {
      return false;
    }
    const void * req = nullptr;
    const void * res = nullptr;
    if (lang == Lang::C) {
      auto s = static_cast<const rosidl_typesupport_introspection_c__ServiceMembers *>(
        service_members);
      req = s->request_members_;
      res = s->response_members_;
    } else {
      auto s = static_cast<const rosidl_typesupport_introspection_cpp::ServiceMembers *>(
        service_members);
      req = s->request_members_;
      res = s->response_members_;
    }
    if (req == nullptr || res == nullptr) {
      *error = "the service introspection lacks its request or response members";
      return false;
    }
    *request = plan(lang, req, error);
    *response = *request != nullptr ? plan(lang, res, error) : nullptr;
    return *response != nullptr;
  }

private:
  const Plan * plan(Lang lang, const void * members, std::string * error)
  {
    if (members == nullptr) {
      *error = "the introspection type support has no members";
      return nullptr;
    }
    auto it = plans_.find(members);
    if (it != plans_.end()) {
      if (still_describes(*it->second, lang, members)) {
        return it->second.get();
      }
      // The library that held the old type was unloaded and another type now lives at this
      // address: compile anew, and keep the old plan alive for whoever still holds it.
      retired_.push_back(std::move(it->second));
      plans_.erase(it);
    }
    const cdr::SubPlanFn sub = [this](Lang l, const void * m, std::string * e) {
        return plan(l, m, e);
      };
    std::unique_ptr<Plan> compiled = cdr::compile_plan(lang, members, sub, error);
    if (compiled == nullptr) {
      return nullptr;
    }
    const Plan * raw = compiled.get();
    plans_.emplace(members, std::move(compiled));
    return raw;
  }

  static bool still_describes(const Plan & plan, Lang lang, const void * members)
  {
    if (plan.lang != lang) {
      return false;
    }
    if (lang == Lang::C) {
      return describes(
        plan, static_cast<const rosidl_typesupport_introspection_c__MessageMembers *>(members));
    }
    return describes(
      plan, static_cast<const rosidl_typesupport_introspection_cpp::MessageMembers *>(members));
  }

  // Finds the introspection behind `ts`: itself, or what its dispatcher (rosidl_typesupport_c or
  // _cpp) provides. TypeSupport is rosidl_message_type_support_t or rosidl_service_type_support_t.
  template<class TypeSupport, class Getter>
  static bool resolve_with(
    const TypeSupport * ts, Getter get, Lang * lang, const void ** data, std::string * error)
  {
    const char * id = ts->typesupport_identifier;
    if (id == nullptr) {
      *error = "the type support handle has no identifier";
      return false;
    }
    for (Lang l : {Lang::C, Lang::Cpp}) {
      if (std::strcmp(id, introspection_id(l)) == 0) {
        *lang = l;
        *data = ts->data;
        return true;
      }
    }
    if (ts->func == nullptr) {
      *error = std::string("type support '") + id + "' has no handle function";
      return false;
    }
    // A dispatcher: ask for the introspection of its own language first (the C++ dispatcher
    // does not know the C introspection, and the reverse).
    const bool cpp_first = std::strcmp(id, "rosidl_typesupport_cpp") == 0;
    std::string why;
    for (Lang l : {cpp_first ? Lang::Cpp : Lang::C, cpp_first ? Lang::C : Lang::Cpp}) {
      const TypeSupport * found = get(ts, introspection_id(l));
      if (found != nullptr) {
        *lang = l;
        *data = found->data;
        return true;
      }
      why += std::string("; ") + introspection_id(l) + ": " + take_rcutils_error();
    }
    *error = std::string("type support '") + id + "' provides no introspection type support" +
      why;
    return false;
  }

  static bool resolve(
    const rosidl_message_type_support_t * ts, Lang * lang, const void ** data, std::string * error)
  {
    return resolve_with(ts, get_message_typesupport_handle, lang, data, error);
  }

  static bool resolve(
    const rosidl_service_type_support_t * ts, Lang * lang, const void ** data, std::string * error)
  {
    return resolve_with(ts, get_service_typesupport_handle, lang, data, error);
  }

  std::mutex mutex_;
  std::unordered_map<const void *, std::unique_ptr<Plan>> plans_;
  std::vector<std::unique_ptr<Plan>> retired_;
};

void put_header(uint8_t * dst)
{
  dst[0] = 0;  // CDR (XCDR1), not parameter-list CDR
  dst[1] = kHostLittleEndian ? 1 : 0;
  dst[2] = 0;  // options
  dst[3] = 0;
}
}  // namespace

rmw_ret_t MessageTypeSupport::resolve(
  const rosidl_message_type_support_t * type_support, MessageTypeSupport * out)
{
  RMW_CHECK_ARGUMENT_FOR_NULL(type_support, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(out, RMW_RET_INVALID_ARGUMENT);
  std::string error;
  const Plan * plan = PlanCache::instance().message(type_support, &error);
  if (plan == nullptr) {
    RMW_SET_ERROR_MSG_WITH_FORMAT_STRING("rmw_hdds: %s", error.c_str());
    return RMW_RET_ERROR;
  }
  *out = MessageTypeSupport(plan);
  return RMW_RET_OK;
}

rmw_ret_t ServiceTypeSupport::resolve(
  const rosidl_service_type_support_t * type_support, ServiceTypeSupport * out)
{
  RMW_CHECK_ARGUMENT_FOR_NULL(type_support, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(out, RMW_RET_INVALID_ARGUMENT);
  std::string error;
  const Plan * request = nullptr;
  const Plan * response = nullptr;
  if (!PlanCache::instance().service(type_support, &request, &response, &error)) {
    RMW_SET_ERROR_MSG_WITH_FORMAT_STRING("rmw_hdds: %s", error.c_str());
    return RMW_RET_ERROR;
  }
  out->request = MessageTypeSupport(request);
  out->response = MessageTypeSupport(response);
  return RMW_RET_OK;
}

const char * MessageTypeSupport::type_name() const {return plan_->type_name.c_str();}

const void * MessageTypeSupport::introspection() const {return plan_->members;}

bool MessageTypeSupport::is_cpp() const {return plan_->lang == Lang::Cpp;}

size_t MessageTypeSupport::message_size() const {return plan_->size_of;}

bool MessageTypeSupport::is_fixed_size() const {return cdr::is_fixed_size(*plan_);}

const void * MessageTypeSupport::in_place(const uint8_t * data, size_t size) const
{
  // The body of a same-host writer's sample starts a cache line in its ring (the engine's
  // ring.rs, LENT_LEAD); that of a sample in an engine buffer (a same-process writer's, one read
  // out of a ring or received over UDP) starts 8-byte aligned (the engine's payload.rs). A body
  // less aligned than the struct's widest field (a buffer of someone else's) is not read in place.
  const cdr::Plan & plan = *plan_;
  const size_t need = in_place_size();
  if (need == 0 || size < need || data[0] != 0 || data[1] != (kHostLittleEndian ? 1 : 0))
  {
    return nullptr;
  }
  const uint8_t * body = data + kEncapsulationSize;
  if (reinterpret_cast<uintptr_t>(body) % plan.align != 0) {
    return nullptr;
  }
  if (plan.runs[0].has_bools) {
    for (const cdr::Leaf & leaf : plan.runs[0].leaves) {
      for (uint32_t i = 0; leaf.is_bool && i < leaf.count; ++i) {
        if (body[leaf.offset + i] > 1) {
          return nullptr;  // the deserializer normalizes it; a bool in place may not hold it
        }
      }
    }
  }
  return body;
}

size_t MessageTypeSupport::in_place_size() const
{
  const cdr::Plan & plan = *plan_;
  return plan.uniform && (plan.runs[0].fast_mask & 1u) != 0 ? kEncapsulationSize + plan.size_of : 0;
}

void * MessageTypeSupport::place_in(uint8_t * data, size_t size) const
{
  uint8_t * body = data + kEncapsulationSize;
  const size_t need = in_place_size();
  if (need == 0 || size < need || reinterpret_cast<uintptr_t>(body) % plan_->align != 0) {
    return nullptr;
  }
  put_header(data);
  // A fixed-size type's constructor or init function allocates nothing: it cannot fail. The
  // engine lends the slot as an earlier sample left it (hdds_writer_loan_in_shared_memory):
  // rclcpp hands a borrowed message out as constructed, so it is initialized here, in one pass.
  if (init_message(body) != RMW_RET_OK) {
    rmw_reset_error();
    return nullptr;
  }
  return body;
}

rmw_ret_t MessageTypeSupport::init_message(void * msg) const
{
  // The C init function leaves fields without a .msg default as they are: zero them first, so
  // that a field the user does not set goes out as 0, not as old heap or ring contents.
  std::memset(msg, 0, plan_->size_of);
  if (plan_->lang == Lang::C) {
    static_cast<const rosidl_typesupport_introspection_c__MessageMembers *>(plan_->members)
    ->init_function(msg, ROSIDL_RUNTIME_C_MSG_INIT_ALL);
    return RMW_RET_OK;
  }
  // On zeroed memory, DEFAULTS_ONLY gives what ALL gives (ALL zero-fills every field without a
  // default, arrays included) without writing the struct a second time: for a 4 MiB array, one
  // 4 MiB pass per message instead of two (the C++ constructor; members it does not write keep
  // the zeros).
  try {
    static_cast<const rosidl_typesupport_introspection_cpp::MessageMembers *>(plan_->members)
    ->init_function(msg, rosidl_runtime_cpp::MessageInitialization::DEFAULTS_ONLY);
  } catch (const std::bad_alloc &) {
    RMW_SET_ERROR_MSG_WITH_FORMAT_STRING(
      "rmw_hdds: out of memory constructing a %s", plan_->type_name.c_str());
    return RMW_RET_BAD_ALLOC;
  }
  return RMW_RET_OK;
}

rmw_ret_t MessageTypeSupport::new_message(void ** out) const
{
  // operator new aligns to __STDCPP_DEFAULT_NEW_ALIGNMENT__ (16 on the 64-bit targets), enough
  // for every rosidl field, long double included.
  void * msg = ::operator new(plan_->size_of, std::nothrow);
  if (msg == nullptr) {
    RMW_SET_ERROR_MSG_WITH_FORMAT_STRING(
      "rmw_hdds: out of memory allocating a %s", plan_->type_name.c_str());
    return RMW_RET_BAD_ALLOC;
  }
  const rmw_ret_t ret = init_message(msg);
  if (ret != RMW_RET_OK) {
    ::operator delete(msg);
    return ret;
  }
  *out = msg;
  return RMW_RET_OK;
}

void MessageTypeSupport::delete_message(void * msg) const
{
  if (plan_->lang == Lang::C) {
    static_cast<const rosidl_typesupport_introspection_c__MessageMembers *>(plan_->members)
    ->fini_function(msg);
  } else {
    static_cast<const rosidl_typesupport_introspection_cpp::MessageMembers *>(plan_->members)
    ->fini_function(msg);
  }
  ::operator delete(msg);
}

RMW_HDDS_HOT rmw_ret_t MessageTypeSupport::serialized_size(const void * msg, size_t * size) const
{
  size_t body = 0;
  if (!cdr::body_size(*plan_, msg, &body)) {
    return RMW_RET_ERROR;
  }
  *size = kEncapsulationSize + body;
  return RMW_RET_OK;
}

RMW_HDDS_HOT rmw_ret_t MessageTypeSupport::serialize(
  const void * msg, uint8_t * dst, size_t capacity, size_t * written) const
{
  if (capacity < kEncapsulationSize) {
    RMW_SET_ERROR_MSG_WITH_FORMAT_STRING(
      "rmw_hdds: cannot serialize %s into %zu bytes", plan_->type_name.c_str(), capacity);
    return RMW_RET_ERROR;
  }
  put_header(dst);
  size_t body = 0;
  if (!cdr::write_body(*plan_, msg, dst + kEncapsulationSize, capacity - kEncapsulationSize,
    &body))
  {
    return RMW_RET_ERROR;
  }
  *written = kEncapsulationSize + body;
  return RMW_RET_OK;
}

rmw_ret_t MessageTypeSupport::serialize(const void * msg, rcutils_uint8_array_t * buffer) const
{
  size_t size = 0;
  rmw_ret_t ret = serialized_size(msg, &size);
  if (ret != RMW_RET_OK) {
    return ret;
  }
  if (buffer->buffer_capacity < size || buffer->buffer == nullptr) {
    // rcutils and rmw return codes agree (RCUTILS_RET_BAD_ALLOC == RMW_RET_BAD_ALLOC, ...).
    ret = rmw_serialized_message_resize(buffer, size);
    if (ret != RMW_RET_OK) {
      const std::string why = take_rcutils_error();
      RMW_SET_ERROR_MSG_WITH_FORMAT_STRING(
        "rmw_hdds: cannot grow the serialized message to %zu bytes for %s: %s", size,
        plan_->type_name.c_str(), why.c_str());
      return ret;
    }
  }
  size_t written = 0;
  ret = serialize(msg, buffer->buffer, buffer->buffer_capacity, &written);
  if (ret == RMW_RET_OK) {
    buffer->buffer_length = written;
  }
  return ret;
}

RMW_HDDS_HOT rmw_ret_t MessageTypeSupport::deserialize(const uint8_t * data, size_t size, void * msg) const
{
  if (size < kEncapsulationSize || data == nullptr) {
    RMW_SET_ERROR_MSG_WITH_FORMAT_STRING(
      "rmw_hdds: cannot deserialize %s: %zu bytes are fewer than the 4-byte encapsulation header",
      plan_->type_name.c_str(), data == nullptr ? size_t{0} : size);
    return RMW_RET_ERROR;
  }
  // 00 00: CDR big-endian, 00 01: CDR little-endian. The options bytes are ignored.
  if (data[0] != 0 || data[1] > 1) {
    RMW_SET_ERROR_MSG_WITH_FORMAT_STRING(
      "rmw_hdds: cannot deserialize %s: encapsulation %02x %02x is not CDR (00 00 or 00 01)",
      plan_->type_name.c_str(), data[0], data[1]);
    return RMW_RET_ERROR;
  }
  const bool swap = (data[1] == 1) != kHostLittleEndian;
  return cdr::read_body(
    *plan_, data + kEncapsulationSize, size - kEncapsulationSize, swap, msg);
}

rmw_ret_t MessageTypeSupport::max_serialized_size(size_t * size) const
{
  size_t body = 0;
  std::string unbounded;
  if (!cdr::max_body_size(*plan_, &body, &unbounded)) {
    RMW_SET_ERROR_MSG_WITH_FORMAT_STRING(
      "rmw_hdds: %s has no largest serialized size: field %s is unbounded",
      plan_->type_name.c_str(), unbounded.c_str());
    return RMW_RET_UNSUPPORTED;
  }
  *size = kEncapsulationSize + body;
  return RMW_RET_OK;
}
}  // namespace rmw_hdds
