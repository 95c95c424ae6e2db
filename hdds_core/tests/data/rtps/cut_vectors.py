#!/usr/bin/env python3
"""Cuts the golden RTPS datagrams in this directory out of the reference captures.

Usage: python3 cut_vectors.py [CAPTURE_DIR]   (default: ../../../../../shared/captures)

Each vector is the UDP payload of one frame (found with `tshark -r CAPTURE -Y rtps`), written as hex
with '#' comment lines naming the capture and frame, so that the tests need no pcap reader and a
reviewer can see where every byte came from. Re-running it rewrites the same files.
"""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CAPTURES = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "../../../../../shared/captures")

# (file name, capture, frame number, what it is)
VECTORS = [
    ("cyclone_spdp_data_p", "ros_cyclone_talker_listener.pcap", 1, "Cyclone SPDP: INFO_TS, DATA(p)"),
    ("fastdds_spdp_data_p", "ros_fastrtps_talker_listener.pcap", 1, "Fast DDS SPDP: INFO_TS, DATA(p), vendor submessage 0x80"),
    ("cyclone_sedp_data_w", "ros_cyclone_talker_listener.pcap", 30, "Cyclone SEDP publication: INFO_TS, DATA(w)"),
    ("cyclone_sedp_data_r", "ros_cyclone_add_two_ints.pcap", 59, "Cyclone SEDP subscription: INFO_TS, DATA(r)"),
    ("fastdds_sedp_data_w", "ros_fastrtps_talker_listener.pcap", 25, "Fast DDS SEDP publication: INFO_DST, INFO_TS, DATA(w)"),
    ("fastdds_sedp_data_r", "ros_fastrtps_talker_listener.pcap", 26, "Fast DDS SEDP subscription: INFO_DST, INFO_TS, DATA(r)"),
    ("cyclone_heartbeats", "ros_cyclone_talker_listener.pcap", 29, "Cyclone: INFO_DST, 5 HEARTBEAT"),
    ("fastdds_heartbeat", "ros_fastrtps_talker_listener.pcap", 10, "Fast DDS: INFO_DST, HEARTBEAT"),
    ("cyclone_acknacks", "ros_cyclone_talker_listener.pcap", 34, "Cyclone: INFO_DST, 5 ACKNACK"),
    ("fastdds_acknack", "ros_fastrtps_talker_listener.pcap", 18, "Fast DDS: INFO_DST, ACKNACK"),
    ("fastdds_gap", "ros_fastrtps_add_two_ints.pcap", 87, "Fast DDS: INFO_DST, GAP, INFO_TS, DATA(r[UD]) (dispose)"),
    ("cyclone_data_frag_last", "ros_cyclone_perf_array64k_fragments.pcap", 155, "Cyclone DATA_FRAG: fragments 41-49 of a 65556-byte sample, 1344-byte fragments"),
    ("fastdds_data_frag_2", "ros_fastrtps_perf_array64k_fragments.pcap", 118, "Fast DDS: INFO_DST, INFO_TS, DATA_FRAG: fragment 2 of a 65556-byte sample"),
    ("fastdds_service_request", "ros_fastrtps_add_two_ints.pcap", 80, "Fast DDS rq/add_two_intsRequest DATA with inline QoS PID 0x800f"),
    ("fastdds_service_reply", "ros_fastrtps_add_two_ints.pcap", 81, "Fast DDS rr/add_two_intsReply DATA with inline QoS PID 0x800f"),
    ("cyclone_service_request", "ros_cyclone_add_two_ints.pcap", 69, "Cyclone rq/add_two_intsRequest DATA (16-byte request header), HEARTBEAT"),
    ("cyclone_service_reply", "ros_cyclone_add_two_ints.pcap", 75, "Cyclone rr/add_two_intsReply DATA (16-byte request header), HEARTBEAT"),
    ("cyclone_ros_discovery_info", "ros_cyclone_add_two_ints.pcap", 101, "Cyclone ros_discovery_info sample: INFO_TS, DATA"),
    ("fastdds_ros_discovery_info", "ros_fastrtps_talker_listener.pcap", 28, "Fast DDS ros_discovery_info sample: INFO_DST, INFO_TS, DATA"),
    ("cyclone_chatter", "ros_cyclone_talker_listener.pcap", 71, "Cyclone rt/chatter std_msgs/String: INFO_TS, DATA, HEARTBEAT"),
    ("fastdds_chatter", "ros_fastrtps_talker_listener.pcap", 88, "Fast DDS rt/chatter std_msgs/String: INFO_DST, INFO_TS, DATA"),
    ("cyclone_spdp_dispose", "ros_cyclone_add_two_ints.pcap", 125, "Cyclone SPDP unregister/dispose: INFO_TS, DATA(p[UD]) with key hash and status info"),
]


def frames(path):
    """Yields (frame number, link-layer bytes) of a classic pcap file."""
    with open(path, "rb") as f:
        data = f.read()
    magic = data[:4]
    endian = "<" if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    linktype = struct.unpack(endian + "I", data[20:24])[0]
    pos, n = 24, 0
    while pos + 16 <= len(data):
        incl = struct.unpack(endian + "I", data[pos + 8:pos + 12])[0]
        n += 1
        yield n, linktype, data[pos + 16:pos + 16 + incl]
        pos += 16 + incl


def udp_payload(linktype, pkt):
    if linktype == 1:  # Ethernet
        off, ethertype = 14, struct.unpack(">H", pkt[12:14])[0]
    elif linktype == 113:  # Linux cooked
        off, ethertype = 16, struct.unpack(">H", pkt[14:16])[0]
    else:
        raise ValueError("link type %d" % linktype)
    assert ethertype == 0x0800, "IPv4 only"
    ihl = (pkt[off] & 0x0F) * 4
    assert pkt[off + 9] == 17, "UDP only"
    udp = off + ihl
    length = struct.unpack(">H", pkt[udp + 4:udp + 6])[0]
    return pkt[udp + 8:udp + length]


def main():
    for name, capture, frame, what in VECTORS:
        for n, lt, pkt in frames(os.path.join(CAPTURES, capture)):
            if n == frame:
                payload = udp_payload(lt, pkt)
                break
        else:
            raise SystemExit("frame %d not in %s" % (frame, capture))
        assert payload[:4] == b"RTPS", name
        with open(os.path.join(HERE, name + ".hex"), "w") as out:
            out.write("# %s\n# capture: %s, frame %d (UDP payload, %d bytes)\n" % (what, capture, frame, len(payload)))
            for i in range(0, len(payload), 32):
                out.write(payload[i:i + 32].hex() + "\n")
        print(name, len(payload))


if __name__ == "__main__":
    main()
