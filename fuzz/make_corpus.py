#!/usr/bin/env python3
"""Writes the seed corpus of each fuzz target from the golden vectors in
hdds_core/tests/data/rtps (real Cyclone DDS and Fast DDS datagrams). Run from anywhere.
The committed corpus is these seeds grown by fuzzing and minimized: after adding vectors, run
this, then `scripts/fuzz.sh --minimize` (it folds the new seeds in) and commit fuzz/corpus.

corpus/rtps_message/seed_*    the datagrams as they are
corpus/parameter_list/seed_*  flags byte + each DATA's inline QoS and discovery parameter list
corpus/cdr/seed_*             op count + op codes + each DATA's plain CDR payload
"""
import glob
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
VECTORS = os.path.join(HERE, "../hdds_core/tests/data/rtps")


def load(path):
    digits = "".join(l.strip() for l in open(path) if not l.startswith("#"))
    return bytes.fromhex(digits)


def datas(msg):
    """Yields (little_endian, inline_qos or None, payload or None) of each DATA submessage."""
    pos = 20
    while pos + 4 <= len(msg):
        sid, flags = msg[pos], msg[pos + 1]
        le = flags & 1
        (length,) = struct.unpack("<H" if le else ">H", msg[pos + 2:pos + 4])
        body = msg[pos + 4:pos + 4 + (length or len(msg) - pos - 4)]
        if sid == 0x15:
            (otiq,) = struct.unpack("<H" if le else ">H", body[2:4])
            at, qos = 4 + otiq, None
            if flags & 0x02:
                start = at
                while True:  # walk to the sentinel
                    pid, plen = struct.unpack("<HH" if le else ">HH", body[at:at + 4])
                    at += 4
                    if pid == 1:
                        break
                    at += plen
                qos = body[start:at]
            payload = body[at:] if flags & 0x0C else None
            yield le, qos, payload
        pos += 4 + len(body)


def write(target, name, data):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "seed_" + name), "wb") as f:
        f.write(data)


# Op codes of the cdr target: 0 u8, 1 u16, 2 u32, 3 u64, 5 f64, 7 string, 9 seq<u16>, 11 seq<octet>, 12 24 octets
CDR_OPS = {
    "chatter": bytes([7]),
    "service": bytes([3, 3, 3, 3]),
    "ros_discovery_info": bytes([12, 2, 7, 7, 2, 12, 2, 12]),
}

for path in sorted(glob.glob(os.path.join(VECTORS, "*.hex"))):
    name = os.path.splitext(os.path.basename(path))[0]
    msg = load(path)
    write("rtps_message", name, msg)
    for i, (le, qos, payload) in enumerate(datas(msg)):
        if qos is not None:
            write("parameter_list", "%s_%d_inline_qos" % (name, i), bytes([le | 2]) + qos)
        if payload is None or len(payload) < 4:
            continue
        kind = payload[1]
        if kind in (2, 3):  # PL_CDR_BE / PL_CDR_LE: discovery data
            write("parameter_list", "%s_%d_plist" % (name, i), bytes([kind & 1]) + payload[4:])
        else:
            ops = next((v for k, v in CDR_OPS.items() if k in name), bytes([2, 7, 3]))
            write("cdr", "%s_%d" % (name, i), bytes([len(ops)]) + ops + payload)
