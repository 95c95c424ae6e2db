#!/usr/bin/env python3
# Copyright 2026 The rmw_hdds authors. Apache-2.0.
"""Checks that librmw_hdds.so keeps every sample's code together (docs/engine.md, "Code layout").

The functions a publish, a take and a wait run through are marked hot (RMW_HDDS_HOT in the RMW
layer, `#[link_section = ".text.hot.hdds"]` in the engine), and GNU ld gathers .text.hot.* at the
start of .text. A linker or a build change that scatters them again (lld without
-z keep-text-section-prefix, a lost attribute) would cost low-rate topics their latency without any
test failing; this check fails instead.

Usage: check_code_layout.py LIBRARY
"""
import subprocess
import sys

# A few functions of each kind on the sample path: the rmw entry points, the RMW layer's classes,
# the C ABI, and the engine's write, delivery, take and wait.
SAMPLE_PATH = [
    "rmw_publish",
    "rmw_take_with_info",
    "rmw_wait",
    "rmw_trigger_guard_condition",
    "rmw_hdds::Publisher::publish(void const*) const",
    "rmw_hdds::Subscription::take(void*, rmw_message_info_s*, bool*)",
    "rmw_hdds::cdr::write_body(",
    "rmw_hdds::cdr::read_body(",
    "hdds_writer_write_into",
    "hdds_reader_take_with",
    "hdds_waitset_wait",
    "hdds_core::runtime::writer::Writer::write_core",
    "hdds_core::runtime::reader::Reader::pop",
    "hdds_core::runtime::waitset::WaitSet::wait_from",
    "hdds_core::transport::shm::ring::RingView::read_next_pinned",
    "hdds_core::runtime::net::shm::ShmPort::drain",
]
# The hot code is about 80 KiB today; the same functions spread over 1.2 MiB without the
# attributes.
MAX_SPAN = 256 * 1024


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = subprocess.run(["nm", "--defined-only", "-S", "-C", sys.argv[1]],
                         capture_output=True, text=True, check=True).stdout
    found = {}
    for line in out.splitlines():
        parts = line.split(None, 3)
        if len(parts) != 4 or parts[2] not in "tTwW":
            continue
        start, size, name = int(parts[0], 16), int(parts[1], 16), parts[3]
        for want in SAMPLE_PATH:
            # An entry ending in "(" stands for every overload; the ".cold" parts GCC splits off
            # are not the body.
            matches = name.startswith(want) if want.endswith("(") else name == want
            if matches and "[clone" not in name:
                if want not in found or size > found[want][1]:
                    found[want] = (start, size)
    missing = [w for w in SAMPLE_PATH if w not in found]
    if missing:
        sys.exit(f"check_code_layout: not found in {sys.argv[1]}: {', '.join(missing)} "
                 "(renamed or inlined? update SAMPLE_PATH in this script)")
    lo = min(s for s, _ in found.values())
    hi = max(s + z for s, z in found.values())
    for want in sorted(found, key=lambda w: found[w][0]):
        print(f"  {found[want][0]:#10x} {found[want][1]:6d}  {want}")
    span = hi - lo
    if span > MAX_SPAN:
        sys.exit(f"check_code_layout: the sample path spans {span // 1024} KiB of code, more than "
                 f"{MAX_SPAN // 1024} KiB: the hot functions were not gathered (GNU ld gathers "
                 ".text.hot.*; lld needs -z keep-text-section-prefix). See docs/engine.md, "
                 "\"Code layout\".")
    print(f"check_code_layout: the sample path spans {span // 1024} KiB of code "
          f"(at most {MAX_SPAN // 1024} KiB)")


if __name__ == "__main__":
    main()
