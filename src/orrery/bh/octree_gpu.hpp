#pragma once
// The Barnes-Hut octree built entirely on the GPU (DESIGN §3 "Build on the
// device"), bit for bit the tree build_octree() makes on the host: the same
// nodes in the same pre-order, the same particle ranges, the same moment and
// crit2 bits, the same sorted sources and permutation. The kernels call the
// per-particle and per-node functions of build_topology.hpp (the topology
// without a pass per level; build_topology_test.cpp proves it equal to
// build_octree()'s on the host) and build_steps.hpp (keys, moments), and
// octree_gpu_test.cu checks the equality on the device.
//
// No CUDA header here: CPU code and the walk's host side may include this.
// Pointers in the views are device memory.
//
// Streams and synchronisation: every step is enqueued on the stream given to
// build(). build() synchronises that stream once, at the end, to learn the
// node count (the view's num_nodes is a host value) and the validation
// result, so the tree is complete when build() returns.
//
// Memory: device buffers are kept between builds and only grow, so a solver
// calling build() every step allocates nothing after the first call at the
// same or a smaller N (and the same or a smaller tree).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "orrery/core/particles.hpp"
#include "orrery/cuda/stream.hpp"
#include "orrery/bh/build_steps.hpp"
#include "orrery/bh/octree.hpp"

namespace orrery::bh {

/// Device seconds of each phase of the last build, from CUDA events on the
/// build's stream (DESIGN §1 contract 5: measured by the GPU, not the host).
struct GpuBuildTimes {
  double box = 0;      // bounding box reduction and input validation
  double keys = 0;     // Morton keys
  double sort = 0;     // radix sort of (key, index)
  double gather = 0;   // the sources gathered into sorted order
  double levels = 0;   // the topology in pre-order: nodes per particle, their scan, then each
                       // node's key, level, first, count, next (no pass per level)
  double order = 0;    // each node's parent and number of children (the children chains)
  double moments = 0;  // bottom-up in one launch: moments in double, rounded to Real, crit2
  double total() const { return box + keys + sort + gather + levels + order + moments; }
};

template <class Real>
class DeviceOctree {
 public:
  DeviceOctree();
  ~DeviceOctree();
  DeviceOctree(DeviceOctree&&) noexcept;
  DeviceOctree& operator=(DeviceOctree&&) noexcept;
  DeviceOctree(const DeviceOctree&) = delete;
  DeviceOctree& operator=(const DeviceOctree&) = delete;

  /// Builds the tree of `sources` (device pointers; read, never written; they
  /// may be freed or overwritten once the stream has passed this build).
  /// Validates params on the host and the particles on the device, with the
  /// rules of validate_tree_input(): throws orrery::InputError naming the
  /// particle, the field and the value (positions must be finite, masses
  /// finite and >= 0, 1 <= N < 2^31). Throws RuntimeFailure on CUDA errors.
  /// cube: the key cube given from outside (null: the sources' bounding
  /// cube), as build_octree() takes it: a source outside it is an InputError
  /// naming the particle and the cube, with build_octree()'s message.
  void build(const SourcesView<Real>& sources, const TreeParams& params, cuda::StreamHandle stream = nullptr,
             const Cube* cube = nullptr);

  /// The tree, device pointers, valid until the next build() or destruction.
  /// Same layout and meaning as Octree<Real>::view(). Empty before a build.
  OctreeView<Real> view() const;
  /// Device array [num_particles]: order[sorted index] = the caller's index.
  const std::int32_t* order() const;

  std::int32_t num_nodes() const;
  std::int64_t num_particles() const;
  int depth() const;  // deepest level present
  const TreeParams& params() const;
  /// The key cube of the last build (waits for the stream: host copy).
  Cube cube() const;

  /// Phase times of the last build (the final readback of the node count is
  /// in none of them). Phases run in the order box, keys, sort, gather,
  /// levels, order, moments.
  GpuBuildTimes times() const;
  /// Device bytes held now (tree, sorted sources, and the build's scratch).
  std::size_t device_bytes() const;
  /// Device memory only a build uses (the double-precision moments of its
  /// moments phase, at least 80 bytes per node of the last build): free for
  /// the caller from the end of a build to the next build() on the same
  /// stream. The GPU walk keeps its node records there instead of allocating
  /// them (at 1G particles that is the 7.5 GB that decided whether they fit).
  std::span<std::byte> scratch_between_builds() const;

  /// Copies the tree to the host as an Octree (tests, debugging, the CPU
  /// walk over a GPU-built tree). Waits for the build's stream.
  Octree<Real> download() const;
  /// download() without the sorted sources (x, y, z and m left empty): the
  /// nodes and the order, for a caller that holds the sources already in
  /// that order (an MPI rank's runs, sorted by key before the build: 16 bytes
  /// a particle fewer over the bus). Through page-locked memory, kept by
  /// this tree for the next call (cuda/staged_download.hpp), as
  /// download_moments(). Waits for the build's stream.
  Octree<Real> download_nodes() const;
  /// download_nodes(), the order left empty where with_order is false (a
  /// caller that checked it on the device: first_moved()).
  Octree<Real> download_nodes(bool with_order) const;
  /// The first sorted position whose particle is not the input's at that
  /// position (where the order is not the identity), or -1: a caller whose
  /// sources were sorted by key already checks that the build kept them in
  /// place without the order's download (4 bytes a particle). Waits for the
  /// build's stream.
  std::int64_t first_moved() const;
  /// The double moments of every node of the last build, in node order: the
  /// `moments` build_octree() returns, bit for bit (an MPI rank's subtrees,
  /// mpi/local_tree.hpp). Monopole and quadrupole trees only, as there; an
  /// InputError names any other order. They live in the build's scratch, so
  /// read them before anything uses scratch_between_builds(). Waits for the
  /// build's stream.
  std::vector<NodeMoments> download_moments() const;
  /// The double moments of the given nodes of the last build, in the given
  /// order: download_moments()[nodes[k]] for each k, gathered on the device
  /// so that only they cross the bus (an MPI rank reads one a top leaf of its
  /// domain, not one a node: 80 bytes a node, 0.3 GB at 16M particles). The
  /// same conditions as download_moments(); a node outside [0, nodes of the
  /// build) is an InputError naming it.
  std::vector<NodeMoments> download_moments(std::span<const std::int32_t> nodes) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

extern template class DeviceOctree<float>;
extern template class DeviceOctree<double>;

}  // namespace orrery::bh
