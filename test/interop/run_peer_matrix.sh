#!/usr/bin/env bash
# Proves that the interop peers work, vendor against vendor, before hdds is put between them.
#
#   test/interop/run_peer_matrix.sh [--peers cyclone,fastdds,python] [--cases small,keyed,large,late]
#                                   [--domain-base N] [--logs DIR]
#
# For every ordered pair (publisher -> subscriber) of the peers, same-vendor pairs included (the
# publisher writes once its reader is matched and the subscriber's reader has matched the writer:
# --wait-matched 1, --ready-file/--start-file):
#   small  keyless Blob, 64 B x 200, reliable, keep-all, volatile
#   keyed  KeyedBlob, 1 KiB x 200, 4 keys, reliable, keep-all, volatile
#   large  keyless Blob, 4 MiB x 5, reliable, keep-all, volatile (fragmented)
#   late   KeyedBlob 512 B x 40, 4 keys, reliable, keep-all, transient-local: the subscriber starts
#          only after the publisher printed WRITTEN, and must get the whole history
# First a loopback check of each peer (Cyclone: its config trace says it selected only `lo` with
# multicast off; Fast DDS: every UDP socket it opens is bound to 127.0.0.1, no shared-memory files).
# Each run uses its own domain (>= 100), each peer has --timeout and an outer `timeout`, and the
# whole matrix stops at 170 s. Prints a table and 'matrix: N passed, N failed'; exits 1 on any
# failure. Peers: $CYCLONE_PEER, $FASTDDS_PEER, $PYTHON_PEER or build/interop (built by
# scripts/build-interop-peers.sh when missing). Logs: build/interop/matrix-logs.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${HDDS_INTEROP_BUILD:-$root/build/interop}"
peers_list="cyclone,fastdds,python"
cases_list="small,keyed,large,late"
domain_base=100
logs="$build/matrix-logs"
budget=170   # seconds for the whole matrix
while [ $# -gt 0 ]; do
  case "$1" in
    --peers) peers_list="$2"; shift 2 ;;
    --cases) cases_list="$2"; shift 2 ;;
    --domain-base) domain_base="$2"; shift 2 ;;
    --logs) logs="$2"; shift 2 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "run_peer_matrix.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
  esac
done

: "${CYCLONE_PEER:=$build/cyclone_peer}"
: "${FASTDDS_PEER:=$build/fastdds_peer}"
: "${PYTHON_PEER:=$build/python_peer}"
if [ ! -x "$CYCLONE_PEER" ] || [ ! -x "$FASTDDS_PEER" ] || [ ! -x "$PYTHON_PEER" ]; then
  echo "[matrix] peers missing: running scripts/build-interop-peers.sh"
  "$root/scripts/build-interop-peers.sh" || exit 2
fi
declare -A BIN=([cyclone]="$CYCLONE_PEER" [fastdds]="$FASTDDS_PEER" [python]="$PYTHON_PEER")
IFS=, read -r -a peers <<<"$peers_list"
IFS=, read -r -a cases <<<"$cases_list"
for p in "${peers[@]}"; do [ -n "${BIN[$p]:-}" ] || { echo "unknown peer $p" >&2; exit 2; }; done

rm -rf "$logs"
mkdir -p "$logs"
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
start_all=$(now_ms)
secs_since() { local d=$(( $(now_ms) - $1 )); printf '%d.%d' $((d / 1000)) $(((d % 1000) / 100)); }
over_budget() { [ $(( $(now_ms) - start_all )) -gt $((budget * 1000)) ]; }
pass=0
fail=0
declare -A RESULT

# ---- loopback checks ---------------------------------------------------------------------------
check_cyclone_loopback() {  # name binary
  local name=$1 bin=$2 trace="$logs/loopback-$1.trace" cfg="$logs/loopback-$1.xml"
  sed "s|</Discovery>|</Discovery><Tracing><Verbosity>config</Verbosity><OutputFile>$trace</OutputFile></Tracing>|" \
    "$root/test/interop/config/cyclonedds_loopback.xml" > "$cfg"
  timeout -k 2 10 "$bin" sub --topic loopback_check --type blob --size 1 --count 1 --timeout 1 --quiet \
    --domain "$domain_base" --config "$cfg" > /dev/null 2>&1
  grep -q "selected interfaces: lo " "$trace" && ! grep "selected interfaces:" "$trace" | grep -qv "selected interfaces: lo " &&
    grep -q "AllowMulticast/#text: false {0}" "$trace" && grep -q "Peer\[@Address\]: 127.0.0.1 {0}" "$trace"
}
check_fastdds_loopback() {  # name binary
  local bin=$2 shm_before shm_after pid socks
  shm_before=$(ls /dev/shm 2>/dev/null | grep -c fastrtps || true)
  # (the peer itself, not under `timeout`, so that $! is its pid; --timeout bounds it)
  "$bin" sub --topic loopback_check --type blob --size 1 --count 1 --timeout 2 --quiet \
    --domain "$domain_base" > /dev/null 2>&1 &
  pid=$!
  sleep 1
  socks=$(ss -uanpH 2>/dev/null | grep "pid=$pid," | awk '{print $4}')
  wait "$pid"
  shm_after=$(ls /dev/shm 2>/dev/null | grep -c fastrtps || true)
  echo "$socks" > "$logs/loopback-$1.sockets"
  [ -n "$socks" ] && ! echo "$socks" | grep -qv '^127\.0\.0\.1:' && [ "$shm_after" -le "$shm_before" ]
}
echo "[matrix] loopback checks"
for p in "${peers[@]}"; do
  if [ "$p" = fastdds ]; then check=check_fastdds_loopback; what="UDP sockets bound to 127.0.0.1 only, no shared memory"
  else check=check_cyclone_loopback; what="config trace: interface lo only, multicast off, peer 127.0.0.1"; fi
  if $check "$p" "${BIN[$p]}"; then echo "  $p: ok ($what)"; pass=$((pass + 1))
  else echo "  $p: FAILED ($what; see $logs/loopback-$p.*)"; fail=$((fail + 1)); fi
done

# ---- the matrix ---------------------------------------------------------------------------------
case_args() {
  case "$1" in
    small) echo "--type blob --size 64 --count 200 --reliable --keep-all --volatile" ;;
    keyed) echo "--type keyed --keys 4 --size 1024 --count 200 --reliable --keep-all --volatile" ;;
    large) echo "--type blob --size 4194304 --count 5 --reliable --keep-all --volatile" ;;
    late)  echo "--type keyed --keys 4 --size 512 --count 40 --reliable --keep-all --transient-local" ;;
    *) return 1 ;;
  esac
}
case_count() { case "$1" in small|keyed) echo 200 ;; large) echo 5 ;; late) echo 40 ;; esac; }

# check_logs <sub.log> <pub.log> <count>: the summaries, not only the exit codes
check_logs() {
  grep -q "^SUMMARY received=$3 verified=$3 in_order=1 duplicates=0 first_seq=" "$1" &&
    grep -q "^SUMMARY written=$3 matched=1$" "$2"
}

run_pair_case() {  # pub sub case domain -> sets RESULT
  local pub=$1 sub=$2 c=$3 dom=$4 args count base rc_pub rc_sub spid ppid t0
  args="$(case_args "$c") --domain $dom --topic matrix_$c"
  count=$(case_count "$c")
  base="$logs/$c.$pub-to-$sub"
  t0=$(now_ms)
  if [ "$c" = late ]; then
    # publisher first; it keeps its history alive (--linger) until we stop it with SIGTERM
    timeout -k 2 30 ${BIN[$pub]} pub $args --linger 20 --timeout 25 > "$base.pub" 2> "$base.pub.err" &
    ppid=$!
    for _ in $(seq 100); do grep -q '^WRITTEN' "$base.pub" 2>/dev/null && break; sleep 0.1; done
    timeout -k 2 20 ${BIN[$sub]} sub $args --quiet --timeout 15 > "$base.sub" 2> "$base.sub.err"
    rc_sub=$?
    kill -TERM "$ppid" 2>/dev/null
    wait "$ppid"; rc_pub=$?
  else
    # the handshake: the subscriber creates $base.ready once its reader matched the writer, and
    # the publisher writes only after that (see --ready-file / --start-file)
    timeout -k 2 30 ${BIN[$sub]} sub $args --quiet --timeout 25 --ready-file "$base.ready" \
      > "$base.sub" 2> "$base.sub.err" &
    spid=$!
    timeout -k 2 30 ${BIN[$pub]} pub $args --wait-matched 1 --start-file "$base.ready" --settle 0.1 \
      --timeout 25 > "$base.pub" 2> "$base.pub.err"
    rc_pub=$?
    wait "$spid"; rc_sub=$?
  fi
  local secs; secs=$(secs_since "$t0")
  if [ "$rc_pub" = 0 ] && [ "$rc_sub" = 0 ] && check_logs "$base.sub" "$base.pub" "$count"; then
    RESULT[$pub,$sub,$c]="PASS ${secs}s"; pass=$((pass + 1))
  else
    RESULT[$pub,$sub,$c]="FAIL ${secs}s"; fail=$((fail + 1))
    { echo "  FAILED $c $pub -> $sub (pub rc=$rc_pub, sub rc=$rc_sub):"
      sed 's/^/    pub: /' "$base.pub" "$base.pub.err" | tail -n 6
      sed 's/^/    sub: /' "$base.sub" "$base.sub.err" | tail -n 6; } >&2
  fi
}

echo "[matrix] pairs (publisher -> subscriber)"
dom=$((domain_base + 1))
for c in "${cases[@]}"; do
  case_args "$c" > /dev/null || { echo "unknown case $c" >&2; exit 2; }
  for pub in "${peers[@]}"; do
    for sub in "${peers[@]}"; do
      if over_budget; then
        RESULT[$pub,$sub,$c]="SKIP(time)"; fail=$((fail + 1)); continue
      fi
      run_pair_case "$pub" "$sub" "$c" "$dom"
      printf '  %-6s %-8s -> %-8s %s\n' "$c" "$pub" "$sub" "${RESULT[$pub,$sub,$c]}"
      dom=$((dom + 1))
      [ "$dom" -le 232 ] || dom=$((domain_base + 1))
    done
  done
done

# ---- the table ----------------------------------------------------------------------------------
declare -A TITLE=([small]="small 64Bx200" [keyed]="keyed 1KiBx200x4k" [large]="large 4MiBx5" [late]="late-joiner TL 40")
echo
printf '%-20s' "pub -> sub"
for c in "${cases[@]}"; do printf ' | %-17s' "${TITLE[$c]}"; done
echo
printf '%-20s' "--------------------"
for c in "${cases[@]}"; do printf ' | %-17s' "-----------------"; done
echo
for pub in "${peers[@]}"; do
  for sub in "${peers[@]}"; do
    printf '%-20s' "$pub -> $sub"
    for c in "${cases[@]}"; do printf ' | %-17s' "${RESULT[$pub,$sub,$c]:-}"; done
    echo
  done
done
echo
echo "total time: $(secs_since "$start_all") s (loopback checks + ${#peers[@]}x${#peers[@]} pairs x ${#cases[@]} cases); logs: $logs"
echo "matrix: $pass passed, $fail failed"
[ "$fail" = 0 ]
