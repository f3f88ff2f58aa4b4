#pragma once
// Local essential trees (docs/adr/0012 decision 3). Each rank sends every
// other rank the part of its own subtrees that the other rank's targets may
// open: walking down from each of its top leaves, a node whose box test
// (bh/opening_box.hpp's accepts_box: accepted by every target in the
// receiver's box at the receiver's largest scale) fails is opened: its
// children, or a leaf's particles, are sent. The box test never accepts a
// cell that a target in the box would open, so every node a receiver's
// target visits arrives. The receiver puts the nodes it holds (the top
// tree's internal nodes, its own subtrees, what it received) in (key,
// level) order, the global pre-order, by a merge (preorder_merge.hpp), and
// recomputes `next`: each of its targets
// then visits the one-process walk's nodes in its order and sums the same
// terms (I2 and I3 of the research note, §1.3).
//
// A node whose contents were not sent (not complete) stands in the walk's
// tree as a leaf whose one particle is a sentinel of NaN mass (`poison`): a
// target that opens it gets NaN, which any walk (CPU group walks, and later
// the GPU's) carries to its result, since lanes that do not sum a leaf keep
// their sums by a select. The rank then walks that target once more with a
// hook that names the node, and stops.
#include <cstdint>
#include <span>
#include <vector>

#include "orrery/bh/opening_box.hpp"
#include "orrery/mpi/communicator.hpp"
#include "orrery/mpi/held_particles.hpp"
#include "orrery/mpi/local_tree.hpp"
#include "orrery/mpi/node_records.hpp"

namespace orrery::mpi {

/// Where some of a rank's targets are: their box and their largest
/// relative scale. A rank describes its targets by one per top leaf of its
/// domain: a domain's pieces of the Morton curve can lie apart, and one box
/// around them all would reach next to nearly every cell of the other ranks
/// (measured: at K = 2 every particle was sent), while the boxes of its top
/// leaves are as small as its cells.
template <class Real> struct TargetDomain {
  bh::TargetBox<Real> box{};
  Real max_scale = 0;
};

/// The boxes of the targets of each top leaf of a domain (its sorted
/// particles `s`, scale their relative scales or empty), in leaf order.
/// active_only: the targets are the particles with s.active set (a subset
/// solve); a leaf without one has no box, and the others bound only theirs
/// (fewer nodes are sent, every node those targets open among them).
template <class Real>
std::vector<TargetDomain<Real>> target_domains(const RankParticles<Real> &s,
                                               const std::vector<Real> &scale,
                                               const LocalTree<Real> &own,
                                               bool active_only = false);

/// Every rank's target domains; rank r's are [from[r], from[r + 1]).
template <class Real>
std::vector<TargetDomain<Real>>
gather_domains(const std::vector<TargetDomain<Real>> &mine,
               std::vector<std::int64_t> &from, const Communicator &comm);

/// Writes what a rank whose targets lie in the boxes `peer` needs of this
/// rank's subtrees (their nodes from each top leaf down, and the particles
/// of the leaves it may open: a node is opened unless every box accepts it)
/// to w. shrink < 1 (tests only) shrinks each box about its centre: a
/// deliberately too aggressive selection, which the walk must catch.
template <class Real>
void write_let(ByteWriter &w, const LocalTree<Real> &own,
               const RankParticles<Real> &sorted,
               std::span<const std::uint64_t> keys,
               std::span<const TargetDomain<Real>> peer, const bh::Cube &cube,
               double shrink = 1.0);

/// The assembly's own arrays, kept with its tree for the next assembly to
/// overwrite (their contents are of no use after it returns).
struct AssemblyScratch {
  std::vector<std::uint64_t> key, index, held_keys; // the held particles'
  std::vector<std::int32_t> by; // their order by (key, index)
  std::vector<std::int32_t> at; // per node: its first held particle
  std::vector<std::int64_t> node_count; // per node: its global particle count
};

/// The walk's tree on one rank.
template <class Real> struct AssembledTree {
  bh::Octree<Real> tree; // every node held, in global pre-order; own and
                         // received particles by (key, index), with the
                         // sentinel, where `placed`
  HeldParticles<Real> held; // where the held particles lie (not `placed`)
  bool placed = true; // tree.x, y, z, m and order hold the particles
  std::vector<std::int32_t> own; // the tree's index of own sorted particle k
  std::vector<int>
      origin; // the rank each node came from (this rank for the top tree's)
  std::vector<std::uint8_t>
      complete; // per node: its children or particles are here
  std::int32_t poison =
      0; // the sentinel particle of the nodes that are not complete
  AssemblyScratch scratch;
};

/// Assembles the top tree's internal nodes, this rank's subtrees and the
/// bytes received (from[r] .. from[r + 1] from rank r, written by write_let)
/// into `out`, whatever it held: its storage is reused (a rank assembles a
/// tree of nearly the same size every evaluation, and the arrays a fresh one
/// would zero-fill on one thread are most of the assembly's time).
/// place = false leaves the held particles where they lie (out.held, not
/// `placed`: the tree's nodes are complete, its particle arrays and order
/// are not), for a walk that puts them together itself (a GPU rank's, on its
/// device; docs/adr/0021 phase 1), where the held particles are in one
/// process's order, as every input the solver makes; otherwise (as with
/// place = true) they are placed here, sorted if they are not.
template <class Real>
void assemble_tree(
    AssembledTree<Real> &out, const NodeRecords<Real> &top, const LocalTree<Real> &own,
    const RankParticles<Real> &sorted, std::span<const std::uint64_t> keys,
    std::span<const std::byte> received, std::span<const std::int64_t> from,
    const bh::Cube &cube, const bh::TreeParams &params, int rank, bool place = true);

/// Writes an assembled tree's held particles (out.held) into its particle
/// arrays and order, as assemble_tree with place = true would have: the
/// same tree. Nothing to do where they are `placed`.
template <class Real> void place_particles(AssembledTree<Real> &t);

/// Throws a RuntimeFailure naming the node that tree index `target` (walked
/// at `scale`; the tree's particles placed: place_particles) opens although it was not sent, the rank it belongs to and
/// this rank; called for a target whose walk returned NaN.
template <class Real>
[[noreturn]] void throw_missing_node(const AssembledTree<Real> &t,
                                     std::int32_t target, std::uint64_t id,
                                     Real scale, int rank);

} // namespace orrery::mpi
