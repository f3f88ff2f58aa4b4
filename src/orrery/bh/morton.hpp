#pragma once
// 63-bit Morton keys (21 bits per axis) over the bounding cube of all
// particles (DESIGN §3). Everything here is integer arithmetic or IEEE double
// arithmetic through orrery::xm, so host and device produce identical keys.
#include <cstdint>

#include "orrery/core/exact_math.hpp"

namespace orrery::bh {

inline constexpr int kMaxLevel = 21;                        // bits per axis
inline constexpr std::uint32_t kGridSize = 1u << kMaxLevel;  // cells per axis at the finest level

/// The cube the keys are taken over: origin at the bounding box's minimum
/// corner, side equal to the box's largest extent (0 if all particles coincide).
struct Cube {
  double x0 = 0, y0 = 0, z0 = 0;
  double side = 0;
  /// Grid cells per unit length; 0 when side == 0 so every key is 0.
  ORRERY_HD double scale() const { return side > 0 ? xm::div(double(kGridSize), side) : 0.0; }
};

/// Spreads the low 21 bits of v so that bit b lands at bit 3b.
ORRERY_HDI std::uint64_t spread_bits(std::uint32_t v) {
  std::uint64_t x = v & 0x1fffffu;
  x = (x | (x << 32)) & 0x1f00000000ffffULL;
  x = (x | (x << 16)) & 0x1f0000ff0000ffULL;
  x = (x | (x << 8)) & 0x100f00f00f00f00fULL;
  x = (x | (x << 4)) & 0x10c30c30c30c30c3ULL;
  x = (x | (x << 2)) & 0x1249249249249249ULL;
  return x;
}

/// Inverse of spread_bits.
ORRERY_HDI std::uint32_t compact_bits(std::uint64_t x) {
  x &= 0x1249249249249249ULL;
  x = (x | (x >> 2)) & 0x10c30c30c30c30c3ULL;
  x = (x | (x >> 4)) & 0x100f00f00f00f00fULL;
  x = (x | (x >> 8)) & 0x1f0000ff0000ffULL;
  x = (x | (x >> 16)) & 0x1f00000000ffffULL;
  x = (x | (x >> 32)) & 0x1fffffULL;
  return static_cast<std::uint32_t>(x);
}

/// Morton key of integer grid coordinates: x in the highest bit of each triple.
ORRERY_HDI std::uint64_t morton_key(std::uint32_t ix, std::uint32_t iy, std::uint32_t iz) {
  return (spread_bits(ix) << 2) | (spread_bits(iy) << 1) | spread_bits(iz);
}

/// Grid coordinate of position x along one axis: floor((x - origin) * scale),
/// clamped to the grid (the maximum lands on the last cell).
ORRERY_HDI std::uint32_t grid_coordinate(double x, double origin, double scale) {
  const double g = xm::mul(xm::sub(x, origin), scale);
  const double top = double(kGridSize - 1);
  return static_cast<std::uint32_t>(g < top ? (g > 0.0 ? g : 0.0) : top);
}

template <class Real>
ORRERY_HDI std::uint64_t position_key(Real x, Real y, Real z, const Cube& c) {
  const double s = c.scale();
  return morton_key(grid_coordinate(double(x), c.x0, s), grid_coordinate(double(y), c.y0, s),
                    grid_coordinate(double(z), c.z0, s));
}

/// Number of key bits below the child digit of a node at `level`: a node at
/// level L covers [key, key + (1 << 3*(21-L))).
ORRERY_HDI int key_shift(int level) { return 3 * (kMaxLevel - level); }

}  // namespace orrery::bh
