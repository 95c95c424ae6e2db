// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// What a ROS program does: call rmw through rmw_implementation, which loads librmw_hdds.so by
// name because RMW_IMPLEMENTATION=rmw_hdds (set by CMake for this test).
#include <gtest/gtest.h>

#include <string>

#include "rcutils/allocator.h"
#include "rcutils/strdup.h"
#include "rmw/error_handling.h"
#include "rmw/init.h"
#include "rmw/init_options.h"
#include "rmw/rmw.h"

TEST(RmwImplementation, LoadsHddsByName)
{
  ASSERT_STREQ("rmw_hdds", rmw_get_implementation_identifier()) << rmw_get_error_string().str;

  rmw_init_options_t options = rmw_get_zero_initialized_init_options();
  ASSERT_EQ(RMW_RET_OK, rmw_init_options_init(&options, rcutils_get_default_allocator()));
  options.enclave = rcutils_strdup("/", rcutils_get_default_allocator());
  rmw_context_t context = rmw_get_zero_initialized_context();
  ASSERT_EQ(RMW_RET_OK, rmw_init(&options, &context)) << rmw_get_error_string().str;
  EXPECT_STREQ("rmw_hdds", context.implementation_identifier);
  EXPECT_EQ(RMW_RET_OK, rmw_shutdown(&context));
  EXPECT_EQ(RMW_RET_OK, rmw_context_fini(&context));
  EXPECT_EQ(RMW_RET_OK, rmw_init_options_fini(&options));
}
