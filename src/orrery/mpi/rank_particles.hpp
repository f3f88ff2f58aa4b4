#pragma once
// The particles one rank of a distributed tree holds (docs/adr/0012): its
// domain's, with their ids (the user's, kept), their places in one
// process's arrays (which break key ties as one process's sort does), their
// last evaluation's results and its exact work. Particles move between ranks
// whole, every field together.
#include <cstdint>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "orrery/core/error.hpp"
#include "orrery/core/particles.hpp"
#include "orrery/mpi/byte_buffer.hpp"
#include "orrery/mpi/kept_vector.hpp"
#include "orrery/mpi/parallel_copy.hpp"

namespace orrery::mpi {

template <class Real>
struct RankParticles {
  Particles<Real> p;                 // positions, velocities, masses, ids
  std::vector<std::uint64_t> index;  // the place in one process's arrays
  Accelerations<Real> a;             // the last evaluation's (the relative opening reads them)
  std::vector<std::uint32_t> work;   // its particle-cell + particle-particle interactions
  // Block time steps (driver/distributed_block_steps.hpp): the time bin of
  // its step, and whether its step ends now (a target of the next subset
  // solve: DistributedTree::solve with active_only). Zeros with the global step.
  std::vector<std::int8_t> bin;
  std::vector<std::uint8_t> active;

  std::int64_t size() const { return p.size(); }
  void resize(std::size_t n) {
    p.resize(n);
    index.resize(n);
    for (auto* v : {&a.ax, &a.ay, &a.az, &a.potential}) v->resize(n);
    work.resize(n);
    bin.resize(n);
    active.resize(n);
  }
};

/// A rank's share of particles that every rank holds, before any
/// decomposition: every ranks-th from `rank` on, with their ids and their
/// indices in `all` (one process's order, which breaks key ties). The first
/// solve migrates them to their domains.
template <class Real>
RankParticles<Real> share_of(const Particles<Real>& all, int rank, int ranks) {
  RankParticles<Real> s;
  const std::int64_t n = all.size() > rank ? (all.size() - rank + ranks - 1) / ranks : 0;
  s.resize(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < n; ++k) {
    const auto i = static_cast<std::size_t>(rank + k * ranks);
    s.p.x[k] = all.x[i], s.p.y[k] = all.y[i], s.p.z[k] = all.z[i];
    s.p.vx[k] = all.vx[i], s.p.vy[k] = all.vy[i], s.p.vz[k] = all.vz[i];
    s.p.mass[k] = all.mass[i];
    s.p.id[k] = all.id[i];
    s.index[k] = i;
  }
  return s;
}

/// Calls f(field...) for every per-particle vector of the sets, in one fixed
/// order (the one list of them: migration and sorting use it).
template <class F, class... Sets>
void for_each_field(F&& f, Sets&... s) {
  f(s.p.x...);
  f(s.p.y...);
  f(s.p.z...);
  f(s.p.vx...);
  f(s.p.vy...);
  f(s.p.vz...);
  f(s.p.mass...);
  f(s.p.id...);
  f(s.index...);
  f(s.a.ax...);
  f(s.a.ay...);
  f(s.a.az...);
  f(s.a.potential...);
  f(s.work...);
  f(s.bin...);
  f(s.active...);
}

/// The particles reordered: out[k] = in[order[k]], every field (with the
/// rank's threads: parallel_copy.hpp).
template <class Real, class Index>
RankParticles<Real> permuted(const RankParticles<Real>& in, const std::vector<Index>& order) {
  RankParticles<Real> out;
  out.resize(order.size());
  const auto n = static_cast<std::int64_t>(order.size());
  for_each_field([&](auto& to, const auto& from) { gather(to.data(), from.data(), order.data(), n); }, out, in);
  return out;
}

/// The particles reordered where they are: p[k] becomes the old p[order[k]],
/// every field, on the rank's threads. Unlike permuted(), no vector is made:
/// a fresh one is zero-filled on one thread (about 20 ms for a rank of 4M
/// particles' 16 fields) before the gather writes it again. Each of the
/// eleven fields of type Real (most of a particle's bytes) is gathered into
/// `spare` and swapped with it, so the field's old storage is the next
/// spare; the others are gathered into `scratch` and copied back. Both are
/// the caller's to keep across calls: spare grows to the particles' count
/// once (Real bytes a particle, the price of not copying those fields back),
/// scratch to the widest other field's bytes.
template <class Real, class Index>
void permute_in_place(RankParticles<Real>& p, const std::vector<Index>& order, ByteBuffer& scratch,
                      std::vector<Real>& spare) {
  const auto n = static_cast<std::int64_t>(order.size());
  for_each_field(
      [&](auto& field) {
        using T = typename std::remove_reference_t<decltype(field)>::value_type;
        if (field.size() != order.size())
          throw RuntimeFailure("permute_in_place: a field of " + std::to_string(field.size()) + " particles and an order of " +
                               std::to_string(order.size()) + "; accepted: every field the order's size (RankParticles::resize)");
        if constexpr (std::is_same_v<T, Real>) {
          resize_for_overwrite(spare, order.size());
          gather(spare.data(), field.data(), order.data(), n);
          field.swap(spare);
        } else {
          const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(T);
          scratch.resize_for_overwrite(bytes);
          gather(scratch.data(), field.data(), order.data(), n);
          copy_bytes(field.data(), scratch.data(), bytes);
        }
      },
      p);
}

}  // namespace orrery::mpi
