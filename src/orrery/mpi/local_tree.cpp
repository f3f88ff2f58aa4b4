#include "orrery/mpi/local_tree.hpp"

#include <algorithm>
#include <string>

#include "orrery/bh/build_topology.hpp"
#include "orrery/bh/octree_build.hpp"
#include "orrery/core/error.hpp"

namespace orrery::mpi {
namespace {

template <bh::Multipole M, class Real>
bh::NodeMoments moments_of_leaf(const RankParticles<Real>& s, std::int32_t b, std::int32_t n,
                                const bh::CellGeometry& g) {
  return bh::leaf_moments<M>(s.p.x.data(), s.p.y.data(), s.p.z.data(), s.p.mass.data(), b, n, g);
}

}  // namespace

template <class Real>
LocalTree<Real> build_local_tree(const RankParticles<Real>& s, std::span<const std::uint64_t> keys, const TopTree& top,
                                 std::int64_t leaf_begin, std::int64_t leaf_end, const bh::Cube& cube,
                                 const bh::TreeParams& params) {
  LocalTree<Real> out;
  out.cap2 = bh::relative_cap_factor<Real>(params.relative_cap);
  const bool quad = params.multipole == bh::Multipole::quadrupole;
  for (std::int64_t l = leaf_begin; l < leaf_end; ++l) {
    const std::int32_t c = top.leaves[static_cast<std::size_t>(l)];
    const std::uint64_t key = top.key[c];
    const std::int32_t level = top.level[c];
    const auto b = static_cast<std::int32_t>(std::lower_bound(keys.begin(), keys.end(), key) - keys.begin());
    const auto e = static_cast<std::int32_t>(
        std::upper_bound(keys.begin(), keys.end(), bh::cell_last_key(key, level)) - keys.begin());
    if (static_cast<std::uint64_t>(e - b) != top.count[c])
      throw RuntimeFailure("top leaf " + std::to_string(l) + " (key " + std::to_string(key) + ", level " +
                           std::to_string(level) + ") holds " + std::to_string(top.count[c]) +
                           " particles over the ranks but " + std::to_string(e - b) +
                           " on its owner; accepted: every particle of a domain on its owner (migrate first)");
    const auto base = static_cast<std::int32_t>(out.nodes.size());
    out.roots.push_back(base);
    const SourcesView<Real> leaf{e - b, s.p.x.data() + b, s.p.y.data() + b, s.p.z.data() + b, s.p.mass.data() + b};
    std::vector<bh::NodeMoments> mo;
    // A cube of side 0 (every particle at one point) is refused from outside,
    // but it is then every leaf's own bounding cube, which the build takes.
    const bh::Octree<Real> t = bh::build_octree(leaf, params, nullptr, cube.side > 0 ? &cube : nullptr, &mo);
    if (t.num_nodes() == 1) {
      // The leaf is not split (at most cap particles, or one key): the build
      // over its particles alone made the root cube its one leaf, so its
      // moments are taken again with the leaf's own geometry.
      const bh::CellGeometry g = bh::cell_geometry(key, level, cube);
      const bh::NodeMoments m = quad ? moments_of_leaf<bh::Multipole::quadrupole>(s, b, e - b, g)
                                               : moments_of_leaf<bh::Multipole::monopole>(s, b, e - b, g);
      out.nodes.append(key, level, e - b, m, cube, params, true);
      out.first.push_back(b);
      out.next.push_back(base + 1);
      out.root_moments.push_back(m);
      continue;
    }
    // The build over the leaf's particles alone has a chain of one-child
    // cells from the root down to the leaf's cell, which is node `level`;
    // below it, the one-process tree's subtree.
    if (t.num_nodes() <= level || t.key[level] != key || t.level[level] != level)
      throw RuntimeFailure("the subtree of top leaf (key " + std::to_string(key) + ", level " + std::to_string(level) +
                           ") does not start at its cell; accepted: a build whose node " + std::to_string(level) +
                           " is the leaf's cell");
    const bh::OctreeView<Real> v = t.view();
    for (std::int32_t n = level; n < t.num_nodes(); ++n) {
      out.nodes.append(v, n, t.count[n], true);
      out.first.push_back(b + t.first[n]);
      out.next.push_back(base + t.next[n] - level);
    }
    out.root_moments.push_back(mo[static_cast<std::size_t>(level)]);
  }
  return out;
}

template LocalTree<float> build_local_tree(const RankParticles<float>&, std::span<const std::uint64_t>, const TopTree&,
                                           std::int64_t, std::int64_t, const bh::Cube&, const bh::TreeParams&);
template LocalTree<double> build_local_tree(const RankParticles<double>&, std::span<const std::uint64_t>,
                                            const TopTree&, std::int64_t, std::int64_t, const bh::Cube&,
                                            const bh::TreeParams&);

}  // namespace orrery::mpi
