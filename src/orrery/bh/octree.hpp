#pragma once
// The Barnes-Hut octree: its parameters (tree_params.hpp), its node layout and the views the
// walks take (DESIGN §3).
//
// Nodes are stored in depth-first pre-order. Node i holds the sorted
// particles [first[i], first[i] + count[i]); its subtree is [i, next[i]), so
// a leaf is exactly a node with next[i] == i + 1, and its first child, if any,
// is i + 1. The tree is a pure function of the positions, the masses and the
// parameters: every backend builds these arrays with identical bits.
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

#include "orrery/bh/morton.hpp"
#include "orrery/bh/opening_relative.hpp"
#include "orrery/bh/tree_params.hpp"

namespace orrery::bh {

/// Second moment about the centre of mass, S_ab = sum m d_a d_b (d = x - com),
/// stored whole rather than traceless: the softened expansion needs its trace
/// (interactions.hpp, docs/adr/0005). The octupole and hexadecapole trees
/// store after it, per node, the whole third and fourth moments (10 and 15
/// components, multipole_tensors.hpp's layout): moment_components(multipole)
/// numbers a node.
enum QuadIndex : int { kXX = 0, kXY, kXZ, kYY, kYZ, kZZ, kQuadComponents };

/// Non-owning view of a built tree; pointers are host or device memory alike.
/// Trivially copyable: kernels take it by value.
template <class Real>
struct OctreeView {
  std::int32_t num_nodes = 0;
  std::int64_t num_particles = 0;
  // Topology, [num_nodes].
  const std::uint64_t* key = nullptr;   // start key of the cell
  const std::int32_t* level = nullptr;  // 0 = root cube
  const std::int32_t* first = nullptr;  // first sorted particle
  const std::int32_t* count = nullptr;  // number of particles
  const std::int32_t* next = nullptr;   // first node after the subtree
  // Moments, [num_nodes].
  const Real* mass = nullptr;
  const Real* com_x = nullptr;
  const Real* com_y = nullptr;
  const Real* com_z = nullptr;
  const Real* crit2 = nullptr;  // accept the cell when |target - com|^2 > crit2 (opening_geometric.hpp)
  const Real* quad = nullptr;   // [num_nodes * moment_components(multipole)] (S in QuadIndex order first) or null for monopole trees
  // Sources in sorted order, [num_particles].
  const Real* x = nullptr;
  const Real* y = nullptr;
  const Real* z = nullptr;
  const Real* m = nullptr;
  // Relative opening only (null otherwise), [num_nodes]: side * sqrt(mass /
  // tolerance); a target with scale s (walk.hpp) accepts the cell only when
  // also |target - com|^2 > crit_rel * s, or when |target - com|^2 > cap2 *
  // crit2, the cap (relative_cap_factor of TreeParams::relative_cap).
  const Real* crit_rel = nullptr;
  Real cap2 = Real(0);
  // The expansion quad holds (monopole: quad is null): how many moments a node has.
  Multipole multipole = Multipole::monopole;
};
static_assert(std::is_trivially_copyable_v<OctreeView<float>>);

/// Which arrays of a tree have one element per node, per node and
/// quadrupole component, per node of a relative-opening tree, or per particle.
enum class TreeArray : std::uint8_t { node, node_quad, node_relative, particle };

/// The arrays of a tree, wherever they live: Buffer<T> is std::vector on the
/// host (HostBuffer, Octree) and cuda::DeviceBuffer on the device
/// (DeviceOctree, DeviceTreeCopy); any Buffer with data(), size() and empty().
/// The one list of the tree's arrays: view() and for_each_array() are the
/// only code that names them all.
template <class Real, template <class> class Buffer>
struct TreeArrays {
  // Topology, [num_nodes].
  Buffer<std::uint64_t> key;
  Buffer<std::int32_t> level, first, count, next;
  // Moments, [num_nodes]; quad [num_nodes * moment_components] (above the monopole), crit_rel
  // [num_nodes] (relative opening).
  Buffer<Real> mass, com_x, com_y, com_z, crit2, quad, crit_rel;
  // Sources in sorted order, [num_particles], and order[sorted] = the caller's index.
  Buffer<Real> x, y, z, m;
  Buffer<std::int32_t> order;

  /// The view of the first num_nodes nodes and num_particles particles (the
  /// buffers may be larger) of a tree with expansion `multipole`, built with
  /// `params`; quad is null for the monopole, crit_rel unless asked for.
  OctreeView<Real> view(std::int32_t num_nodes, std::int64_t num_particles, Multipole multipole, bool with_crit_rel,
                        const TreeParams& params) const {
    return {num_nodes,     num_particles, key.data(),   level.data(), first.data(), count.data(),
            next.data(),   mass.data(),   com_x.data(), com_y.data(), com_z.data(), crit2.data(),
            multipole != Multipole::monopole ? quad.data() : nullptr, x.data(),     y.data(),     z.data(),
            m.data(),      with_crit_rel ? crit_rel.data() : nullptr, relative_cap_factor<Real>(params.relative_cap),
            multipole};
  }
};

/// Calls f(kind, sets.array...) for every array of the tree, in one fixed
/// order, with the same array of each of the sets (TreeArrays of any Buffer):
/// for_each_array(f, device, host) pairs each device buffer with its host vector.
template <class F, class... Sets>
void for_each_array(F&& f, Sets&... sets) {
  f(TreeArray::node, sets.key...);
  f(TreeArray::node, sets.level...);
  f(TreeArray::node, sets.first...);
  f(TreeArray::node, sets.count...);
  f(TreeArray::node, sets.next...);
  f(TreeArray::node, sets.mass...);
  f(TreeArray::node, sets.com_x...);
  f(TreeArray::node, sets.com_y...);
  f(TreeArray::node, sets.com_z...);
  f(TreeArray::node, sets.crit2...);
  f(TreeArray::node_quad, sets.quad...);
  f(TreeArray::node_relative, sets.crit_rel...);
  f(TreeArray::particle, sets.x...);
  f(TreeArray::particle, sets.y...);
  f(TreeArray::particle, sets.z...);
  f(TreeArray::particle, sets.m...);
  f(TreeArray::particle, sets.order...);
}

template <class T>
using HostBuffer = std::vector<T>;

/// A tree built on the host: the arrays behind an OctreeView (quad and
/// crit_rel empty when not used), plus the permutation from sorted order to
/// the caller's order.
template <class Real>
struct Octree : TreeArrays<Real, HostBuffer> {
  Cube cube;
  TreeParams params;
  int depth = 0;  // deepest level present

  std::int32_t num_nodes() const { return static_cast<std::int32_t>(this->key.size()); }
  OctreeView<Real> view() const {
    return TreeArrays<Real, HostBuffer>::view(num_nodes(), static_cast<std::int64_t>(this->x.size()),
                                              this->quad.empty() ? Multipole::monopole : params.multipole,
                                              !this->crit_rel.empty(), params);
  }
};

}  // namespace orrery::bh
