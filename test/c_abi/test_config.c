/* HDDS_CONFIG through the C ABI: a configuration file with a mistake makes participant creation
 * fail with a message naming the file, the line and the key; a file that cannot be read is
 * refused too; a correct file is applied (limits.keep_all_max_samples = 2 makes the third write of
 * a reliable KEEP_ALL writer to a reader that does not take time out); HDDS_TRANSPORT overrides
 * the file's transport; a value with `=` is the configuration itself. Participants without network
 * only: nothing leaves the process. */
#include <hdds/hdds.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static char path[128];

static void write_file(const char *text) {
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (f != NULL) {
    fputs(text, f);
    fclose(f);
  }
}

static HddsRet create(HddsParticipant **p) {
  HddsParticipantConfig cfg;
  CHECK(hdds_participant_config_default(&cfg) == HDDS_RET_OK);
  cfg.network = false;
  *p = NULL;
  return hdds_participant_create_with_config(&cfg, p);
}

static void mistakes_are_named(void) {
  HddsParticipant *p = NULL;
  CHECK(setenv("HDDS_CONFIG", path, 1) == 0);
  write_file("# limits\nlimits.keep_all_max_samples = 16\nshm.slotz = 8\n");
  CHECK(create(&p) == HDDS_RET_BAD_ARGUMENT && p == NULL);
  CHECK(strstr(hdds_last_error(), path) != NULL);
  CHECK(strstr(hdds_last_error(), "line 3") != NULL);
  CHECK(strstr(hdds_last_error(), "shm.slotz") != NULL);
  write_file("wait.spin_us = 5000\n");
  CHECK(create(&p) == HDDS_RET_BAD_ARGUMENT && p == NULL);
  CHECK(strstr(hdds_last_error(), "line 1: key wait.spin_us") != NULL);
  /* The plain constructor reads the file too. */
  CHECK(hdds_participant_create(0, &p) == HDDS_RET_BAD_ARGUMENT && p == NULL);
  CHECK(unlink(path) == 0);
  CHECK(create(&p) == HDDS_RET_BAD_ARGUMENT && p == NULL);
  CHECK(strstr(hdds_last_error(), "cannot read") != NULL);
  CHECK(unsetenv("HDDS_CONFIG") == 0);
  CHECK(create(&p) == HDDS_RET_OK && p != NULL);
  hdds_participant_destroy(p);
}

static void settings_are_applied(void) {
  HddsParticipant *p = NULL;
  HddsWriter *w = NULL;
  HddsReader *r = NULL;
  static const uint8_t kPayload[] = {0, 1, 0, 0, 'h', 'i', 0, 0};
  CHECK(setenv("HDDS_CONFIG", path, 1) == 0);
  write_file("limits.keep_all_max_samples = 2   # tiny, to see it\ntransport = intra\n");
  CHECK(create(&p) == HDDS_RET_OK && p != NULL);
  HddsQos qos;
  CHECK(hdds_qos_default(&qos) == HDDS_RET_OK);
  qos.history = HDDS_HISTORY_KEEP_ALL;
  qos.max_blocking_time_ns = 50 * 1000 * 1000;
  CHECK(hdds_writer_create(p, "t/config", "T", &qos, &w) == HDDS_RET_OK);
  CHECK(hdds_reader_create(p, "t/config", "T", &qos, &r) == HDDS_RET_OK);
  int64_t sn = 0;
  CHECK(hdds_writer_write(w, kPayload, sizeof kPayload, &sn) == HDDS_RET_OK && sn == 1);
  CHECK(hdds_writer_write(w, kPayload, sizeof kPayload, &sn) == HDDS_RET_OK && sn == 2);
  CHECK(hdds_writer_write(w, kPayload, sizeof kPayload, &sn) == HDDS_RET_TIMEOUT);
  HddsSample *s = NULL;
  CHECK(hdds_reader_take(r, &s) == HDDS_RET_OK && s != NULL);
  hdds_sample_free(s);
  CHECK(hdds_writer_write(w, kPayload, sizeof kPayload, &sn) == HDDS_RET_OK && sn == 3);
  hdds_writer_destroy(w);
  hdds_reader_destroy(r);
  hdds_participant_destroy(p);
  /* HDDS_TRANSPORT overrides the file: a list without intra is refused for this participant. */
  CHECK(setenv("HDDS_TRANSPORT", "udp", 1) == 0);
  CHECK(create(&p) == HDDS_RET_BAD_ARGUMENT && p == NULL);
  CHECK(strstr(hdds_last_error(), "HDDS_TRANSPORT") != NULL);
  CHECK(unsetenv("HDDS_TRANSPORT") == 0);
  CHECK(unsetenv("HDDS_CONFIG") == 0);
  unlink(path);
}

static void inline_configuration(void) {
  HddsParticipant *p = NULL;
  CHECK(setenv("HDDS_CONFIG", "limits.keep_all_max_samples = 2; transport = intra", 1) == 0);
  CHECK(create(&p) == HDDS_RET_OK && p != NULL);
  hdds_participant_destroy(p);
  CHECK(setenv("HDDS_CONFIG", "shm.slots = 8; wait.spin_us = soon", 1) == 0);
  CHECK(create(&p) == HDDS_RET_BAD_ARGUMENT && p == NULL);
  CHECK(strstr(hdds_last_error(), "HDDS_CONFIG (inline), entry 2: key wait.spin_us") != NULL);
  CHECK(unsetenv("HDDS_CONFIG") == 0);
}

int main(void) {
  snprintf(path, sizeof path, "/tmp/hdds-c-abi-config-%ld.conf", (long)getpid());
  RUN(mistakes_are_named);
  RUN(settings_are_applied);
  RUN(inline_configuration);
  FINISH();
}
