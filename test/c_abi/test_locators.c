/* Locators of writers and readers through the C ABI: a loopback-only participant's reader
 * receives on 127.0.0.1 at its user unicast port, its writer sends from 127.0.0.1 at another
 * port; a same-process-only participant has none; counting, truncation and bad arguments. */
#include <hdds/hdds.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static const uint8_t kLoopback[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 127, 0, 0, 1};

static void loopback_participant(void) {
  char tag[64];
  snprintf(tag, sizeof tag, "hdds-c-locators-%d", (int)getpid());
  HddsParticipantConfig cfg;
  HddsParticipant *p = NULL;
  HddsWriter *w = NULL;
  HddsReader *r = NULL;
  CHECK(hdds_participant_config_default(&cfg) == HDDS_RET_OK);
  cfg.domain_id = 150;
  cfg.localhost_only = true;
  cfg.domain_tag = tag;
  CHECK(hdds_participant_create_with_config(&cfg, &p) == HDDS_RET_OK);
  CHECK(hdds_writer_create(p, "rt/c_locators", "T", NULL, &w) == HDDS_RET_OK);
  CHECK(hdds_reader_create(p, "rt/c_locators", "T", NULL, &r) == HDDS_RET_OK);

  HddsLocator rl[4];
  size_t n = 99;
  CHECK(hdds_reader_locators(r, rl, 4, &n) == HDDS_RET_OK && n == 1);
  CHECK(rl[0].kind == 1 && memcmp(rl[0].address, kLoopback, 16) == 0);
  /* RTPS user unicast port of domain 150: 7400 + 250 * 150 + 11 + 2 * participant index. */
  CHECK(rl[0].port >= 7400 + 250 * 150 + 11 && rl[0].port < 7400 + 250 * 151);
  CHECK((rl[0].port - (7400 + 250 * 150 + 11)) % 2 == 0);

  HddsLocator wl[1];
  n = 99;
  CHECK(hdds_writer_locators(w, wl, 1, &n) == HDDS_RET_OK && n == 1);
  CHECK(wl[0].kind == 1 && memcmp(wl[0].address, kLoopback, 16) == 0);
  CHECK(wl[0].port != 0 && wl[0].port != rl[0].port);

  /* Counting only, with a NULL array. */
  n = 99;
  CHECK(hdds_writer_locators(w, NULL, 0, &n) == HDDS_RET_OK && n == 1);
  CHECK(hdds_reader_locators(r, NULL, 1, &n) == HDDS_RET_BAD_ARGUMENT);
  CHECK(strstr(hdds_last_error(), "out_locators is NULL") != NULL);
  CHECK(hdds_reader_locators(r, rl, 4, NULL) == HDDS_RET_BAD_ARGUMENT);
  CHECK(hdds_writer_locators(NULL, wl, 1, &n) == HDDS_RET_BAD_ARGUMENT);

  hdds_reader_destroy(r);
  hdds_writer_destroy(w);
  hdds_participant_destroy(p);
}

static void same_process_only_participant(void) {
  HddsParticipant *p = NULL;
  HddsWriter *w = NULL;
  HddsReader *r = NULL;
  CHECK(hdds_participant_create(6, &p) == HDDS_RET_OK);
  CHECK(hdds_writer_create(p, "rt/c_locators_intra", "T", NULL, &w) == HDDS_RET_OK);
  CHECK(hdds_reader_create(p, "rt/c_locators_intra", "T", NULL, &r) == HDDS_RET_OK);
  HddsLocator l[2];
  size_t n = 99;
  CHECK(hdds_writer_locators(w, l, 2, &n) == HDDS_RET_OK && n == 0);
  n = 99;
  CHECK(hdds_reader_locators(r, l, 2, &n) == HDDS_RET_OK && n == 0);
  hdds_reader_destroy(r);
  hdds_writer_destroy(w);
  hdds_participant_destroy(p);
}

int main(void) {
  RUN(loopback_participant);
  RUN(same_process_only_participant);
  FINISH();
}
