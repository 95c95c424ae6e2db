/* cyclone_scale_peer: Cyclone DDS 0.10's side of the discovery-at-scale benchmark
 * (bench/discovery_scale.py); the same topology and output as hdds_tools' hdds-scale-peer.
 * Writer i and reader i on topic <prefix>i (reliable, type hdds::interop::Blob); prints
 * "MATCHED ms=<unix ms>" once every writer sees --expect readers and every reader --expect
 * writers, then idles until SIGINT/SIGTERM or --timeout. The network configuration (interface,
 * multicast, SPDP interval, lease) comes from CYCLONEDDS_URI, which the benchmark sets: this
 * program reads no default config. Exit 0 when matched, 1 on timeout, 2 on usage or DDS errors. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dds/dds.h"
#include "interop.h"

#define MAX_EPS 256

static volatile sig_atomic_t stop_flag = 0;
static void on_stop(int sig) { (void)sig; stop_flag = 1; }

static long long unix_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static double mono_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int usage(const char *msg) {
  fprintf(stderr, "cyclone_scale_peer: %s\nusage: cyclone_scale_peer [--domain N] [--writers N] [--readers N] "
                  "[--expect N] [--prefix NAME] [--timeout S]\n", msg);
  return 2;
}

int main(int argc, char **argv) {
  int domain = 0, writers = 10, readers = 10, expect = 1;
  double timeout = 600.0;
  const char *prefix = "scale_t";
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (i + 1 >= argc) return usage("every option takes a value");
    const char *v = argv[++i];
    if (!strcmp(a, "--domain")) domain = atoi(v);
    else if (!strcmp(a, "--writers")) writers = atoi(v);
    else if (!strcmp(a, "--readers")) readers = atoi(v);
    else if (!strcmp(a, "--expect")) expect = atoi(v);
    else if (!strcmp(a, "--prefix")) prefix = v;
    else if (!strcmp(a, "--timeout")) timeout = atof(v);
    else return usage("unknown option");
  }
  if (writers < 0 || readers < 0 || writers > MAX_EPS || readers > MAX_EPS) return usage("--writers/--readers: 0..256");
  signal(SIGINT, on_stop);
  signal(SIGTERM, on_stop);
  double deadline = mono_s() + timeout;

  dds_entity_t pp = dds_create_participant((dds_domainid_t)domain, NULL, NULL);
  if (pp < 0) { fprintf(stderr, "cyclone_scale_peer: dds_create_participant: %s\n", dds_strretcode(pp)); return 2; }
  dds_qos_t *qos = dds_create_qos();
  dds_qset_reliability(qos, DDS_RELIABILITY_RELIABLE, DDS_SECS(10));
  dds_entity_t ws[MAX_EPS], rs[MAX_EPS];
  int n = writers > readers ? writers : readers;
  for (int i = 0; i < n; i++) {
    char name[256];
    snprintf(name, sizeof name, "%s%d", prefix, i);
    dds_entity_t t = dds_create_topic(pp, &hdds_interop_Blob_desc, name, NULL, NULL);
    if (t < 0) { fprintf(stderr, "cyclone_scale_peer: dds_create_topic: %s\n", dds_strretcode(t)); return 2; }
    if (i < writers && (ws[i] = dds_create_writer(pp, t, qos, NULL)) < 0) {
      fprintf(stderr, "cyclone_scale_peer: dds_create_writer: %s\n", dds_strretcode(ws[i])); return 2;
    }
    if (i < readers && (rs[i] = dds_create_reader(pp, t, qos, NULL)) < 0) {
      fprintf(stderr, "cyclone_scale_peer: dds_create_reader: %s\n", dds_strretcode(rs[i])); return 2;
    }
  }
  dds_delete_qos(qos);
  printf("READY ms=%lld pid=%d\n", unix_ms(), (int)getpid());
  fflush(stdout);
  int reported = 0, wmin = 0, rmin = 0;
  while (!stop_flag && mono_s() < deadline) {
    if (!reported) {
      wmin = 1 << 30; rmin = 1 << 30;
      for (int i = 0; i < writers; i++) {
        dds_publication_matched_status_t st;
        if (dds_get_publication_matched_status(ws[i], &st) == 0 && (int)st.current_count < wmin) wmin = (int)st.current_count;
      }
      for (int i = 0; i < readers; i++) {
        dds_subscription_matched_status_t st;
        if (dds_get_subscription_matched_status(rs[i], &st) == 0 && (int)st.current_count < rmin) rmin = (int)st.current_count;
      }
      if ((writers == 0 || wmin >= expect) && (readers == 0 || rmin >= expect)) {
        printf("MATCHED ms=%lld\n", unix_ms());
        fflush(stdout);
        reported = 1;
      }
    }
    dds_sleepfor(DDS_MSECS(reported ? 100 : 5));
  }
  if (!reported)
    fprintf(stderr, "cyclone_scale_peer: not fully matched (fewest readers per writer %d, fewest writers per reader %d, expected %d)\n",
            wmin, rmin, expect);
  dds_delete(pp);
  return reported ? 0 : 1;
}
