/* See peer_common.h. */
#define _POSIX_C_SOURCE 200809L
#include "peer_common.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *usage_text =
  "usage: %s pub|sub --topic NAME --type blob|keyed --size BYTES --count N [options]\n"
  "\n"
  "Interop peer for hdds (%s). Types from test/interop/idl/interop.idl:\n"
  "  blob  = hdds::interop::Blob      { unsigned long seq; sequence<octet> data; }\n"
  "  keyed = hdds::interop::KeyedBlob { @key unsigned long id; unsigned long seq; sequence<octet> data; }\n"
  "Samples are seq = 1..N; keyed: id = (seq-1) %% K; data[i] = (seq*131 + i*7 + id) & 0xff,\n"
  "length = --size, so a receiver verifies every byte without the sender.\n"
  "\n"
  "QoS (same flags for pub and sub):\n"
  "  --reliable | --best-effort          default --reliable\n"
  "  --volatile | --transient-local      default --volatile\n"
  "  --keep-all | --depth N              default --keep-all (--depth N = KEEP_LAST N)\n"
  "  --keys K                            keyed: cycle id over 0..K-1 (default 1)\n"
  "Run:\n"
  "  --domain ID          DDS domain (default 100; keep >= 100 to stay off real ROS graphs)\n"
  "  --timeout SECONDS    hard bound on the whole run, linger included (default 30)\n"
  "  --config FILE        vendor config file instead of the loopback-only default:\n"
  "                       %s\n"
  "Publisher:\n"
  "  --wait-matched N     wait (bounded by --timeout) until N readers matched before writing\n"
  "  --start-file PATH    then wait (bounded by --timeout) until PATH exists: a subscriber's\n"
  "                       --ready-file, so that sample 1 goes out after the reader knows the writer\n"
  "  --settle SECONDS     pause after that match so the readers also matched the writer\n"
  "                       (default 0.5 when --wait-matched > 0, else 0)\n"
  "  --rate HZ            write at most HZ samples/s (default: as fast as the writer accepts)\n"
  "  --linger SECONDS     keep the writer alive after writing (transient-local late joiners;\n"
  "                       default 0); SIGINT/SIGTERM ends the linger early\n"
  "  prints 'WRITTEN written=<n>' when done writing, then 'SUMMARY written=<n> matched=<n>'\n"
  "  (matched = most readers matched at any time); exit 0 when all N were written, the\n"
  "  --wait-matched count was reached and, if reliable, every matched reader acknowledged.\n"
  "Subscriber:\n"
  "  prints 'RECV seq=<n> id=<k> len=<l> ok=<0|1>' per sample (ok = content verified), or with\n"
  "  --quiet only 'SUMMARY received=<n> verified=<n> in_order=<0|1> duplicates=<n> first_seq=<n>\n"
  "  last_seq=<n>' (the summary is printed in both modes).\n"
  "  --ready-file PATH    create PATH once --wait-matched writers (default 1) matched the reader\n"
  "  --linger SECONDS     keep the reader alive this long after the last sample so that its\n"
  "                       final acknowledgements reach the writer (default 0.5)\n"
  "  Success rule (exit 0):\n"
  "    strict (reader --reliable and --keep-all): exactly N distinct seqs 1..N received before\n"
  "      --timeout, every one verified, in order per key, no duplicates.\n"
  "    lenient (reader --best-effort or --depth N): at least --min-count (default 1) distinct\n"
  "      samples, every one verified, in order per key, no duplicates; the reader stops at N\n"
  "      distinct samples, after --idle SECONDS (default 2) without data once one arrived, or at\n"
  "      --timeout.\n"
  "  SIGINT/SIGTERM stop the subscriber early (summary printed, success rule applied).\n"
  "  exit 1 otherwise; exit 2 on bad usage or a DDS error.\n";

static void usage(FILE *f, const char *prog, const char *vendor, const char *cfg)
{
  fprintf(f, usage_text, prog, vendor, cfg ? cfg : "(none)");
}

static void die_usage(const char *prog, const char *msg, const char *arg)
{
  fprintf(stderr, "%s: %s%s%s (try --help)\n", prog, msg, arg ? " " : "", arg ? arg : "");
  exit(2);
}

static double parse_double(const char *prog, const char *opt, const char *v)
{
  char *end = NULL;
  errno = 0;
  double d = strtod(v, &end);
  if (errno != 0 || end == v || *end != '\0' || d < 0)
    die_usage(prog, "bad value for", opt);
  return d;
}

static uint32_t parse_u32(const char *prog, const char *opt, const char *v)
{
  char *end = NULL;
  errno = 0;
  unsigned long long u = strtoull(v, &end, 10);
  if (errno != 0 || end == v || *end != '\0' || u > 0xffffffffull || v[0] == '-')
    die_usage(prog, "bad value for", opt);
  return (uint32_t)u;
}

void peer_parse_args(peer_opts *o, int argc, char **argv, const char *vendor, const char *default_config)
{
  const char *prog = argc > 0 ? argv[0] : "peer";
  int have_settle = 0, have_linger = 0, have_type = 0, have_size = 0, have_count = 0, have_mode = 0;
  memset(o, 0, sizeof(*o));
  o->reliable = 1;
  o->keep_all = 1;
  o->depth = 1;
  o->keys = 1;
  o->domain = 100;
  o->timeout = 30.0;
  o->idle = 2.0;
  o->min_count = 1;
  o->config = default_config;

  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
#define NEXT() ((i + 1 < argc) ? argv[++i] : (die_usage(prog, "missing value for", a), (char *)0))
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout, prog, vendor, default_config); exit(0); }
    else if (!strcmp(a, "pub") || !strcmp(a, "sub")) {
      if (have_mode) die_usage(prog, "pub or sub given twice:", a);
      o->is_pub = !strcmp(a, "pub"); have_mode = 1;
    }
    else if (!strcmp(a, "--topic")) o->topic = NEXT();
    else if (!strcmp(a, "--type")) {
      const char *t = NEXT();
      if (!strcmp(t, "blob")) o->keyed = 0;
      else if (!strcmp(t, "keyed")) o->keyed = 1;
      else die_usage(prog, "--type must be blob or keyed, not", t);
      have_type = 1;
    }
    else if (!strcmp(a, "--size")) { o->size = parse_u32(prog, a, NEXT()); have_size = 1; }
    else if (!strcmp(a, "--count")) { o->count = parse_u32(prog, a, NEXT()); have_count = 1; }
    else if (!strcmp(a, "--reliable")) o->reliable = 1;
    else if (!strcmp(a, "--best-effort")) o->reliable = 0;
    else if (!strcmp(a, "--transient-local")) o->transient_local = 1;
    else if (!strcmp(a, "--volatile")) o->transient_local = 0;
    else if (!strcmp(a, "--keep-all")) o->keep_all = 1;
    else if (!strcmp(a, "--depth")) {
      uint32_t d = parse_u32(prog, a, NEXT());
      if (d < 1 || d > 0x7fffffff) die_usage(prog, "--depth must be >= 1", NULL);
      o->depth = (int32_t)d; o->keep_all = 0;
    }
    else if (!strcmp(a, "--keys")) { o->keys = parse_u32(prog, a, NEXT()); if (o->keys < 1) die_usage(prog, "--keys must be >= 1", NULL); }
    else if (!strcmp(a, "--domain")) { o->domain = parse_u32(prog, a, NEXT()); if (o->domain > 232) die_usage(prog, "--domain must be <= 232", NULL); }
    else if (!strcmp(a, "--timeout")) o->timeout = parse_double(prog, a, NEXT());
    else if (!strcmp(a, "--wait-matched")) o->wait_matched = parse_u32(prog, a, NEXT());
    else if (!strcmp(a, "--settle")) { o->settle = parse_double(prog, a, NEXT()); have_settle = 1; }
    else if (!strcmp(a, "--rate")) o->rate = parse_double(prog, a, NEXT());
    else if (!strcmp(a, "--linger")) { o->linger = parse_double(prog, a, NEXT()); have_linger = 1; }
    else if (!strcmp(a, "--idle")) o->idle = parse_double(prog, a, NEXT());
    else if (!strcmp(a, "--min-count")) o->min_count = parse_u32(prog, a, NEXT());
    else if (!strcmp(a, "--quiet")) o->quiet = 1;
    else if (!strcmp(a, "--config")) o->config = NEXT();
    else if (!strcmp(a, "--ready-file")) o->ready_file = NEXT();
    else if (!strcmp(a, "--start-file")) o->start_file = NEXT();
    else die_usage(prog, "unknown argument", a);
#undef NEXT
  }
  if (!have_mode) die_usage(prog, "first say pub or sub", NULL);
  if (!o->topic || !*o->topic) die_usage(prog, "--topic is required", NULL);
  if (!have_type) die_usage(prog, "--type is required", NULL);
  if (!have_size) die_usage(prog, "--size is required", NULL);
  if (!have_count || o->count < 1) die_usage(prog, "--count N (N >= 1) is required", NULL);
  if (!o->keyed && o->keys != 1) die_usage(prog, "--keys needs --type keyed", NULL);
  if (!have_settle) o->settle = o->wait_matched > 0 ? 0.5 : 0.0;
  if (!have_linger) o->linger = o->is_pub ? 0.0 : 0.5;
}

int peer_sub_strict(const peer_opts *o) { return o->reliable && o->keep_all; }

uint32_t peer_id_for_seq(const peer_opts *o, uint32_t seq)
{
  return o->keyed ? (seq - 1u) % o->keys : 0u;
}

void peer_payload_fill(uint8_t *buf, uint32_t len, uint32_t seq, uint32_t id)
{
  /* (seq*131 + i*7 + id) mod 256 repeats every 256 bytes: build one period, then copy it. */
  uint8_t period[256];
  uint32_t base = seq * 131u + id;
  for (uint32_t i = 0; i < 256; i++) period[i] = (uint8_t)((base + i * 7u) & 0xffu);
  for (uint32_t off = 0; off < len; off += 256) {
    uint32_t n = len - off < 256 ? len - off : 256;
    memcpy(buf + off, period, n);
  }
}

int peer_payload_check(const uint8_t *buf, uint32_t len, uint32_t expected_len, uint32_t seq, uint32_t id)
{
  if (len != expected_len) return 0;
  uint8_t period[256];
  uint32_t base = seq * 131u + id;
  for (uint32_t i = 0; i < 256; i++) period[i] = (uint8_t)((base + i * 7u) & 0xffu);
  for (uint32_t off = 0; off < len; off += 256) {
    uint32_t n = len - off < 256 ? len - off : 256;
    if (memcmp(buf + off, period, n) != 0) return 0;
  }
  return 1;
}

static volatile sig_atomic_t stop_requested = 0;

int peer_sub_ready(const peer_opts *o, uint32_t matched, int *already)
{
  uint32_t need = o->wait_matched > 0 ? o->wait_matched : 1;
  if (*already || !o->ready_file || matched < need) return *already;
  FILE *f = fopen(o->ready_file, "w");
  if (!f) {
    fprintf(stderr, "cannot create --ready-file %s: %s\n", o->ready_file, strerror(errno));
    exit(2);
  }
  fprintf(f, "matched=%u\n", matched);
  fclose(f);
  *already = 1;
  return 1;
}

int peer_wait_start_file(const peer_opts *o, double deadline)
{
  if (!o->start_file) return 1;
  FILE *f;
  while ((f = fopen(o->start_file, "r")) == NULL) {
    if (peer_now() >= deadline || stop_requested) return 0;
    peer_sleep(0.01);
  }
  fclose(f);
  return 1;
}

static void on_stop_signal(int sig)
{
  (void)sig;
  stop_requested = 1;
}

void peer_install_signal_handlers(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

int peer_stop_requested(void) { return stop_requested != 0; }

double peer_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void peer_sleep(double seconds)
{
  if (seconds <= 0) return;
  struct timespec ts;
  ts.tv_sec = (time_t)seconds;
  ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

void peer_rx_init(peer_rx *rx, const peer_opts *o)
{
  memset(rx, 0, sizeof(*rx));
  rx->o = o;
  rx->in_order = 1;
  rx->seen = calloc((size_t)o->count / 8 + 2, 1);
  rx->last_per_key = calloc(o->keys, sizeof(uint32_t));
  if (!rx->seen || !rx->last_per_key) { fprintf(stderr, "out of memory\n"); exit(2); }
}

void peer_rx_record(peer_rx *rx, uint32_t seq, uint32_t id, const uint8_t *data, uint32_t len)
{
  const peer_opts *o = rx->o;
  int in_range = seq >= 1 && seq <= o->count;
  int ok = in_range && id == peer_id_for_seq(o, seq) && peer_payload_check(data, len, o->size, seq, id);
  rx->received++;
  if (ok) rx->verified++;
  if (rx->received == 1) rx->first_seq = seq;
  rx->last_seq = seq;
  rx->last_rx_time = peer_now();
  int dup = 0;
  if (in_range) {
    uint8_t bit = (uint8_t)(1u << (seq & 7u));
    if (rx->seen[seq >> 3] & bit) { rx->duplicates++; dup = 1; }
    else { rx->seen[seq >> 3] |= bit; rx->distinct++; }
  }
  if (!dup && id < o->keys) {
    if (seq <= rx->last_per_key[id]) rx->in_order = 0;
    else rx->last_per_key[id] = seq;
  }
  if (!o->quiet) {
    printf("RECV seq=%u id=%u len=%u ok=%d\n", seq, id, len, ok);
    fflush(stdout);
  }
}

int peer_rx_done(const peer_rx *rx)
{
  if (stop_requested) return 1;
  if (rx->distinct >= rx->o->count) return 1;
  if (!peer_sub_strict(rx->o) && rx->received > 0 && peer_now() - rx->last_rx_time >= rx->o->idle)
    return 1;
  return 0;
}

void peer_rx_linger(const peer_rx *rx, double deadline)
{
  if (stop_requested || !peer_rx_done(rx)) return;
  double left = deadline - peer_now();
  peer_sleep(rx->o->linger < left ? rx->o->linger : left);
}

int peer_rx_finish(peer_rx *rx)
{
  const peer_opts *o = rx->o;
  printf("SUMMARY received=%u verified=%u in_order=%d duplicates=%u first_seq=%u last_seq=%u\n",
         rx->received, rx->verified, rx->in_order, rx->duplicates, rx->first_seq, rx->last_seq);
  fflush(stdout);
  int clean = rx->verified == rx->received && rx->in_order && rx->duplicates == 0;
  int enough = peer_sub_strict(o) ? rx->distinct == o->count : rx->distinct >= o->min_count;
  free(rx->seen);
  free(rx->last_per_key);
  rx->seen = NULL;
  rx->last_per_key = NULL;
  return (clean && enough) ? 0 : 1;
}
