/* A sample goes from a writer to a reader in the same process, through the C ABI only. */
#include <hdds/hdds.h>
#include <string.h>

#include "check.h"

static const uint8_t kPayload[] = {0x00, 0x01, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00,
                                   'h',  'e',  'l',  'l',  'o',  0x00};

/* A participant on domain 0 with a writer and a reader of `topic` (default QoS, String_). */
static void open_pair(const char *topic, HddsParticipant **p, HddsWriter **w, HddsReader **r) {
  CHECK(hdds_participant_create(0, p) == HDDS_RET_OK && *p != NULL);
  CHECK(hdds_writer_create(*p, topic, "std_msgs::msg::dds_::String_", NULL, w) == HDDS_RET_OK);
  CHECK(hdds_reader_create(*p, topic, "std_msgs::msg::dds_::String_", NULL, r) == HDDS_RET_OK);
}

static void round_trip_with_sample_info(void) {
  HddsParticipant *p = NULL;
  HddsWriter *w = NULL;
  HddsReader *r = NULL;
  HddsSample *s = NULL;
  open_pair("rt/c_round_trip", &p, &w, &r);

  size_t matched = 0;
  CHECK(hdds_writer_matched_count(w, &matched) == HDDS_RET_OK && matched == 1);

  int64_t sn = 0;
  CHECK(hdds_writer_write(w, kPayload, sizeof kPayload, &sn) == HDDS_RET_OK);
  CHECK(sn == 1);
  CHECK(hdds_reader_wait(r, 1000000000) == HDDS_RET_OK);
  CHECK(hdds_reader_take(r, &s) == HDDS_RET_OK && s != NULL);

  size_t len = 0;
  const uint8_t *data = hdds_sample_data(s, &len);
  CHECK(data != NULL && len == sizeof kPayload && memcmp(data, kPayload, len) == 0);

  HddsSampleInfo info;
  uint8_t writer_guid[16];
  CHECK(hdds_sample_info(s, &info) == HDDS_RET_OK);
  CHECK(hdds_writer_guid(w, writer_guid) == HDDS_RET_OK);
  CHECK(memcmp(info.writer_guid, writer_guid, 16) == 0);
  CHECK(info.sequence_number == 1);
  CHECK(info.source_timestamp_ns > 0 && info.reception_timestamp_ns >= info.source_timestamp_ns);
  hdds_sample_free(s);

  /* The same participant prefix in every entity's GUID; vendor id 0x01F0 first. */
  uint8_t participant_guid[16], reader_guid[16];
  CHECK(hdds_participant_guid(p, participant_guid) == HDDS_RET_OK);
  CHECK(hdds_reader_guid(r, reader_guid) == HDDS_RET_OK);
  CHECK(memcmp(participant_guid, writer_guid, 12) == 0 && memcmp(participant_guid, reader_guid, 12) == 0);
  CHECK(participant_guid[0] == 0x01 && participant_guid[1] == 0xF0);

  /* Nothing left: take reports NO_DATA and a short wait times out. */
  s = (HddsSample *)1;
  CHECK(hdds_reader_take(r, &s) == HDDS_RET_NO_DATA && s == NULL);
  CHECK(hdds_reader_wait(r, 1000000) == HDDS_RET_TIMEOUT);

  hdds_reader_destroy(r);
  hdds_writer_destroy(w);
  hdds_participant_destroy(p);
}

static void qos_history_and_late_joiner(void) {
  HddsParticipant *p = NULL;
  HddsWriter *w = NULL;
  HddsReader *r = NULL;
  HddsQos qos;
  CHECK(hdds_qos_default(&qos) == HDDS_RET_OK);
  CHECK(qos.reliability == HDDS_RELIABILITY_RELIABLE && qos.history == HDDS_HISTORY_KEEP_LAST && qos.depth == 10);
  qos.durability = HDDS_DURABILITY_TRANSIENT_LOCAL;
  qos.depth = 2;
  CHECK(hdds_participant_create(3, &p) == HDDS_RET_OK);
  CHECK(hdds_writer_create(p, "rt/c_late_joiner", "T", &qos, &w) == HDDS_RET_OK);
  for (uint8_t i = 0; i < 5; i++) {
    uint8_t sample[5] = {0, 1, 0, 0, i};
    CHECK(hdds_writer_write(w, sample, sizeof sample, NULL) == HDDS_RET_OK);
  }
  CHECK(hdds_reader_create(p, "rt/c_late_joiner", "T", &qos, &r) == HDDS_RET_OK);
  for (uint8_t expected = 3; expected < 5; expected++) {
    HddsSample *s = NULL;
    size_t len = 0;
    CHECK(hdds_reader_take(r, &s) == HDDS_RET_OK);
    const uint8_t *data = hdds_sample_data(s, &len);
    CHECK(data != NULL && len == 5 && data[4] == expected);
    hdds_sample_free(s);
  }
  hdds_reader_destroy(r);
  hdds_writer_destroy(w);
  hdds_participant_destroy(p);
}

/* hdds_reader_take_with: the payload and info are read in place, during the call. */
typedef struct {
  int calls;
  uint8_t copy[sizeof kPayload];
  size_t len;
  int64_t sequence_number;
} ReadInPlace;

static void read_in_place(void *user, const uint8_t *data, size_t len, const HddsSampleInfo *info) {
  ReadInPlace *r = (ReadInPlace *)user;
  r->calls++;
  r->len = len;
  if (len <= sizeof r->copy) memcpy(r->copy, data, len);
  r->sequence_number = info->sequence_number;
}

static void take_with_reads_in_place(void) {
  HddsParticipant *p = NULL;
  HddsWriter *w = NULL;
  HddsReader *r = NULL;
  open_pair("rt/c_take_with", &p, &w, &r);

  ReadInPlace got = {0};
  CHECK(hdds_reader_take_with(r, read_in_place, &got) == HDDS_RET_NO_DATA && got.calls == 0);
  CHECK(hdds_writer_write(w, kPayload, sizeof kPayload, NULL) == HDDS_RET_OK);
  CHECK(hdds_writer_write(w, kPayload, sizeof kPayload, NULL) == HDDS_RET_OK);
  CHECK(hdds_reader_take_with(r, read_in_place, &got) == HDDS_RET_OK);
  CHECK(got.calls == 1 && got.len == sizeof kPayload && memcmp(got.copy, kPayload, sizeof kPayload) == 0);
  CHECK(got.sequence_number == 1);
  CHECK(hdds_reader_take_with(r, read_in_place, &got) == HDDS_RET_OK && got.calls == 2 && got.sequence_number == 2);
  CHECK(hdds_reader_take_with(r, read_in_place, &got) == HDDS_RET_NO_DATA && got.calls == 2);
  CHECK(hdds_reader_take_with(r, NULL, &got) == HDDS_RET_BAD_ARGUMENT);
  CHECK(hdds_reader_take_with(NULL, read_in_place, &got) == HDDS_RET_BAD_ARGUMENT);

  hdds_reader_destroy(r);
  hdds_writer_destroy(w);
  hdds_participant_destroy(p);
}

int main(void) {
  RUN(round_trip_with_sample_info);
  RUN(qos_history_and_late_joiner);
  RUN(take_with_reads_in_place);
  FINISH();
}
