/* A minimal test harness for the C ABI tests: CHECK records a failure and goes on, RUN runs one
 * test function, and FINISH prints "N passed, N failed" and returns the exit code. */
#ifndef HDDS_TEST_CHECK_H
#define HDDS_TEST_CHECK_H

#include <stdio.h>

static int checks_failed_in_test;
static int tests_passed;
static int tests_failed;

#define CHECK(cond)                                                                 \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      fprintf(stderr, "%s:%d: CHECK(%s) failed (last error: %s)\n", __FILE__, __LINE__, \
              #cond, hdds_last_error());                                            \
      checks_failed_in_test++;                                                      \
    }                                                                               \
  } while (0)

#define RUN(test)                                   \
  do {                                              \
    checks_failed_in_test = 0;                      \
    test();                                         \
    if (checks_failed_in_test == 0) {               \
      tests_passed++;                               \
      printf("[ ok ] %s\n", #test);                 \
    } else {                                        \
      tests_failed++;                               \
      printf("[FAIL] %s\n", #test);                 \
    }                                               \
  } while (0)

#define FINISH()                                                   \
  do {                                                             \
    printf("%d passed, %d failed\n", tests_passed, tests_failed); \
    return tests_failed == 0 ? 0 : 1;                              \
  } while (0)

#endif
