// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// Message loans (rmw_borrow_loaned_message, rmw_take_loaned_message and their returns) for the
// fixed-size types (no string, wstring or sequence, see MessageTypeSupport::is_fixed_size): the
// only types a publisher or subscription reports can_loan_messages for.
//
// A loan is a message of the entity's type allocated on the heap and initialized; the Loans of its
// publisher or subscription records it until it comes back (returned, or published: publish
// serializes it like any message). Whatever is still out when the entity is destroyed is freed
// then. This is the RMW side of loans only: the engine's zero-copy shared-memory samples may later
// back the same calls without changing them (docs/decisions.md, "Loans").
//
// Thread-safe: one mutex guards the set of loans out; no call blocks on anything else.
#ifndef RMW_HDDS__DETAIL__LOANS_HPP_
#define RMW_HDDS__DETAIL__LOANS_HPP_

#include <memory>
#include <mutex>
#include <unordered_set>

#include "detail/type_support.hpp"
#include "rmw/ret_types.h"

namespace rmw_hdds
{
class Loans
{
public:
  // A message taken back from the caller: deleted (finalized and freed) when it goes.
  class Returned
  {
public:
    Returned(const MessageTypeSupport & type_support, void * msg)
    : type_support_(type_support), msg_(msg) {}
    ~Returned();
    Returned(const Returned &) = delete;
    Returned & operator=(const Returned &) = delete;
    Returned(Returned && other) noexcept
    : type_support_(other.type_support_), msg_(other.msg_) {other.msg_ = nullptr;}
    Returned & operator=(Returned &&) = delete;

    // nullptr when the message was not one of these loans.
    void * get() const {return msg_;}
    explicit operator bool() const {return msg_ != nullptr;}

private:
    MessageTypeSupport type_support_;
    void * msg_;
  };

  // `type_support` must be fixed-size (the caller checks is_fixed_size()).
  explicit Loans(const MessageTypeSupport & type_support);
  // Frees the loans still out.
  ~Loans();
  Loans(const Loans &) = delete;
  Loans & operator=(const Loans &) = delete;

  // A new initialized message, recorded as out. RMW_RET_BAD_ALLOC (message set) if memory runs
  // out; *out is untouched on failure.
  rmw_ret_t lend(void ** out);
  // Takes `msg` back if it is one of these loans (then it is no longer out); an empty Returned,
  // `msg` untouched, otherwise.
  Returned take_back(void * msg);

  const MessageTypeSupport & type_support() const {return type_support_;}

private:
  MessageTypeSupport type_support_;
  std::mutex mutex_;
  std::unordered_set<void *> out_;  // guarded by mutex_
};
}  // namespace rmw_hdds

#endif  // RMW_HDDS__DETAIL__LOANS_HPP_
