#!/usr/bin/env python3
"""Interop peer for hdds on the PyPI package `cyclonedds` 11.0.1 (which bundles its own Cyclone DDS).

Same command line, payload, output and success rule as the C (Cyclone DDS 0.10) and C++ (Fast DDS
2.9) peers: see --help and test/interop/common/peer_common.c. Run it with the venv that
scripts/build-interop-peers.sh creates (build/interop/venv/bin/python).

By default CYCLONEDDS_URI is set to the loopback-only config (test/interop/config/
cyclonedds_loopback.xml) before cyclonedds is imported, whatever the environment had; --config FILE
loads another file.
"""
import argparse
import os
import signal
import sys
import time
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CONFIG = os.path.normpath(os.path.join(HERE, "..", "config", "cyclonedds_loopback.xml"))

EPILOG = f"""\
Types (test/interop/idl/interop.idl):
  blob  = hdds::interop::Blob      {{ unsigned long seq; sequence<octet> data; }}
  keyed = hdds::interop::KeyedBlob {{ @key unsigned long id; unsigned long seq; sequence<octet> data; }}
Samples are seq = 1..N; keyed: id = (seq-1) % K; data[i] = (seq*131 + i*7 + id) & 0xff,
length = --size, so a receiver verifies every byte without the sender.

Defaults: --reliable --volatile --keep-all --keys 1 --domain 100 --timeout 30
  --config {DEFAULT_CONFIG}

Publisher: waits (bounded by --timeout) for --wait-matched readers, then for --start-file PATH
  to exist (a subscriber's --ready-file: the reader knows the writer), pauses --settle seconds
  (default 0.5 when waiting, else 0), writes at most --rate samples/s, prints
  'WRITTEN written=<n>', waits for acknowledgements (reliable), stays --linger seconds (default
  0; cut at --timeout; SIGINT/SIGTERM end it early), then prints 'SUMMARY written=<n> matched=<n>' (matched = most readers
  matched at any time). Exit 0 when all N were written, the --wait-matched count was reached
  and, if reliable, every matched reader acknowledged.
Subscriber: creates --ready-file PATH once --wait-matched writers (default 1) matched; prints 'RECV seq=<n> id=<k> len=<l> ok=<0|1>' per sample (ok = content verified)
  unless --quiet, and always 'SUMMARY received=<n> verified=<n> in_order=<0|1> duplicates=<n>
  first_seq=<n> last_seq=<n>'. After its last sample it stays --linger seconds (default 0.5) so
  its final acknowledgements reach the writer.
  Success rule (exit 0):
    strict (reader --reliable and --keep-all): exactly N distinct seqs 1..N received before
      --timeout, every one verified, in order per key, no duplicates.
    lenient (reader --best-effort or --depth N): at least --min-count (default 1) distinct
      samples, every one verified, in order per key, no duplicates; the reader stops at N
      distinct samples, after --idle SECONDS (default 2) without data once one arrived, or at
      --timeout.
  SIGINT/SIGTERM stop the subscriber early (summary printed, success rule applied).
  exit 1 otherwise; exit 2 on bad usage or a DDS error.
"""


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="peer.py",
        description="Interop peer for hdds (cyclonedds Python 11, bundled Cyclone DDS).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("mode", choices=["pub", "sub"])
    p.add_argument("--topic", required=True)
    p.add_argument("--type", required=True, choices=["blob", "keyed"])
    p.add_argument("--size", required=True, type=int)
    p.add_argument("--count", required=True, type=int)
    g = p.add_mutually_exclusive_group()
    g.add_argument("--reliable", dest="reliable", action="store_true", default=True)
    g.add_argument("--best-effort", dest="reliable", action="store_false")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--transient-local", dest="transient_local", action="store_true", default=False)
    g.add_argument("--volatile", dest="transient_local", action="store_false")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--keep-all", dest="depth", action="store_const", const=None, default=None)
    g.add_argument("--depth", dest="depth", type=int, help="KEEP_LAST N")
    p.add_argument("--keys", type=int, default=1, help="keyed: cycle id over 0..K-1")
    p.add_argument("--domain", type=int, default=100)
    p.add_argument("--timeout", type=float, default=30.0)
    p.add_argument("--wait-matched", type=int, default=0)
    p.add_argument("--settle", type=float, default=None)
    p.add_argument("--rate", type=float, default=0.0)
    p.add_argument("--linger", type=float, default=None)
    p.add_argument("--idle", type=float, default=2.0)
    p.add_argument("--min-count", type=int, default=1)
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--config", default=DEFAULT_CONFIG)
    p.add_argument("--ready-file", help="sub: create once --wait-matched writers (default 1) matched")
    p.add_argument("--start-file", help="pub: write only once this file exists (a sub's --ready-file)")
    o = p.parse_args(argv)
    if o.count < 1:
        p.error("--count N (N >= 1) is required")
    if o.size < 0 or o.keys < 1 or (o.depth is not None and o.depth < 1):
        p.error("--size >= 0, --keys >= 1, --depth >= 1")
    if o.type == "blob" and o.keys != 1:
        p.error("--keys needs --type keyed")
    if not 0 <= o.domain <= 232:
        p.error("--domain must be 0..232")
    o.keyed = o.type == "keyed"
    o.keep_all = o.depth is None
    if o.settle is None:
        o.settle = 0.5 if o.wait_matched > 0 else 0.0
    if o.linger is None:
        o.linger = 0.0 if o.mode == "pub" else 0.5
    return o


STOP = []  # non-empty once SIGINT/SIGTERM arrived


def on_stop_signal(signum, frame):
    STOP.append(signum)


def payload(seq, sid, size):
    """data[i] = (seq*131 + i*7 + id) & 0xff: one 256-byte period, repeated."""
    base = seq * 131 + sid
    period = bytes((base + i * 7) & 0xFF for i in range(256))
    reps = size // 256 + 1
    return (period * reps)[:size]


class Rx:
    def __init__(self, o):
        self.o = o
        self.received = self.verified = self.distinct = self.duplicates = 0
        self.in_order = True
        self.first_seq = self.last_seq = 0
        self.last_rx = 0.0
        self.seen = bytearray(o.count + 1)
        self.last_per_key = [0] * o.keys

    def strict(self):
        return self.o.reliable and self.o.keep_all

    def record(self, seq, sid, data):
        o = self.o
        in_range = 1 <= seq <= o.count
        expected_id = (seq - 1) % o.keys if o.keyed else 0
        ok = in_range and sid == expected_id and len(data) == o.size and bytes(data) == payload(seq, sid, o.size)
        self.received += 1
        if ok:
            self.verified += 1
        if self.received == 1:
            self.first_seq = seq
        self.last_seq = seq
        self.last_rx = time.monotonic()
        dup = False
        if in_range:
            if self.seen[seq]:
                self.duplicates += 1
                dup = True
            else:
                self.seen[seq] = 1
                self.distinct += 1
        if not dup and 0 <= sid < o.keys:
            if seq <= self.last_per_key[sid]:
                self.in_order = False
            else:
                self.last_per_key[sid] = seq
        if not o.quiet:
            print(f"RECV seq={seq} id={sid} len={len(data)} ok={1 if ok else 0}", flush=True)

    def done(self):
        if STOP or self.distinct >= self.o.count:
            return True
        return (not self.strict() and self.received > 0
                and time.monotonic() - self.last_rx >= self.o.idle)

    def finish(self):
        print(f"SUMMARY received={self.received} verified={self.verified} in_order={int(self.in_order)} "
              f"duplicates={self.duplicates} first_seq={self.first_seq} last_seq={self.last_seq}", flush=True)
        clean = self.verified == self.received and self.in_order and self.duplicates == 0
        enough = self.distinct == self.o.count if self.strict() else self.distinct >= self.o.min_count
        return 0 if clean and enough else 1


def main(argv):
    o = parse_args(argv)
    deadline = time.monotonic() + o.timeout
    signal.signal(signal.SIGINT, on_stop_signal)
    signal.signal(signal.SIGTERM, on_stop_signal)
    # Must be set before the (bundled) Cyclone DDS creates its domain.
    os.environ["CYCLONEDDS_URI"] = "file://" + os.path.abspath(o.config)

    from cyclonedds.core import DDSException, InstanceState, ReadCondition, SampleState, ViewState, WaitSet
    from cyclonedds.domain import DomainParticipant
    from cyclonedds.idl import IdlStruct
    from cyclonedds.idl._machinery import BytesMachine, StructMachine
    from cyclonedds.idl.annotations import key
    import cyclonedds.idl.types as t
    from cyclonedds.internal import InvalidSample
    from cyclonedds.pub import DataWriter
    from cyclonedds.qos import Policy, Qos
    from cyclonedds.sub import DataReader
    from cyclonedds.topic import Topic
    from cyclonedds.util import duration

    @dataclass
    class Blob(IdlStruct, typename="hdds::interop::Blob"):
        seq: t.uint32
        data: t.sequence[t.byte]

    @dataclass
    class KeyedBlob(IdlStruct, typename="hdds::interop::KeyedBlob"):
        id: t.uint32
        key("id")
        seq: t.uint32
        data: t.sequence[t.byte]

    # sequence[byte] gives the right XTypes type object (sequence<octet>), but cyclonedds 11.0.1
    # (de)serializes it element by element into a list of ints (about 1 s per 4 MiB). Its `bytes`
    # member type has the same wire form (uint32 length + the octets, in XCDR1 and XCDR2 alike) but
    # no type object, so topic creation fails with it. Keep the declared type and swap in the bytes
    # machine for `data` only: samples then carry `bytes`.
    for cls in (Blob, KeyedBlob):
        cls.__idl__.populate()
        for machine in (cls.__idl__.v1_machine, cls.__idl__.v2_machine):
            if not isinstance(machine, StructMachine) or "data" not in machine.members_machines:
                raise SystemExit("peer.py: unexpected cyclonedds internals (this peer is written for 11.0.1)")
            machine.members_machines["data"] = BytesMachine()

    dtype = KeyedBlob if o.keyed else Blob

    def make_qos(for_writer):
        history = Policy.History.KeepAll if o.keep_all else Policy.History.KeepLast(o.depth)
        pols = [
            Policy.Reliability.Reliable(max_blocking_time=duration(seconds=1)) if o.reliable
            else Policy.Reliability.BestEffort,
            Policy.Durability.TransientLocal if o.transient_local else Policy.Durability.Volatile,
            history,
            # XCDR1 on the wire: the representation Fast DDS 2.9 and hdds read
            Policy.DataRepresentation(use_cdrv0_representation=True),
        ]
        if for_writer and o.transient_local:
            # what a late joiner gets is the durability service history: keep it equal to HISTORY
            pols.append(Policy.DurabilityService(cleanup_delay=0, history=history, max_samples=-1,
                                                 max_instances=-1, max_samples_per_instance=-1))
        return Qos(*pols)

    try:
        dp = DomainParticipant(o.domain)
        topic = Topic(dp, o.topic, dtype)
    except DDSException as e:
        print(f"peer.py: cannot create participant/topic: {e}", file=sys.stderr)
        return 2

    if o.mode == "pub":
        writer = DataWriter(dp, topic, qos=make_qos(True))
        max_matched = 0

        def poll():
            nonlocal max_matched
            max_matched = max(max_matched, writer.get_publication_matched_status().current_count)

        poll()
        while max_matched < o.wait_matched and time.monotonic() < deadline and not STOP:
            time.sleep(0.01)
            poll()
        if max_matched < o.wait_matched:
            print(f"peer.py: pub: only {max_matched} of {o.wait_matched} readers matched before the timeout",
                  file=sys.stderr)
            print(f"WRITTEN written=0\nSUMMARY written=0 matched={max_matched}", flush=True)
            return 1
        while o.start_file and not os.path.exists(o.start_file):
            if time.monotonic() >= deadline or STOP:
                print(f"peer.py: pub: --start-file {o.start_file} did not appear before the timeout", file=sys.stderr)
                print(f"WRITTEN written=0\nSUMMARY written=0 matched={max_matched}", flush=True)
                return 1
            time.sleep(0.01)
        if o.settle > 0:
            time.sleep(o.settle)
        ok = True
        written = 0
        t0 = time.monotonic()
        for seq in range(1, o.count + 1):
            if time.monotonic() >= deadline or STOP:
                break
            if o.rate > 0:
                delay = t0 + (seq - 1) / o.rate - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
            sid = (seq - 1) % o.keys if o.keyed else 0
            data = payload(seq, sid, o.size)
            sample = KeyedBlob(id=sid, seq=seq, data=data) if o.keyed else Blob(seq=seq, data=data)
            done = False
            while not done:
                try:
                    writer.write(sample)
                    done = True
                except DDSException as e:
                    # a reliable KEEP_ALL writer times out after max_blocking_time when full
                    if "TIMEOUT" not in str(e).upper() or time.monotonic() >= deadline or STOP:
                        print(f"peer.py: pub: write seq={seq}: {e}", file=sys.stderr)
                        break
            if not done:
                ok = False
                break
            written += 1
            poll()
        print(f"WRITTEN written={written}", flush=True)
        if written != o.count:
            ok = False
        if o.reliable and written > 0:
            left = deadline - time.monotonic()
            if left <= 0 or not writer.wait_for_acks(duration(seconds=left)):
                print("peer.py: pub: not every matched reader acknowledged before the timeout", file=sys.stderr)
                ok = False
        linger_end = min(time.monotonic() + o.linger, deadline)
        while time.monotonic() < linger_end and not STOP:
            time.sleep(0.05)
            poll()
        poll()
        print(f"SUMMARY written={written} matched={max_matched}", flush=True)
        return 0 if ok else 1

    reader = DataReader(dp, topic, qos=make_qos(False))
    cond = ReadCondition(reader, SampleState.Any | ViewState.Any | InstanceState.Any)
    ws = WaitSet(dp)
    ws.attach(cond)
    rx = Rx(o)
    ready = False
    while not rx.done():
        left = deadline - time.monotonic()
        if left <= 0:
            break
        if o.ready_file and not ready:
            if reader.get_subscription_matched_status().current_count >= max(1, o.wait_matched):
                with open(o.ready_file, "w") as f:
                    f.write("matched\n")
                ready = True
        ws.wait(duration(seconds=min(left, 0.1)))
        while True:
            samples = reader.take(N=64)
            if not samples:
                break
            for s in samples:
                if isinstance(s, InvalidSample) or not s.sample_info.valid_data:
                    continue
                rx.record(s.seq, s.id if o.keyed else 0, s.data)
            if rx.done():
                break
    if rx.done() and not STOP:
        time.sleep(max(0.0, min(o.linger, deadline - time.monotonic())))
    st = reader.get_subscription_matched_status()
    print(f"peer.py: sub: matched writers now={st.current_count} total={st.total_count}", file=sys.stderr)
    return rx.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
