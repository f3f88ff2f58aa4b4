#pragma once
// Symmetric Cartesian tensors of rank 0 to 4, as a tree node's moments store
// them (octree.hpp) and the cell terms of orders 3 and 4 contract them
// (interactions.hpp): one component per distinct index tuple, written once
// for host and device. A rank-n component is named by its exponents (px, py,
// pz), px + py + pz = n: the component with px x's, py y's and pz z's.
//
// The contractions are unrolled at compile time (one always-inlined step per
// component, recursively): no loop, no lambda, no index table in memory, so
// the CPU walk's lane loops stay straight-line code that g++ if-converts and
// vectorises, and the device code holds only registers.
#include "orrery/bh/tree_params.hpp"
#include "orrery/core/exact_math.hpp"

// Inlined into every caller: g++ would otherwise call the large cell terms
// of orders 3 and 4 (interactions.hpp) out of the CPU walk's lane loops
// (group_walk.hpp), leaving them scalar. Inlining changes no operation, so no bit.
#define ORRERY_HDI_ALWAYS [[gnu::always_inline]] ORRERY_HDI

namespace orrery::bh {

/// Distinct components of a symmetric rank-n tensor in three dimensions.
ORRERY_HDI constexpr int sym_components(int n) { return (n + 1) * (n + 2) / 2; }

/// Index of the component (px, py, pz) in its rank's block: the sorted index
/// tuples (x <= y <= z) in lexicographic order, so that rank 2 is QuadIndex's
/// xx, xy, xz, yy, yz, zz and rank 1 is x, y, z.
ORRERY_HDI constexpr int sym_index([[maybe_unused]] int px, int py, int pz) {
  const int r = py + pz;  // the components with more x's come first: r (r + 1) / 2 of them
  return r * (r + 1) / 2 + (r - py);
}

struct Exponents {
  int x, y, z;
};

/// The exponents of component k of rank n (sym_index's inverse).
ORRERY_HDI constexpr Exponents sym_exponents(int n, int k) {
  for (int px = n; px >= 0; --px)
    for (int py = n - px; py >= 0; --py)
      if (sym_index(px, py, n - px - py) == k) return {px, py, n - px - py};
  return {0, 0, 0};
}

/// Offset of the rank-n block (n >= 2) in a node's moments: rank 2 (the
/// second moment S) at 0, rank 3 (the octupole) at 6, rank 4 at 16.
ORRERY_HDI constexpr int moment_offset(int n) { return n <= 2 ? 0 : moment_offset(n - 1) + sym_components(n - 1); }

/// A node's stored moment components for an expansion: 0, 6, 16 or 31.
ORRERY_HDI constexpr int moment_components(Multipole m) {
  return m == Multipole::monopole ? 0 : moment_offset(multipole_order(m) + 1);
}

/// out (rank N - 1) = t (rank N) contracted once with (ex, ey, ez):
/// out_p = t_{p+x} ex + t_{p+y} ey + t_{p+z} ez, fused in that order
/// (component K, then the ones after it).
template <int N, int K = 0, class Real>
ORRERY_HDI_ALWAYS void contract(const Real* t, Real ex, Real ey, Real ez, Real* out) {
  if constexpr (K < sym_components(N - 1)) {
    constexpr Exponents p = sym_exponents(N - 1, K);
    constexpr int ix = sym_index(p.x + 1, p.y, p.z), iy = sym_index(p.x, p.y + 1, p.z), iz = sym_index(p.x, p.y, p.z + 1);
    out[K] = xm::fma(t[iz], ez, xm::fma(t[iy], ey, xm::mul(t[ix], ex)));
    contract<N, K + 1>(t, ex, ey, ez, out);
  }
}

/// out (rank N - 2) = the trace of t (rank N) over one pair of indices:
/// out_p = (t_{p+2x} + t_{p+2y}) + t_{p+2z}; for N = 2, quadrupole_trace's sum.
template <int N, int K = 0, class Real>
ORRERY_HDI_ALWAYS void trace(const Real* t, Real* out) {
  if constexpr (K < sym_components(N - 2)) {
    constexpr Exponents p = sym_exponents(N - 2, K);
    constexpr int ix = sym_index(p.x + 2, p.y, p.z), iy = sym_index(p.x, p.y + 2, p.z), iz = sym_index(p.x, p.y, p.z + 2);
    out[K] = xm::add(xm::add(t[ix], t[iy]), t[iz]);
    trace<N, K + 1>(t, out);
  }
}

/// b^p = bx^px by^py bz^pz, multiplied in the order x, y, z (1 for p = 0).
ORRERY_HDI double power(const Exponents& p, double bx, double by, double bz) {
  double v = 1.0;
  for (int k = 0; k < p.x; ++k) v = xm::mul(v, bx);
  for (int k = 0; k < p.y; ++k) v = xm::mul(v, by);
  for (int k = 0; k < p.z; ++k) v = xm::mul(v, bz);
  return v;
}

ORRERY_HDI constexpr int binomial(int n, int k) {
  int c = 1;
  for (int j = 1; j <= k; ++j) c = c * (n - k + j) / j;
  return c;
}

}  // namespace orrery::bh
