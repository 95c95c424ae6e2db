/* Write options through the C ABI: related sample identity and source timestamp in the sample
 * info, directed writes to a remote and to a same-process reader, hdds_writer_has_matched_reader,
 * hdds_reader_has_matched_writer, hdds_writer_is_known_by_reader, hdds_reader_is_known_by_writer,
 * and argument errors. Two loopback-only participants of this process meet over UDP under their
 * own domain tag. */
#include <hdds/hdds.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static const char *kType = "pkg::srv::dds_::S_Response_";
static const uint8_t kPayload[] = {0x00, 0x01, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00};
static char tag[64];

static HddsParticipant *make(void) {
  HddsParticipantConfig cfg;
  HddsParticipant *p = NULL;
  CHECK(hdds_participant_config_default(&cfg) == HDDS_RET_OK);
  cfg.domain_id = 144;
  cfg.localhost_only = true;
  cfg.domain_tag = tag;
  CHECK(hdds_participant_create_with_config(&cfg, &p) == HDDS_RET_OK && p != NULL);
  return p;
}

static void copy_info(void *user, const uint8_t *data, size_t len, const HddsSampleInfo *info) {
  (void)data;
  (void)len;
  *(HddsSampleInfo *)user = *info;
}

/* Takes one sample within 2 s into *info, through hdds_reader_take_with as rmw_hdds's services
 * and clients do (the request id comes from this info); false if none came. */
static bool take(HddsReader *r, HddsSampleInfo *info) {
  if (hdds_reader_wait(r, 2000000000) != HDDS_RET_OK) return false;
  return hdds_reader_take_with(r, copy_info, info) == HDDS_RET_OK;
}

static void write_options(void) {
  HddsParticipant *a = make(), *b = make();
  HddsWriter *w = NULL;
  HddsReader *remote = NULL, *local = NULL;
  CHECK(hdds_writer_create(a, "rr/c_optsReply", kType, NULL, &w) == HDDS_RET_OK);
  CHECK(hdds_reader_create(b, "rr/c_optsReply", kType, NULL, &remote) == HDDS_RET_OK);
  CHECK(hdds_reader_create(a, "rr/c_optsReply", kType, NULL, &local) == HDDS_RET_OK);
  uint8_t remote_guid[16], local_guid[16], stranger[16];
  CHECK(hdds_reader_guid(remote, remote_guid) == HDDS_RET_OK);
  CHECK(hdds_reader_guid(local, local_guid) == HDDS_RET_OK);
  memset(stranger, 9, sizeof stranger);

  bool matched = false;
  for (int i = 0; i < 1000 && !matched; i++) { /* 5 s */
    CHECK(hdds_writer_has_matched_reader(w, remote_guid, &matched) == HDDS_RET_OK);
    if (!matched) usleep(5000);
  }
  CHECK(matched);
  CHECK(hdds_writer_has_matched_reader(w, local_guid, &matched) == HDDS_RET_OK && matched);
  CHECK(hdds_writer_has_matched_reader(w, stranger, &matched) == HDDS_RET_OK && !matched);
  /* The readers' side of the same matches (remote by SEDP, which may come later, and local). */
  uint8_t writer_guid[16];
  CHECK(hdds_writer_guid(w, writer_guid) == HDDS_RET_OK);
  matched = false;
  for (int i = 0; i < 1000 && !matched; i++) { /* 5 s */
    CHECK(hdds_reader_has_matched_writer(remote, writer_guid, &matched) == HDDS_RET_OK);
    if (!matched) usleep(5000);
  }
  CHECK(matched);
  CHECK(hdds_reader_has_matched_writer(local, writer_guid, &matched) == HDDS_RET_OK && matched);
  CHECK(hdds_reader_has_matched_writer(local, stranger, &matched) == HDDS_RET_OK && !matched);
  CHECK(hdds_reader_has_matched_writer(local, NULL, &matched) == HDDS_RET_BAD_ARGUMENT);
  /* Known by the reader: the local one at once, the remote one after its ACKNACK. */
  bool known = false;
  CHECK(hdds_writer_is_known_by_reader(w, local_guid, &known) == HDDS_RET_OK && known);
  known = false;
  for (int i = 0; i < 1000 && !known; i++) { /* 5 s */
    CHECK(hdds_writer_is_known_by_reader(w, remote_guid, &known) == HDDS_RET_OK);
    if (!known) usleep(5000);
  }
  CHECK(known);
  CHECK(hdds_writer_is_known_by_reader(w, stranger, &known) == HDDS_RET_OK && !known);
  CHECK(hdds_writer_is_known_by_reader(w, NULL, &known) == HDDS_RET_BAD_ARGUMENT);
  /* Known by the writer: the local reader at once, the remote one once the writer has sent it
   * something (its HEARTBEAT on matching, or the answer to the reader's pre-emptive ACKNACK). */
  CHECK(hdds_reader_is_known_by_writer(local, writer_guid, &known) == HDDS_RET_OK && known);
  known = false;
  for (int i = 0; i < 1000 && !known; i++) { /* 5 s */
    CHECK(hdds_reader_is_known_by_writer(remote, writer_guid, &known) == HDDS_RET_OK);
    if (!known) usleep(5000);
  }
  CHECK(known);
  CHECK(hdds_reader_is_known_by_writer(remote, stranger, &known) == HDDS_RET_OK && !known);
  CHECK(hdds_reader_is_known_by_writer(remote, NULL, &known) == HDDS_RET_BAD_ARGUMENT);
  CHECK(hdds_reader_is_known_by_writer(NULL, writer_guid, &known) == HDDS_RET_BAD_ARGUMENT);

  /* Identity and timestamp reach both readers. */
  HddsWriteOptions opt;
  memset(&opt, 0, sizeof opt);
  opt.has_related_sample_identity = true;
  memset(opt.related_writer_guid, 0x42, 16);
  opt.related_sequence_number = 99;
  opt.source_timestamp_ns = 1700000000123456789LL;
  int64_t sn = 0;
  CHECK(hdds_writer_write_ex(w, kPayload, sizeof kPayload, &opt, &sn) == HDDS_RET_OK && sn == 1);
  HddsReader *both[2] = {remote, local};
  for (int i = 0; i < 2; i++) {
    HddsSampleInfo info;
    memset(&info, 0, sizeof info);
    CHECK(take(both[i], &info));
    CHECK(info.has_related_sample_identity && info.related_sequence_number == 99);
    CHECK(info.related_writer_guid[0] == 0x42 && info.related_writer_guid[15] == 0x42);
    CHECK(info.source_timestamp_ns == 1700000000123456789LL && info.sequence_number == 1);
    CHECK(memcmp(info.writer_guid, writer_guid, 16) == 0);
  }

  /* Directed: each reader gets only its own, then a plain write reaches both. */
  memset(&opt, 0, sizeof opt);
  opt.directed = true;
  memcpy(opt.directed_reader_guid, remote_guid, 16);
  CHECK(hdds_writer_write_ex(w, kPayload, sizeof kPayload, &opt, &sn) == HDDS_RET_OK && sn == 2);
  memcpy(opt.directed_reader_guid, local_guid, 16);
  CHECK(hdds_writer_write_ex(w, kPayload, sizeof kPayload, &opt, &sn) == HDDS_RET_OK && sn == 3);
  CHECK(hdds_writer_write_ex(w, kPayload, sizeof kPayload, NULL, &sn) == HDDS_RET_OK && sn == 4);
  HddsSampleInfo info;
  CHECK(take(remote, &info) && info.sequence_number == 2 && !info.has_related_sample_identity);
  CHECK(take(remote, &info) && info.sequence_number == 4);
  CHECK(take(local, &info) && info.sequence_number == 3);
  CHECK(take(local, &info) && info.sequence_number == 4);
  CHECK(hdds_reader_wait(remote, 100000000) == HDDS_RET_TIMEOUT);
  CHECK(hdds_reader_wait(local, 0) == HDDS_RET_TIMEOUT);

  /* Errors: an unmatched target, a negative timestamp; neither takes a sequence number. */
  memcpy(opt.directed_reader_guid, stranger, 16);
  CHECK(hdds_writer_write_ex(w, kPayload, sizeof kPayload, &opt, &sn) == HDDS_RET_BAD_ARGUMENT);
  CHECK(strstr(hdds_last_error(), "not matched") != NULL);
  memset(&opt, 0, sizeof opt);
  opt.source_timestamp_ns = -1;
  CHECK(hdds_writer_write_ex(w, kPayload, sizeof kPayload, &opt, &sn) == HDDS_RET_BAD_ARGUMENT);
  CHECK(hdds_writer_has_matched_reader(w, NULL, &matched) == HDDS_RET_BAD_ARGUMENT);
  CHECK(hdds_writer_write_ex(w, kPayload, sizeof kPayload, NULL, &sn) == HDDS_RET_OK && sn == 5);

  hdds_reader_destroy(remote);
  hdds_reader_destroy(local);
  hdds_writer_destroy(w);
  hdds_participant_destroy(b);
  hdds_participant_destroy(a);
}

int main(void) {
  snprintf(tag, sizeof tag, "hdds-c-abi-opts-%ld-%ld", (long)getpid(), (long)time(NULL));
  RUN(write_options);
  FINISH();
}
