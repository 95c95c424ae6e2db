// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// Message loans through the rmw API: offered for fixed-size types only, borrowed messages are
// initialized, published loans arrive (to loaned and plain takes alike), taken loans carry the
// message and its info, a same-host sample is taken in place in its writer's shared-memory ring
// and borrowed in place in it (zero copy on both sides), a same-process sample is taken in place
// in its publisher's one buffer (8-byte fields included), and every misuse
// fails with its documented code and a message. Loans still out when their entity goes are freed
// (the ASan run of this test checks it).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "rmw/error_handling.h"
#include "rmw/rmw.h"
#include "rmw_test_fixtures.hpp"
#include "rosidl_typesupport_cpp/message_type_support.hpp"
#include "test_msgs/msg/basic_types.h"
#include "test_msgs/msg/basic_types.hpp"
#include "test_msgs/msg/bounded_plain_sequences.h"
#include "test_msgs/msg/builtins.h"
#include "test_msgs/msg/defaults.h"
#include "test_msgs/msg/defaults.hpp"
#include "test_msgs/msg/nested.h"
#include "test_msgs/msg/strings.h"

using rmw_test::take_error;
using rmw_test::wait_until;

namespace
{
const rosidl_message_type_support_t * basic_types_ts()
{
  return ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, msg, BasicTypes);
}

rmw_publisher_t * make_pub(
  rmw_node_t * node, const char * topic, const rosidl_message_type_support_t * ts)
{
  rmw_publisher_options_t options = rmw_get_default_publisher_options();
  return rmw_create_publisher(node, ts, topic, &rmw_qos_profile_default, &options);
}

rmw_subscription_t * make_sub(
  rmw_node_t * node, const char * topic, const rosidl_message_type_support_t * ts)
{
  rmw_subscription_options_t options = rmw_get_default_subscription_options();
  return rmw_create_subscription(node, ts, topic, &rmw_qos_profile_default, &options);
}

bool matched(const rmw_publisher_t * pub, size_t subscriptions = 1)
{
  size_t count = 0;
  return rmw_publisher_count_matched_subscriptions(pub, &count) == RMW_RET_OK &&
    count == subscriptions;
}

// Takes one loaned message within 5 s; nullptr if none came.
void * take_loan(rmw_subscription_t * sub, rmw_message_info_t * info)
{
  void * loan = nullptr;
  wait_until(
    [&]() {
      bool taken = false;
      EXPECT_EQ(
        RMW_RET_OK,
        rmw_take_loaned_message_with_info(sub, &loan, &taken, info, nullptr)) << take_error();
      EXPECT_EQ(taken, loan != nullptr);
      return taken;
    });
  return loan;
}

// Borrows `n` loans and forgets them (only the publisher still knows them): a leak checker sees
// them lost unless the publisher frees them. Not inlined, so that no pointer stays in the test's
// frame.
__attribute__((noinline)) void borrow_and_forget(
  rmw_publisher_t * pub, const rosidl_message_type_support_t * ts, int n)
{
  for (int i = 0; i < n; ++i) {
    void * msg = nullptr;
    EXPECT_EQ(RMW_RET_OK, rmw_borrow_loaned_message(pub, ts, &msg)) << take_error();
  }
}

// The path of the file mapped at `p` in this process ("" if none): /proc/self/maps.
std::string mapping_of(const void * p)
{
  const auto at = reinterpret_cast<uintptr_t>(p);
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    std::istringstream in(line);
    std::string range, perms, offset, dev, inode, path;
    in >> range >> perms >> offset >> dev >> inode;
    std::getline(in >> std::ws, path);
    const size_t dash = range.find('-');
    const uintptr_t lo = std::stoull(range.substr(0, dash), nullptr, 16);
    const uintptr_t hi = std::stoull(range.substr(dash + 1), nullptr, 16);
    if (at >= lo && at < hi) {
      return path;
    }
  }
  return "";
}

// Whether `info` says `pub` sent the message.
bool sent_by(const rmw_publisher_t * pub, const rmw_message_info_t & info)
{
  rmw_gid_t gid;
  bool same = false;
  EXPECT_EQ(RMW_RET_OK, rmw_get_gid_for_publisher(pub, &gid)) << take_error();
  EXPECT_EQ(RMW_RET_OK, rmw_compare_gids_equal(&gid, &info.publisher_gid, &same));
  return same;
}

class Loans : public ::testing::Test
{
protected:
  void SetUp() override {ASSERT_TRUE(ctx_.ok());}

  rmw_test::Context ctx_;
  rmw_test::Node node_{ctx_, "loans"};
};
}  // namespace

TEST_F(Loans, OfferedForFixedSizeTypesOnly)
{
  struct Case
  {
    const rosidl_message_type_support_t * ts;
    bool fixed;
  };
  const Case cases[] = {
    {basic_types_ts(), true},
    {ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, msg, Nested), true},
    {rosidl_typesupport_cpp::get_message_type_support_handle<test_msgs::msg::Defaults>(), true},
    {ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, msg, Strings), false},
    {ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, msg, BoundedPlainSequences), false},
  };
  for (const Case & c : cases) {
    rmw_publisher_t * pub = make_pub(node_.get(), "/loan_kinds", c.ts);
    ASSERT_NE(nullptr, pub) << take_error();
    rmw_subscription_t * sub = make_sub(node_.get(), "/loan_kinds", c.ts);
    ASSERT_NE(nullptr, sub) << take_error();
    EXPECT_EQ(c.fixed, pub->can_loan_messages);
    EXPECT_EQ(c.fixed, sub->can_loan_messages);
    if (!c.fixed) {
      void * msg = nullptr;
      EXPECT_EQ(RMW_RET_UNSUPPORTED, rmw_borrow_loaned_message(pub, c.ts, &msg));
      EXPECT_NE(std::string::npos, take_error().find("rmw_publish"));
      EXPECT_EQ(nullptr, msg);
      bool taken = true;
      EXPECT_EQ(RMW_RET_UNSUPPORTED, rmw_take_loaned_message(sub, &msg, &taken, nullptr));
      EXPECT_NE(std::string::npos, take_error().find("rmw_take"));
      EXPECT_EQ(nullptr, msg);
      // The handle's flag is the caller's to read, not to grant loans: forged, still refused.
      pub->can_loan_messages = true;
      sub->can_loan_messages = true;
      EXPECT_EQ(RMW_RET_UNSUPPORTED, rmw_borrow_loaned_message(pub, c.ts, &msg));
      rmw_reset_error();
      EXPECT_EQ(RMW_RET_UNSUPPORTED, rmw_take_loaned_message(sub, &msg, &taken, nullptr));
      rmw_reset_error();
      EXPECT_EQ(nullptr, msg);
    }
    EXPECT_EQ(RMW_RET_OK, rmw_destroy_subscription(node_.get(), sub)) << take_error();
    EXPECT_EQ(RMW_RET_OK, rmw_destroy_publisher(node_.get(), pub)) << take_error();
  }
}

TEST_F(Loans, BorrowedMessagesAreInitializedC)
{
  // C: the init function ran (the .msg defaults are set) ...
  const rosidl_message_type_support_t * defaults_ts =
    ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, msg, Defaults);
  rmw_publisher_t * pub = make_pub(node_.get(), "/loan_init_c", defaults_ts);
  ASSERT_NE(nullptr, pub) << take_error();
  void * msg = nullptr;
  ASSERT_EQ(RMW_RET_OK, rmw_borrow_loaned_message(pub, defaults_ts, &msg)) << take_error();
  ASSERT_NE(nullptr, msg);
  auto * defaults = static_cast<test_msgs__msg__Defaults *>(msg);
  EXPECT_TRUE(defaults->bool_value);
  EXPECT_EQ(-30000, defaults->int32_value);
  EXPECT_EQ(RMW_RET_OK, rmw_return_loaned_message_from_publisher(pub, msg)) << take_error();
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_publisher(node_.get(), pub)) << take_error();

  // ... and fields without a default, which the C init function leaves alone, are zero.
  const rosidl_message_type_support_t * nested_ts =
    ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, msg, Nested);
  pub = make_pub(node_.get(), "/loan_init_c", nested_ts);
  ASSERT_NE(nullptr, pub) << take_error();
  for (int i = 0; i < 10; ++i) {  // a fresh block or a reused one: zero either way
    msg = nullptr;
    ASSERT_EQ(RMW_RET_OK, rmw_borrow_loaned_message(pub, nested_ts, &msg)) << take_error();
    auto * nested = static_cast<test_msgs__msg__Nested *>(msg);
    EXPECT_EQ(0, nested->basic_types_value.int64_value);
    EXPECT_EQ(0.0, nested->basic_types_value.float64_value);
    EXPECT_FALSE(nested->basic_types_value.bool_value);
    nested->basic_types_value.int64_value = -1;  // what a reused block would carry
    nested->basic_types_value.float64_value = 3.5;
    EXPECT_EQ(RMW_RET_OK, rmw_return_loaned_message_from_publisher(pub, msg)) << take_error();
  }
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_publisher(node_.get(), pub)) << take_error();
}

TEST_F(Loans, BorrowedMessagesAreConstructedCpp)
{
  // C++: the constructor ran, with the .msg defaults.
  const rosidl_message_type_support_t * ts =
    rosidl_typesupport_cpp::get_message_type_support_handle<test_msgs::msg::Defaults>();
  rmw_publisher_t * pub = make_pub(node_.get(), "/loan_init_cpp", ts);
  ASSERT_NE(nullptr, pub) << take_error();
  rmw_subscription_t * sub = make_sub(node_.get(), "/loan_init_cpp", ts);
  ASSERT_NE(nullptr, sub) << take_error();
  ASSERT_TRUE(wait_until([&]() {return matched(pub);}));

  void * msg = nullptr;
  ASSERT_EQ(RMW_RET_OK, rmw_borrow_loaned_message(pub, ts, &msg)) << take_error();
  auto * defaults = static_cast<test_msgs::msg::Defaults *>(msg);
  EXPECT_TRUE(defaults->bool_value);
  EXPECT_EQ(-30000, defaults->int32_value);
  EXPECT_EQ(50000000u, defaults->uint64_value);
  defaults->int32_value = 7;
  ASSERT_EQ(RMW_RET_OK, rmw_publish_loaned_message(pub, msg, nullptr)) << take_error();

  rmw_message_info_t info = rmw_get_zero_initialized_message_info();
  void * loan = take_loan(sub, &info);
  ASSERT_NE(nullptr, loan);
  auto * got = static_cast<test_msgs::msg::Defaults *>(loan);
  EXPECT_EQ(7, got->int32_value);
  EXPECT_EQ(1.125f, got->float32_value);
  EXPECT_EQ(RMW_RET_OK, rmw_return_loaned_message_from_subscription(sub, loan)) << take_error();
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_subscription(node_.get(), sub)) << take_error();
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_publisher(node_.get(), pub)) << take_error();
}

TEST_F(Loans, PublishedLoansReachLoanedAndPlainTakes)
{
  rmw_publisher_t * pub = make_pub(node_.get(), "/loan_round_trip", basic_types_ts());
  ASSERT_NE(nullptr, pub) << take_error();
  rmw_subscription_t * loaning = make_sub(node_.get(), "/loan_round_trip", basic_types_ts());
  ASSERT_NE(nullptr, loaning) << take_error();
  rmw_subscription_t * plain = make_sub(node_.get(), "/loan_round_trip", basic_types_ts());
  ASSERT_NE(nullptr, plain) << take_error();
  ASSERT_TRUE(wait_until([&]() {return matched(pub, 2);}));

  // A loan, published.
  void * msg = nullptr;
  ASSERT_EQ(RMW_RET_OK, rmw_borrow_loaned_message(pub, basic_types_ts(), &msg)) << take_error();
  auto * out = static_cast<test_msgs__msg__BasicTypes *>(msg);
  out->int32_value = -424242;
  out->uint64_value = 0xfedcba9876543210ull;
  out->bool_value = true;
  ASSERT_EQ(RMW_RET_OK, rmw_publish_loaned_message(pub, msg, nullptr)) << take_error();
  // A plain message, published.
  test_msgs__msg__BasicTypes plain_out{};
  ASSERT_TRUE(test_msgs__msg__BasicTypes__init(&plain_out));
  plain_out.int32_value = 99;
  ASSERT_EQ(RMW_RET_OK, rmw_publish(pub, &plain_out, nullptr)) << take_error();

  rmw_message_info_t info = rmw_get_zero_initialized_message_info();
  void * first = take_loan(loaning, &info);
  ASSERT_NE(nullptr, first);
  auto * in = static_cast<test_msgs__msg__BasicTypes *>(first);
  EXPECT_EQ(-424242, in->int32_value);
  EXPECT_EQ(0xfedcba9876543210ull, in->uint64_value);
  EXPECT_TRUE(in->bool_value);
  EXPECT_FALSE(info.from_intra_process);
  EXPECT_NE(0, info.source_timestamp);
  EXPECT_TRUE(sent_by(pub, info));
  void * second = nullptr;
  bool taken = false;
  // Without info; two loans out at once.
  ASSERT_TRUE(
    wait_until(
      [&]() {
        EXPECT_EQ(RMW_RET_OK, rmw_take_loaned_message(loaning, &second, &taken, nullptr));
        return taken;
      }));
  EXPECT_EQ(99, static_cast<test_msgs__msg__BasicTypes *>(second)->int32_value);
  EXPECT_EQ(RMW_RET_OK, rmw_return_loaned_message_from_subscription(loaning, first));
  EXPECT_EQ(RMW_RET_OK, rmw_return_loaned_message_from_subscription(loaning, second));
  // Returned twice: no longer a loan.
  EXPECT_EQ(RMW_RET_ERROR, rmw_return_loaned_message_from_subscription(loaning, second));
  EXPECT_NE(std::string::npos, take_error().find("not loaned"));

  test_msgs__msg__BasicTypes plain_in{};
  ASSERT_TRUE(test_msgs__msg__BasicTypes__init(&plain_in));
  ASSERT_TRUE(
    wait_until(
      [&]() {
        EXPECT_EQ(RMW_RET_OK, rmw_take(plain, &plain_in, &taken, nullptr));
        return taken;
      }));
  EXPECT_EQ(-424242, plain_in.int32_value);

  // Nothing left: OK, not taken, the pointer untouched.
  void * none = nullptr;
  EXPECT_EQ(RMW_RET_OK, rmw_take_loaned_message(loaning, &none, &taken, nullptr));
  EXPECT_FALSE(taken);
  EXPECT_EQ(nullptr, none);

  EXPECT_EQ(RMW_RET_OK, rmw_destroy_subscription(node_.get(), plain)) << take_error();
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_subscription(node_.get(), loaning)) << take_error();
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_publisher(node_.get(), pub)) << take_error();
}

TEST_F(Loans, SameProcessSamplesAreTakenInPlace)
{
  // One sample reaches two subscriptions of this process. Both take it in place, in the one
  // buffer the publisher serialized it into (the same address, no copy): a type of 4-byte fields,
  // and one with 8-byte fields, whose body the engine's buffer aligns for them (payload.rs).
  struct Case
  {
    const rosidl_message_type_support_t * ts;
    const char * topic;
  };
  const Case cases[] = {
    {ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, msg, Builtins), "/loan_in_process_narrow"},
    {basic_types_ts(), "/loan_in_process_wide"}};
  for (const Case & c : cases) {
    SCOPED_TRACE(c.topic);
    rmw_publisher_t * pub = make_pub(node_.get(), c.topic, c.ts);
    ASSERT_NE(nullptr, pub) << take_error();
    rmw_subscription_t * subs[2] = {
      make_sub(node_.get(), c.topic, c.ts), make_sub(node_.get(), c.topic, c.ts)};
    ASSERT_NE(nullptr, subs[0]) << take_error();
    ASSERT_NE(nullptr, subs[1]) << take_error();
    ASSERT_TRUE(wait_until([&]() {return matched(pub, 2);}));
    test_msgs__msg__Builtins narrow{};
    narrow.duration_value.sec = -5;
    narrow.time_value.nanosec = 123456789;
    test_msgs__msg__BasicTypes wide{};
    ASSERT_TRUE(test_msgs__msg__BasicTypes__init(&wide));
    wide.uint64_value = 0x0102030405060708ull;
    const bool is_narrow = c.ts == cases[0].ts;
    const void * out = is_narrow ? static_cast<const void *>(&narrow) : &wide;
    ASSERT_EQ(RMW_RET_OK, rmw_publish(pub, out, nullptr)) << take_error();

    void * loans[2] = {};
    for (int i = 0; i < 2; ++i) {
      rmw_message_info_t info = rmw_get_zero_initialized_message_info();
      loans[i] = take_loan(subs[i], &info);
      ASSERT_NE(nullptr, loans[i]);
      EXPECT_TRUE(sent_by(pub, info));
      if (is_narrow) {
        EXPECT_EQ(-5, static_cast<test_msgs__msg__Builtins *>(loans[i])->duration_value.sec);
        EXPECT_EQ(
          123456789u, static_cast<test_msgs__msg__Builtins *>(loans[i])->time_value.nanosec);
      } else {
        EXPECT_EQ(
          0x0102030405060708ull, static_cast<test_msgs__msg__BasicTypes *>(loans[i])->uint64_value);
      }
    }
    EXPECT_EQ(loans[0], loans[1]) << "in place, both loans are the one sample";
    for (int i = 0; i < 2; ++i) {
      EXPECT_EQ(RMW_RET_OK, rmw_return_loaned_message_from_subscription(subs[i], loans[i]));
      EXPECT_EQ(RMW_RET_OK, rmw_destroy_subscription(node_.get(), subs[i])) << take_error();
    }
    EXPECT_EQ(RMW_RET_OK, rmw_destroy_publisher(node_.get(), pub)) << take_error();
  }
}

TEST_F(Loans, MisuseFailsWithItsCodeAndAMessage)
{
  rmw_publisher_t * pub = make_pub(node_.get(), "/loan_misuse", basic_types_ts());
  ASSERT_NE(nullptr, pub) << take_error();
  rmw_subscription_t * sub = make_sub(node_.get(), "/loan_misuse", basic_types_ts());
  ASSERT_NE(nullptr, sub) << take_error();

  // Another type's support.
  void * msg = nullptr;
  EXPECT_EQ(
    RMW_RET_INVALID_ARGUMENT,
    rmw_borrow_loaned_message(pub, ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, msg, Nested), &msg));
  EXPECT_NE(std::string::npos, take_error().find("publisher's type support"));
  EXPECT_EQ(nullptr, msg);
  // The same message through its C++ type support: another memory layout.
  EXPECT_EQ(
    RMW_RET_INVALID_ARGUMENT,
    rmw_borrow_loaned_message(
      pub, rosidl_typesupport_cpp::get_message_type_support_handle<test_msgs::msg::BasicTypes>(),
      &msg));
  rmw_reset_error();
  EXPECT_EQ(nullptr, msg);

  // A message that is not a loan: publishing it is refused and leaves it alone.
  test_msgs__msg__BasicTypes own{};
  ASSERT_TRUE(test_msgs__msg__BasicTypes__init(&own));
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_publish_loaned_message(pub, &own, nullptr));
  EXPECT_NE(std::string::npos, take_error().find("rmw_publish"));
  EXPECT_EQ(RMW_RET_ERROR, rmw_return_loaned_message_from_publisher(pub, &own));
  EXPECT_NE(std::string::npos, take_error().find("not loaned"));
  EXPECT_EQ(RMW_RET_ERROR, rmw_return_loaned_message_from_subscription(sub, &own));
  EXPECT_NE(std::string::npos, take_error().find("not loaned"));

  // A publisher's loan is not the subscription's, nor another publisher's.
  ASSERT_EQ(RMW_RET_OK, rmw_borrow_loaned_message(pub, basic_types_ts(), &msg)) << take_error();
  EXPECT_EQ(RMW_RET_ERROR, rmw_return_loaned_message_from_subscription(sub, msg));
  rmw_reset_error();
  rmw_publisher_t * other = make_pub(node_.get(), "/loan_misuse", basic_types_ts());
  ASSERT_NE(nullptr, other) << take_error();
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_publish_loaned_message(other, msg, nullptr));
  rmw_reset_error();
  // A published loan is no longer one.
  ASSERT_EQ(RMW_RET_OK, rmw_publish_loaned_message(pub, msg, nullptr)) << take_error();
  EXPECT_EQ(RMW_RET_ERROR, rmw_return_loaned_message_from_publisher(pub, msg));
  rmw_reset_error();

  // A non-null *ros_message would leak.
  void * not_null = &own;
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_borrow_loaned_message(pub, basic_types_ts(), &not_null));
  EXPECT_NE(std::string::npos, take_error().find("NULL"));
  bool taken = false;
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_take_loaned_message(sub, &not_null, &taken, nullptr));
  EXPECT_NE(std::string::npos, take_error().find("NULL"));
  EXPECT_EQ(&own, not_null);

  // Loans still out when their entities go are freed with them (ASan reports a leak otherwise).
  borrow_and_forget(pub, basic_types_ts(), 8);
  ASSERT_TRUE(
    wait_until(
      [&]() {
        void * loan = nullptr;
        EXPECT_EQ(RMW_RET_OK, rmw_take_loaned_message(sub, &loan, &taken, nullptr));
        return taken;
      }));
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_publisher(node_.get(), other)) << take_error();
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_subscription(node_.get(), sub)) << take_error();
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_publisher(node_.get(), pub)) << take_error();
}

// Two contexts of one process that meet as two processes' would (HDDS_TRANSPORT without `intra`
// when they start): the subscription's samples come through the publisher's shared-memory ring,
// and a loaned take hands out the message where it lies there, the ring's slot in /dev/shm,
// unless it cannot be used as it is (then a heap copy, as for other samples).
TEST(LoansAcrossProcesses, SameHostSamplesAreTakenInPlaceFromTheRing)
{
  rmw_test::ContextPair contexts("shm,udp");
  ASSERT_TRUE(contexts.ok());
  rmw_test::Node pub_node(contexts.first, "loan_ring_pub");
  rmw_test::Node sub_node(contexts.second, "loan_ring_sub");
  rmw_publisher_t * pub = make_pub(pub_node.get(), "/loan_ring", basic_types_ts());
  ASSERT_NE(nullptr, pub) << take_error();
  rmw_subscription_t * sub = make_sub(sub_node.get(), "/loan_ring", basic_types_ts());
  ASSERT_NE(nullptr, sub) << take_error();
  ASSERT_TRUE(wait_until([&]() {return matched(pub);}));
  // The first loaned take (nothing yet) makes the subscriber leave its samples in the ring from
  // then on; one that came before is a copy already (then a heap loan).
  void * none = nullptr;
  bool taken = true;
  ASSERT_EQ(RMW_RET_OK, rmw_take_loaned_message(sub, &none, &taken, nullptr)) << take_error();
  EXPECT_FALSE(taken);

  test_msgs__msg__BasicTypes out{};
  ASSERT_TRUE(test_msgs__msg__BasicTypes__init(&out));
  out.bool_value = true;
  out.int32_value = -424242;
  out.float64_value = 2.5;
  out.uint64_value = 0xfedcba9876543210ull;
  ASSERT_EQ(RMW_RET_OK, rmw_publish(pub, &out, nullptr)) << take_error();
  rmw_message_info_t info = rmw_get_zero_initialized_message_info();
  void * first = take_loan(sub, &info);
  ASSERT_NE(nullptr, first);
  const std::string where = mapping_of(first);
  EXPECT_EQ(0u, where.rfind("/dev/shm/", 0)) <<
    "the loan lies in " << (where.empty() ? "heap memory" : where);
  EXPECT_EQ(0u, reinterpret_cast<uintptr_t>(first) % alignof(std::max_align_t));
  auto * in = static_cast<test_msgs__msg__BasicTypes *>(first);
  EXPECT_TRUE(in->bool_value);
  EXPECT_EQ(-424242, in->int32_value);
  EXPECT_EQ(2.5, in->float64_value);
  EXPECT_EQ(0xfedcba9876543210ull, in->uint64_value);
  EXPECT_NE(0, info.source_timestamp);
  EXPECT_TRUE(sent_by(pub, info));

  // While it is held the writer goes on (KEEP_LAST) around it: the held message never changes.
  for (int32_t i = 0; i < 200; ++i) {
    out.int32_value = i;
    out.bool_value = false;
    ASSERT_EQ(RMW_RET_OK, rmw_publish(pub, &out, nullptr)) << take_error();
    if (i % 50 == 49) {
      void * later = take_loan(sub, &info);
      ASSERT_NE(nullptr, later);
      EXPECT_FALSE(static_cast<test_msgs__msg__BasicTypes *>(later)->bool_value);
      EXPECT_EQ(RMW_RET_OK, rmw_return_loaned_message_from_subscription(sub, later));
    }
  }
  EXPECT_EQ(-424242, in->int32_value);
  EXPECT_TRUE(in->bool_value);
  EXPECT_EQ(RMW_RET_OK, rmw_return_loaned_message_from_subscription(sub, first)) << take_error();
  EXPECT_EQ(RMW_RET_ERROR, rmw_return_loaned_message_from_subscription(sub, first));
  rmw_reset_error();
  // Plain takes of the same subscription still deserialize into the caller's message, up to the
  // last sample (the history keeps the newest of those the subscriber's thread has drained).
  test_msgs__msg__BasicTypes plain{};
  ASSERT_TRUE(test_msgs__msg__BasicTypes__init(&plain));
  ASSERT_TRUE(
    wait_until(
      [&]() {
        EXPECT_EQ(RMW_RET_OK, rmw_take(sub, &plain, &taken, nullptr)) << take_error();
        return taken && plain.int32_value == 199;
      }));
  // A loan still out when the subscription goes is given back with it (ASan checks).
  out.int32_value = 7777;
  ASSERT_EQ(RMW_RET_OK, rmw_publish(pub, &out, nullptr)) << take_error();
  void * kept = take_loan(sub, &info);
  ASSERT_NE(nullptr, kept);
  EXPECT_EQ(7777, static_cast<test_msgs__msg__BasicTypes *>(kept)->int32_value);
  EXPECT_EQ(0u, mapping_of(kept).rfind("/dev/shm/", 0));
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_subscription(sub_node.get(), sub)) << take_error();
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_publisher(pub_node.get(), pub)) << take_error();
}

// The publisher's side of the same: with a same-host subscription matched, a borrowed message
// lies in the next sample of the publisher's ring (initialized, with its encapsulation header
// before it), so publishing it copies nothing; several loans may be out, plain publishes go on
// meanwhile, and each loan's sample takes its place when it is published. Without a same-host
// subscription a loan is a heap message, as before.
TEST(LoansAcrossProcesses, BorrowedMessagesLieInTheRingAndArriveAsPublished)
{
  rmw_test::ContextPair contexts("shm,udp");
  ASSERT_TRUE(contexts.ok());
  rmw_test::Node pub_node(contexts.first, "loan_borrow_pub");
  rmw_test::Node sub_node(contexts.second, "loan_borrow_sub");
  const rosidl_message_type_support_t * ts =
    rosidl_typesupport_cpp::get_message_type_support_handle<test_msgs::msg::Defaults>();
  rmw_publisher_t * pub = make_pub(pub_node.get(), "/loan_borrow", ts);
  ASSERT_NE(nullptr, pub) << take_error();

  // Nobody to read the ring yet: a heap message.
  void * alone = nullptr;
  ASSERT_EQ(RMW_RET_OK, rmw_borrow_loaned_message(pub, ts, &alone)) << take_error();
  EXPECT_EQ(std::string::npos, mapping_of(alone).find("/dev/shm/"));
  EXPECT_EQ(RMW_RET_OK, rmw_return_loaned_message_from_publisher(pub, alone)) << take_error();

  rmw_subscription_t * sub = make_sub(sub_node.get(), "/loan_borrow", ts);
  ASSERT_NE(nullptr, sub) << take_error();
  ASSERT_TRUE(wait_until([&]() {return matched(pub);}));

  void * first = nullptr;
  void * second = nullptr;
  void * dropped = nullptr;
  ASSERT_EQ(RMW_RET_OK, rmw_borrow_loaned_message(pub, ts, &first)) << take_error();
  ASSERT_EQ(RMW_RET_OK, rmw_borrow_loaned_message(pub, ts, &second)) << take_error();
  ASSERT_EQ(RMW_RET_OK, rmw_borrow_loaned_message(pub, ts, &dropped)) << take_error();
  for (void * loan : {first, second, dropped}) {
    const std::string where = mapping_of(loan);
    EXPECT_EQ(0u, where.rfind("/dev/shm/hdds_", 0)) <<
      "the loan lies in " << (where.empty() ? "heap memory" : where);
    EXPECT_EQ(0u, reinterpret_cast<uintptr_t>(loan) % alignof(std::max_align_t));
    // The encapsulation header before it: CDR in this host's byte order.
    const auto * header = static_cast<const uint8_t *>(loan) - 4;
    EXPECT_EQ(0, header[0]);
    EXPECT_EQ(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? 1 : 0, header[1]);
    // Constructed, with the .msg defaults.
    auto * m = static_cast<test_msgs::msg::Defaults *>(loan);
    EXPECT_TRUE(m->bool_value);
    EXPECT_EQ(-30000, m->int32_value);
    EXPECT_EQ(50000000u, m->uint64_value);
  }
  EXPECT_NE(first, second);
  static_cast<test_msgs::msg::Defaults *>(first)->int32_value = 1;
  static_cast<test_msgs::msg::Defaults *>(second)->int32_value = 2;
  static_cast<test_msgs::msg::Defaults *>(second)->bool_value = false;
  test_msgs::msg::Defaults plain;
  plain.int32_value = 3;
  // Published: a plain message, the second loan, the first; the third goes back unpublished.
  ASSERT_EQ(RMW_RET_OK, rmw_publish(pub, &plain, nullptr)) << take_error();
  ASSERT_EQ(RMW_RET_OK, rmw_publish_loaned_message(pub, second, nullptr)) << take_error();
  ASSERT_EQ(RMW_RET_OK, rmw_publish_loaned_message(pub, first, nullptr)) << take_error();
  EXPECT_EQ(RMW_RET_OK, rmw_return_loaned_message_from_publisher(pub, dropped)) << take_error();
  // A published loan is no longer one.
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_publish_loaned_message(pub, first, nullptr));
  rmw_reset_error();

  rmw_message_info_t info = rmw_get_zero_initialized_message_info();
  int64_t last_sn = 0;
  for (int32_t want : {3, 2, 1}) {
    void * got = take_loan(sub, &info);
    ASSERT_NE(nullptr, got) << "the message with int32_value " << want << " did not come";
    auto * m = static_cast<test_msgs::msg::Defaults *>(got);
    EXPECT_EQ(want, m->int32_value);
    EXPECT_EQ(want != 2, m->bool_value);
    EXPECT_EQ(1.125f, m->float32_value);
    EXPECT_GT(static_cast<int64_t>(info.publication_sequence_number), last_sn);
    last_sn = static_cast<int64_t>(info.publication_sequence_number);
    EXPECT_EQ(RMW_RET_OK, rmw_return_loaned_message_from_subscription(sub, got)) << take_error();
  }
  void * none = nullptr;
  bool taken = true;
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(RMW_RET_OK, rmw_take_loaned_message(sub, &none, &taken, nullptr));
  EXPECT_FALSE(taken) << "the loan given back was not published";

  // Many loans through a small part of the ring, each filled and published in place.
  for (int32_t i = 0; i < 300; ++i) {
    void * msg = nullptr;
    ASSERT_EQ(RMW_RET_OK, rmw_borrow_loaned_message(pub, ts, &msg)) << take_error();
    static_cast<test_msgs::msg::Defaults *>(msg)->int32_value = 1000 + i;
    ASSERT_EQ(RMW_RET_OK, rmw_publish_loaned_message(pub, msg, nullptr)) << take_error();
  }
  test_msgs::msg::Defaults in;
  ASSERT_TRUE(
    wait_until(
      [&]() {
        EXPECT_EQ(RMW_RET_OK, rmw_take(sub, &in, &taken, nullptr)) << take_error();
        return taken && in.int32_value == 1299;
      }));

  // A loan still out when the publisher goes is given back to its ring first (ASan checks).
  void * kept = nullptr;
  ASSERT_EQ(RMW_RET_OK, rmw_borrow_loaned_message(pub, ts, &kept)) << take_error();
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_publisher(pub_node.get(), pub)) << take_error();
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_subscription(sub_node.get(), sub)) << take_error();
}

// A borrowed message in the ring starts as a constructed one even where the slot held an earlier
// sample: the engine lends a slot as that sample left it, so fields without a .msg default must
// be zeroed by the RMW. Each loan finds the fields at zero, then leaves them non-zero for the
// memory's next loans; 2000 loans go around the ring. C and C++ alike.
TEST(LoansAcrossProcesses, BorrowedMessagesInAReusedSlotStartZeroed)
{
  rmw_test::ContextPair contexts("shm,udp");
  ASSERT_TRUE(contexts.ok());
  rmw_test::Node pub_node(contexts.first, "loan_reuse_pub");
  rmw_test::Node sub_node(contexts.second, "loan_reuse_sub");
  struct Case
  {
    const char * topic;
    const rosidl_message_type_support_t * ts;
    bool cpp;
  };
  const Case cases[] = {
    {"/loan_reuse_c", basic_types_ts(), false},
    {"/loan_reuse_cpp",
      rosidl_typesupport_cpp::get_message_type_support_handle<test_msgs::msg::BasicTypes>(), true},
  };
  for (const Case & c : cases) {
    SCOPED_TRACE(c.topic);
    rmw_publisher_t * pub = make_pub(pub_node.get(), c.topic, c.ts);
    ASSERT_NE(nullptr, pub) << take_error();
    rmw_subscription_t * sub = make_sub(sub_node.get(), c.topic, c.ts);
    ASSERT_NE(nullptr, sub) << take_error();
    ASSERT_TRUE(wait_until([&]() {return matched(pub);}));
    for (int32_t i = 0; i < 2000; ++i) {
      void * msg = nullptr;
      ASSERT_EQ(RMW_RET_OK, rmw_borrow_loaned_message(pub, c.ts, &msg)) << take_error();
      if (i == 0) {
        const std::string where = mapping_of(msg);
        ASSERT_EQ(0u, where.rfind("/dev/shm/hdds_", 0)) <<
          "the loan lies in " << (where.empty() ? "heap memory" : where);
      }
      // Every byte, padding included, is zero (BasicTypes has no .msg defaults); then every byte
      // is 0x01 (a valid bool, non-zero numbers) for the loans that find the same memory later,
      // at whatever offset the ring puts them.
      const size_t size =
        c.cpp ? sizeof(test_msgs::msg::BasicTypes) : sizeof(test_msgs__msg__BasicTypes);
      const auto * bytes = static_cast<const uint8_t *>(msg);
      ASSERT_EQ(size, static_cast<size_t>(std::count(bytes, bytes + size, 0))) <<
        "loan " << i << " holds non-zero bytes";
      std::memset(msg, 0x01, size);
      ASSERT_EQ(RMW_RET_OK, rmw_publish_loaned_message(pub, msg, nullptr)) << take_error();
    }
    EXPECT_EQ(RMW_RET_OK, rmw_destroy_subscription(sub_node.get(), sub)) << take_error();
    EXPECT_EQ(RMW_RET_OK, rmw_destroy_publisher(pub_node.get(), pub)) << take_error();
  }
}
