#include "orrery/bh/hilbert.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "orrery/core/rng.hpp"

namespace orrery::bh {
namespace {

struct GridPoint {
  std::uint32_t x, y, z;
};

// Every point of the 2^bits grid, placed at its Hilbert index.
std::vector<GridPoint> curve(int bits) {
  const std::uint32_t side = 1u << bits;
  std::vector<GridPoint> at(std::size_t(side) * side * side, GridPoint{side, side, side});
  for (std::uint32_t x = 0; x < side; ++x)
    for (std::uint32_t y = 0; y < side; ++y)
      for (std::uint32_t z = 0; z < side; ++z) {
        const std::uint64_t h = hilbert_index(x, y, z, bits);
        EXPECT_LT(h, at.size()) << "bits " << bits;
        if (h >= at.size()) continue;
        EXPECT_EQ(at[h].x, side) << "bits " << bits << ": index " << h << " given twice";
        at[h] = {x, y, z};
      }
  return at;
}

TEST(Hilbert, IsABijectionWhoseConsecutiveCellsShareAFace) {
  for (int bits = 1; bits <= 5; ++bits) {
    const std::vector<GridPoint> at = curve(bits);
    EXPECT_EQ(at.front().x + at.front().y + at.front().z, 0u) << "bits " << bits << ": the curve starts at the origin";
    for (std::size_t h = 1; h < at.size(); ++h) {
      const int step = std::abs(int(at[h].x) - int(at[h - 1].x)) + std::abs(int(at[h].y) - int(at[h - 1].y)) +
                       std::abs(int(at[h].z) - int(at[h - 1].z));
      ASSERT_EQ(step, 1) << "bits " << bits << ": indices " << h - 1 << " and " << h << " are not face neighbours";
    }
  }
}

TEST(Hilbert, ACellsKeyIsWhereTheCurveEntersItAtEveryLevel) {
  Rng r(7);
  for (int trial = 0; trial < 2000; ++trial) {
    const auto ix = static_cast<std::uint32_t>(r.next_u64() % kGridSize);
    const auto iy = static_cast<std::uint32_t>(r.next_u64() % kGridSize);
    const auto iz = static_cast<std::uint32_t>(r.next_u64() % kGridSize);
    const std::uint64_t point = hilbert_index(ix, iy, iz, kMaxLevel);
    const std::uint64_t key = morton_key(ix, iy, iz);
    EXPECT_EQ(cell_hilbert_key(key, kMaxLevel), point);
    EXPECT_EQ(cell_hilbert_key(key, 0), 0u);
    for (int level = 1; level < kMaxLevel; ++level) {
      const int shift = key_shift(level);
      const std::uint64_t cell = key >> shift << shift;  // the start key of the point's cell at `level`
      ASSERT_EQ(cell_hilbert_key(cell, level), point >> shift << shift)
          << "point (" << ix << ", " << iy << ", " << iz << "), level " << level;
    }
  }
}

}  // namespace
}  // namespace orrery::bh
