#include "orrery/mpi/top_moments.hpp"

#include <string>

#include "orrery/bh/build_topology.hpp"
#include "orrery/core/error.hpp"
#include "orrery/mpi/byte_stream.hpp"

namespace orrery::mpi {

std::vector<bh::NodeMoments> gather_leaf_moments(const std::vector<bh::NodeMoments>& mine, const TopTree& top,
                                                 const Communicator& comm) {
  std::vector<std::byte> bytes;
  ByteWriter(bytes).put(std::span<const bh::NodeMoments>(mine));
  std::vector<std::int64_t> from;
  const std::vector<std::byte> all = comm.allgather(bytes, from);
  std::vector<bh::NodeMoments> out(top.leaves.size());
  if (all.size() != out.size() * sizeof(bh::NodeMoments))
    throw RuntimeFailure("the ranks sent the moments of " + std::to_string(all.size() / sizeof(bh::NodeMoments)) +
                         " top leaves; accepted: one per top leaf, " + std::to_string(out.size()));
  ByteReader(all).get(std::span<bh::NodeMoments>(out));
  return out;
}

template <class Real>
NodeRecords<Real> top_node_records(const TopTree& top, const std::vector<bh::NodeMoments>& leaf_moments,
                                   const bh::Cube& cube, const bh::TreeParams& params) {
  const std::int32_t n = top.size();
  std::vector<bh::NodeMoments> mo(static_cast<std::size_t>(n));
  for (std::size_t l = 0; l < top.leaves.size(); ++l) mo[top.leaves[l]] = leaf_moments[l];
  // Children have larger pre-order indices than their parent: one reverse pass.
  const bool quad = params.multipole == bh::Multipole::quadrupole;
  for (std::int32_t i = n - 1; i >= 0; --i) {
    if (top.is_leaf(i)) continue;
    std::int32_t children[8];
    const int nc = bh::children_of(top.next.data(), i, children);
    const auto child = [&](int c) { return mo[children[c]]; };
    const bh::CellGeometry g = bh::cell_geometry(top.key[i], top.level[i], cube);
    mo[i] = quad ? bh::combine_moments<bh::Multipole::quadrupole>(nc, child, g)
                 : bh::combine_moments<bh::Multipole::monopole>(nc, child, g);
  }
  NodeRecords<Real> out;
  for (std::int32_t i = 0; i < n; ++i)
    out.append(top.key[i], top.level[i], static_cast<std::int64_t>(top.count[i]), mo[i], cube, params, !top.is_leaf(i));
  return out;
}

template NodeRecords<float> top_node_records(const TopTree&, const std::vector<bh::NodeMoments>&, const bh::Cube&,
                                             const bh::TreeParams&);
template NodeRecords<double> top_node_records(const TopTree&, const std::vector<bh::NodeMoments>&, const bh::Cube&,
                                              const bh::TreeParams&);

}  // namespace orrery::mpi
