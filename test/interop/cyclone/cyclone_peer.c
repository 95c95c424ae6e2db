/* Interop peer on Eclipse Cyclone DDS 0.10.2 (Debian's cyclonedds-dev), C API.
 * CLI, payload and success rule: ../common/peer_common.h (and --help).
 * The types come from ../idl/interop.idl through idlc at build time (interop.h / interop.c).
 * By default the process loads the loopback-only config (CYCLONEDDS_URI is set to it before the
 * first DDS call, whatever the environment had); --config FILE loads another one. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "dds/dds.h"
#include "interop.h"
#include "peer_common.h"

#define PEER_NAME "cyclone_peer"
#include "cyclone_check.h"

static dds_duration_t secs_to_dur(double s)
{
  if (s <= 0) return 0;
  return (dds_duration_t)(s * 1e9);
}

static dds_qos_t *make_qos(const peer_opts *o, int for_writer)
{
  dds_qos_t *q = dds_create_qos();
  dds_qset_reliability(q, o->reliable ? DDS_RELIABILITY_RELIABLE : DDS_RELIABILITY_BEST_EFFORT, DDS_SECS(1));
  dds_qset_durability(q, o->transient_local ? DDS_DURABILITY_TRANSIENT_LOCAL : DDS_DURABILITY_VOLATILE);
  dds_history_kind_t hk = o->keep_all ? DDS_HISTORY_KEEP_ALL : DDS_HISTORY_KEEP_LAST;
  dds_qset_history(q, hk, o->keep_all ? 1 : o->depth);
  if (for_writer && o->transient_local) {
    /* what a late joiner gets is the durability service history: keep it equal to HISTORY */
    dds_qset_durability_service(q, 0, hk, o->keep_all ? 1 : o->depth, DDS_LENGTH_UNLIMITED,
                                DDS_LENGTH_UNLIMITED, DDS_LENGTH_UNLIMITED);
  }
  /* XCDR1 on the wire: the representation Fast DDS 2.9 and hdds read */
  dds_data_representation_id_t xcdr1 = DDS_DATA_REPRESENTATION_XCDR1;
  dds_qset_data_representation(q, 1, &xcdr1);
  return q;
}

static int run_pub(const peer_opts *o, dds_entity_t pp, dds_entity_t tp, double deadline)
{
  dds_qos_t *q = make_qos(o, 1);
  dds_entity_t wr = dds_create_writer(pp, tp, q, NULL);
  dds_delete_qos(q);
  CHECK(wr);

  dds_publication_matched_status_t st;
  uint32_t max_matched = 0;
  int ok = 1;
#define POLL_MATCHED()                                                                  \
  do {                                                                                  \
    CHECK(dds_get_publication_matched_status(wr, &st));                                 \
    if (st.current_count > max_matched) max_matched = st.current_count;                 \
  } while (0)

  POLL_MATCHED();
  while (max_matched < o->wait_matched && peer_now() < deadline && !peer_stop_requested()) {
    peer_sleep(0.01);
    POLL_MATCHED();
  }
  if (max_matched < o->wait_matched) {
    fprintf(stderr, "cyclone_peer: pub: only %u of %u readers matched before the timeout\n", max_matched, o->wait_matched);
    printf("WRITTEN written=0\nSUMMARY written=0 matched=%u\n", max_matched);
    return 1;
  }
  if (!peer_wait_start_file(o, deadline)) {
    fprintf(stderr, "cyclone_peer: pub: --start-file %s did not appear before the timeout\n", o->start_file);
    printf("WRITTEN written=0\nSUMMARY written=0 matched=%u\n", max_matched);
    return 1;
  }
  if (o->settle > 0) peer_sleep(o->settle);

  uint8_t *buf = malloc(o->size ? o->size : 1);
  if (!buf) { fprintf(stderr, "cyclone_peer: out of memory\n"); exit(2); }
  hdds_interop_Blob blob;
  hdds_interop_KeyedBlob kblob;
  memset(&blob, 0, sizeof(blob));
  memset(&kblob, 0, sizeof(kblob));
  uint32_t written = 0;
  double t0 = peer_now();
  for (uint32_t seq = 1; seq <= o->count && peer_now() < deadline && !peer_stop_requested(); seq++) {
    if (o->rate > 0) peer_sleep(t0 + (double)(seq - 1) / o->rate - peer_now());
    uint32_t id = peer_id_for_seq(o, seq);
    peer_payload_fill(buf, o->size, seq, id);
    void *sample;
    if (o->keyed) {
      kblob.id = id; kblob.seq = seq;
      kblob.data._buffer = buf; kblob.data._length = kblob.data._maximum = o->size; kblob.data._release = false;
      sample = &kblob;
    } else {
      blob.seq = seq;
      blob.data._buffer = buf; blob.data._length = blob.data._maximum = o->size; blob.data._release = false;
      sample = &blob;
    }
    dds_return_t rc;
    /* a reliable KEEP_ALL writer blocks up to max_blocking_time (1 s) when its history is full */
    while ((rc = dds_write(wr, sample)) == DDS_RETCODE_TIMEOUT && peer_now() < deadline && !peer_stop_requested()) {}
    if (rc < 0) {
      fprintf(stderr, "cyclone_peer: pub: write seq=%u: %s\n", seq, dds_strretcode(rc));
      ok = 0;
      break;
    }
    written++;
    POLL_MATCHED();
  }
  free(buf);
  printf("WRITTEN written=%u\n", written);
  fflush(stdout);
  if (written != o->count) ok = 0;

  if (o->reliable && written > 0) {
    double left = deadline - peer_now();
    dds_return_t rc = left > 0 ? dds_wait_for_acks(wr, secs_to_dur(left)) : DDS_RETCODE_TIMEOUT;
    if (rc != DDS_RETCODE_OK) {
      fprintf(stderr, "cyclone_peer: pub: not every matched reader acknowledged: %s\n", dds_strretcode(rc));
      ok = 0;
    }
  }
  double linger_end = peer_now() + o->linger;
  if (linger_end > deadline) linger_end = deadline;
  while (peer_now() < linger_end && !peer_stop_requested()) {
    peer_sleep(0.05);
    POLL_MATCHED();
  }
  POLL_MATCHED();
#undef POLL_MATCHED
  printf("SUMMARY written=%u matched=%u\n", written, max_matched);
  fflush(stdout);
  return ok ? 0 : 1;
}

#define MAX_TAKE 64

static int run_sub(const peer_opts *o, dds_entity_t pp, dds_entity_t tp, double deadline)
{
  dds_qos_t *q = make_qos(o, 0);
  dds_entity_t rd = dds_create_reader(pp, tp, q, NULL);
  dds_delete_qos(q);
  CHECK(rd);
  dds_entity_t ws = dds_create_waitset(pp);
  CHECK(ws);
  dds_entity_t cond = dds_create_readcondition(rd, DDS_ANY_STATE);
  CHECK(cond);
  CHECK(dds_waitset_attach(ws, cond, 0));

  peer_rx rx;
  peer_rx_init(&rx, o);
  void *samples[MAX_TAKE];
  dds_sample_info_t infos[MAX_TAKE];
  int ready = 0;
  dds_subscription_matched_status_t st;
  while (!peer_rx_done(&rx)) {
    double left = deadline - peer_now();
    if (left <= 0) break;
    if (o->ready_file && !ready && dds_get_subscription_matched_status(rd, &st) == DDS_RETCODE_OK)
      peer_sub_ready(o, st.current_count, &ready);
    CHECK(dds_waitset_wait(ws, NULL, 0, secs_to_dur(left < 0.1 ? left : 0.1)));
    for (;;) {
      samples[0] = NULL; /* NULL: Cyclone lends its own buffers */
      dds_return_t n = dds_take(rd, samples, infos, MAX_TAKE, MAX_TAKE);
      CHECK(n);
      if (n == 0) break;
      for (dds_return_t i = 0; i < n; i++) {
        if (!infos[i].valid_data) continue;
        if (o->keyed) {
          const hdds_interop_KeyedBlob *s = samples[i];
          peer_rx_record(&rx, s->seq, s->id, s->data._buffer, s->data._length);
        } else {
          const hdds_interop_Blob *s = samples[i];
          peer_rx_record(&rx, s->seq, 0, s->data._buffer, s->data._length);
        }
      }
      CHECK(dds_return_loan(rd, samples, n));
      if (peer_rx_done(&rx)) break;
    }
  }
  peer_rx_linger(&rx, deadline);
  if (dds_get_subscription_matched_status(rd, &st) == DDS_RETCODE_OK)
    fprintf(stderr, "cyclone_peer: sub: matched writers now=%u total=%u\n", st.current_count, st.total_count);
  return peer_rx_finish(&rx);
}

int main(int argc, char **argv)
{
  peer_opts o;
  peer_parse_args(&o, argc, argv, "Cyclone DDS 0.10 C", HDDS_INTEROP_CYCLONE_CONFIG);
  double deadline = peer_now() + o.timeout;
  peer_install_signal_handlers();

  size_t n = strlen(o.config) + 8;
  char *uri = malloc(n);
  snprintf(uri, n, "file://%s", o.config);
  setenv("CYCLONEDDS_URI", uri, 1);
  free(uri);

  dds_entity_t pp = dds_create_participant((dds_domainid_t)o.domain, NULL, NULL);
  CHECK(pp);
  const dds_topic_descriptor_t *desc = o.keyed ? &hdds_interop_KeyedBlob_desc : &hdds_interop_Blob_desc;
  dds_entity_t tp = dds_create_topic(pp, desc, o.topic, NULL, NULL);
  CHECK(tp);
  int rc = o.is_pub ? run_pub(&o, pp, tp, deadline) : run_sub(&o, pp, tp, deadline);
  dds_delete(DDS_CYCLONEDDS_HANDLE);
  return rc;
}
