/* Loaned samples through the C ABI: a writer lends a buffer in its shared-memory ring (two
 * loopback-only participants of this process that HDDS_TRANSPORT=shm,udp makes meet as separate
 * processes would, under their own domain tag), the caller fills and publishes it, the reader gets
 * exactly those bytes; several loans out at once and writes meanwhile, each loan numbered when it
 * is published; a returned loan publishes nothing; the reader takes a
 * loan of it read in place in the writer's ring, which stays readable while the writer goes on and
 * after the reader, writer and participants are destroyed; argument errors, lengths no sample can
 * have among them. */
#include <hdds/hdds.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static const char *kType = "pkg::msg::dds_::Blob_";
static char tag[64];

static HddsParticipant *make(void) {
  HddsParticipantConfig cfg;
  HddsParticipant *p = NULL;
  CHECK(hdds_participant_config_default(&cfg) == HDDS_RET_OK);
  cfg.domain_id = 148;
  cfg.localhost_only = true;
  cfg.domain_tag = tag;
  CHECK(hdds_participant_create_with_config(&cfg, &p) == HDDS_RET_OK && p != NULL);
  return p;
}

/* Takes one sample within 2 s and compares its bytes; returns its sequence number (0: none). */
static int64_t take_expect(HddsReader *r, const uint8_t *want, size_t len) {
  HddsSample *s = NULL;
  if (hdds_reader_wait(r, 2000000000) != HDDS_RET_OK) return 0;
  if (hdds_reader_take(r, &s) != HDDS_RET_OK) return 0;
  size_t got_len = 0;
  const uint8_t *got = hdds_sample_data(s, &got_len);
  CHECK(got_len == len && memcmp(got, want, len) == 0);
  HddsSampleInfo info;
  CHECK(hdds_sample_info(s, &info) == HDDS_RET_OK);
  hdds_sample_free(s);
  return info.sequence_number;
}

static void loan_publish_and_return(void) {
  CHECK(setenv("HDDS_TRANSPORT", "shm,udp", 1) == 0);
  HddsParticipant *a = make(), *b = make();
  CHECK(unsetenv("HDDS_TRANSPORT") == 0);
  HddsWriter *w = NULL;
  HddsReader *r = NULL;
  CHECK(hdds_writer_create(a, "c_loans", kType, NULL, &w) == HDDS_RET_OK);
  /* No same-host reader yet: a loan would be ordinary memory, so the shared-memory one is none. */
  HddsLoan *none = (HddsLoan *)&tag;
  CHECK(hdds_writer_loan_in_shared_memory(w, 64, &none) == HDDS_RET_NO_DATA && none == NULL);
  CHECK(hdds_reader_create(b, "c_loans", kType, NULL, &r) == HDDS_RET_OK);
  size_t matched = 0;
  for (int i = 0; i < 1000 && matched == 0; i++) { /* 5 s */
    CHECK(hdds_writer_matched_count(w, &matched) == HDDS_RET_OK);
    if (matched == 0) usleep(5000);
  }
  CHECK(matched == 1);
  /* A length no sample can have: refused, nothing allocated (not an abort on the allocation). */
  HddsLoan *huge = NULL;
  CHECK(hdds_writer_loan(w, SIZE_MAX, &huge) == HDDS_RET_BAD_ARGUMENT && huge == NULL);
  CHECK(hdds_writer_loan(w, (size_t)1 << 50, &huge) == HDDS_RET_BAD_ARGUMENT && huge == NULL);
  CHECK(hdds_writer_loan_in_shared_memory(w, SIZE_MAX, &huge) == HDDS_RET_BAD_ARGUMENT && huge == NULL);

  uint8_t want[4096];
  for (size_t i = 0; i < sizeof want; i++) want[i] = (uint8_t)(i * 7);
  want[0] = 0x00, want[1] = 0x01, want[2] = 0x00, want[3] = 0x00;
  HddsLoan *loan = NULL;
  CHECK(hdds_writer_loan(w, sizeof want, &loan) == HDDS_RET_OK && loan != NULL);
  bool shm = false;
  CHECK(hdds_loan_in_shared_memory(loan, &shm) == HDDS_RET_OK && shm);
  uint8_t *data = NULL;
  size_t len = 0;
  CHECK(hdds_loan_data(loan, &data, &len) == HDDS_RET_OK && data != NULL && len == sizeof want);
  memcpy(data, want, len);
  /* A write and a second loan while the first is out: each sample is numbered when published. */
  CHECK(hdds_writer_write(w, want, 8, NULL) == HDDS_RET_OK);
  HddsLoan *second = NULL;
  CHECK(hdds_writer_loan(w, 16, &second) == HDDS_RET_OK && second != NULL);
  uint8_t *second_data = NULL;
  CHECK(hdds_loan_data(second, &second_data, &len) == HDDS_RET_OK && len == 16);
  memcpy(second_data, want, 16);
  int64_t sn = 0;
  CHECK(hdds_loan_publish(second, NULL, &sn) == HDDS_RET_OK && sn == 2);
  CHECK(hdds_loan_publish(loan, NULL, &sn) == HDDS_RET_OK && sn == 3);
  CHECK(take_expect(r, want, 8) == 1);
  CHECK(take_expect(r, want, 16) == 2);
  CHECK(take_expect(r, want, sizeof want) == 3);

  /* Returned unpublished: nothing goes out, and the writer goes on. */
  CHECK(hdds_writer_loan(w, 100, &loan) == HDDS_RET_OK);
  hdds_loan_return(loan);
  CHECK(hdds_writer_loan_in_shared_memory(w, 100, &loan) == HDDS_RET_OK && loan != NULL);
  CHECK(hdds_loan_in_shared_memory(loan, &shm) == HDDS_RET_OK && shm);
  hdds_loan_return(loan);
  CHECK(hdds_writer_write(w, want, 8, NULL) == HDDS_RET_OK);
  CHECK(take_expect(r, want, 8) == 4);

  /* Reader loans: from the first hdds_reader_take_loan on, samples stay in the writer's ring. */
  HddsReaderLoan *rl = NULL;
  CHECK(hdds_reader_take_loan(r, &rl) == HDDS_RET_NO_DATA && rl == NULL);
  CHECK(hdds_writer_write(w, want, sizeof want, NULL) == HDDS_RET_OK);
  CHECK(hdds_reader_wait(r, 2000000000) == HDDS_RET_OK);
  CHECK(hdds_reader_take_loan(r, &rl) == HDDS_RET_OK && rl != NULL);
  CHECK(hdds_reader_loan_in_shared_memory(rl, &shm) == HDDS_RET_OK && shm);
  size_t rl_len = 0;
  const uint8_t *rl_data = hdds_reader_loan_data(rl, &rl_len);
  CHECK(rl_data != NULL && rl_len == sizeof want && memcmp(rl_data, want, rl_len) == 0);
  HddsSampleInfo info;
  CHECK(hdds_reader_loan_info(rl, &info) == HDDS_RET_OK && info.sequence_number == 5);
  /* The writer goes on (KEEP_LAST): the loaned bytes are never rewritten. */
  uint8_t other[4096];
  memset(other, 0xee, sizeof other);
  other[0] = 0x00, other[1] = 0x01, other[2] = 0x00, other[3] = 0x00;
  for (int i = 0; i < 200; i++) CHECK(hdds_writer_write(w, other, sizeof other, NULL) == HDDS_RET_OK);
  CHECK(memcmp(rl_data, want, rl_len) == 0);

  hdds_reader_destroy(r);
  hdds_writer_destroy(w);
  hdds_participant_destroy(b);
  hdds_participant_destroy(a);
  /* The loan outlives them all, and returning it is safe. */
  CHECK(memcmp(rl_data, want, rl_len) == 0);
  hdds_reader_return_loan(rl);
}

static void loan_errors(void) {
  HddsLoan *loan = NULL;
  uint8_t *data = NULL;
  size_t len = 0;
  bool shm = false;
  CHECK(hdds_writer_loan(NULL, 8, &loan) == HDDS_RET_BAD_ARGUMENT && loan == NULL);
  CHECK(hdds_writer_loan_in_shared_memory(NULL, 8, &loan) == HDDS_RET_BAD_ARGUMENT && loan == NULL);
  CHECK(hdds_loan_data(NULL, &data, &len) == HDDS_RET_BAD_ARGUMENT);
  CHECK(hdds_loan_in_shared_memory(NULL, &shm) == HDDS_RET_BAD_ARGUMENT);
  CHECK(hdds_loan_publish(NULL, NULL, NULL) == HDDS_RET_BAD_ARGUMENT);
  hdds_loan_return(NULL);
  HddsReaderLoan *rl = NULL;
  HddsSampleInfo info;
  CHECK(hdds_reader_take_loan(NULL, &rl) == HDDS_RET_BAD_ARGUMENT && rl == NULL);
  CHECK(hdds_reader_loan_data(NULL, &len) == NULL);
  CHECK(hdds_reader_loan_info(NULL, &info) == HDDS_RET_BAD_ARGUMENT);
  CHECK(hdds_reader_loan_in_shared_memory(NULL, &shm) == HDDS_RET_BAD_ARGUMENT);
  hdds_reader_return_loan(NULL);
}

int main(void) {
  snprintf(tag, sizeof tag, "hdds-c-abi-%ld-%ld", (long)getpid(), (long)time(NULL));
  RUN(loan_publish_and_return);
  RUN(loan_errors);
  FINISH();
}
