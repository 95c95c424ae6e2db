// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// Message loans (rmw_borrow_loaned_message, rmw_take_loaned_message and their returns) for the
// fixed-size types (no string, wstring or sequence, see MessageTypeSupport::is_fixed_size): the
// only types a publisher or subscription reports can_loan_messages for.
//
// A loan is either a message of the entity's type allocated on the heap and initialized, or (a
// subscription's only) a message read in place in an engine reader loan: a same-host writer's
// sample in its shared-memory ring, when the type's memory layout is its CDR layout
// (MessageTypeSupport::in_place). The Loans of its publisher or subscription records it until it
// comes back (returned, or published: publish serializes it like any message); an in-place one
// then gives its engine loan back. Whatever is still out when the entity is destroyed is freed
// then (docs/decisions.md, "Loans").
//
// Thread-safe: one mutex guards the set of loans out; no call blocks on anything else.
#ifndef RMW_HDDS__DETAIL__LOANS_HPP_
#define RMW_HDDS__DETAIL__LOANS_HPP_

#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "detail/hdds_handle.hpp"
#include "detail/type_support.hpp"
#include "rmw/ret_types.h"

namespace rmw_hdds
{
class Loans
{
public:
  // A message taken back from the caller: deleted (finalized and freed) when it goes, or for one
  // read in place, its engine loan given back.
  class Returned
  {
public:
    Returned(const MessageTypeSupport & type_support, void * msg, ReaderLoanHandle in)
    : type_support_(type_support), msg_(msg), in_(std::move(in)) {}
    ~Returned();
    Returned(const Returned &) = delete;
    Returned & operator=(const Returned &) = delete;
    Returned(Returned && other) noexcept
    : type_support_(other.type_support_), msg_(other.msg_), in_(std::move(other.in_))
    {
      other.msg_ = nullptr;
    }
    Returned & operator=(Returned &&) = delete;

    // nullptr when the message was not one of these loans.
    void * get() const {return msg_;}
    explicit operator bool() const {return msg_ != nullptr;}

private:
    MessageTypeSupport type_support_;
    void * msg_;
    ReaderLoanHandle in_;  // non-null: msg_ lies in this engine loan's payload
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
  // Records `msg`, read in place in the payload of `engine_loan`, as out: the engine loan is given
  // back with it. RMW_RET_BAD_ALLOC (message set, engine loan given back) if memory runs out.
  rmw_ret_t lend_in_place(void * msg, ReaderLoanHandle engine_loan);
  // Takes `msg` back if it is one of these loans (then it is no longer out); an empty Returned,
  // `msg` untouched, otherwise.
  Returned take_back(void * msg);

  const MessageTypeSupport & type_support() const {return type_support_;}

private:
  MessageTypeSupport type_support_;
  std::mutex mutex_;
  // The loans out, each with its engine loan (nullptr: a heap message). Guarded by mutex_.
  std::unordered_map<void *, ReaderLoanHandle> out_;
};
}  // namespace rmw_hdds

#endif  // RMW_HDDS__DETAIL__LOANS_HPP_
