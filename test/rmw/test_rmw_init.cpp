// Copyright 2026 The rmw_hdds authors. Apache-2.0.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "rcutils/allocator.h"
#include "rcutils/strdup.h"
#include "rmw/error_handling.h"
#include "rmw/init.h"
#include "rmw/init_options.h"
#include "rmw/rmw.h"

namespace
{
std::string take_error()
{
  std::string msg = rmw_get_error_string().str;
  rmw_reset_error();
  return msg;
}

class InitOptions : public ::testing::Test
{
protected:
  void SetUp() override
  {
    ASSERT_EQ(RMW_RET_OK, rmw_init_options_init(&options_, rcutils_get_default_allocator()));
    options_.enclave = rcutils_strdup("/", rcutils_get_default_allocator());
  }
  void TearDown() override
  {
    EXPECT_EQ(RMW_RET_OK, rmw_init_options_fini(&options_));
  }
  rmw_init_options_t options_ = rmw_get_zero_initialized_init_options();
};
}  // namespace

TEST(Identity, IdentifierAndSerializationFormat)
{
  EXPECT_STREQ("rmw_hdds", rmw_get_implementation_identifier());
  EXPECT_STREQ("cdr", rmw_get_serialization_format());
}

TEST_F(InitOptions, CopyCarriesEnclaveAndRejectsDirtyDestination)
{
  rmw_init_options_t copy = rmw_get_zero_initialized_init_options();
  ASSERT_EQ(RMW_RET_OK, rmw_init_options_copy(&options_, &copy));
  EXPECT_STREQ("/", copy.enclave);
  EXPECT_NE(options_.enclave, copy.enclave);
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_init_options_copy(&options_, &copy));
  rmw_reset_error();
  EXPECT_EQ(RMW_RET_OK, rmw_init_options_fini(&copy));
}

TEST_F(InitOptions, InitShutdownFini)
{
  options_.domain_id = 42;
  rmw_context_t context = rmw_get_zero_initialized_context();
  ASSERT_EQ(RMW_RET_OK, rmw_init(&options_, &context)) << take_error();
  EXPECT_STREQ("rmw_hdds", context.implementation_identifier);
  EXPECT_EQ(42u, context.actual_domain_id);
  EXPECT_STREQ("/", context.options.enclave);

  // A context in use cannot be initialized again, nor finalized before shutdown.
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_init(&options_, &context));
  rmw_reset_error();
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_context_fini(&context));
  EXPECT_NE(std::string::npos, take_error().find("rmw_shutdown"));

  ASSERT_EQ(RMW_RET_OK, rmw_shutdown(&context));
  ASSERT_EQ(RMW_RET_OK, rmw_context_fini(&context));
  EXPECT_EQ(nullptr, context.implementation_identifier);
}

TEST_F(InitOptions, DefaultDomainIsZero)
{
  rmw_context_t context = rmw_get_zero_initialized_context();
  ASSERT_EQ(RMW_RET_OK, rmw_init(&options_, &context)) << take_error();
  EXPECT_EQ(0u, context.actual_domain_id);
  ASSERT_EQ(RMW_RET_OK, rmw_shutdown(&context));
  ASSERT_EQ(RMW_RET_OK, rmw_context_fini(&context));
}

TEST_F(InitOptions, DomainOutOfRangeFailsWithAdvice)
{
  options_.domain_id = 233;
  rmw_context_t context = rmw_get_zero_initialized_context();
  EXPECT_EQ(RMW_RET_ERROR, rmw_init(&options_, &context));
  EXPECT_NE(std::string::npos, take_error().find("ROS_DOMAIN_ID"));
  EXPECT_EQ(nullptr, context.implementation_identifier);
}

TEST_F(InitOptions, EnforcedSecurityIsRefusedNotIgnored)
{
  options_.security_options.enforce_security = RMW_SECURITY_ENFORCEMENT_ENFORCE;
  rmw_context_t context = rmw_get_zero_initialized_context();
  EXPECT_EQ(RMW_RET_UNSUPPORTED, rmw_init(&options_, &context));
  EXPECT_NE(std::string::npos, take_error().find("ROS_SECURITY_STRATEGY"));
  options_.security_options.enforce_security = RMW_SECURITY_ENFORCEMENT_PERMISSIVE;
}

TEST_F(InitOptions, ForeignOptionsAreRejected)
{
  const char * ours = options_.implementation_identifier;
  options_.implementation_identifier = "rmw_other";
  rmw_context_t context = rmw_get_zero_initialized_context();
  EXPECT_EQ(RMW_RET_INCORRECT_RMW_IMPLEMENTATION, rmw_init(&options_, &context));
  rmw_reset_error();
  options_.implementation_identifier = ours;
}

TEST(NullArguments, AreRejected)
{
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_init_options_init(nullptr, rcutils_get_default_allocator()));
  rmw_reset_error();
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_init(nullptr, nullptr));
  rmw_reset_error();
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_shutdown(nullptr));
  rmw_reset_error();
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_context_fini(nullptr));
  rmw_reset_error();
}

TEST(LogSeverity, ValidSeveritiesAreAcceptedOthersRefused)
{
  for (rmw_log_severity_t s : {RMW_LOG_SEVERITY_DEBUG, RMW_LOG_SEVERITY_INFO,
      RMW_LOG_SEVERITY_WARN, RMW_LOG_SEVERITY_ERROR, RMW_LOG_SEVERITY_FATAL})
  {
    EXPECT_EQ(RMW_RET_OK, rmw_set_log_severity(s)) << s << ": " << take_error();
  }
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_set_log_severity(static_cast<rmw_log_severity_t>(7)));
  EXPECT_NE(std::string::npos, take_error().find("7 is not a severity"));
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_set_log_severity(static_cast<rmw_log_severity_t>(-1)));
  rmw_reset_error();
}

TEST(Gids, CompareByBytes)
{
  rmw_gid_t a{}, b{};
  a.implementation_identifier = b.implementation_identifier = rmw_get_implementation_identifier();
  a.data[3] = b.data[3] = 7;
  bool equal = false;
  ASSERT_EQ(RMW_RET_OK, rmw_compare_gids_equal(&a, &b, &equal));
  EXPECT_TRUE(equal);
  b.data[15] = 1;
  ASSERT_EQ(RMW_RET_OK, rmw_compare_gids_equal(&a, &b, &equal));
  EXPECT_FALSE(equal);
  b.implementation_identifier = "rmw_other";
  EXPECT_EQ(RMW_RET_INCORRECT_RMW_IMPLEMENTATION, rmw_compare_gids_equal(&a, &b, &equal));
  rmw_reset_error();
}
