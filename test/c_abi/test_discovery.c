/* Participant configuration, endpoint options and discovery events, through the C ABI only:
 * two loopback-only participants of this process that meet over UDP (their own domain tag keeps
 * other runs away), USER_DATA in both directions, local and remote events, the replay when a
 * listener is set, and argument errors. */
#include <hdds/hdds.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define MAX_EVENTS 256

typedef struct {
  uint8_t guid[16];
  bool is_participant, alive, local, is_reader;
  char topic[64], type[64], user_data[64];
  uint32_t depth;
  uint8_t vendor[2];
} Event;

typedef struct {
  pthread_mutex_t mu;
  Event events[MAX_EVENTS];
  int n;
} Log;

static void copy_bytes(char *dst, size_t cap, const uint8_t *src, size_t len) {
  size_t n = len < cap - 1 ? len : cap - 1;
  if (n > 0) memcpy(dst, src, n);
  dst[n] = '\0';
}

static void on_participant(const void *user, const HddsParticipantEvent *ev) {
  Log *log = (Log *)user;
  pthread_mutex_lock(&log->mu);
  if (log->n < MAX_EVENTS) {
    Event *e = &log->events[log->n++];
    memset(e, 0, sizeof *e);
    memcpy(e->guid, ev->guid, 16);
    memcpy(e->vendor, ev->vendor_id, 2);
    e->is_participant = true;
    e->alive = ev->alive;
    e->local = ev->local;
    copy_bytes(e->user_data, sizeof e->user_data, ev->user_data, ev->user_data_len);
  }
  pthread_mutex_unlock(&log->mu);
}

static void on_endpoint(const void *user, const HddsEndpointEvent *ev) {
  Log *log = (Log *)user;
  pthread_mutex_lock(&log->mu);
  if (log->n < MAX_EVENTS) {
    Event *e = &log->events[log->n++];
    memset(e, 0, sizeof *e);
    memcpy(e->guid, ev->guid, 16);
    memcpy(e->vendor, ev->vendor_id, 2);
    e->alive = ev->alive;
    e->local = ev->local;
    e->is_reader = ev->is_reader;
    snprintf(e->topic, sizeof e->topic, "%s", ev->topic_name);
    snprintf(e->type, sizeof e->type, "%s", ev->type_name);
    copy_bytes(e->user_data, sizeof e->user_data, ev->user_data, ev->user_data_len);
    e->depth = ev->qos.depth;
  }
  pthread_mutex_unlock(&log->mu);
}

/* The index of the first event about `guid` with this aliveness, or -1. */
static int find(Log *log, const uint8_t guid[16], bool alive) {
  int found = -1;
  pthread_mutex_lock(&log->mu);
  for (int i = 0; i < log->n && found < 0; i++) {
    if (memcmp(log->events[i].guid, guid, 16) == 0 && log->events[i].alive == alive) found = i;
  }
  pthread_mutex_unlock(&log->mu);
  return found;
}

static int wait_for(Log *log, const uint8_t guid[16], bool alive) {
  for (int i = 0; i < 1000; i++) { /* 5 s */
    int at = find(log, guid, alive);
    if (at >= 0) return at;
    usleep(5000);
  }
  return -1;
}

static char tag[64];

static HddsParticipant *make(const char *user_data) {
  HddsParticipantConfig cfg;
  HddsParticipant *p = NULL;
  CHECK(hdds_participant_config_default(&cfg) == HDDS_RET_OK);
  CHECK(cfg.network && !cfg.localhost_only && cfg.domain_id == 0);
  cfg.domain_id = 145;
  cfg.localhost_only = true;
  cfg.user_data = (const uint8_t *)user_data;
  cfg.user_data_len = strlen(user_data);
  cfg.domain_tag = tag;
  CHECK(hdds_participant_create_with_config(&cfg, &p) == HDDS_RET_OK && p != NULL);
  return p;
}

static void remote_and_local_events_with_user_data(void) {
  Log log = {.mu = PTHREAD_MUTEX_INITIALIZER};
  HddsParticipant *a = make("enclave=/a;");
  HddsParticipant *b = make("enclave=/b;");
  uint8_t a_guid[16], b_guid[16], w_guid[16], r_guid[16];
  CHECK(hdds_participant_guid(a, a_guid) == HDDS_RET_OK);
  CHECK(hdds_participant_guid(b, b_guid) == HDDS_RET_OK);

  CHECK(hdds_participant_set_discovery_listener(b, on_participant, on_endpoint, &log) == HDDS_RET_OK);
  CHECK(log.n >= 1 && log.events[0].is_participant && log.events[0].local &&
        memcmp(log.events[0].guid, b_guid, 16) == 0 && strcmp(log.events[0].user_data, "enclave=/b;") == 0);

  HddsQos qos;
  CHECK(hdds_qos_default(&qos) == HDDS_RET_OK);
  qos.depth = 7;
  static const char kClient[] = "clientid= 1.f0.2.3.4.5.6.7.8.9.a.b.0.0.0.1;";
  HddsEndpointOptions opts = {(const uint8_t *)kClient, strlen(kClient), false};
  HddsWriter *w = NULL;
  HddsReader *r = NULL;
  CHECK(hdds_writer_create_ex(a, "rq/c_svcRequest", "pkg::srv::dds_::S_Request_", &qos, &opts, &w) == HDDS_RET_OK);
  CHECK(hdds_reader_create_ex(b, "rr/c_svcReply", "pkg::srv::dds_::S_Response_", NULL, NULL, &r) == HDDS_RET_OK);
  CHECK(hdds_writer_guid(w, w_guid) == HDDS_RET_OK);
  CHECK(hdds_reader_guid(r, r_guid) == HDDS_RET_OK);

  /* b's own reader: reported before create returned. */
  int at = find(&log, r_guid, true);
  CHECK(at >= 0 && log.events[at].local && log.events[at].is_reader && strcmp(log.events[at].topic, "rr/c_svcReply") == 0);

  /* a, then a's writer, from the network. */
  int pa = wait_for(&log, a_guid, true);
  int pw = wait_for(&log, w_guid, true);
  CHECK(pa >= 0 && pw > pa);
  if (pa >= 0 && pw >= 0) {
    Event *p = &log.events[pa], *e = &log.events[pw];
    CHECK(p->is_participant && !p->local && strcmp(p->user_data, "enclave=/a;") == 0);
    CHECK(p->vendor[0] == 0x01 && p->vendor[1] == 0xF0);
    CHECK(!e->is_participant && !e->local && !e->is_reader);
    CHECK(strcmp(e->topic, "rq/c_svcRequest") == 0 && strcmp(e->type, "pkg::srv::dds_::S_Request_") == 0);
    CHECK(strcmp(e->user_data, kClient) == 0);
    CHECK(e->depth == 7);
  }

  /* The writer goes, then a: a's goodbye reports its endpoints first. */
  hdds_writer_destroy(w);
  CHECK(wait_for(&log, w_guid, false) >= 0);
  hdds_participant_destroy(a);
  CHECK(wait_for(&log, a_guid, false) >= 0);

  /* Cleared: no more calls, even for b's own endpoints. */
  CHECK(hdds_participant_set_discovery_listener(b, NULL, NULL, NULL) == HDDS_RET_OK);
  int before = log.n;
  hdds_reader_destroy(r);
  CHECK(log.n == before);
  hdds_participant_destroy(b);
}

static void config_errors(void) {
  HddsParticipantConfig cfg;
  HddsParticipant *p = NULL;
  CHECK(hdds_participant_config_default(NULL) == HDDS_RET_BAD_ARGUMENT);
  CHECK(hdds_participant_create_with_config(NULL, &p) == HDDS_RET_BAD_ARGUMENT);
  CHECK(hdds_participant_config_default(&cfg) == HDDS_RET_OK);
  cfg.user_data_len = 3; /* with a NULL pointer */
  CHECK(hdds_participant_create_with_config(&cfg, &p) == HDDS_RET_BAD_ARGUMENT && p == NULL);
  CHECK(strstr(hdds_last_error(), "user_data") != NULL);
  CHECK(hdds_participant_config_default(&cfg) == HDDS_RET_OK);
  cfg.domain_id = 233;
  CHECK(hdds_participant_create_with_config(&cfg, &p) == HDDS_RET_BAD_ARGUMENT && p == NULL);
  /* Same-process only: no sockets, no domain tag. */
  CHECK(hdds_participant_config_default(&cfg) == HDDS_RET_OK);
  cfg.network = false;
  cfg.domain_tag = "x";
  CHECK(hdds_participant_create_with_config(&cfg, &p) == HDDS_RET_BAD_ARGUMENT && p == NULL);
  cfg.domain_tag = NULL;
  CHECK(hdds_participant_create_with_config(&cfg, &p) == HDDS_RET_OK && p != NULL);
  CHECK(hdds_participant_set_discovery_listener(NULL, on_participant, NULL, NULL) == HDDS_RET_BAD_ARGUMENT);
  HddsEndpointOptions bad = {NULL, 4, false};
  HddsWriter *w = NULL;
  CHECK(hdds_writer_create_ex(p, "t", "T", NULL, &bad, &w) == HDDS_RET_BAD_ARGUMENT && w == NULL);
  hdds_participant_destroy(p);
}

/* HDDS_TRANSPORT: a word it does not know, or a list without what the participant needs, is refused
 * with a message; `udp` alone (everything over UDP, as another DDS would) works. */
static void transport_variable(void) {
  HddsParticipantConfig cfg;
  HddsParticipant *p = NULL;
  CHECK(hdds_participant_config_default(&cfg) == HDDS_RET_OK);
  cfg.domain_id = 147;
  cfg.localhost_only = true;
  cfg.domain_tag = tag;
  CHECK(setenv("HDDS_TRANSPORT", "udp,tcp", 1) == 0);
  CHECK(hdds_participant_create_with_config(&cfg, &p) == HDDS_RET_BAD_ARGUMENT && p == NULL);
  CHECK(strstr(hdds_last_error(), "tcp") != NULL);
  CHECK(setenv("HDDS_TRANSPORT", "intra,shm", 1) == 0);
  CHECK(hdds_participant_create_with_config(&cfg, &p) == HDDS_RET_BAD_ARGUMENT && p == NULL);
  CHECK(strstr(hdds_last_error(), "add udp") != NULL);
  CHECK(setenv("HDDS_TRANSPORT", "udp", 1) == 0);
  CHECK(hdds_participant_create_with_config(&cfg, &p) == HDDS_RET_OK && p != NULL);
  hdds_participant_destroy(p);
  CHECK(unsetenv("HDDS_TRANSPORT") == 0);
}

static void ignore_local_participant(void) {
  HddsParticipantConfig cfg;
  HddsParticipant *p = NULL;
  CHECK(hdds_participant_config_default(&cfg) == HDDS_RET_OK);
  cfg.network = false;
  cfg.domain_id = 146;
  CHECK(hdds_participant_create_with_config(&cfg, &p) == HDDS_RET_OK);
  HddsEndpointOptions ignore = {NULL, 0, true};
  HddsWriter *w = NULL;
  HddsReader *deaf = NULL, *hearing = NULL;
  CHECK(hdds_writer_create_ex(p, "ros_discovery_info", "T", NULL, NULL, &w) == HDDS_RET_OK);
  CHECK(hdds_reader_create_ex(p, "ros_discovery_info", "T", NULL, &ignore, &deaf) == HDDS_RET_OK);
  CHECK(hdds_reader_create_ex(p, "ros_discovery_info", "T", NULL, NULL, &hearing) == HDDS_RET_OK);
  size_t matched = 0;
  CHECK(hdds_writer_matched_count(w, &matched) == HDDS_RET_OK && matched == 1);
  static const uint8_t kSample[] = {0, 1, 0, 0, 42};
  CHECK(hdds_writer_write(w, kSample, sizeof kSample, NULL) == HDDS_RET_OK);
  CHECK(hdds_reader_wait(hearing, 0) == HDDS_RET_OK);
  CHECK(hdds_reader_wait(deaf, 0) == HDDS_RET_TIMEOUT);
  hdds_reader_destroy(deaf);
  hdds_reader_destroy(hearing);
  hdds_writer_destroy(w);
  hdds_participant_destroy(p);
}

int main(void) {
  snprintf(tag, sizeof tag, "hdds-c-abi-%ld-%ld", (long)getpid(), (long)time(NULL));
  RUN(remote_and_local_events_with_user_data);
  RUN(config_errors);
  RUN(transport_variable);
  RUN(ignore_local_participant);
  FINISH();
}
