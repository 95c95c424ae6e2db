/* Bad arguments get the right code and a message naming the function and the argument. */
#include <hdds/hdds.h>
#include <string.h>

#include "check.h"

static int last_error_mentions(const char *what) { return strstr(hdds_last_error(), what) != NULL; }

static void null_and_out_of_range_arguments(void) {
  HddsParticipant *p = NULL;
  CHECK(hdds_participant_create(0, NULL) == HDDS_RET_BAD_ARGUMENT);
  CHECK(last_error_mentions("hdds_participant_create") && last_error_mentions("out_participant"));
  CHECK(hdds_participant_create(233, &p) == HDDS_RET_BAD_ARGUMENT && p == NULL);
  CHECK(last_error_mentions("ROS_DOMAIN_ID"));

  CHECK(hdds_participant_create(0, &p) == HDDS_RET_OK);
  HddsWriter *w = NULL;
  CHECK(hdds_writer_create(NULL, "t", "T", NULL, &w) == HDDS_RET_BAD_ARGUMENT && w == NULL);
  CHECK(hdds_writer_create(p, NULL, "T", NULL, &w) == HDDS_RET_BAD_ARGUMENT);
  CHECK(last_error_mentions("topic_name"));
  CHECK(hdds_writer_create(p, "", "T", NULL, &w) == HDDS_RET_BAD_ARGUMENT);
  CHECK(hdds_writer_create(p, "t", "T", NULL, NULL) == HDDS_RET_BAD_ARGUMENT);

  HddsQos qos;
  hdds_qos_default(&qos);
  qos.reliability = 42;
  CHECK(hdds_writer_create(p, "t", "T", &qos, &w) == HDDS_RET_BAD_ARGUMENT);
  CHECK(last_error_mentions("reliability 42"));
  hdds_qos_default(&qos);
  qos.depth = 0;
  CHECK(hdds_writer_create(p, "t", "T", &qos, &w) == HDDS_RET_BAD_ARGUMENT);
  CHECK(hdds_qos_default(NULL) == HDDS_RET_BAD_ARGUMENT);

  CHECK(hdds_writer_create(p, "rt/c_errors", "T", NULL, &w) == HDDS_RET_OK);
  uint8_t b[4] = {0, 1, 0, 0};
  CHECK(hdds_writer_write(NULL, b, 4, NULL) == HDDS_RET_BAD_ARGUMENT);
  CHECK(hdds_writer_write(w, NULL, 4, NULL) == HDDS_RET_BAD_ARGUMENT);
  CHECK(hdds_writer_write(w, b, 0, NULL) == HDDS_RET_BAD_ARGUMENT);
  CHECK(last_error_mentions("encapsulation header"));

  HddsReader *r = NULL;
  CHECK(hdds_reader_create(p, "rt/c_errors", "T", NULL, &r) == HDDS_RET_OK);
  CHECK(hdds_reader_take(r, NULL) == HDDS_RET_BAD_ARGUMENT);
  CHECK(hdds_reader_take(NULL, NULL) == HDDS_RET_BAD_ARGUMENT);
  CHECK(hdds_reader_wait(r, -1) == HDDS_RET_BAD_ARGUMENT);
  size_t len = 7;
  CHECK(hdds_sample_data(NULL, &len) == NULL);
  uint8_t guid[16];
  CHECK(hdds_participant_guid(NULL, guid) == HDDS_RET_BAD_ARGUMENT);
  CHECK(hdds_participant_guid(p, NULL) == HDDS_RET_BAD_ARGUMENT);

  /* Destroying NULL is a no-op. */
  hdds_sample_free(NULL);
  hdds_reader_destroy(NULL);
  hdds_writer_destroy(NULL);
  hdds_participant_destroy(NULL);

  hdds_reader_destroy(r);
  hdds_writer_destroy(w);
  hdds_participant_destroy(p);
}

static void version_is_set(void) { CHECK(strlen(hdds_version()) > 0); }

int main(void) {
  RUN(null_and_out_of_range_arguments);
  RUN(version_is_set);
  FINISH();
}
