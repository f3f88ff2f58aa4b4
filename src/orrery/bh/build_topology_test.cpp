// build_topology.hpp's steps, run one element at a time on the host in the
// order the GPU build runs them (octree_gpu.cu: nodes_at per particle, the
// exclusive scan, write_nodes_at per particle, write_extent per node,
// children_of per node, moments bottom-up over the children chains), give
// exactly build_octree()'s tree: topology, depth, and the moments' bits. This
// is the proof of the GPU build's algorithm that runs without a GPU.
#include "orrery/bh/build_topology.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "orrery/ic/initial_conditions.hpp"
#include "orrery/ic/plummer.hpp"
#include "orrery/bh/build_steps.hpp"
#include "orrery/bh/octree_build.hpp"
#include "support/test_inputs.hpp"

namespace orrery::bh {
namespace {

/// The tree as the GPU build makes it, built sequentially.
struct Built {
  std::vector<std::uint64_t> key;
  std::vector<std::int32_t> level, first, count, next;
  std::vector<float> mass, com_x, com_y, com_z, crit2, quad;
  int depth = 0;
};

Built build_from_keys(const std::vector<std::uint64_t>& keys, const Octree<float>& sorted, const TreeParams& p) {
  const auto n = static_cast<std::int32_t>(keys.size());
  // Nodes per particle, the depth, then the exclusive scan (in int64, as the
  // device checks the total before trusting the int32 scan).
  std::vector<std::int32_t> start(n + 1, 0);
  std::int64_t total = 0;
  Built t;
  for (std::int32_t j = 0; j < n; ++j) {
    const NodesAt a = nodes_at(keys.data(), n, j, p.leaf_capacity);
    start[j] = a.count;
    total += a.count;
    if (a.count > 0) t.depth = std::max(t.depth, a.first_level + a.count - 1);
  }
  EXPECT_LT(total, std::int64_t(std::numeric_limits<std::int32_t>::max()));
  std::int32_t running = 0;
  for (auto& s : start) running += std::exchange(s, running);
  const std::int32_t num_nodes = start[n];
  for (auto* v : {&t.level, &t.first, &t.count, &t.next}) v->assign(num_nodes, -1);
  t.key.assign(num_nodes, ~std::uint64_t(0));
  const TopologyArrays out{t.key.data(), t.level.data(), t.first.data(), t.count.data(), t.next.data()};
  for (std::int32_t j = 0; j < n; ++j) write_nodes_at(keys.data(), start.data(), j, out);
  for (std::int32_t i = 0; i < num_nodes; ++i) write_extent(keys.data(), n, start.data(), i, out);

  // Moments: every child has a larger index than its parent, so a reverse
  // sweep meets the children first (the device's climb reaches each parent
  // after its last child: the same operands in the same order).
  const bool quad = p.multipole == Multipole::quadrupole;
  std::vector<NodeMoments> mo(num_nodes);
  for (auto* v : {&t.mass, &t.com_x, &t.com_y, &t.com_z, &t.crit2}) v->assign(num_nodes, 0.0f);
  if (quad) t.quad.assign(std::size_t(num_nodes) * kQuadComponents, 0.0f);
  const MomentArrays<float> m{t.mass.data(),  t.com_x.data(), t.com_y.data(), t.com_z.data(),
                              t.crit2.data(), quad ? t.quad.data() : nullptr};
  for (std::int32_t i = num_nodes - 1; i >= 0; --i) {
    const CellGeometry g = cell_geometry(t.key[i], t.level[i], sorted.cube);
    std::int32_t children[8];
    const int k = children_of(t.next.data(), i, children);
    NodeMoments ch[8];
    for (int c = 0; c < k; ++c) ch[c] = mo[children[c]];
    if (quad)
      mo[i] = k == 0 ? leaf_moments<true>(sorted.x.data(), sorted.y.data(), sorted.z.data(), sorted.m.data(),
                                          t.first[i], t.count[i], g)
                     : combine_moments<true>(ch, k, g);
    else
      mo[i] = k == 0 ? leaf_moments<false>(sorted.x.data(), sorted.y.data(), sorted.z.data(), sorted.m.data(),
                                           t.first[i], t.count[i], g)
                     : combine_moments<false>(ch, k, g);
    if (quad)
      store_moments<true>(m, i, mo[i], g, p.theta, p.tolerance);
    else
      store_moments<false>(m, i, mo[i], g, p.theta, p.tolerance);
  }
  return t;
}

template <class T>
::testing::AssertionResult same_bits(const std::vector<T>& got, const std::vector<T>& want, const char* field) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << field << ": " << got.size() << " entries, build_octree has " << want.size();
  for (std::size_t i = 0; i < got.size(); ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(T)) != 0)
      return ::testing::AssertionFailure() << field << "[" << i << "] is " << got[i] << ", build_octree has "
                                           << want[i];
  return ::testing::AssertionSuccess();
}

void expect_same_as_cpu(const Particles<float>& p, int cap, Multipole mp, const std::string& name) {
  const TreeParams params{0.5, cap, mp};
  const std::string ctx = name + ", cap " + std::to_string(cap) + ", " + std::string(to_string(mp));
  const Octree<float> cpu = build_octree(p.sources(), params);
  std::vector<std::uint64_t> keys(cpu.x.size());
  for (std::size_t j = 0; j < keys.size(); ++j) keys[j] = position_key(cpu.x[j], cpu.y[j], cpu.z[j], cpu.cube);
  ASSERT_TRUE(std::is_sorted(keys.begin(), keys.end())) << ctx;
  const Built t = build_from_keys(keys, cpu, params);
  EXPECT_EQ(t.depth, cpu.depth) << ctx;
  EXPECT_TRUE(same_bits(t.key, cpu.key, "key")) << ctx;
  EXPECT_TRUE(same_bits(t.level, cpu.level, "level")) << ctx;
  EXPECT_TRUE(same_bits(t.first, cpu.first, "first")) << ctx;
  EXPECT_TRUE(same_bits(t.count, cpu.count, "count")) << ctx;
  EXPECT_TRUE(same_bits(t.next, cpu.next, "next")) << ctx;
  EXPECT_TRUE(same_bits(t.mass, cpu.mass, "mass")) << ctx;
  EXPECT_TRUE(same_bits(t.com_x, cpu.com_x, "com_x")) << ctx;
  EXPECT_TRUE(same_bits(t.com_y, cpu.com_y, "com_y")) << ctx;
  EXPECT_TRUE(same_bits(t.com_z, cpu.com_z, "com_z")) << ctx;
  EXPECT_TRUE(same_bits(t.crit2, cpu.crit2, "crit2")) << ctx;
  EXPECT_TRUE(same_bits(t.quad, cpu.quad, "quad")) << ctx;
}

std::vector<testing::NamedInput> all_inputs() {
  auto v = testing::structured_inputs();
  v.push_back({"plummer_20000", ic::to_precision<float>(ic::plummer_sphere(20000, 29))});
  v.push_back({"close_pairs_3000", testing::close_pairs(3000, 23)});
  v.push_back({"clumps_and_duplicates_2600", testing::clumps_and_duplicates(2600, 28)});
  v.push_back({"lattice_duplicates_3000", testing::lattice_duplicates(3000, 31)});
  v.push_back({"uniform_16", testing::uniform_cube(16, 32)});  // N = cap and cap + 1 for cap 16
  v.push_back({"uniform_17", testing::uniform_cube(17, 33)});
  v.push_back({"uniform_33", testing::uniform_cube(33, 34)});  // and for cap 33
  v.push_back({"uniform_34", testing::uniform_cube(34, 35)});
  return v;
}

TEST(BuildTopology, SharedLevelsCountsLeadingDigits) {
  EXPECT_EQ(shared_levels(0, 0), kMaxLevel);
  EXPECT_EQ(shared_levels(0, std::uint64_t(1) << 62), 0);
  EXPECT_EQ(shared_levels(0, std::uint64_t(1) << 60), 0);
  EXPECT_EQ(shared_levels(0, std::uint64_t(1) << 59), 1);
  EXPECT_EQ(shared_levels(5, 4), 20);
  EXPECT_EQ(shared_levels(5, 8), 19);
  EXPECT_EQ(cell_start_key(0x7fffffffffffffffULL, 0), 0u);
  EXPECT_EQ(cell_last_key(0, 0), 0x7fffffffffffffffULL);
  EXPECT_EQ(cell_last_key(12345, kMaxLevel), 12345u);
}

TEST(BuildTopology, EqualsBuildOctreeOnEveryInputAndCapacity) {
  for (const auto& in : all_inputs()) {
    const int n = static_cast<int>(in.particles.size());
    for (int cap : {1, 2, 16, 33, n, n + 1, std::numeric_limits<std::int32_t>::max()})
      expect_same_as_cpu(in.particles, cap, Multipole::monopole, in.name);
    expect_same_as_cpu(in.particles, 4, Multipole::quadrupole, in.name);
  }
}

TEST(BuildTopology, EqualsBuildOctreeOnLargeInputs) {
  const auto uniform = testing::uniform_cube(100000, 21);
  for (int cap : {1, 8, 64}) expect_same_as_cpu(uniform, cap, Multipole::monopole, "uniform_100000");
  const auto clumps = testing::clumps_and_duplicates(26000, 28);
  for (int cap : {1, 16, 5000, 7000}) expect_same_as_cpu(clumps, cap, Multipole::quadrupole, "clumps_26000");
  expect_same_as_cpu(testing::close_pairs(20000, 23), 1, Multipole::monopole, "close_pairs_20000");
}

}  // namespace
}  // namespace orrery::bh
