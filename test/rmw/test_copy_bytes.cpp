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
#include <vector>

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

namespace
{
// assign_bytes: the vector ends up holding exactly the bytes, whatever it held and wherever its
// storage lies from the source, the backward path included (a source 4 bytes before the
// storage's place modulo 4096, as a CDR body's byte array often is).
TEST(AssignBytes, HoldsExactlyTheBytesOnBothPaths)
{
  const size_t n = 8192 + 3;
  PageAligned src(n + 8192);
  for (size_t i = 0; i < n + 8192; ++i) {
    src.p[i] = static_cast<unsigned char>(i * 13 + 1);
  }
  for (size_t held : {size_t{0}, size_t{10}, n, 2 * n}) {
    for (bool slow : {false, true}) {
      std::vector<unsigned char> v(held, 0xee);
      v.reserve(n);
      // The source, placed so that the storage lies 4 bytes past it modulo 4096 (slow), or at
      // the same place (not).
      const size_t dst_page = reinterpret_cast<uintptr_t>(v.data()) & 4095u;
      const size_t at = (dst_page + 4096 - (slow ? 4 : 0)) % 4096;
      const unsigned char * from = src.p + at;
      EXPECT_EQ(slow, rmw_hdds::copy_bytes_goes_backward(v.data(), from, n));
      rmw_hdds::assign_bytes(v, from, n);
      ASSERT_EQ(n, v.size());
      EXPECT_EQ(0, std::memcmp(v.data(), from, n)) << "held " << held << (slow ? ", slow" : "");
    }
  }
  std::vector<int8_t> signed_bytes(5, -1);
  rmw_hdds::assign_bytes(signed_bytes, src.p, 2);
  ASSERT_EQ(2u, signed_bytes.size());
  EXPECT_EQ(static_cast<int8_t>(src.p[1]), signed_bytes[1]);
  rmw_hdds::assign_bytes(signed_bytes, src.p, 0);
  EXPECT_TRUE(signed_bytes.empty());
}
}  // namespace
