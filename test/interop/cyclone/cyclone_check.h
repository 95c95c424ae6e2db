/* What the Cyclone DDS peers share: the default name of the loopback-only config they load, and
 * CHECK, which ends the process (exit code 2) naming the failed call and Cyclone's reason.
 * Define PEER_NAME (the program's name, for the message) before including this. */
#ifndef HDDS_INTEROP_CYCLONE_CHECK_H
#define HDDS_INTEROP_CYCLONE_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include "dds/dds.h"

#ifndef HDDS_INTEROP_CYCLONE_CONFIG
#define HDDS_INTEROP_CYCLONE_CONFIG "cyclonedds_loopback.xml"
#endif

#define CHECK(expr)                                                                        \
  do {                                                                                     \
    dds_return_t rc_ = (expr);                                                             \
    if (rc_ < 0) {                                                                         \
      fprintf(stderr, "%s: %s failed: %s\n", PEER_NAME, #expr, dds_strretcode(rc_));      \
      exit(2);                                                                             \
    }                                                                                      \
  } while (0)

#endif
