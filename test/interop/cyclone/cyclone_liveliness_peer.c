/* LIVELINESS interop peer on Eclipse Cyclone DDS 0.10.2: one writer or reader of
 * hdds::interop::Blob, which the script test/interop/run_liveliness.py drives and judges. Same
 * command line and output as hdds_tools' hdds-liveliness-peer:
 *
 *   cyclone_liveliness_peer writer|reader --domain D --topic T --lease-ms L
 *                           [--kind topic|participant|automatic]
 *                           [--assert-ms P] [--assert-for S] [--timeout S] [--config FILE]
 *
 * --kind: MANUAL_BY_TOPIC (default), MANUAL_BY_PARTICIPANT or AUTOMATIC.
 * writer: waits for a reader, asserts its liveliness every P ms for S s without writing
 *         (MANUAL_BY_TOPIC: dds_assert_liveliness on the writer, a HEARTBEAT with the Liveliness
 *         flag; MANUAL_BY_PARTICIPANT: on the participant, a ParticipantMessageData of kind
 *         MANUAL_LIVELINESS_UPDATE), stops for 3 leases,
 *         writes one sample, and after half a lease deletes the writer. Prints
 *         MATCHED / ASSERTED_UNTIL / WROTE / DELETED t=<CLOCK_REALTIME seconds>.
 *         AUTOMATIC: waits for a reader, writes nothing for S s and 3 leases (the participant
 *         must keep the writer alive), prints IDLE_UNTIL, then KILLED and ends the process at
 *         once (_exit: no goodbye, as a crash), so that only the lease can tell the reader.
 * reader: prints every change of its LIVELINESS_CHANGED status as
 *         LIVELINESS alive=A not_alive=N t=<seconds>, and stops once the writer it matched is
 *         gone (AUTOMATIC: once it is not alive) or at --timeout. Exit 0 unless a DDS call failed
 *         (2) or the timeout came (1).
 * Loopback only: CYCLONEDDS_URI is set to the loopback config (or --config FILE). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dds/dds.h"
#include "interop.h"

#define PEER_NAME "cyclone_liveliness_peer"
#include "cyclone_check.h"

static double wall(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double mono(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void nap(double s)
{
  if (s <= 0) return;
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  nanosleep(&ts, NULL);
}

static void say(const char *what)
{
  printf("%s t=%.6f\n", what, wall());
  fflush(stdout);
}

static void usage(void)
{
  fprintf(stderr, "usage: cyclone_liveliness_peer writer|reader --domain D --topic T --lease-ms L "
                  "[--kind topic|participant|automatic] [--assert-ms P] [--assert-for S] [--timeout S] [--config FILE]\n");
  exit(2);
}

int main(int argc, char **argv)
{
  if (argc < 2) usage();
  int is_writer = strcmp(argv[1], "writer") == 0;
  if (!is_writer && strcmp(argv[1], "reader") != 0) usage();
  long domain = 0, lease_ms = 0, assert_ms = 100;
  double assert_for = 2.0, timeout = 20.0;
  const char *topic = NULL, *config = HDDS_INTEROP_CYCLONE_CONFIG;
  dds_liveliness_kind_t kind = DDS_LIVELINESS_MANUAL_BY_TOPIC;
  for (int i = 2; i < argc; i++) {
    if (i + 1 >= argc) usage();
    const char *k = argv[i], *v = argv[++i];
    if (strcmp(k, "--domain") == 0) domain = atol(v);
    else if (strcmp(k, "--topic") == 0) topic = v;
    else if (strcmp(k, "--lease-ms") == 0) lease_ms = atol(v);
    else if (strcmp(k, "--assert-ms") == 0) assert_ms = atol(v);
    else if (strcmp(k, "--assert-for") == 0) assert_for = atof(v);
    else if (strcmp(k, "--timeout") == 0) timeout = atof(v);
    else if (strcmp(k, "--config") == 0) config = v;
    else if (strcmp(k, "--kind") == 0 && strcmp(v, "topic") == 0) kind = DDS_LIVELINESS_MANUAL_BY_TOPIC;
    else if (strcmp(k, "--kind") == 0 && strcmp(v, "participant") == 0) kind = DDS_LIVELINESS_MANUAL_BY_PARTICIPANT;
    else if (strcmp(k, "--kind") == 0 && strcmp(v, "automatic") == 0) kind = DDS_LIVELINESS_AUTOMATIC;
    else usage();
  }
  if (!topic || lease_ms <= 0 || assert_ms <= 0) usage();
  double end = mono() + timeout;

  size_t n = strlen(config) + 8;
  char *uri = malloc(n);
  snprintf(uri, n, "file://%s", config);
  setenv("CYCLONEDDS_URI", uri, 1);
  free(uri);

  dds_entity_t pp = dds_create_participant((dds_domainid_t)domain, NULL, NULL);
  CHECK(pp);
  dds_entity_t tp = dds_create_topic(pp, &hdds_interop_Blob_desc, topic, NULL, NULL);
  CHECK(tp);
  dds_qos_t *q = dds_create_qos();
  dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_SECS(1));
  dds_qset_liveliness(q, kind, DDS_MSECS(lease_ms));
  dds_data_representation_id_t xcdr1 = DDS_DATA_REPRESENTATION_XCDR1;
  dds_qset_data_representation(q, 1, &xcdr1);
  double lease = (double)lease_ms / 1000.0;
  int rc = 0;

  if (is_writer) {
    dds_entity_t wr = dds_create_writer(pp, tp, q, NULL);
    CHECK(wr);
    dds_publication_matched_status_t st = {0};
    while (st.current_count == 0 && mono() < end) {
      CHECK(dds_get_publication_matched_status(wr, &st));
      nap(0.01);
    }
    if (st.current_count == 0) {
      fprintf(stderr, "cyclone_liveliness_peer: writer: no reader matched before the timeout\n");
      rc = 1;
      goto out;
    }
    say("MATCHED");
    if (kind == DDS_LIVELINESS_AUTOMATIC) {
      nap(assert_for + 3 * lease);
      say("IDLE_UNTIL");
      say("KILLED");
      _exit(0);
    }
    nap(0.3);
    double until = mono() + assert_for;
    dds_entity_t asserter = kind == DDS_LIVELINESS_MANUAL_BY_PARTICIPANT ? pp : wr;
    while (mono() < until) {
      CHECK(dds_assert_liveliness(asserter));
      nap((double)assert_ms / 1000.0);
    }
    CHECK(dds_assert_liveliness(asserter));
    say("ASSERTED_UNTIL");
    nap(3 * lease);
    hdds_interop_Blob s = {0};
    s.seq = 1;
    CHECK(dds_write(wr, &s));
    say("WROTE");
    nap(lease / 2);
    CHECK(dds_delete(wr));
    say("DELETED");
    nap(1.0); /* the disposal goes out */
  } else {
    dds_entity_t rd = dds_create_reader(pp, tp, q, NULL);
    CHECK(rd);
    dds_liveliness_changed_status_t last = {0}, now;
    dds_subscription_matched_status_t m;
    int was_matched = 0;
    rc = 1;
    while (mono() < end) {
      CHECK(dds_get_liveliness_changed_status(rd, &now));
      if (now.alive_count != last.alive_count || now.not_alive_count != last.not_alive_count) {
        printf("LIVELINESS alive=%u not_alive=%u t=%.6f\n", now.alive_count, now.not_alive_count, wall());
        fflush(stdout);
        last = now;
      }
      CHECK(dds_get_subscription_matched_status(rd, &m));
      if (m.current_count > 0) was_matched = 1;
      int lost = kind == DDS_LIVELINESS_AUTOMATIC && was_matched && now.not_alive_count > 0;
      if (lost || (was_matched && m.current_count == 0 && now.alive_count == 0 && now.not_alive_count == 0)) {
        say("GONE");
        rc = 0;
        break;
      }
      nap(0.002);
    }
    if (rc) fprintf(stderr, "cyclone_liveliness_peer: reader: the writer did not come and go before the timeout\n");
  }
out:
  dds_delete_qos(q);
  dds_delete(DDS_CYCLONEDDS_HANDLE);
  return rc;
}
