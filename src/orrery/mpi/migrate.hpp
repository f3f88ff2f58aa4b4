#pragma once
// Particle migration (docs/adr/0012 decision 4): every particle moves, with
// every field (rank_particles.hpp), to the rank whose domain holds its key;
// ids go with it, so a particle keeps its identity on any rank.
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "orrery/bh/morton.hpp"

#include "orrery/mpi/byte_buffer.hpp"
#include "orrery/mpi/communicator.hpp"
#include "orrery/mpi/rank_particles.hpp"

namespace orrery::mpi {

/// Sends particles starts[r] .. starts[r + 1] to rank r (one MPI_Alltoallv
/// of bytes; K + 1 starts rising from 0 to mine.size(), anything else a
/// RuntimeFailure): the decomposition's parts, whose destinations rise along
/// the particles sorted by key (global_tree.hpp's domain_starts), each sent
/// as it lies. Returns
/// what this rank holds afterwards sorted by (key, index), one process's
/// order, with their keys in `keys`. On entry `mine` is in that order and
/// `keys` holds its keys in `cube` (sorted_by_key's): the keys of the
/// particles that stay are kept, those of the particles that arrive
/// computed. The parts are placed in rank order, this rank's own in its
/// place; the ranks' domains being runs of the Morton curve in rank order,
/// that is the order already unless a particle drifted across a domain
/// (checked; then sorted, to the same order). The particles a rank keeps do not travel
/// (they are copied from `mine` into their place; where no particle leaves
/// this rank and none arrives, as on one rank, `mine` and `keys` are
/// returned as they are, moved, not copied); the copies use the rank's
/// threads (parallel_copy.hpp). `received` is the all-to-all's receive
/// buffer, the caller's to keep across solves (afterwards it holds the
/// bytes received, read into the result and no longer needed).
/// lap(piece), where given, is called at the end of each piece: "pack" (the
/// parts gathered into the message), "alltoall" and "rebuild" (the
/// particles held afterwards in order); the benchmark's split of the phase.
/// The particles that arrive are usually few (they crossed a boundary), and
/// the ones that stayed are in order: where the arrivals are at most an
/// eighth of them, each arrival's place is a binary search in that run and
/// every field is copied in blocks, the run's pieces between arrivals as
/// they lie; otherwise all are sorted again (sort_by_key_and_tie, whose
/// split path keeps the run) and every field gathered through the order. Either way the result is written once from `mine` and the
/// arrivals (no interim copy of all particles: the peak is `mine`, the
/// result and the arrivals).
template <class Real>
RankParticles<Real> migrate(RankParticles<Real>&& mine, std::vector<std::uint64_t>& keys,
                            std::span<const std::int64_t> starts, const bh::Cube& cube, const Communicator& comm,
                            ByteBuffer& received, const std::function<void(const char*)>& lap = {});

/// Every rank's particles on every rank, in index order (one process's
/// arrays, whatever K): what a snapshot or a checkpoint writes. O(N) on
/// every rank for as long as the caller keeps it: an output step's interim
/// until files are written in pieces (docs/adr/0012).
template <class Real>
RankParticles<Real> gathered_in_index_order(const RankParticles<Real>& mine, const Communicator& comm);

/// The keys of sources `p` in `cube` (bh::position_key), in their order,
/// with the rank's threads.
template <class Real>
std::vector<std::uint64_t> position_keys(const SourcesView<Real>& p, const bh::Cube& cube);

/// The decomposition's keys and order of a rank's particles in `cube`:
/// sort_by_key_and_tie's contract for their keys and indices (sorted_keys
/// the keys in the order, order[k] the particle at place k; true where the
/// order is the identity), calling lap("keys") once the keys are made. The
/// host's (position_keys, then sort_by_key_and_tie), or one computing the
/// same elsewhere (a GPU rank's device: LetWalk::order_particles).
template <class Real>
using ParticleOrder =
    std::function<bool(const RankParticles<Real>&, const bh::Cube&, std::vector<std::uint64_t>& sorted_keys,
                       std::vector<std::int32_t>& order, const std::function<void(const char*)>& lap)>;

/// The particles sorted by (key, index) where they are, one process's order,
/// and their keys in `cube` (fewer than 2^31 particles), with the rank's
/// threads: the one order whatever their number (key_order.hpp). Particles
/// already in order are left as they are. `scratch` and `spare`:
/// permute_in_place's (buffers the caller keeps across calls). lap, if set,
/// is called with "keys" once the keys are made, "order" once the order is
/// found and "permute" once the particles are in it (a caller's timer).
/// `order_of`, if set, makes the keys and finds the order (else the host's).
template <class Real>
void sort_by_key_in_place(RankParticles<Real>& particles, const bh::Cube& cube, std::vector<std::uint64_t>& keys,
                          ByteBuffer& scratch, std::vector<Real>& spare,
                          const std::function<void(const char*)>& lap = {}, const ParticleOrder<Real>& order_of = {});

}  // namespace orrery::mpi
