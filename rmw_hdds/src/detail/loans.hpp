// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// Message loans (rmw_borrow_loaned_message, rmw_take_loaned_message and their returns) for the
// fixed-size types (no string, wstring or sequence, see MessageTypeSupport::is_fixed_size): the
// only types a publisher or subscription reports can_loan_messages for.
//
// A loan is a message of the entity's type allocated on the heap and initialized, or, when the
// type's memory layout is its CDR layout (MessageTypeSupport::in_place_size), a message in place
// in an engine loan: a subscription's, read in a same-host writer's sample in its shared-memory
// ring (an engine reader loan); a publisher's, placed in the next sample of its own ring when it
// has same-host subscribers (an engine writer loan, published in place: zero copy on both sides).
// The Loans of its publisher or subscription records it until it comes back (returned, or
// published: a heap message is serialized like any message); an in-place one then gives its
// engine loan back or publishes it. Whatever is still out when the entity is destroyed is freed
// or given back then (docs/decisions.md, "Loans").
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
  // The engine loan a message lies in: none (a heap message), a reader's or a writer's.
  struct Engine
  {
    ReaderLoanHandle reader;
    WriterLoanHandle writer;
    bool any() const {return reader || writer;}
  };

  // A message taken back from the caller: deleted (finalized and freed) when it goes, or for one
  // in place, its engine loan given back (unless released first).
  class Returned
  {
public:
    Returned(const MessageTypeSupport & type_support, void * msg, Engine engine)
    : type_support_(type_support), msg_(msg), in_place_(engine.any()), engine_(std::move(engine)) {}
    ~Returned();
    Returned(const Returned &) = delete;
    Returned & operator=(const Returned &) = delete;
    Returned(Returned && other) noexcept
    : type_support_(other.type_support_), msg_(other.msg_), in_place_(other.in_place_),
      engine_(std::move(other.engine_))
    {
      other.msg_ = nullptr;
    }
    Returned & operator=(Returned &&) = delete;

    // nullptr when the message was not one of these loans.
    void * get() const {return msg_;}
    explicit operator bool() const {return msg_ != nullptr;}
    // The writer loan the message lies in (to publish it), now the caller's; null for others.
    WriterLoanHandle release_writer_loan() {return std::move(engine_.writer);}

private:
    MessageTypeSupport type_support_;
    void * msg_;
    bool in_place_;  // msg_ lies in an engine loan's payload (engine_'s, unless released)
    Engine engine_;
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
  // The same for `msg`, placed in the buffer of writer loan `engine_loan`.
  rmw_ret_t lend_in_place(void * msg, WriterLoanHandle engine_loan);
  // Takes `msg` back if it is one of these loans (then it is no longer out); an empty Returned,
  // `msg` untouched, otherwise.
  Returned take_back(void * msg);

  const MessageTypeSupport & type_support() const {return type_support_;}

private:
  rmw_ret_t record(void * msg, Engine engine);

  MessageTypeSupport type_support_;
  std::mutex mutex_;
  // The loans out, each with its engine loan (none: a heap message). Guarded by mutex_.
  std::unordered_map<void *, Engine> out_;
};
}  // namespace rmw_hdds

#endif  // RMW_HDDS__DETAIL__LOANS_HPP_
