#!/usr/bin/env bash
# Network fault tests: two network namespaces joined by a veth pair (10.231.0.1 <-> 10.231.0.2) or
# by a lossy link (below), one hdds-stress-peer in each, reliable KEEP_ALL topics, shared memory
# off (the two namespaces stand for two hosts). Every address used lives inside the namespaces this script creates, which
# it deletes on exit.
#   link-down   the link goes down for 10 s while a writer writes 200 samples/s, then comes back:
#               the reader gets every sample (no gap, no duplicate), the writer's samples are all
#               acknowledged, and no write() blocks longer than max_blocking_time (1 s) + 300 ms.
#   vanished    a peer (lease 3 s) loses its link and is SIGKILLed, no goodbye: the survivor
#               unmatches it within its lease (+2 s of lease-check slack, and not before
#               lease - SPDP period), and the survivor's KEEP_ALL writer to that peer's reader
#               never blocks longer than max_blocking_time + 300 ms.
#   lossy       20 % of the IPv4 frames lost each way, 5 % of the kept ones duplicated and 5 % held
#               back behind 1-3 later frames, while a writer writes 10,000 samples at 1 kHz: the
#               reader gets every sample in order (no gap, no duplicate), all are acknowledged, no
#               write blocks longer than max_blocking_time + 300 ms, and the link's counters show
#               that it did drop, duplicate and reorder frames. This machine's kernel has no netem
#               (no sch_netem, no tc classifiers, no nft/iptables), so the impairment is made in
#               user space: test/fault/lossy_link.py relays Ethernet frames between two veth pairs
#               in a third namespace (A <-> M <-> B, 10.231.1.1 <-> 10.231.1.2).
#   lossy_frag  the same link and checks with 1,000 samples of 8 KiB at 200/s (MTU 1500): DATA_FRAG,
#               repairs of single fragments, NACK_FRAG.
#
#   test/fault/run.sh [--peer PATH]   (needs root and iproute2; otherwise prints SKIPPED and exits 0)
# Last line: "hdds-fault: P passed, F failed, S skipped"; exit 1 if any failed.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
peer="$root/target/release/hdds-stress-peer"
while [ $# -gt 0 ]; do
  case "$1" in
    --peer) peer="$2"; shift 2 ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
  esac
done
passed=0 failed=0 skipped=0
summary() { echo "hdds-fault: $passed passed, $failed failed, $skipped skipped"; [ "$failed" -eq 0 ]; exit; }
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }

why=""
if [ "$(id -u)" != 0 ]; then why="not root (network namespaces need CAP_SYS_ADMIN)"
elif ! command -v ip >/dev/null; then why="iproute2 ('ip') is not installed"
elif ! ip netns add "hddsprobe$$" 2>/dev/null; then why="'ip netns add' failed (no network namespace support here)"
else ip netns delete "hddsprobe$$"
fi
if [ -n "$why" ]; then
  echo "SKIPPED: the network fault tests (link down 10 s, vanished peer, lossy link 64 B and 8 KiB). Why: $why."
  skipped=4; summary
fi
[ -x "$peer" ] || { echo "run.sh: no peer at $peer (cargo build --release -p hdds_tools --bin hdds-stress-peer)" >&2; exit 2; }

na="hddsfa$$" nb="hddsfb$$" va="hfa$$" vb="hfb$$" ia=10.231.0.1 ib=10.231.0.2
# The lossy-link case's namespaces (A, M between, B) and veth ends.
nla="hddsla$$" nlm="hddslm$$" nlb="hddslb$$" vla="hla$$" vlb="hlb$$" vma="hma$$" vmb="hmb$$"
la=10.231.1.1 lb=10.231.1.2
work="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
  wait 2>/dev/null
  for ns in "$na" "$nb" "$nla" "$nlm" "$nlb"; do ip netns delete "$ns" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
ip netns add "$na" && ip netns add "$nb" && ip link add "$va" type veth peer name "$vb" \
  && ip link set "$va" netns "$na" && ip link set "$vb" netns "$nb" || { echo "FAIL setup: cannot create the namespaces and veth pair"; failed=1; summary; }
link_up() { # ns dev addr
  ip -n "$1" link set lo up && ip -n "$1" link set "$2" up \
    && { ip -n "$1" addr show dev "$2" | grep -q "inet $3/" || ip -n "$1" addr add "$3/24" dev "$2"; } \
    && ip -n "$1" route replace 224.0.0.0/4 dev "$2"
}
link_up "$na" "$va" "$ia" && link_up "$nb" "$vb" "$ib" || { echo "FAIL setup: cannot configure the veth pair"; failed=1; summary; }
now_ms() { date +%s%3N; }
# wait_for FILE REGEX SECONDS: 0 when a line matches before the time is up.
wait_for() {
  local end=$((SECONDS + $3))
  while [ "$SECONDS" -lt "$end" ]; do grep -qE "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  return 1
}
run_in() { # ns log args...
  local ns="$1" log="$2"; shift 2
  ip netns exec "$ns" "$peer" --no-shm "$@" > "$log" 2>&1 &
  pids+=($!)
}
field() { sed -nE "s/.*$2=([0-9.]+).*/\1/p" "$1" | tail -1; }

# ---- link down for 10 s ----
# 200 samples/s for 10 s is more than the writer's KEEP_ALL history holds (1024 samples by default):
# writes block during the outage, each for at most max_blocking_time, and are retried.
count=3000
run_in "$nb" "$work/a_sub.log" --iface "$ib" --readers fault_a --expect "$count" --lease 30 --spdp-period 1 --duration 90
sub=$!
run_in "$na" "$work/a_pub.log" --iface "$ia" --writers fault_a --rate 200 --count "$count" --wait-matched 1 \
  --max-blocking 1 --lease 30 --spdp-period 1 --duration 90
pub=$!
if ! wait_for "$work/a_sub.log" "writers=1" 20; then
  fail link-down "the two peers did not match within 20 s (see below)"; cat "$work"/a_*.log
else
  sleep 2
  ip -n "$na" link set "$va" down
  echo "link down at $(now_ms)"
  sleep 10
  link_up "$na" "$va" "$ia"
  echo "link up at $(now_ms)"
  wait "$pub"; prc=$?
  wait "$sub"; src=$?
  cat "$work/a_pub.log" "$work/a_sub.log" | grep -E "^(WRITER|READER)"
  max=$(field "$work/a_pub.log" max_write_ms) received=$(field "$work/a_sub.log" received)
  timeouts=$(field "$work/a_pub.log" timeouts)
  if [ "$prc" != 0 ] || [ "$src" != 0 ]; then
    fail link-down "publisher exit $prc, subscriber exit $src (a gap, a duplicate, a missing acknowledgment or a timeout)"
    grep -HE "^(MATCH|PROTO)|panicked|^hdds:" "$work"/a_*.log | head -n 40; tail -n 5 "$work"/a_*.log
  elif ! grep -q "acked=1" "$work/a_pub.log"; then fail link-down "the writer's samples were not all acknowledged"
  elif [ "${received:-0}" -lt "$count" ]; then fail link-down "received ${received:-0} of $count"
  elif awk -v m="${max:-99999}" 'BEGIN { exit !(m > 1300) }'; then fail link-down "a write blocked ${max} ms (max_blocking_time 1000 ms)"
  else pass "link-down: $received/$count samples after 10 s without link, no gap or duplicate, longest write $max ms ($timeouts writes timed out and were retried)"
  fi
fi

# ---- a peer vanishes without a goodbye ----
lease=3
# The survivor writes 500 samples/s: its KEEP_ALL history (1024) fills while the dead reader's lease
# runs, so its writes block, each for at most max_blocking_time.
run_in "$nb" "$work/b_surv.log" --iface "$ib" --readers fault_b1 --writers fault_b2 --rate 500 --wait-matched 1 \
  --max-blocking 1 --lease 30 --spdp-period 1 --duration 40
surv=$!
run_in "$na" "$work/b_gone.log" --iface "$ia" --readers fault_b2 --writers fault_b1 --rate 100 --wait-matched 1 \
  --lease "$lease" --spdp-period 1 --duration 40
gone=$!
if ! wait_for "$work/b_surv.log" "topic=fault_b1 writers=1" 20; then
  fail vanished "the two peers did not match within 20 s (see below)"; cat "$work"/b_*.log
else
  sleep 2
  ip -n "$na" link set "$va" down
  kill -KILL "$gone"; wait "$gone" 2>/dev/null
  t_kill=$(now_ms)
  if ! wait_for "$work/b_surv.log" "topic=fault_b1 writers=0" $((lease + 10)); then
    fail vanished "the survivor still matches the vanished writer $((lease + 10)) s after it vanished"
  else
    t_gone=$(sed -nE 's/^MATCH ms=([0-9]+) topic=fault_b1 writers=0$/\1/p' "$work/b_surv.log" | head -1)
    sleep 3 # the survivor's writer goes on writing after the reader left
    kill -TERM "$surv"; wait "$surv"; src=$?
    grep -E "^(WRITER|READER)" "$work/b_surv.log"
    took=$((t_gone - t_kill)) max=$(field "$work/b_surv.log" max_write_ms) timeouts=$(field "$work/b_surv.log" timeouts)
    echo "survivor unmatched the vanished peer $took ms after SIGKILL (lease ${lease} s)"
    if [ "$took" -gt $(((lease + 2) * 1000)) ] || [ "$took" -lt $(((lease - 1) * 1000 - 200)) ]; then
      fail vanished "removed $took ms after it vanished; its lease is ${lease} s"
    elif [ "$src" != 0 ]; then fail vanished "the survivor exited $src (a gap or duplicate on fault_b1)"
    elif awk -v m="${max:-99999}" 'BEGIN { exit !(m > 1300) }'; then fail vanished "a survivor write blocked ${max} ms (max_blocking_time 1000 ms)"
    else pass "vanished: removed ${took} ms after SIGKILL (lease ${lease} s), survivor's longest write $max ms ($timeouts timed out while the lease ran)"
    fi
  fi
fi
# ---- 20 % loss each way, with duplication and reordering ----
# Three namespaces: A and B, each with one peer, and M between them, where test/fault/lossy_link.py
# (the user-space stand-in for netem) joins the two veth pairs as a lossy hub. M has no address
# and IPv6 off, so its kernel sends nothing of its own onto the link.
relay="$root/test/fault/lossy_link.py"
python=/usr/bin/python3
lossy_setup() {
  ip netns add "$nla" && ip netns add "$nlm" && ip netns add "$nlb" \
    && ip link add "$vla" type veth peer name "$vma" && ip link add "$vlb" type veth peer name "$vmb" \
    && ip link set "$vla" netns "$nla" && ip link set "$vma" netns "$nlm" \
    && ip link set "$vlb" netns "$nlb" && ip link set "$vmb" netns "$nlm" \
    && ip netns exec "$nlm" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 \
    && ip -n "$nlm" link set "$vma" up promisc on && ip -n "$nlm" link set "$vmb" up promisc on \
    && link_up "$nla" "$vla" "$la" && link_up "$nlb" "$vlb" "$lb"
}
# lossy_case NAME COUNT SIZE RATE SECONDS: COUNT samples of SIZE bytes at RATE/s from A to B through
# the relay (20 % loss each way, 5 % duplicated, 5 % held back behind later frames).
lossy_case() {
  local name="$1" count="$2" size="$3" rate="$4" secs="$5" t0=$SECONDS
  ip netns exec "$nlm" "$python" "$relay" --a "$vma" --b "$vmb" --loss 0.2 --duplicate 0.05 --reorder 0.05 \
    --seed 7 --seconds $((secs + 15)) > "$work/${name}_relay.log" 2>&1 &
  local rp=$!; pids+=($rp)
  if ! wait_for "$work/${name}_relay.log" "^READY" 5; then
    fail "$name" "the relay did not start"; cat "$work/${name}_relay.log"; kill -KILL "$rp"; return
  fi
  run_in "$nlb" "$work/${name}_sub.log" --iface "$lb" --readers "$name" --expect "$count" --lease 30 --spdp-period 1 \
    --duration "$secs"
  local sub=$!
  run_in "$nla" "$work/${name}_pub.log" --iface "$la" --writers "$name" --rate "$rate" --count "$count" --size "$size" \
    --wait-matched 1 --max-blocking 1 --lease 30 --spdp-period 1 --duration "$secs"
  local pub=$!
  wait "$pub"; local prc=$?
  wait "$sub"; local src=$?
  kill -TERM "$rp"; wait "$rp"
  grep -E "^(WRITER|READER|NET)" "$work/${name}_pub.log" "$work/${name}_sub.log" | sed 's/^[^:]*://'
  grep -E "^LINK" "$work/${name}_relay.log"
  local received first max timeouts link
  received=$(field "$work/${name}_sub.log" received) first=$(field "$work/${name}_sub.log" first)
  max=$(field "$work/${name}_pub.log" max_write_ms) timeouts=$(field "$work/${name}_pub.log" timeouts)
  link=$(awk '/^LINK/ { for (i = 3; i <= NF; i++) { split($i, kv, "="); n[$2 "_" kv[1]] = kv[2] } }
    END { printf "%d %d %d %d %d %d", n["dir=A>B_dropped"], n["dir=B>A_dropped"], n["dir=A>B_duplicated"],
      n["dir=B>A_duplicated"], n["dir=A>B_reordered"], n["dir=B>A_reordered"] }' "$work/${name}_relay.log")
  read -r drop_ab drop_ba dup_ab dup_ba reord_ab reord_ba <<< "$link"
  if [ "$prc" != 0 ] || [ "$src" != 0 ]; then
    fail "$name" "publisher exit $prc, subscriber exit $src (a gap, a duplicate, a missing acknowledgment or a timeout)"
    grep -HE "^(MATCH|PROTO)|panicked|^hdds:" "$work/${name}"_pub.log "$work/${name}"_sub.log | head -n 40; tail -n 5 "$work/${name}"_*.log
  elif ! grep -q "acked=1" "$work/${name}_pub.log"; then
    fail "$name" "the writer's samples were not all acknowledged"
    grep -HE "^PROTO|panicked|^hdds:" "$work/${name}_pub.log" | head -n 40
  elif [ "${received:-0}" -lt "$count" ] || [ "${first:-0}" != 1 ]; then
    fail "$name" "received ${received:-0} of $count, first ${first:-none} (expected 1)"
  elif [ "${drop_ab:-0}" -eq 0 ] || [ "${drop_ba:-0}" -eq 0 ] || [ "${dup_ab:-0}" -eq 0 ] || [ "${reord_ab:-0}" -eq 0 ]; then
    fail "$name" "the relay did not impair the link (dropped $drop_ab/$drop_ba, duplicated $dup_ab/$dup_ba, reordered $reord_ab/$reord_ba A>B/B>A)"
  elif awk -v m="${max:-99999}" 'BEGIN { exit !(m > 1300) }'; then fail "$name" "a write blocked ${max} ms (max_blocking_time 1000 ms)"
  else
    pass "$name: $received/$count samples of $size B in $((SECONDS - t0)) s, in order, no gap or duplicate, all acknowledged; relay dropped $drop_ab/$drop_ba, duplicated $dup_ab/$dup_ba, reordered $reord_ab/$reord_ba frames (A>B/B>A); longest write $max ms ($timeouts timed out)"
  fi
}
if [ ! -x "$python" ]; then
  echo "SKIPPED: the lossy-link cases. Why: $python (which runs the relay) is not installed."
  skipped=$((skipped + 2))
elif ! lossy_setup; then
  fail lossy "cannot create the three namespaces and two veth pairs of the lossy link"
else
  lossy_case lossy 10000 64 1000 60
  # 8 KiB samples go as DATA_FRAGs: the first sending is one IP-fragmented datagram (lost if any of
  # its 6 frames is), repairs are resent fragments and NACK_FRAGs, one fragment per frame.
  lossy_case lossy_frag 1000 8192 200 40
fi
summary
