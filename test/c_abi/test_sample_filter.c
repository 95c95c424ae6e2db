/* Reader-side sample filters through the C ABI: refused samples are never taken (nor kept from
 * before the filter was set), a NULL filter removes it, the user pointer comes back, bad arguments are refused. */
#include <hdds/hdds.h>
#include <stdbool.h>
#include <string.h>

#include "check.h"

static int calls;

/* Keeps samples whose first byte after the encapsulation header is at least *user. */
static bool at_least(const void *user, const uint8_t *data, size_t len) {
  calls++;
  return len >= 5 && data[4] >= *(const uint8_t *)user;
}

static void write_value(HddsWriter *w, uint8_t v) {
  uint8_t sample[5] = {0, 1, 0, 0, v};
  CHECK(hdds_writer_write(w, sample, sizeof sample, NULL) == HDDS_RET_OK);
}

static int take_value(HddsReader *r) {
  HddsSample *s = NULL;
  if (hdds_reader_take(r, &s) != HDDS_RET_OK) {
    return -1;
  }
  size_t len = 0;
  const uint8_t *data = hdds_sample_data(s, &len);
  int v = data != NULL && len == 5 ? data[4] : -2;
  hdds_sample_free(s);
  return v;
}

static void refused_samples_are_never_taken(void) {
  HddsParticipant *p = NULL;
  HddsWriter *w = NULL;
  HddsReader *r = NULL;
  HddsQos qos;
  CHECK(hdds_qos_default(&qos) == HDDS_RET_OK);
  qos.depth = 1; /* a refused sample must not push an accepted one out */
  CHECK(hdds_participant_create(5, &p) == HDDS_RET_OK);
  CHECK(hdds_writer_create(p, "rt/c_sample_filter", "T", &qos, &w) == HDDS_RET_OK);
  CHECK(hdds_reader_create(p, "rt/c_sample_filter", "T", &qos, &r) == HDDS_RET_OK);

  /* Already in the history when the filter is set: filtered by the set. */
  write_value(w, 1);
  const uint8_t threshold = 10;
  calls = 0;
  CHECK(hdds_reader_set_sample_filter(r, at_least, &threshold) == HDDS_RET_OK);
  CHECK(calls == 1);
  CHECK(hdds_reader_wait(r, 1000000) == HDDS_RET_TIMEOUT);
  calls = 0;
  write_value(w, 12);
  write_value(w, 3);
  CHECK(calls == 2);
  size_t unread = 99;
  CHECK(hdds_reader_unread_count(r, &unread) == HDDS_RET_OK && unread == 1);
  CHECK(take_value(r) == 12);
  CHECK(take_value(r) == -1);
  CHECK(hdds_reader_wait(r, 1000000) == HDDS_RET_TIMEOUT);

  CHECK(hdds_reader_set_sample_filter(r, NULL, NULL) == HDDS_RET_OK);
  write_value(w, 3);
  CHECK(calls == 2);
  CHECK(take_value(r) == 3);

  hdds_reader_destroy(r);
  hdds_writer_destroy(w);
  hdds_participant_destroy(p);
}

static void bad_arguments(void) {
  CHECK(hdds_reader_set_sample_filter(NULL, at_least, NULL) == HDDS_RET_BAD_ARGUMENT);
  CHECK(strstr(hdds_last_error(), "reader is NULL") != NULL);
}

int main(void) {
  RUN(refused_samples_are_never_taken);
  RUN(bad_arguments);
  FINISH();
}
