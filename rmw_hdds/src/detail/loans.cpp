// Copyright 2026 The rmw_hdds authors. Apache-2.0.
#include "detail/loans.hpp"

#include <mutex>
#include <new>

#include "rmw/error_handling.h"

namespace rmw_hdds
{
Loans::Returned::~Returned()
{
  if (msg_ != nullptr) {
    type_support_.delete_message(msg_);
  }
}

Loans::Loans(const MessageTypeSupport & type_support)
: type_support_(type_support)
{
}

Loans::~Loans()
{
  for (void * msg : out_) {
    type_support_.delete_message(msg);
  }
}

rmw_ret_t Loans::lend(void ** out)
{
  void * msg = nullptr;
  rmw_ret_t ret = type_support_.new_message(&msg);
  if (ret != RMW_RET_OK) {
    return ret;
  }
  try {
    std::lock_guard<std::mutex> lock(mutex_);
    out_.insert(msg);
  } catch (const std::bad_alloc &) {
    type_support_.delete_message(msg);
    RMW_SET_ERROR_MSG("rmw_hdds: out of memory recording a loaned message");
    return RMW_RET_BAD_ALLOC;
  }
  *out = msg;
  return RMW_RET_OK;
}

Loans::Returned Loans::take_back(void * msg)
{
  std::lock_guard<std::mutex> lock(mutex_);
  if (out_.erase(msg) == 0) {
    return Returned(type_support_, nullptr);
  }
  return Returned(type_support_, msg);
}
}  // namespace rmw_hdds
