// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// copy_bytes: std::memcpy for the CDR codec's bulk copies (a message's byte arrays, plain runs and
// sequences), minus a trap of the C library on AMD CPUs.
//
// Why: glibc (2.36 here) copies from 2 KiB up to its non-temporal threshold (about 1 MiB on these
// machines) with `rep movsb`. On the AMD EPYC of these VMs that instruction runs 10-16x slower when
// the destination lies 1 to 15 bytes past the source modulo 4096 (measured: 64 KiB in 18.7 µs
// instead of 1.1 µs, 256 KiB in 76 µs instead of 4.5 µs; every other distance is fast). A CDR body
// starts 4 bytes into its buffer, so a byte array's place in the stream and in the message differ
// by 4 or 12 modulo 16, and for some heap layouts they sit at that distance on every message:
// perf_test Array64k took 118 µs one process against Cyclone's 86 µs, and forcing glibc off
// `rep movsb` (GLIBC_TUNABLES) brought ours to 64-90 µs. In that window a backward copy in
// 64-byte blocks, which never loads the bytes just past what it stored, takes 2.2 µs for 64 KiB;
// everywhere else memcpy is the faster one and is what runs.
#ifndef RMW_HDDS__DETAIL__COPY_BYTES_HPP_
#define RMW_HDDS__DETAIL__COPY_BYTES_HPP_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace rmw_hdds
{
// Below this glibc never uses `rep movsb`.
constexpr size_t kRepMovsbFrom = 2048;
// Destination-minus-source distances (modulo 4096) where `rep movsb` is slow: [1, kSlowDistanceEnd).
constexpr uintptr_t kSlowDistanceEnd = 16;

// Whether copy_bytes takes the backward path for these buffers (exposed for its test).
inline bool copy_bytes_goes_backward(const void * dst, const void * src, size_t n)
{
  const uintptr_t distance =
    (reinterpret_cast<uintptr_t>(dst) - reinterpret_cast<uintptr_t>(src)) & uintptr_t{4095};
  return n >= kRepMovsbFrom && distance != 0 && distance < kSlowDistanceEnd;
}

// memcpy(dst, src, n) for non-overlapping buffers.
inline void copy_bytes(void * dst, const void * src, size_t n)
{
  if (!copy_bytes_goes_backward(dst, src, n)) {
    std::memcpy(dst, src, n);
    return;
  }
  constexpr size_t kBlock = 64;
  auto * d = static_cast<unsigned char *>(dst);
  const auto * s = static_cast<const unsigned char *>(src);
  size_t i = n - n % kBlock;
  std::memcpy(d + i, s + i, n - i);
  while (i != 0) {
    i -= kBlock;
    // Fixed-size copies through a local: the compiler emits vector loads and stores, no call.
    unsigned char block[kBlock];
    std::memcpy(block, s + i, kBlock);
    std::memcpy(d + i, block, kBlock);
  }
}

// Makes `v` hold exactly the n bytes at `src` (not inside v), without first zero-filling what it
// grows into: the value-initialization of resize() is a memset as long as the copy (a 4 MiB
// sensor_msgs/Image or PointCloud2 payload, taken into the new message rclcpp allocates for every
// take). It reserves, then copies with assign() (memmove), or with copy_bytes after a resize
// where the reserved storage lies at a distance from `src` where memmove is slow. Cleared first,
// so that growing a used vector does not copy its old bytes into the new storage.
template<typename T>
void assign_bytes(std::vector<T> & v, const void * src, size_t n)
{
  static_assert(sizeof(T) == 1, "one-byte elements only");
  v.clear();
  v.reserve(n);
  if (copy_bytes_goes_backward(v.data(), src, n)) {
    v.resize(n);
    copy_bytes(v.data(), src, n);
    return;
  }
  // One-byte element types (uint8_t, int8_t: character types) may alias any bytes.
  const T * from = static_cast<const T *>(src);
  v.assign(from, from + n);
}
}  // namespace rmw_hdds

#endif  // RMW_HDDS__DETAIL__COPY_BYTES_HPP_
