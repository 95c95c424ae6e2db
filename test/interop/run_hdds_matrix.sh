#!/usr/bin/env bash
# hdds against the other vendors' peers: hdds-interop-peer (hdds_tools) publishes to and subscribes
# from each peer, over loopback only, and every sample must arrive byte for byte and in order.
#
#   test/interop/run_hdds_matrix.sh [--hdds PATH] [--peers cyclone,python,fastdds] [--domain-base N]
#                                   [--logs DIR] [--budget SECONDS]
#
# Peers: cyclone (Cyclone DDS 0.10.2, C), python (PyPI cyclonedds 11.0.1 = Cyclone DDS 11),
# fastdds (Fast DDS 2.9.1, C++), from $CYCLONE_PEER, $PYTHON_PEER, $FASTDDS_PEER or build/interop
# (scripts/build-interop-peers.sh builds them). A peer that is not there is reported as
# 'SKIPPED: <peer> ...' with the reason the build script left in build/interop/<peer>.skipped.
#
# The matrix (one run = one publisher process and one subscriber process, its own DDS domain):
# four two-valued dimensions, reliability (reliable | best-effort), durability (volatile |
# transient-local), size (64 B x 200 | 4 MiB x 4) and type (keyless Blob | KeyedBlob, 4 keys).
# For each peer, direction hdds->peer runs the 8 combinations with an even number of "second
# values" (a half fraction of the 2^4 design), direction peer->hdds the other 8. So for every peer
# all 16 combinations run once, and for every peer and direction every combination of any three
# dimensions runs (strength-3 covering): 3 peers x 2 directions x 8 = 48 runs.
#
# How a run goes:
# - reliable + transient-local: the publisher writes everything first and lingers; the subscriber
#   starts afterwards (a late joiner) and must get the whole history;
# - otherwise the subscriber starts first and creates a ready file once its reader matched the
#   writer; the publisher (after its writer matched the reader) writes only once that file exists.
#   (No vendor replays history from a best-effort writer: best-effort + transient-local checks the
#   QoS match and live delivery, not a late joiner.)
# - Every run must deliver all N samples: exactly N distinct samples, each verified byte for byte
#   (and, keyed, its key hash), in order per key, no duplicates; a reliable publisher must see all
#   N acknowledged. Best-effort runs publish at 1000 samples/s (64 B) or 10 samples/s (4 MiB) and
#   linger 0.5 s; they must deliver all N as well (hdds paces its best-effort fragments; with the
#   vendors' writers unpaced and no rate, Cyclone to Cyclone and Fast DDS to Fast DDS lose 4 MiB
#   samples on loopback).
# Every process has --timeout and an outer `timeout`; the matrix stops at --budget (default 230 s).
# Prints one line per run and 'hdds-interop: N passed, N failed, N skipped'; exits 1 on a failure.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${HDDS_INTEROP_BUILD:-$root/build/interop}"
hdds="${HDDS_INTEROP_PEER:-$root/target/release/hdds-interop-peer}"
peers_list="cyclone,python,fastdds"
domain_base=170
logs="$build/hdds-matrix-logs"
budget=230
while [ $# -gt 0 ]; do
  case "$1" in
    --hdds) hdds="$2"; shift 2 ;;
    --peers) peers_list="$2"; shift 2 ;;
    --domain-base) domain_base="$2"; shift 2 ;;
    --logs) logs="$2"; shift 2 ;;
    --budget) budget="$2"; shift 2 ;;
    -h|--help) sed -n '2,35p' "$0"; exit 0 ;;
    *) echo "run_hdds_matrix.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
  esac
done
if [ ! -x "$hdds" ]; then
  echo "run_hdds_matrix.sh: no hdds peer at $hdds: build it with 'cargo build --release -p hdds_tools'" >&2
  exit 2
fi

: "${CYCLONE_PEER:=$build/cyclone_peer}"
: "${FASTDDS_PEER:=$build/fastdds_peer}"
: "${PYTHON_PEER:=$build/python_peer}"
declare -A BIN=([cyclone]="$CYCLONE_PEER" [fastdds]="$FASTDDS_PEER" [python]="$PYTHON_PEER")
declare -A NAME=([cyclone]="Cyclone DDS 0.10.2 (C)" [python]="Cyclone DDS 11 (PyPI cyclonedds 11.0.1)"
                 [fastdds]="Fast DDS 2.9.1 (C++)")
IFS=, read -r -a peers <<<"$peers_list"
for p in "${peers[@]}"; do [ -n "${NAME[$p]:-}" ] || { echo "unknown peer $p" >&2; exit 2; }; done

rm -rf "$logs"
mkdir -p "$logs"
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
start_all=$(now_ms)
secs_since() { local d=$(( $(now_ms) - $1 )); printf '%d.%d' $((d / 1000)) $(((d % 1000) / 100)); }
over_budget() { [ $(( $(now_ms) - start_all )) -gt $((budget * 1000)) ]; }
pass=0 fail=0 skip=0

# The dimensions: value 0 is the first named, 1 the second.
rel_flag=(--reliable --best-effort)
dur_flag=(--volatile --transient-local)
size_args=("--size 64 --count 200" "--size 4194304 --count 4")
type_args=("--type blob" "--type keyed --keys 4")
short() {  # rel dur size type -> a short case name
  local r=(rel be) d=(vol tl) s=(64B 4MiB) t=(blob keyed)
  echo "${r[$1]}-${d[$2]}-${s[$3]}-${t[$4]}"
}

# run_case <pub-bin> <sub-bin> <label> <domain> <rel> <dur> <size> <type>
run_case() {
  local pubbin=$1 subbin=$2 label=$3 dom=$4 rel=$5 dur=$6 size=$7 type=$8
  local count=200 rate base="$logs/$(echo "$label" | tr " >" "_.")" args rc_pub rc_sub spid ppid t0 secs late=0
  [ "$size" = 1 ] && count=4
  args="${type_args[$type]} ${size_args[$size]} ${rel_flag[$rel]} ${dur_flag[$dur]} --keep-all"
  args="$args --domain $dom --topic hdds_matrix_$dom"
  # Best-effort: no repair, so the publisher leaves receivers time to drain their sockets (on a
  # busy 2-core CI machine a burst of 200 datagrams, or of one 4 MiB sample, can outrun a reader),
  # and stays 0.5 s after its last write (Fast DDS's asynchronous writer sends after write returns).
  rate=""
  [ "$rel" = 1 ] && rate="--rate $([ "$size" = 1 ] && echo 10 || echo 1000) --linger 0.5"
  [ "$rel" = 0 ] && [ "$dur" = 1 ] && late=1
  t0=$(now_ms)
  if [ "$late" = 1 ]; then
    timeout -k 2 40 "$pubbin" pub $args --linger 25 --timeout 30 > "$base.pub" 2> "$base.pub.err" &
    ppid=$!
    for _ in $(seq 300); do grep -q '^WRITTEN' "$base.pub" 2>/dev/null && break; sleep 0.05; done
    timeout -k 2 30 "$subbin" sub $args --quiet --timeout 20 > "$base.sub" 2> "$base.sub.err"
    rc_sub=$?
    kill -TERM "$ppid" 2>/dev/null
    wait "$ppid"; rc_pub=$?
  else
    rm -f "$base.ready"
    timeout -k 2 30 "$subbin" sub $args --quiet --timeout 20 --idle 2 --min-count "$count" \
      --ready-file "$base.ready" > "$base.sub" 2> "$base.sub.err" &
    spid=$!
    timeout -k 2 30 "$pubbin" pub $args $rate --wait-matched 1 --start-file "$base.ready" --settle 0.1 \
      --timeout 20 > "$base.pub" 2> "$base.pub.err"
    rc_pub=$?
    wait "$spid"; rc_sub=$?
  fi
  secs=$(secs_since "$t0")
  local summary ok=1
  summary=$(grep '^SUMMARY received=' "$base.sub" | tail -n 1)
  [ "$rc_pub" = 0 ] && [ "$rc_sub" = 0 ] || ok=0
  grep -q "^SUMMARY written=$count matched=1$" "$base.pub" || ok=0
  # The success rule again, from the summary line (not only from the exit codes).
  echo "$summary" | grep -q "^SUMMARY received=$count verified=$count in_order=1 duplicates=0 " || ok=0
  local got; got=$(echo "$summary" | sed -nE 's/^SUMMARY received=([0-9]+) verified=([0-9]+).*/\2\/'"$count"' verified/p')
  if [ "$ok" = 1 ]; then
    pass=$((pass + 1)); printf '  PASS %-44s %-16s %5ss\n' "$label" "$got" "$secs"
  else
    fail=$((fail + 1)); printf '  FAIL %-44s %-16s %5ss (pub rc=%s, sub rc=%s)\n' "$label" "$got" "$secs" "$rc_pub" "$rc_sub"
    { sed 's/^/      pub: /' "$base.pub" "$base.pub.err" | tail -n 4
      sed 's/^/      sub: /' "$base.sub" "$base.sub.err" | tail -n 4; }
  fi
}

echo "[hdds-interop] hdds peer: $hdds"
dom=$domain_base
for p in "${peers[@]}"; do
  bin="${BIN[$p]}"
  if [ ! -x "$bin" ]; then
    why="not built"
    [ -s "$build/$p.skipped" ] && why=$(head -n 1 "$build/$p.skipped")
    echo "SKIPPED: hdds <-> $p (${NAME[$p]}), 16 runs: $why"
    skip=$((skip + 16))
    continue
  fi
  echo "[hdds-interop] hdds <-> $p (${NAME[$p]})"
  for dir in to from; do
    for combo in $(seq 0 15); do
      rel=$((combo & 1)) dur=$(((combo >> 1) & 1)) size=$(((combo >> 2) & 1)) type=$(((combo >> 3) & 1))
      parity=$(((rel + dur + size + type) & 1))
      # hdds->peer: even parity; peer->hdds: odd parity.
      { [ "$dir" = to ] && [ "$parity" = 0 ]; } || { [ "$dir" = from ] && [ "$parity" = 1 ]; } || continue
      if [ "$dir" = to ]; then label="hdds->$p"; pb=$hdds; sb=$bin; else label="$p->hdds"; pb=$bin; sb=$hdds; fi
      label="$label $(short $rel $dur $size $type)"
      if over_budget; then
        fail=$((fail + 1)); printf '  FAIL %-44s (not run: the matrix passed its %s s budget)\n' "$label" "$budget"
        continue
      fi
      run_case "$pb" "$sb" "$label" "$dom" "$rel" "$dur" "$size" "$type"
      dom=$((dom + 1))
      [ "$dom" -le 232 ] || dom=$domain_base
    done
  done
done
echo "[hdds-interop] total time $(secs_since "$start_all") s; logs: $logs"
echo "hdds-interop: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
