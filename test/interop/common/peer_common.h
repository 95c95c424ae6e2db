/* Shared by the C (Cyclone DDS) and C++ (Fast DDS) interop peers: the command line, the
 * deterministic payload, and the receive-side bookkeeping (verification, order, duplicates,
 * summary, exit status). Vendor code lives in the peers; nothing here touches DDS.
 *
 * Payload rule (identical in test/interop/python/peer.py):
 *   data[i] = (seq * 131 + i * 7 + id) & 0xff,  length = --size,  id = 0 for keyless Blob.
 * Sample numbering: seq = 1..count; keyed: id = (seq - 1) % keys.
 */
#ifndef HDDS_INTEROP_PEER_COMMON_H
#define HDDS_INTEROP_PEER_COMMON_H

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct peer_opts {
  int is_pub;            /* pub | sub */
  const char *topic;     /* --topic (required) */
  int keyed;             /* --type keyed|blob */
  uint32_t size;         /* --size BYTES */
  uint32_t count;        /* --count N */
  int reliable;          /* --reliable (default) | --best-effort */
  int transient_local;   /* --transient-local | --volatile (default) */
  int keep_all;          /* --keep-all (default) | --depth N */
  int32_t depth;         /* --depth N (keep-last) */
  uint32_t keys;         /* --keys K (keyed only, default 1) */
  uint32_t domain;       /* --domain ID (default 100) */
  double timeout;        /* --timeout SECONDS (default 30): hard bound on the whole run */
  uint32_t wait_matched; /* --wait-matched N (pub, default 0) */
  double settle;         /* --settle SECONDS (pub: pause after the match, default 0.5 if waiting) */
  double rate;           /* --rate HZ (pub, 0 = as fast as the writer takes them) */
  double linger;         /* --linger SECONDS: pub stays alive after writing (default 0), sub after
                            its last sample so its last ACKNACKs go out (default 0.5); both are
                            cut at --timeout */
  double idle;           /* --idle SECONDS (sub, lenient mode: stop after this long without data) */
  uint32_t min_count;    /* --min-count N (sub, lenient mode: success threshold, default 1) */
  int quiet;             /* --quiet (sub: summary line only) */
  const char *config;    /* --config FILE (vendor config; default: the loopback file) */
  const char *ready_file; /* --ready-file PATH (sub: created once --wait-matched writers matched) */
  const char *start_file; /* --start-file PATH (pub: write only once PATH exists) */
} peer_opts;

/* Parses argv into *o with the defaults above. `vendor` names the program in messages,
 * `default_config` is printed in --help. Exits the process on --help (0) or bad usage (2). */
void peer_parse_args(peer_opts *o, int argc, char **argv, const char *vendor, const char *default_config);

/* Strict subscriber mode: reliable + keep-all on the reader; then exactly --count distinct samples
 * are required. Otherwise (best-effort or keep-last) the lenient rule applies (see --help). */
int peer_sub_strict(const peer_opts *o);

/* The id of sample `seq` (1-based) for these options. */
uint32_t peer_id_for_seq(const peer_opts *o, uint32_t seq);

/* Fills buf[0..len) with the payload of (seq, id). */
void peer_payload_fill(uint8_t *buf, uint32_t len, uint32_t seq, uint32_t id);

/* 1 when buf is exactly the payload of (seq, id) with length `expected_len`. */
int peer_payload_check(const uint8_t *buf, uint32_t len, uint32_t expected_len, uint32_t seq, uint32_t id);

/* SIGINT/SIGTERM set a flag instead of killing the process: a publisher stops lingering (or
 * writing) and a subscriber stops waiting; both still print their SUMMARY and exit by the rule. */
void peer_install_signal_handlers(void);
int peer_stop_requested(void);

/* --ready-file / --start-file: the test driver's handshake. A subscriber creates its ready file
 * once its reader has matched --wait-matched writers (default 1); the driver (or the publisher's
 * --start-file, the same path) waits for it, so the first sample is written only after the reader
 * knows the writer. */
/* Subscriber: creates o->ready_file (once) when `matched` >= the needed count; returns 1 when done. */
int peer_sub_ready(const peer_opts *o, uint32_t matched, int *already);
/* Publisher: waits until o->start_file exists (no-op without one); 0 if the deadline came first. */
int peer_wait_start_file(const peer_opts *o, double deadline);

/* Monotonic seconds. */
double peer_now(void);
void peer_sleep(double seconds);

typedef struct peer_rx {
  const peer_opts *o;
  uint32_t received;   /* deliveries with valid data, duplicates included */
  uint32_t verified;   /* deliveries whose content, length and id matched their seq */
  uint32_t distinct;   /* distinct seqs in 1..count */
  uint32_t duplicates; /* deliveries of a seq already delivered */
  int in_order;        /* 1 while every key's seqs arrived increasing */
  uint32_t first_seq, last_seq;
  double last_rx_time; /* peer_now() of the last delivery, 0 before the first */
  uint8_t *seen;       /* bitmap over seq 1..count */
  uint32_t *last_per_key;
} peer_rx;

void peer_rx_init(peer_rx *rx, const peer_opts *o);
/* Records one delivered sample and prints its RECV line unless quiet. */
void peer_rx_record(peer_rx *rx, uint32_t seq, uint32_t id, const uint8_t *data, uint32_t len);
/* 1 when the subscriber can stop: --count distinct samples, or (lenient) idle after data. */
int peer_rx_done(const peer_rx *rx);
/* Sleeps --linger seconds (at most until `deadline`) when the subscriber is done. */
void peer_rx_linger(const peer_rx *rx, double deadline);
/* Prints the SUMMARY line and returns the exit status (0 = success by the rule in --help). */
int peer_rx_finish(peer_rx *rx);

#ifdef __cplusplus
}
#endif

#endif
