#pragma once
// Builds the octree on the host (OpenMP), by the algorithm the GPU build also
// runs: the topology from the sorted keys (build_topology.hpp), the moments
// bottom-up (build_steps.hpp); docs/adr/0010.
#include <cstdint>
#include <span>
#include <string>

#include "orrery/core/particles.hpp"
#include "orrery/core/solver_report.hpp"
#include "orrery/bh/build_steps.hpp"
#include "orrery/bh/octree.hpp"

namespace orrery::bh {

/// Validates params (theta >= 0 and finite, leaf_capacity >= 1) and the
/// particle count (1 <= count < 2^31); throws orrery::InputError naming the
/// field and value otherwise. Needs no particle data (the GPU build calls it
/// and checks the particles on the device).
void validate_tree_params(const TreeParams& params, std::int64_t count);

/// A cube given from outside must have a finite origin and a finite side > 0;
/// throws orrery::InputError naming it otherwise.
void validate_cube(const Cube& cube);

/// The InputError message for source i at (x, y, z) outside the cube given,
/// the same from the host and the device build.
std::string outside_cube_message(std::int64_t i, double x, double y, double z, const Cube& cube);

/// Validates params (theta >= 0 and finite, leaf_capacity >= 1) and sources
/// (finite positions, masses >= 0, count >= 1, count < 2^31); throws
/// orrery::InputError naming the field and value otherwise.
template <class Real>
void validate_tree_input(const SourcesView<Real>& sources, const TreeParams& params);

/// Builds the tree of `sources`. Deterministic: the result is a pure function
/// of the input and params, whatever the number of threads. Appends the time
/// of each phase (box, keys, sort, build, moments) to `report` if non-null.
/// cube: the key cube given from outside (null: the sources' bounding cube);
/// a source outside it is an InputError naming the particle and the cube.
/// moments: if non-null (monopole and quadrupole trees only: an InputError
/// otherwise), receives every node's moments in double before
/// they are rounded (pre-order): an MPI rank combines the moments of nodes
/// that straddle ranks from its nodes' (mpi/top_moments.hpp), which the
/// rounded ones cannot give.
template <class Real>
Octree<Real> build_octree(const SourcesView<Real>& sources, const TreeParams& params,
                          SolverReport* report = nullptr, const Cube* cube = nullptr,
                          std::vector<NodeMoments>* moments = nullptr);

/// The nodes of build_octree's tree for sources already in key order:
/// keys[i] is position_key(source i) in `cube` and the keys do not decrease
/// (an MPI rank's particles after its decomposition's sort, which computed
/// them). Every node array and `moments` are build_octree(sources, params,
/// nullptr, &cube, moments)'s bit for bit, without the keys, the sort and
/// its gather. That build's sort by (key, index) is then the identity and
/// its sorted sources are `sources`, so the tree holds neither: x, y, z, m
/// and order are empty, as in bh::DeviceOctree::download_nodes (a walk
/// needs them put back). The sources are not checked against the cube
/// (their keys were made in it). Keys that decrease, or not one a source,
/// are an InputError.
template <class Real>
Octree<Real> build_nodes_sorted(const SourcesView<Real>& sources, std::span<const std::uint64_t> keys,
                                const TreeParams& params, const Cube& cube,
                                std::vector<NodeMoments>* moments = nullptr);

}  // namespace orrery::bh
