#pragma once
// What a run's outputs read of particles that the ranks hold apart
// (gravity.mpi_layout = "distributed", docs/adr/0012): the columns of a
// snapshot or checkpoint, the diagnostics' sums, the bounding cube and the
// run watch's smallest step, each with one process's bits for every K and
// without all particles on any rank. Sums are added on rank 0 in index
// order, one piece of `piece` particles at a time (mpi::IndexOrder);
// the Lagrangian radii walk the particles by radius through a K-way merge on
// rank 0 (mpi::merge_to_rank0); minima and maxima are exact reductions.
// Every function is collective.
#include <array>
#include <cstdint>

#include "orrery/diag/diagnostics.hpp"
#include "orrery/integrate/run_watch.hpp"
#include "orrery/io/particle_columns.hpp"
#include "orrery/mpi/index_order.hpp"
#include "orrery/mpi/rank_particles.hpp"

namespace orrery::driver {

/// The columns of `s` in index order: each call gathers rows [begin, end)
/// to rank 0 (the bytes there; nothing on the other ranks). `s` and `order`
/// (built from s.index) must outlive the source.
template <class Real>
io::ColumnSource index_order_source(const mpi::RankParticles<Real>& s, const mpi::IndexOrder& order);

/// diag::measure of every rank's particles (s.a.potential their
/// potentials), the same row on every rank.
template <class Real>
diag::Diagnostics distributed_measure(const mpi::RankParticles<Real>& s, const mpi::IndexOrder& order, double time,
                                      std::int64_t step, double initial_energy, std::int64_t piece = io::kColumnPiece);

/// io::bounding_cube of every rank's particles, on every rank.
template <class Real>
std::array<double, 6> distributed_bounding_cube(const mpi::RankParticles<Real>& s, const mpi::IndexOrder& order,
                                                std::int64_t piece = io::kColumnPiece);

/// integrate::smallest_step over every rank's particles (its particle a
/// one-process index), on every rank.
template <class Real>
integrate::SmallestStep distributed_smallest_step(const integrate::StepRule& rule, const mpi::RankParticles<Real>& s,
                                                  const mpi::Communicator& comm);

}  // namespace orrery::driver
