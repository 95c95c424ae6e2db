// Copyright 2026 The rmw_hdds authors. Apache-2.0.
#include "detail/loans.hpp"

#include <mutex>
#include <new>
#include <utility>

#include "rmw/error_handling.h"

namespace rmw_hdds
{
Loans::Returned::~Returned()
{
  if (!in_place_ && msg_ != nullptr) {
    type_support_.delete_message(msg_);
  }
}

Loans::Loans(const MessageTypeSupport & type_support)
: type_support_(type_support)
{
}

Loans::~Loans()
{
  for (auto & loan : out_) {
    Returned(type_support_, loan.first, std::move(loan.second));  // freed, or given back
  }
}

rmw_ret_t Loans::lend(void ** out)
{
  void * msg = nullptr;
  rmw_ret_t ret = type_support_.new_message(&msg);
  if (ret != RMW_RET_OK) {
    return ret;
  }
  ret = record(msg, Engine{});
  if (ret != RMW_RET_OK) {
    type_support_.delete_message(msg);
    return ret;
  }
  *out = msg;
  return RMW_RET_OK;
}

rmw_ret_t Loans::lend_in_place(void * msg, ReaderLoanHandle engine_loan)
{
  return record(msg, Engine{std::move(engine_loan), nullptr});
}

rmw_ret_t Loans::lend_in_place(void * msg, WriterLoanHandle engine_loan)
{
  return record(msg, Engine{nullptr, std::move(engine_loan)});
}

rmw_ret_t Loans::record(void * msg, Engine engine)
{
  try {
    std::lock_guard<std::mutex> lock(mutex_);
    out_.emplace(msg, std::move(engine));
  } catch (const std::bad_alloc &) {
    // `engine` (if it was moved from at all) goes back as it goes out of scope.
    RMW_SET_ERROR_MSG("rmw_hdds: out of memory recording a loaned message");
    return RMW_RET_BAD_ALLOC;
  }
  return RMW_RET_OK;
}

Loans::Returned Loans::take_back(void * msg)
{
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = out_.find(msg);
  if (it == out_.end()) {
    return Returned(type_support_, nullptr, Engine{});
  }
  Returned back(type_support_, msg, std::move(it->second));
  out_.erase(it);
  return back;
}
}  // namespace rmw_hdds
