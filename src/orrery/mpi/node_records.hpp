#pragma once
// Nodes of the global octree as a rank holds, sends and receives them
// (docs/adr/0012): a node's cell (start key, level), its global particle
// count, the values a walk reads (rounded once by their owner, so every rank
// reads the owner's bits) and whether what lies below it is present
// (`complete`: a leaf's particles, or an internal node's children). A walk
// that would open a node that is not complete has been sent too little
// (let.hpp stops it with an error).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "orrery/bh/build_steps.hpp"
#include "orrery/bh/octree.hpp"
#include "orrery/mpi/byte_stream.hpp"
#include "orrery/mpi/kept_vector.hpp"

namespace orrery::mpi {

template <class Real>
struct NodeRecords {
  std::vector<std::uint64_t> key;
  std::vector<std::int32_t> level;
  std::vector<std::int64_t> count;  // particles in the cell, over every rank
  std::vector<Real> mass, com_x, com_y, com_z, crit2, crit_rel;  // crit_rel: relative opening only
  std::vector<Real> quad;                                        // [size * 6], quadrupole trees only
  std::vector<std::uint8_t> complete;

  std::int64_t size() const { return static_cast<std::int64_t>(key.size()); }

  /// Record i (of resize()'s) becomes node n of tree t (its count given: a
  /// rank's own trees count only the particles they were built over); one
  /// thread per i may fill distinct records at once.
  void set(std::int64_t i, const bh::OctreeView<Real>& t, std::int32_t n, std::int64_t global_count, bool is_complete) {
    key[i] = t.key[n], level[i] = t.level[n], count[i] = global_count, mass[i] = t.mass[n];
    com_x[i] = t.com_x[n], com_y[i] = t.com_y[n], com_z[i] = t.com_z[n], crit2[i] = t.crit2[n];
    if (t.crit_rel != nullptr) crit_rel[i] = t.crit_rel[n];
    if (t.quad != nullptr)
      for (int k = 0; k < bh::kQuadComponents; ++k) quad[i * bh::kQuadComponents + k] = t.quad[std::int64_t(n) * bh::kQuadComponents + k];
    complete[i] = is_complete ? 1 : 0;
  }

  /// Appends the cell (key, lv) of `cube` with moments m in double, rounded
  /// as a build rounds them (bh::store_moments: the same bits as the node of
  /// a one-process tree with these moments).
  void append(std::uint64_t k, std::int32_t lv, std::int64_t global_count, const bh::NodeMoments& m,
              const bh::Cube& cube, const bh::TreeParams& params, bool is_complete) {
    grow(params.opening == bh::Opening::relative, params.multipole == bh::Multipole::quadrupole);
    set(size() - 1, k, lv, global_count, m, cube, params, is_complete);
  }

  /// Record i (of resize()'s) becomes the cell (key, lv) with moments m, as
  /// append() would add it; distinct records on distinct threads.
  void set(std::int64_t i, std::uint64_t k, std::int32_t lv, std::int64_t global_count, const bh::NodeMoments& m,
           const bh::Cube& cube, const bh::TreeParams& params, bool is_complete) {
    Real v[5], r = 0, q[bh::kQuadComponents] = {};
    const bool rel = params.opening == bh::Opening::relative, with_quad = params.multipole == bh::Multipole::quadrupole;
    const bh::MomentArrays<Real> out{&v[0], &v[1], &v[2], &v[3], &v[4], q, rel ? &r : nullptr};
    const bh::CellGeometry g = bh::cell_geometry(k, lv, cube);
    if (with_quad)
      bh::store_moments<bh::Multipole::quadrupole>(out, 0, m, g, params.theta, params.tolerance);
    else
      bh::store_moments<bh::Multipole::monopole>(out, 0, m, g, params.theta, params.tolerance);
    key[i] = k, level[i] = lv, count[i] = global_count, mass[i] = v[0];
    com_x[i] = v[1], com_y[i] = v[2], com_z[i] = v[3], crit2[i] = v[4];
    if (rel) crit_rel[i] = r;
    if (with_quad) std::copy(q, q + bh::kQuadComponents, quad.begin() + i * bh::kQuadComponents);
    complete[i] = is_complete ? 1 : 0;
  }

  /// The nodes' cells and moments as a view (no topology, no particles):
  /// what the box criterion reads (bh/opening_box.hpp).
  bh::OctreeView<Real> view() const {
    bh::OctreeView<Real> v;
    v.num_nodes = static_cast<std::int32_t>(size());
    v.key = key.data();
    v.level = level.data();
    v.mass = mass.data();
    v.com_x = com_x.data();
    v.com_y = com_y.data();
    v.com_z = com_z.data();
    v.crit2 = crit2.data();
    v.quad = quad.empty() ? nullptr : quad.data();
    v.multipole = quad.empty() ? bh::Multipole::monopole : bh::Multipole::quadrupole;
    v.crit_rel = crit_rel.empty() ? nullptr : crit_rel.data();
    return v;
  }

  /// Sizes every field for n records, with crit_rel (relative opening) and
  /// quad (quadrupole trees) or without; set() then fills them.
  void resize(std::int64_t n, bool rel, bool with_quad) {
    const auto u = static_cast<std::size_t>(n);
    key.resize(u), level.resize(u), count.resize(u), mass.resize(u), com_x.resize(u), com_y.resize(u), com_z.resize(u);
    crit2.resize(u), complete.resize(u);
    crit_rel.resize(rel ? u : 0);
    quad.resize(with_quad ? u * bh::kQuadComponents : 0);
  }

  /// resize() for a caller that then writes every record: a field that must
  /// grow past its capacity is not copied, its old storage freed first
  /// (mpi/kept_vector.hpp).
  void resize_for_overwrite(std::int64_t n, bool rel, bool with_quad) {
    const auto u = static_cast<std::size_t>(n);
    for_each([&](auto& v) {
      const bool none = (&v == static_cast<void*>(&crit_rel) && !rel) || (&v == static_cast<void*>(&quad) && !with_quad);
      const std::size_t per = &v == static_cast<void*>(&quad) ? bh::kQuadComponents : 1;
      mpi::resize_for_overwrite(v, none ? 0 : u * per);
    });
  }
  /// Record i (of resize()'s) becomes record k of `o`, which has the same
  /// fields: one thread per i may fill distinct records at once.
  void set(std::int64_t i, const NodeRecords& o, std::int64_t k) { set(i, o, k, 1); }

  /// Records [i, i + n) (of resize()'s) become records [k, k + n) of `o`,
  /// which has the same fields; distinct ranges on distinct threads.
  void set(std::int64_t i, const NodeRecords& o, std::int64_t k, std::int64_t n) {
    const auto part = [&](auto& to, const auto& from, std::int64_t per) {
      if (!to.empty()) std::copy_n(from.begin() + k * per, n * per, to.begin() + i * per);
    };
    part(key, o.key, 1), part(level, o.level, 1), part(count, o.count, 1), part(mass, o.mass, 1);
    part(com_x, o.com_x, 1), part(com_y, o.com_y, 1), part(com_z, o.com_z, 1), part(crit2, o.crit2, 1);
    part(complete, o.complete, 1), part(crit_rel, o.crit_rel, 1), part(quad, o.quad, bh::kQuadComponents);
  }

  void write(ByteWriter& w) const {
    w.put(static_cast<std::int64_t>(size()));
    w.put(static_cast<std::uint8_t>(crit_rel.empty() ? 0 : 1));
    w.put(static_cast<std::uint8_t>(quad.empty() ? 0 : 1));
    for_each([&](const auto& v) { w.put(std::span(v)); });
  }

  /// Appends the records a write() put there.
  void read_append(ByteReader& r) {
    const auto n = r.get<std::int64_t>();
    const bool rel = r.get<std::uint8_t>() != 0, with_quad = r.get<std::uint8_t>() != 0;
    for_each([&](auto& v) {
      const bool skip = (&v == static_cast<void*>(&crit_rel) && !rel) || (&v == static_cast<void*>(&quad) && !with_quad);
      if (skip) return;
      const std::size_t at = v.size(), per = &v == static_cast<void*>(&quad) ? bh::kQuadComponents : 1;
      v.resize(at + static_cast<std::size_t>(n) * per);
      r.get(std::span(v.data() + at, static_cast<std::size_t>(n) * per));
    });
  }

 private:
  /// One more record, its fields unset (crit_rel, quad: where present).
  void grow(bool rel, bool with_quad) {
    const std::int64_t n = size() + 1;
    resize(n, rel || !crit_rel.empty(), with_quad || !quad.empty());
  }

  template <class F>
  void for_each(F&& f) {
    f(key), f(level), f(count), f(mass), f(com_x), f(com_y), f(com_z), f(crit2), f(crit_rel), f(quad), f(complete);
  }
  template <class F>
  void for_each(F&& f) const {
    f(key), f(level), f(count), f(mass), f(com_x), f(com_y), f(com_z), f(crit2), f(crit_rel), f(quad), f(complete);
  }
};

}  // namespace orrery::mpi
