#pragma once
// The per-node arithmetic of the tree build, written once for host and
// device (DESIGN §3, docs/adr/0010). Both builds run one algorithm, the CPU's
// (octree_build.cpp) in OpenMP loops and the GPU's (octree_gpu.cu) in
// kernels, and call these functions for each node, so the trees they produce
// are identical by construction:
//
//   1. box       min/max reductions (exact, order-independent) -> cube_from_box
//   2. keys      position_key (morton.hpp), then a stable sort of (key, index)
//   3. topology  read off the sorted keys per particle and per node, directly
//                in pre-order (build_topology.hpp, docs/adr/0009)
//   4. moments   bottom-up: leaf_moments over a leaf's sorted particles,
//                combine_moments over a node's children in child order (the
//                chain p + 1, then next); store_moments rounds what the walk reads.
//
// All floating-point arithmetic is orrery::xm in double (docs/adr/0001).
#include <cstdint>

#include "orrery/bh/morton.hpp"
#include "orrery/bh/multipole_tensors.hpp"
#include "orrery/bh/octree.hpp"
#include "orrery/bh/opening_geometric.hpp"
#include "orrery/bh/opening_relative.hpp"

namespace orrery::bh {

/// The cube over an axis-aligned box: origin at the minimum corner, side the
/// largest extent.
ORRERY_HDI Cube cube_from_box(double xmin, double ymin, double zmin, double xmax, double ymax, double zmax) {
  const double ex = xm::sub(xmax, xmin), ey = xm::sub(ymax, ymin), ez = xm::sub(zmax, zmin);
  const double exy = ex > ey ? ex : ey;
  return {xmin, ymin, zmin, exy > ez ? exy : ez};
}

/// Whether a point lies in cube c, faces included: the test both builds make
/// of a source when the cube is given from outside (the MPI ranks' global one).
/// v - lo <= side, not v <= lo + side: a bounding cube's side is the rounded
/// difference max - min (cube_from_box), and lo + side may round below the
/// maximum; the subtraction is monotone, so every point of the box passes.
ORRERY_HDI bool in_cube(double x, double y, double z, const Cube& c) {
  return (x >= c.x0) & (xm::sub(x, c.x0) <= c.side) & (y >= c.y0) & (xm::sub(y, c.y0) <= c.side) & (z >= c.z0) &
         (xm::sub(z, c.z0) <= c.side);
}

/// Moments of a node in double, before they are rounded to the tree's
/// precision: q holds the moments about the centre of mass of ranks 2 up to
/// the expansion's order, in the layout of multipole_tensors.hpp (rank 2 =
/// the second moment S, octree.hpp; then ranks 3 and 4).
template <int Components>
struct MomentsN {
  double mass = 0;
  double cx = 0, cy = 0, cz = 0;  // centre of mass
  double q[Components] = {};
};
/// The record of monopole and quadrupole builds (and of the MPI ranks' exchange).
using NodeMoments = MomentsN<kQuadComponents>;
/// The record of an expansion M: NodeMoments up to the quadrupole, then 16 or 31 components.
template <Multipole M>
using Moments = MomentsN<(moment_components(M) > kQuadComponents ? moment_components(M) : kQuadComponents)>;

/// Geometric centre and side of the cell (key, level) of cube c.
struct CellGeometry {
  double cx, cy, cz, side;
};

ORRERY_HDI CellGeometry cell_geometry(std::uint64_t key, std::int32_t level, const Cube& c) {
  // One grid unit is side / 2^21, a power-of-two scaling (exact).
  const double unit = xm::mul(c.side, 1.0 / double(kGridSize));
  const double half_units = double(std::uint32_t(1) << (kMaxLevel - level)) * 0.5;
  const double ix = xm::add(double(compact_bits(key >> 2)), half_units);
  const double iy = xm::add(double(compact_bits(key >> 1)), half_units);
  const double iz = xm::add(double(compact_bits(key)), half_units);
  return {xm::fma(ix, unit, c.x0), xm::fma(iy, unit, c.y0), xm::fma(iz, unit, c.z0),
          xm::mul(c.side, 1.0 / double(std::uint32_t(1) << level))};
}

/// Adds m * d d^T to the second moment q.
ORRERY_HDI void add_quadrupole_term(double q[kQuadComponents], double m, double dx, double dy, double dz) {
  const double mx = xm::mul(m, dx), my = xm::mul(m, dy);
  q[kXX] = xm::fma(mx, dx, q[kXX]);
  q[kXY] = xm::fma(mx, dy, q[kXY]);
  q[kXZ] = xm::fma(mx, dz, q[kXZ]);
  q[kYY] = xm::fma(my, dy, q[kYY]);
  q[kYZ] = xm::fma(my, dz, q[kYZ]);
  q[kZZ] = xm::fma(xm::mul(m, dz), dz, q[kZZ]);
}

/// Centre of mass from the mass and the mass-weighted sums; a massless node
/// has its centre of mass at its geometric centre (DESIGN §3).
template <class Mo>
ORRERY_HDI void set_centre_of_mass(Mo& mo, double sx, double sy, double sz, const CellGeometry& g) {
  const bool massive = mo.mass > 0.0;
  const double safe = massive ? mo.mass : 1.0;
  mo.cx = massive ? xm::div(sx, safe) : g.cx;
  mo.cy = massive ? xm::div(sy, safe) : g.cy;
  mo.cz = massive ? xm::div(sz, safe) : g.cz;
}

/// Adds m b^p to each rank-N component p of t (b^p: multipole_tensors.hpp's
/// power): a particle's own term of a rank-N moment, or a child's mass
/// shifted by b.
template <int N>
ORRERY_HDI void add_power_terms(double* t, double m, double bx, double by, double bz) {
  for (int k = 0; k < sym_components(N); ++k) t[k] = xm::fma(m, power(sym_exponents(N, k), bx, by, bz), t[k]);
}

/// The rank-3 and rank-4 terms of a particle of mass m at d from the centre
/// of mass, for the orders of M above the quadrupole.
template <Multipole M>
ORRERY_HDI void add_higher_terms(double* q, double m, double dx, double dy, double dz) {
  if constexpr (multipole_order(M) >= 3) add_power_terms<3>(q + moment_offset(3), m, dx, dy, dz);
  if constexpr (multipole_order(M) >= 4) add_power_terms<4>(q + moment_offset(4), m, dx, dy, dz);
}

/// Adds to the rank-N moment of q a child's, moved from its centre of mass
/// to the parent's (b = child com - parent com): the binomial terms of the
/// child's moments of ranks N - 1 down to 2 (its first moment about its own
/// centre of mass is zero), then its mass (add_power_terms). The child's own
/// rank-N moment was added before.
template <int N>
ORRERY_HDI void shift_moment(double* q, const double* child_q, double mass, double bx, double by, double bz) {
  double* t = q + moment_offset(N);
  for (int k = 0; k < sym_components(N); ++k) {
    const Exponents p = sym_exponents(N, k);
    double v = t[k];
    for (int r = N - 1; r >= 2; --r) {
      for (int j = 0; j < sym_components(r); ++j) {
        const Exponents s = sym_exponents(r, j);
        if (s.x > p.x || s.y > p.y || s.z > p.z) continue;
        const double c = double(binomial(p.x, s.x) * binomial(p.y, s.y) * binomial(p.z, s.z));
        const double rest = power({p.x - s.x, p.y - s.y, p.z - s.z}, bx, by, bz);
        v = xm::fma(xm::mul(c, child_q[moment_offset(r) + j]), rest, v);
      }
    }
    t[k] = xm::fma(mass, power(p, bx, by, bz), v);
  }
}

/// Moments of a leaf from its particles [first, first + count), summed in
/// sorted order: mass and centre of mass, then (above the monopole) the
/// moments of ranks 2 to M's order about it, particle by particle.
template <Multipole M, class Real>
ORRERY_HDI Moments<M> leaf_moments(const Real* x, const Real* y, const Real* z, const Real* m, std::int32_t first,
                                   std::int32_t count, const CellGeometry& g) {
  Moments<M> mo;
  double sx = 0, sy = 0, sz = 0;
  for (std::int32_t j = first; j < first + count; ++j) {
    const double mj = m[j];
    mo.mass = xm::add(mo.mass, mj);
    sx = xm::fma(mj, double(x[j]), sx);
    sy = xm::fma(mj, double(y[j]), sy);
    sz = xm::fma(mj, double(z[j]), sz);
  }
  set_centre_of_mass(mo, sx, sy, sz, g);
  if constexpr (M != Multipole::monopole) {
    for (std::int32_t j = first; j < first + count; ++j) {
      const double dx = xm::sub(double(x[j]), mo.cx), dy = xm::sub(double(y[j]), mo.cy), dz = xm::sub(double(z[j]), mo.cz);
      add_quadrupole_term(mo.q, double(m[j]), dx, dy, dz);
      add_higher_terms<M>(mo.q, double(m[j]), dx, dy, dz);
    }
  }
  return mo;
}

/// Moments of an internal node from its `n` children, in child order:
/// child(c) returns the moments of child c (c = 0..n-1), and is called up to
/// twice per child (the parallel-axis pass reads them again), so a caller
/// can stream them from memory instead of holding all eight.
template <Multipole M, class Child>
ORRERY_HDI Moments<M> combine_moments(int n, const Child& child, const CellGeometry& g) {
  Moments<M> mo;
  double sx = 0, sy = 0, sz = 0;
  for (int c = 0; c < n; ++c) {
    const Moments<M> ch = child(c);
    mo.mass = xm::add(mo.mass, ch.mass);
    sx = xm::fma(ch.mass, ch.cx, sx);
    sy = xm::fma(ch.mass, ch.cy, sy);
    sz = xm::fma(ch.mass, ch.cz, sz);
  }
  set_centre_of_mass(mo, sx, sy, sz, g);
  if constexpr (M != Multipole::monopole) {
    for (int c = 0; c < n; ++c) {  // parallel-axis theorem
      const Moments<M> ch = child(c);
      for (int k = 0; k < moment_components(M); ++k) mo.q[k] = xm::add(mo.q[k], ch.q[k]);
      const double bx = xm::sub(ch.cx, mo.cx), by = xm::sub(ch.cy, mo.cy), bz = xm::sub(ch.cz, mo.cz);
      add_quadrupole_term(mo.q, ch.mass, bx, by, bz);
      if constexpr (multipole_order(M) >= 3) shift_moment<3>(mo.q, ch.q, ch.mass, bx, by, bz);
      if constexpr (multipole_order(M) >= 4) shift_moment<4>(mo.q, ch.q, ch.mass, bx, by, bz);
    }
  }
  return mo;
}

/// The same from an array of the children's moments, children[0..n).
template <Multipole M>
ORRERY_HDI Moments<M> combine_moments(const Moments<M>* children, int n, const CellGeometry& g) {
  return combine_moments<M>(n, [children](int c) { return children[c]; }, g);
}

/// Writable pointers to the moment arrays of a tree in pre-order (the
/// OctreeView's moments; quad, moment_components(M) per node, is null for a
/// monopole tree, crit_rel unless the opening is relative).
template <class Real>
struct MomentArrays {
  Real *mass, *com_x, *com_y, *com_z, *crit2, *quad;
  Real* crit_rel = nullptr;
};

/// Stores the moments of the node at pre-order index d: rounded once from
/// double to Real, with the opening criteria's per-node values (crit2, and
/// crit_rel when out.crit_rel is set: opening_geometric.hpp,
/// opening_relative.hpp). The one place both builds round.
template <Multipole M, class Real>
ORRERY_HDI void store_moments(const MomentArrays<Real>& out, std::int32_t d, const Moments<M>& m,
                              const CellGeometry& g, double theta, double tolerance) {
  out.mass[d] = static_cast<Real>(m.mass);
  out.com_x[d] = static_cast<Real>(m.cx);
  out.com_y[d] = static_cast<Real>(m.cy);
  out.com_z[d] = static_cast<Real>(m.cz);
  out.crit2[d] = static_cast<Real>(acceptance_radius2(m.cx, m.cy, m.cz, g.cx, g.cy, g.cz, g.side, theta));
  if (out.crit_rel != nullptr) out.crit_rel[d] = static_cast<Real>(relative_coefficient(m.mass, g.side, tolerance));
  constexpr int kc = moment_components(M);
  for (int k = 0; k < kc; ++k) out.quad[std::int64_t(d) * kc + k] = static_cast<Real>(m.q[k]);
}

}  // namespace orrery::bh
