/* Guard conditions, wait sets, data readiness, statuses and listeners through the C ABI, with
 * same-process endpoints; and the errors each group returns for bad arguments. */
#define _POSIX_C_SOURCE 200809L
#include <hdds/hdds.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "check.h"

#define MS 1000000LL
static const uint8_t kSample[] = {0x00, 0x01, 0x00, 0x00, 0x2a, 0x00, 0x00, 0x00};
static const char *kType = "hdds::test::Bytes_";

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void sleep_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

static int last_error_mentions(const char *what) { return strstr(hdds_last_error(), what) != NULL; }

static void *trigger_later(void *gc) {
  sleep_ms(50);
  hdds_guard_condition_trigger((const HddsGuardCondition *)gc);
  return NULL;
}

static void guard_condition_wakes_a_wait_and_is_reset(void) {
  HddsGuardCondition *gc = NULL;
  HddsWaitSet *ws = NULL;
  CHECK(hdds_guard_condition_create(NULL, &gc) == HDDS_RET_OK && gc != NULL);
  CHECK(hdds_waitset_create(&ws) == HDDS_RET_OK && ws != NULL);
  HddsWaitEntry e[1] = {{HDDS_WAIT_GUARD, gc, 0, true}};
  CHECK(hdds_waitset_wait(ws, e, 1, 0) == HDDS_RET_TIMEOUT && !e[0].ready);

  pthread_t t;
  int64_t start = now_ns();
  CHECK(pthread_create(&t, NULL, trigger_later, gc) == 0);
  CHECK(hdds_waitset_wait(ws, e, 1, HDDS_DURATION_INFINITE) == HDDS_RET_OK && e[0].ready);
  int64_t took = now_ns() - start;
  CHECK(took >= 40 * MS && took < 2000 * MS);
  pthread_join(t, NULL);
  /* The wait that found it triggered reset it. */
  CHECK(hdds_waitset_wait(ws, e, 1, 0) == HDDS_RET_TIMEOUT && !e[0].ready);

  /* Time-out within bounds; no entries sleeps for the timeout. */
  start = now_ns();
  CHECK(hdds_waitset_wait(ws, e, 1, 100 * MS) == HDDS_RET_TIMEOUT);
  took = now_ns() - start;
  CHECK(took >= 100 * MS && took < 600 * MS);
  start = now_ns();
  CHECK(hdds_waitset_wait(ws, NULL, 0, 30 * MS) == HDDS_RET_TIMEOUT);
  CHECK(now_ns() - start >= 30 * MS);

  hdds_waitset_destroy(ws);
  hdds_guard_condition_destroy(gc);
}

typedef struct {
  atomic_int samples;
  atomic_int statuses;
  atomic_uint last_status;
} Counters;

static void on_data(const void *user, size_t count) {
  Counters *c = (Counters *)user;
  atomic_fetch_add(&c->samples, (int)count);
}

static void on_status(const void *user, uint32_t status) {
  Counters *c = (Counters *)user;
  atomic_store(&c->last_status, status);
  atomic_fetch_add(&c->statuses, 1);
}

static void *write_later(void *w) {
  sleep_ms(50);
  hdds_writer_write((const HddsWriter *)w, kSample, sizeof kSample, NULL);
  return NULL;
}

static void reader_data_wakes_a_wait_and_calls_the_listener(void) {
  HddsParticipant *p = NULL;
  HddsWriter *w = NULL;
  HddsReader *r = NULL;
  HddsWaitSet *ws = NULL;
  HddsGuardCondition *gc = NULL;
  CHECK(hdds_participant_create(3, &p) == HDDS_RET_OK);
  CHECK(hdds_reader_create(p, "c/ws/data", kType, NULL, &r) == HDDS_RET_OK);
  CHECK(hdds_writer_create(p, "c/ws/data", kType, NULL, &w) == HDDS_RET_OK);
  CHECK(hdds_waitset_create(&ws) == HDDS_RET_OK);
  CHECK(hdds_guard_condition_create(NULL, &gc) == HDDS_RET_OK);

  static Counters c;
  CHECK(hdds_reader_set_data_listener(r, on_data, &c) == HDDS_RET_OK);
  HddsWaitEntry e[2] = {{HDDS_WAIT_GUARD, gc, 0, false}, {HDDS_WAIT_READER_DATA, r, 0, false}};
  pthread_t t;
  CHECK(pthread_create(&t, NULL, write_later, w) == 0);
  CHECK(hdds_waitset_wait(ws, e, 2, 5000 * MS) == HDDS_RET_OK);
  CHECK(!e[0].ready && e[1].ready);
  pthread_join(t, NULL);
  CHECK(hdds_writer_write(w, kSample, sizeof kSample, NULL) == HDDS_RET_OK);
  CHECK(atomic_load(&c.samples) == 2);

  size_t unread = 0;
  CHECK(hdds_reader_unread_count(r, &unread) == HDDS_RET_OK && unread == 2);
  HddsSample *s = NULL;
  while (hdds_reader_take(r, &s) == HDDS_RET_OK) hdds_sample_free(s);
  CHECK(hdds_reader_unread_count(r, &unread) == HDDS_RET_OK && unread == 0);
  CHECK(hdds_waitset_wait(ws, e, 2, 10 * MS) == HDDS_RET_TIMEOUT && !e[1].ready);

  /* A cleared listener is not called. */
  CHECK(hdds_reader_set_data_listener(r, NULL, NULL) == HDDS_RET_OK);
  CHECK(hdds_writer_write(w, kSample, sizeof kSample, NULL) == HDDS_RET_OK);
  CHECK(atomic_load(&c.samples) == 2);

  /* Same-process readers have everything at once. */
  CHECK(hdds_writer_wait_for_acks(w, 100 * MS) == HDDS_RET_OK);

  hdds_guard_condition_destroy(gc);
  hdds_waitset_destroy(ws);
  hdds_reader_destroy(r);
  hdds_writer_destroy(w);
  hdds_participant_destroy(p);
}

static void statuses_matched_incompatible_deadline_liveliness(void) {
  HddsParticipant *p = NULL;
  CHECK(hdds_participant_create(3, &p) == HDDS_RET_OK);
  HddsWaitSet *ws = NULL;
  CHECK(hdds_waitset_create(&ws) == HDDS_RET_OK);
  HddsStatus st;

  /* Incompatible QoS: a best-effort writer and a reliable reader. */
  HddsQos be;
  hdds_qos_default(&be);
  be.reliability = HDDS_RELIABILITY_BEST_EFFORT;
  HddsReader *r = NULL;
  HddsWriter *w = NULL;
  static Counters rc, wc;
  CHECK(hdds_reader_create(p, "c/ws/incompatible", kType, NULL, &r) == HDDS_RET_OK);
  CHECK(hdds_reader_set_status_listener(r, on_status, &rc) == HDDS_RET_OK);
  CHECK(hdds_writer_create(p, "c/ws/incompatible", kType, &be, &w) == HDDS_RET_OK);
  HddsWaitEntry e[2] = {{HDDS_WAIT_READER_STATUS, r, HDDS_STATUS_REQUESTED_INCOMPATIBLE_QOS, false},
                        {HDDS_WAIT_WRITER_STATUS, w, HDDS_STATUS_OFFERED_INCOMPATIBLE_QOS, false}};
  CHECK(hdds_waitset_wait(ws, e, 2, 0) == HDDS_RET_OK && e[0].ready && e[1].ready);
  CHECK(hdds_reader_get_status(r, HDDS_STATUS_REQUESTED_INCOMPATIBLE_QOS, &st) == HDDS_RET_OK);
  CHECK(st.total_count == 1 && st.total_count_change == 1 && st.last_policy_id == 11 /* RELIABILITY */);
  CHECK(hdds_writer_get_status(w, HDDS_STATUS_OFFERED_INCOMPATIBLE_QOS, &st) == HDDS_RET_OK);
  CHECK(st.total_count == 1 && st.last_policy_id == 11);
  CHECK(atomic_load(&rc.statuses) == 1 && atomic_load(&rc.last_status) == HDDS_STATUS_REQUESTED_INCOMPATIBLE_QOS);
  /* Reading reset the change and the readiness. */
  CHECK(hdds_reader_get_status(r, HDDS_STATUS_REQUESTED_INCOMPATIBLE_QOS, &st) == HDDS_RET_OK);
  CHECK(st.total_count == 1 && st.total_count_change == 0);
  CHECK(hdds_waitset_wait(ws, e, 2, 0) == HDDS_RET_TIMEOUT && !e[0].ready && !e[1].ready);
  hdds_writer_destroy(w);
  hdds_reader_destroy(r);

  /* Matched counts, deadline missed and liveliness lost. */
  HddsQos q;
  hdds_qos_default(&q);
  q.deadline_ns = 30 * MS;
  q.liveliness = HDDS_LIVELINESS_MANUAL_BY_TOPIC;
  q.liveliness_lease_duration_ns = 100 * MS;
  CHECK(hdds_writer_create(p, "c/ws/timed", kType, &q, &w) == HDDS_RET_OK);
  CHECK(hdds_writer_set_status_listener(w, on_status, &wc) == HDDS_RET_OK);
  CHECK(hdds_reader_create(p, "c/ws/timed", kType, &q, &r) == HDDS_RET_OK);
  CHECK(hdds_writer_get_status(w, HDDS_STATUS_PUBLICATION_MATCHED, &st) == HDDS_RET_OK);
  CHECK(st.current_count == 1 && st.total_count == 1 && st.current_count_change == 1);
  CHECK(hdds_reader_get_status(r, HDDS_STATUS_SUBSCRIPTION_MATCHED, &st) == HDDS_RET_OK);
  CHECK(st.current_count == 1 && st.total_count == 1);
  CHECK(hdds_reader_get_status(r, HDDS_STATUS_LIVELINESS_CHANGED, &st) == HDDS_RET_OK);
  CHECK(st.current_count == 1 && st.total_count == 0);

  CHECK(hdds_writer_write(w, kSample, sizeof kSample, NULL) == HDDS_RET_OK);
  HddsWaitEntry d[1] = {{HDDS_WAIT_READER_STATUS, r, HDDS_STATUS_REQUESTED_DEADLINE_MISSED, false}};
  CHECK(hdds_waitset_wait(ws, d, 1, 2000 * MS) == HDDS_RET_OK && d[0].ready);
  HddsWaitEntry l[1] = {{HDDS_WAIT_WRITER_STATUS, w, HDDS_STATUS_LIVELINESS_LOST, false}};
  int64_t start = now_ns();
  CHECK(hdds_waitset_wait(ws, l, 1, 2000 * MS) == HDDS_RET_OK && l[0].ready);
  CHECK(now_ns() - start < 1500 * MS);
  CHECK(hdds_writer_get_status(w, HDDS_STATUS_LIVELINESS_LOST, &st) == HDDS_RET_OK && st.total_count == 1);
  CHECK(hdds_reader_get_status(r, HDDS_STATUS_LIVELINESS_CHANGED, &st) == HDDS_RET_OK);
  CHECK(st.current_count == 0 && st.total_count == 1 && st.current_count_change == -1 && st.total_count_change == 1);
  CHECK(hdds_reader_get_status(r, HDDS_STATUS_REQUESTED_DEADLINE_MISSED, &st) == HDDS_RET_OK);
  CHECK(st.total_count >= 2);
  CHECK(hdds_writer_get_status(w, HDDS_STATUS_OFFERED_DEADLINE_MISSED, &st) == HDDS_RET_OK);
  CHECK(st.total_count >= 2);
  CHECK(atomic_load(&wc.statuses) >= 3);

  /* Asserting makes the writer alive again for the reader. */
  CHECK(hdds_writer_assert_liveliness(w) == HDDS_RET_OK);
  CHECK(hdds_reader_get_status(r, HDDS_STATUS_LIVELINESS_CHANGED, &st) == HDDS_RET_OK);
  CHECK(st.current_count == 1 && st.total_count == 0 && st.current_count_change == 1);

  CHECK(hdds_writer_set_status_listener(w, NULL, NULL) == HDDS_RET_OK);
  hdds_reader_destroy(r);
  CHECK(hdds_writer_get_status(w, HDDS_STATUS_PUBLICATION_MATCHED, &st) == HDDS_RET_OK);
  CHECK(st.current_count == 0 && st.current_count_change == -1 && st.total_count == 1);
  hdds_writer_destroy(w);
  hdds_waitset_destroy(ws);
  hdds_participant_destroy(p);
}

static void bad_arguments(void) {
  HddsParticipant *p = NULL;
  HddsReader *r = NULL;
  HddsWriter *w = NULL;
  HddsWaitSet *ws = NULL;
  HddsGuardCondition *gc = NULL;
  CHECK(hdds_participant_create(3, &p) == HDDS_RET_OK);
  CHECK(hdds_reader_create(p, "c/ws/bad", kType, NULL, &r) == HDDS_RET_OK);
  CHECK(hdds_writer_create(p, "c/ws/bad", kType, NULL, &w) == HDDS_RET_OK);
  CHECK(hdds_waitset_create(&ws) == HDDS_RET_OK);
  CHECK(hdds_guard_condition_create(NULL, &gc) == HDDS_RET_OK);

  CHECK(hdds_guard_condition_create(NULL, NULL) == HDDS_RET_BAD_ARGUMENT && last_error_mentions("out_condition"));
  CHECK(hdds_guard_condition_trigger(NULL) == HDDS_RET_BAD_ARGUMENT && last_error_mentions("condition"));
  CHECK(hdds_waitset_create(NULL) == HDDS_RET_BAD_ARGUMENT);

  HddsWaitEntry e[1] = {{HDDS_WAIT_GUARD, gc, 0, false}};
  CHECK(hdds_waitset_wait(NULL, e, 1, 0) == HDDS_RET_BAD_ARGUMENT && last_error_mentions("waitset is NULL"));
  CHECK(hdds_waitset_wait(ws, NULL, 1, 0) == HDDS_RET_BAD_ARGUMENT && last_error_mentions("entries is NULL"));
  CHECK(hdds_waitset_wait(ws, e, 1, -5) == HDDS_RET_BAD_ARGUMENT && last_error_mentions("negative"));
  e[0].kind = 9;
  CHECK(hdds_waitset_wait(ws, e, 1, 0) == HDDS_RET_BAD_ARGUMENT && last_error_mentions("kind 9"));
  e[0].kind = HDDS_WAIT_READER_DATA;
  e[0].handle = NULL;
  CHECK(hdds_waitset_wait(ws, e, 1, 0) == HDDS_RET_BAD_ARGUMENT && last_error_mentions("handle is NULL"));
  HddsWaitEntry s[1] = {{HDDS_WAIT_READER_STATUS, r, 0, false}};
  CHECK(hdds_waitset_wait(ws, s, 1, 0) == HDDS_RET_BAD_ARGUMENT && last_error_mentions("status_mask"));
  s[0].status_mask = HDDS_STATUS_LIVELINESS_LOST; /* a writer status on a reader */
  CHECK(hdds_waitset_wait(ws, s, 1, 0) == HDDS_RET_BAD_ARGUMENT && last_error_mentions("reader"));

  HddsStatus st;
  CHECK(hdds_reader_get_status(NULL, HDDS_STATUS_SAMPLE_LOST, &st) == HDDS_RET_BAD_ARGUMENT);
  CHECK(hdds_reader_get_status(r, HDDS_STATUS_SAMPLE_LOST, NULL) == HDDS_RET_BAD_ARGUMENT);
  CHECK(hdds_reader_get_status(r, HDDS_STATUS_SAMPLE_LOST | HDDS_STATUS_LIVELINESS_CHANGED, &st) ==
        HDDS_RET_BAD_ARGUMENT);
  CHECK(last_error_mentions("exactly one"));
  CHECK(hdds_reader_get_status(r, HDDS_STATUS_OFFERED_DEADLINE_MISSED, &st) == HDDS_RET_BAD_ARGUMENT);
  CHECK(hdds_writer_get_status(w, HDDS_STATUS_SAMPLE_LOST, &st) == HDDS_RET_BAD_ARGUMENT);
  CHECK(hdds_writer_get_status(w, 0, &st) == HDDS_RET_BAD_ARGUMENT);
  CHECK(hdds_reader_get_status(r, HDDS_STATUS_SAMPLE_LOST, &st) == HDDS_RET_OK && st.total_count == 0);

  CHECK(hdds_reader_set_data_listener(NULL, on_data, NULL) == HDDS_RET_BAD_ARGUMENT);
  CHECK(hdds_reader_set_status_listener(NULL, on_status, NULL) == HDDS_RET_BAD_ARGUMENT);
  CHECK(hdds_writer_set_status_listener(NULL, on_status, NULL) == HDDS_RET_BAD_ARGUMENT);
  size_t n;
  CHECK(hdds_reader_unread_count(NULL, &n) == HDDS_RET_BAD_ARGUMENT);
  CHECK(hdds_reader_unread_count(r, NULL) == HDDS_RET_BAD_ARGUMENT);
  CHECK(hdds_writer_assert_liveliness(NULL) == HDDS_RET_BAD_ARGUMENT);
  CHECK(hdds_writer_wait_for_acks(NULL, 0) == HDDS_RET_BAD_ARGUMENT);
  CHECK(hdds_writer_wait_for_acks(w, -1) == HDDS_RET_BAD_ARGUMENT);

  hdds_guard_condition_destroy(NULL);
  hdds_waitset_destroy(NULL);
  hdds_guard_condition_destroy(gc);
  hdds_waitset_destroy(ws);
  hdds_writer_destroy(w);
  hdds_reader_destroy(r);
  hdds_participant_destroy(p);
}

int main(void) {
  RUN(guard_condition_wakes_a_wait_and_is_reset);
  RUN(reader_data_wakes_a_wait_and_calls_the_listener);
  RUN(statuses_matched_incompatible_deadline_liveliness);
  RUN(bad_arguments);
  FINISH();
}
