// build_local_tree on its own, on each rank's domain (run under mpiexec with
// the distributed tree's tests): the records do not depend on what the
// rank's build returns, and a build that moved a particle is refused.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "orrery/bh/octree_build.hpp"
#include "orrery/core/error.hpp"
#include "orrery/ic/hernquist.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/mpi/global_tree.hpp"
#include "orrery/mpi/local_tree.hpp"
#include "orrery/mpi/migrate.hpp"

namespace orrery {
namespace {

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

/// mo[nodes[k]] for each k: a RunBuild's `moments` from every node's.
std::vector<bh::NodeMoments> picked(const std::vector<bh::NodeMoments>& mo, std::span<const std::int32_t> nodes) {
  std::vector<bh::NodeMoments> out;
  for (const std::int32_t n : nodes) out.push_back(mo.at(static_cast<std::size_t>(n)));
  return out;
}

/// A sorting build (bh::build_octree: its tree with the sorted sources and
/// the order, as a GPU rank's build returns its order), its order then
/// handed to `spoil`.
template <class Spoil>
mpi::RunBuild<double> sorting_build(Spoil spoil) {
  const auto mo = std::make_shared<std::vector<bh::NodeMoments>>();
  return {[spoil, mo](const SourcesView<double>& run, std::span<const std::uint64_t>, const bh::TreeParams& p,
                      const bh::Cube* c) {
            bh::Octree<double> t = bh::build_octree(run, p, nullptr, c, mo.get());
            spoil(t.order);
            return t;
          },
          [mo](std::span<const std::int32_t> nodes) { return picked(*mo, nodes); }};
}

// A CPU rank's build (bh::build_nodes_sorted: the nodes alone, from the
// keys) and a sorting build that returns its sources and order give the
// same records bit for bit; an order that moves a particle, or is not one a
// particle, is a RuntimeFailure naming it.
TEST(LocalTree, TheRecordsDoNotDependOnWhatTheBuildReturnsAndAMovedParticleIsRefused) {
  const auto comm = mpi::Communicator::world();
  const int ranks = comm.size(), rank = comm.rank();
  mpi::RankParticles<double> s = mpi::share_of(ic::hernquist_sphere(6000, 23), rank, ranks);
  const bh::Cube cube{-600, -600, -600, 1200};
  std::vector<std::uint64_t> keys;
  mpi::ByteBuffer scratch;
  std::vector<double> spare;
  mpi::sort_by_key_in_place(s, cube, keys, scratch, spare);
  const bh::TreeParams params{0.5, 16, bh::Multipole::quadrupole};
  const mpi::TopTree top = mpi::build_top_tree(keys, mpi::top_bucket(6000, ranks, params.leaf_capacity), comm);
  const std::vector<std::int64_t> cuts =
      mpi::domain_cuts(top, std::vector<std::uint64_t>(top.leaves.size(), 0), ranks);
  s = mpi::migrate(std::move(s), keys, mpi::domain_starts(top, cuts, keys), cube, comm, scratch);

  const auto local_tree = [&](const mpi::RunBuild<double>& build) {
    mpi::LocalTree<double> t;
    mpi::build_local_tree(t, s, keys, top, cuts[rank], cuts[rank + 1], cube, params, mpi::kBuildRunParticles, build);  // one run: the whole domain
    return t;
  };
  std::vector<bh::NodeMoments> every;
  const mpi::RunBuild<double> nodes_alone{
      [&every](const SourcesView<double>& run, std::span<const std::uint64_t> k, const bh::TreeParams& p,
               const bh::Cube* c) { return bh::build_nodes_sorted(run, k, p, *c, &every); },
      [&every](std::span<const std::int32_t> nodes) { return picked(every, nodes); }};
  const mpi::LocalTree<double> want = local_tree(nodes_alone);
  const mpi::LocalTree<double> got = local_tree(sorting_build([](std::vector<std::int32_t>&) {}));
  EXPECT_EQ(want.roots.size(), static_cast<std::size_t>(cuts[rank + 1] - cuts[rank]));
  EXPECT_EQ(want.nodes.size() > 0, s.size() > 0);
  EXPECT_TRUE(same_bits(got.nodes.key, want.nodes.key) && same_bits(got.nodes.level, want.nodes.level) &&
              same_bits(got.nodes.count, want.nodes.count) && same_bits(got.nodes.mass, want.nodes.mass) &&
              same_bits(got.nodes.com_x, want.nodes.com_x) && same_bits(got.nodes.com_z, want.nodes.com_z) &&
              same_bits(got.nodes.crit2, want.nodes.crit2) && same_bits(got.nodes.quad, want.nodes.quad))
      << "rank " << rank;
  EXPECT_EQ(got.first, want.first);
  EXPECT_EQ(got.next, want.next);
  EXPECT_EQ(got.roots, want.roots);
  EXPECT_TRUE(same_bits(got.root_moments, want.root_moments));

  if (s.size() < 2) return;  // no two particles to move (build_local_tree is not collective)
  const auto refusal = [&](auto spoil) {
    try {
      local_tree(sorting_build(spoil));
    } catch (const RuntimeFailure& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string moved = refusal([](std::vector<std::int32_t>& o) {
    if (o.size() >= 2) std::swap(o[0], o[1]);
  });
  EXPECT_NE(moved.find("moved particle 1 to 0"), std::string::npos) << moved;
  const std::string short_order = refusal([](std::vector<std::int32_t>& o) { o.pop_back(); });
  EXPECT_NE(short_order.find("came with an order of"), std::string::npos) << short_order;
}

}  // namespace
}  // namespace orrery
