#!/usr/bin/python3
"""A lossy Ethernet link in user space: the stand-in for netem, which this machine's kernel lacks
(no sch_netem, no tc classifiers or actions, no nft/iptables).

It joins two interfaces (the ends of two veth pairs in a network namespace of their own, see
test/fault/run.sh) as a two-port hub: every frame that arrives on one goes out of the other,
except that IPv4 frames are impaired: each is dropped with probability --loss; a frame that is
kept is held back with probability --reorder and sent after 1 to 3 later frames of the same
direction overtook it (or after --hold-ms if none come); and with probability --duplicate it is
sent twice. Other frames (ARP, IPv6) pass untouched: losing ARP would only delay neighbour
resolution, which says nothing about DDS reliability. Multicast frames (SPDP) are IPv4 frames like
any other. Decisions come from a random generator per direction seeded with --seed, so one
direction's fate of its n-th frame does not depend on the other direction's traffic.

The sending kernel leaves UDP checksums to the (virtual) NIC, so the frames read here carry only a
partial checksum; the relay fills in the checksum of every whole (unfragmented) IPv4 UDP datagram
as the NIC would, or the receiving kernel would drop them.

Runs until --seconds pass or SIGTERM/SIGINT; prints "READY" once both interfaces are open, and at
exit one line per direction, which test/fault/run.sh parses:
  LINK dir=A>B in=N out=N dropped=N duplicated=N reordered=N other=N send_errors=N overruns=N
(in/out: frames; out counts duplicates; reordered: frames sent after at least one later frame;
other: non-IPv4 frames passed untouched; overruns: frames the kernel dropped because the relay
read too slowly, loss it did not choose). Exit 0, or 2 on a usage or socket error.

  lossy_link.py --a IFACE --b IFACE [--loss 0.2] [--duplicate 0.05] [--reorder 0.05]
                [--hold-ms 20] [--seed 7] [--seconds 60]
Needs CAP_NET_RAW (root); stdlib only.
"""
import argparse
import random
import select
import signal
import socket
import struct
import sys
import time
from array import array

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_IGNORE_OUTGOING = 23
PACKET_STATISTICS = 6
SO_SNDBUFFORCE = 32
SO_RCVBUFFORCE = 33
PACKET_OUTGOING = 4
ETH_HEADER = 14
ETHERTYPE_IPV4 = 0x0800
IPPROTO_UDP = 17
MAX_FRAME = 65536
MAX_HELD = 64  # frames held back per direction at once: bounds the memory a burst can take


def ones_complement_sum(data):
    """RFC 1071 sum of `data` in the machine's byte order (the sum is byte-order independent: it
    is stored back in the same order)."""
    if len(data) % 2:
        data += b"\0"
    total = sum(array("H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return total


def fill_udp_checksum(frame):
    """The frame with its UDP checksum computed when it carries a whole IPv4 UDP datagram."""
    if len(frame) < ETH_HEADER + 20 or struct.unpack_from("!H", frame, 12)[0] != ETHERTYPE_IPV4:
        return frame
    ip = ETH_HEADER
    ihl = (frame[ip] & 0x0F) * 4
    total_len = struct.unpack_from("!H", frame, ip + 2)[0]
    flags_offset = struct.unpack_from("!H", frame, ip + 6)[0]
    if frame[ip + 9] != IPPROTO_UDP or flags_offset & 0x3FFF or ip + total_len > len(frame) or total_len < ihl + 8:
        return frame  # not UDP, or a fragment: the checksum covers the whole datagram, done by the sender's IP layer
    udp = ip + ihl
    seg = bytearray(frame[udp:ip + total_len])
    seg[6:8] = b"\0\0"
    pseudo = frame[ip + 12:ip + 20] + struct.pack("!BBH", 0, IPPROTO_UDP, len(seg))
    csum = ~ones_complement_sum(pseudo + bytes(seg)) & 0xFFFF
    out = bytearray(frame)
    out[udp + 6:udp + 8] = struct.pack("=H", csum or 0xFFFF)
    return bytes(out)


class Direction:
    """One way through the link: impairs the frames read on one interface, sends to the other."""

    def __init__(self, name, in_sock, out_sock, args):
        self.name, self.inp, self.out, self.args = name, in_sock, out_sock, args
        self.rng = random.Random(f"{args.seed}:{name}")
        self.held = []  # [frames still to overtake it, frames it had to wait for, deadline, frame]
        self.c = dict.fromkeys(["in", "out", "dropped", "duplicated", "reordered", "other", "send_errors", "overruns"], 0)

    def send(self, frame):
        try:
            self.out.send(fill_udp_checksum(frame))
            self.c["out"] += 1
        except OSError:
            self.c["send_errors"] += 1

    def release(self, h):
        self.held.remove(h)
        if h[0] < h[1]:
            self.c["reordered"] += 1
        self.send(h[3])

    def handle(self, frame, now):
        self.c["in"] += 1
        if len(frame) < ETH_HEADER or struct.unpack_from("!H", frame, 12)[0] != ETHERTYPE_IPV4:
            self.c["other"] += 1
            self.send(frame)
            return
        if self.rng.random() < self.args.loss:
            self.c["dropped"] += 1
            return
        if self.rng.random() < self.args.reorder and len(self.held) < MAX_HELD:
            n = self.rng.randint(1, 3)
            self.held.append([n, n, now + self.args.hold_ms / 1000, frame])
            return
        self.send(frame)
        if self.rng.random() < self.args.duplicate:
            self.c["duplicated"] += 1
            self.send(frame)
        for h in list(self.held):
            h[0] -= 1
            if h[0] == 0:
                self.release(h)

    def expire(self, now, everything=False):
        for h in list(self.held):
            if everything or h[2] <= now:
                self.release(h)

    def next_deadline(self):
        return min((h[2] for h in self.held), default=None)

    def count_overruns(self):
        """Frames the kernel dropped because this relay read too slowly: loss it did not choose."""
        try:
            _, drops = struct.unpack("II", self.inp.getsockopt(SOL_PACKET, PACKET_STATISTICS, 8))
            self.c["overruns"] += drops  # reading the statistics resets them
        except OSError:
            pass

    def report(self):
        self.count_overruns()
        return f"LINK dir={self.name} " + " ".join(f"{k}={v}" for k, v in self.c.items())


def open_port(ifname):
    # Protocol 0 at creation: the socket hears nothing until bound to the one interface.
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
    try:
        s.setsockopt(SOL_PACKET, PACKET_IGNORE_OUTGOING, 1)
    except OSError:
        pass  # before Linux 4.20: outgoing frames are skipped by their packet type instead
    # Room for bursts while this (slow, Python) relay is off the CPU; FORCE passes net.core.rmem_max
    # (root). Frames lost anyway are counted as overruns.
    for force, plain in ((SO_RCVBUFFORCE, socket.SO_RCVBUF), (SO_SNDBUFFORCE, socket.SO_SNDBUF)):
        try:
            s.setsockopt(socket.SOL_SOCKET, force, 32 << 20)
        except OSError:
            s.setsockopt(socket.SOL_SOCKET, plain, 32 << 20)
    s.bind((ifname, ETH_P_ALL))
    return s


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--a", required=True, help="interface of side A")
    ap.add_argument("--b", required=True, help="interface of side B")
    ap.add_argument("--loss", type=float, default=0.2, help="probability an IPv4 frame is dropped")
    ap.add_argument("--duplicate", type=float, default=0.05, help="probability a kept frame is sent twice")
    ap.add_argument("--reorder", type=float, default=0.05, help="probability a kept frame is held back")
    ap.add_argument("--hold-ms", type=float, default=20, help="longest a held frame waits for later ones")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--seconds", type=float, default=60, help="the relay stops by itself after this")
    args = ap.parse_args()
    for p in (args.loss, args.duplicate, args.reorder):
        if not 0 <= p <= 1:
            ap.error("probabilities are between 0 and 1")
    try:
        sa, sb = open_port(args.a), open_port(args.b)
    except OSError as e:
        print(f"lossy_link: cannot open {args.a}/{args.b}: {e} (needs root and existing interfaces)", file=sys.stderr)
        return 2
    ab, ba = Direction("A>B", sa, sb, args), Direction("B>A", sb, sa, args)
    route = {sa.fileno(): (sa, ab), sb.fileno(): (sb, ba)}
    stop = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.append(1))
    poller = select.poll()
    for fd in route:
        poller.register(fd, select.POLLIN)
    end = time.monotonic() + args.seconds
    print("READY", flush=True)
    while not stop:
        now = time.monotonic()
        if now >= end:
            break
        wake = min([end] + [d for d in (ab.next_deadline(), ba.next_deadline()) if d is not None])
        try:
            events = poller.poll(max(0, (wake - now) * 1000))
        except InterruptedError:
            continue
        now = time.monotonic()
        for fd, _ in events:
            sock, way = route[fd]
            for _ in range(256):  # a bounded batch, so that one busy direction cannot starve the other
                try:
                    frame, addr = sock.recvfrom(MAX_FRAME, socket.MSG_DONTWAIT)
                except (BlockingIOError, InterruptedError):
                    break
                if addr[2] != PACKET_OUTGOING:
                    way.handle(frame, now)
        ab.expire(now)
        ba.expire(now)
    ab.expire(0, everything=True)
    ba.expire(0, everything=True)
    print(ab.report())
    print(ba.report(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
