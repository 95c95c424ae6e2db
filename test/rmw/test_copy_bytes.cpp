// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// detail/copy_bytes.hpp: the codec's bulk copy is a plain copy at every size and distance, and
// takes its backward path exactly where glibc's `rep movsb` is slow (distance 1-15 modulo 4096,
// 2 KiB and more). Its speed is measured by the benchmarks (results/ros_compare.md), not here.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "detail/copy_bytes.hpp"

namespace
{
struct PageAligned
{
  explicit PageAligned(size_t n)
  : p(static_cast<unsigned char *>(std::aligned_alloc(4096, (n + 4095) / 4096 * 4096))) {}
  ~PageAligned() {std::free(p);}
  PageAligned(const PageAligned &) = delete;
  PageAligned & operator=(const PageAligned &) = delete;
  unsigned char * p;
};

TEST(CopyBytes, CopiesEverySizeAtEveryNearbyDistance)
{
  const size_t sizes[] = {0, 1, 63, 64, 65, 2047, 2048, 2049, 4096 + 13, 65536 + 5};
  constexpr size_t kGuard = 128;
  for (size_t n : sizes) {
    PageAligned src(n + 8192);
    PageAligned dst(n + 8192);
    for (size_t i = 0; i < n + 8192; ++i) {
      src.p[i] = static_cast<unsigned char>(i * 7 + 3);
    }
    for (size_t distance = 0; distance < 80; ++distance) {
      // Both pages' starts are 4096-aligned: the destination lies `distance` bytes past the source
      // modulo 4096.
      const unsigned char * from = src.p + kGuard;
      unsigned char * to = dst.p + kGuard + distance;
      std::memset(dst.p, 0xAA, n + 8192);
      rmw_hdds::copy_bytes(to, from, n);
      ASSERT_EQ(0, std::memcmp(to, from, n)) << "n " << n << " distance " << distance;
      for (size_t g = 0; g < kGuard; ++g) {
        ASSERT_EQ(0xAA, to[-1 - static_cast<ptrdiff_t>(g)]) << "wrote before, n " << n;
        ASSERT_EQ(0xAA, to[n + g]) << "wrote past the end, n " << n << " distance " << distance;
      }
    }
  }
}

TEST(CopyBytes, GoesBackwardOnlyInTheSlowWindow)
{
  PageAligned a(8192);
  PageAligned b(8192);
  for (uintptr_t distance = 0; distance < 4096; ++distance) {
    const bool slow = distance >= 1 && distance <= 15;
    unsigned char * dst = b.p + (40 + distance) % 4096;
    EXPECT_EQ(slow, rmw_hdds::copy_bytes_goes_backward(dst, a.p + 40, 65536)) << distance;
    EXPECT_FALSE(rmw_hdds::copy_bytes_goes_backward(dst, a.p + 40, 2047)) << distance;
  }
}
}  // namespace
