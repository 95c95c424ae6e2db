#!/bin/sh
# Regenerates the golden vectors in this directory from the reference captures: each file is the
# UDP payload (one whole RTPS datagram) of one frame. See README.md for what each one holds.
# Usage: ./extract.sh [captures dir]   (default: /work/shared/captures)
set -eu
CAP=${1:-/work/shared/captures}
cd "$(dirname "$0")"
cut() { # cut OUT CAPTURE FRAME
  tshark -r "$CAP/$2" -Y "frame.number==$3" -T fields -e udp.payload 2>/dev/null | xxd -r -p > "$1"
  [ -s "$1" ] || { echo "frame $3 of $2 is empty" >&2; exit 1; }
}
cut cyclone_spdp_talker.rtps            ros_cyclone_talker_listener.pcap 1
cut cyclone_spdp_listener.rtps          ros_cyclone_talker_listener.pcap 19
cut cyclone_sedp_sub_listener.rtps      ros_cyclone_talker_listener.pcap 33
cut cyclone_sedp_pub_talker_a.rtps      ros_cyclone_talker_listener.pcap 44
cut cyclone_sedp_pub_talker_b.rtps      ros_cyclone_talker_listener.pcap 45
cut cyclone_sedp_sub_talker.rtps        ros_cyclone_talker_listener.pcap 46
cut cyclone_sedp_dispose.rtps           ros_cyclone_talker_listener.pcap 81
cut cyclone_spdp_dispose.rtps           ros_cyclone_talker_listener.pcap 116
cut cyclone_sedp_service_server_pub.rtps ros_cyclone_add_two_ints.pcap 32
cut cyclone_sedp_service_server_sub.rtps ros_cyclone_add_two_ints.pcap 34
cut cyclone_sedp_service_client.rtps    ros_cyclone_add_two_ints.pcap 68
cut cyclone_sedp_ddsperf_pub.rtps       dds_cyclone_ddsperf_pingpong_keyed.pcap 62
cut cyclone_sedp_ddsperf_sub.rtps       dds_cyclone_ddsperf_pingpong_keyed.pcap 69
cut fastdds_spdp_talker.rtps            ros_fastrtps_talker_listener.pcap 1
cut fastdds_sedp_pub_talker.rtps        ros_fastrtps_talker_listener.pcap 22
cut fastdds_sedp_sub_talker.rtps        ros_fastrtps_talker_listener.pcap 23
cut fastdds_sedp_sub_listener.rtps      ros_fastrtps_talker_listener.pcap 72
cut fastdds_sedp_dispose.rtps           ros_fastrtps_talker_listener.pcap 116
cut fastdds_spdp_dispose.rtps           ros_fastrtps_talker_listener.pcap 156
cut fastdds_spdp_shm_locators.rtps      localhost_only_cyclone_talker_fastrtps_listener.pcap 19
