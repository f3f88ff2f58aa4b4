// The tree of build_topology.hpp's steps equals the octree as DESIGN §3
// defines it. Both builds run these steps (build_octree() in parallel,
// octree_gpu.cu on the device, docs/adr/0010), so they are checked here
// against a reference written independently of them: the definition itself,
// a recursive split of each cell into its non-empty children in child order
// (pre-order by construction), with the moments summed over the reference's
// own children lists. Checked twice: build_octree()'s tree, and the steps run
// one element at a time in the order the GPU runs them (nodes_at per
// particle, the exclusive scan, write_nodes_at per particle, write_extent per
// node, children_of per node, moments in a reverse sweep: the device's climb
// meets the same operands in the same order). Both are also checked against
// DESIGN §3's cross-check of the layout (pre-order = the nodes sorted by
// (start key, level); next[i] = the first node at or past the end of cell i).
// This is the proof of both builds' algorithm that runs without a GPU.
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

/// A tree's arrays, as the reference and the sequential run make them.
struct Built {
  std::vector<std::uint64_t> key;
  std::vector<std::int32_t> level, first, count, next;
  std::vector<float> mass, com_x, com_y, com_z, crit2, quad;
  int depth = 0;
};

/// The reference: DESIGN §3's definition, recursively. A cell with more than
/// cap particles that are not all one key, above the deepest level, is split
/// into its non-empty children, in child order; nodes are appended in
/// depth-first pre-order. The child ranges by linear scans of the keys.
void split_reference(const std::vector<std::uint64_t>& keys, std::int32_t first, std::int32_t count,
                     std::uint64_t key, int level, int cap, Built& t, std::vector<std::vector<std::int32_t>>& children) {
  const auto i = static_cast<std::int32_t>(t.key.size());
  t.key.push_back(key);
  t.level.push_back(level);
  t.first.push_back(first);
  t.count.push_back(count);
  t.next.push_back(-1);
  children.emplace_back();
  t.depth = std::max(t.depth, level);
  if (count > cap && level < kMaxLevel && keys[first] != keys[first + count - 1]) {
    const int shift = 3 * (kMaxLevel - level - 1);
    std::int32_t j = first;
    for (std::uint64_t c = 0; c < 8; ++c) {
      const std::uint64_t child = key | (c << shift);
      const std::int32_t begin = j;
      while (j < first + count && (keys[j] >> shift) == (child >> shift)) ++j;
      if (j == begin) continue;
      children[i].push_back(static_cast<std::int32_t>(t.key.size()));
      split_reference(keys, begin, j - begin, child, level + 1, cap, t, children);
    }
  }
  t.next[i] = static_cast<std::int32_t>(t.key.size());
}

/// The moments of every node of t (topology set), the children of node i
/// being children(i); a reverse sweep of pre-order meets the children first.
template <class Children>
void reference_moments(Built& t, const Octree<float>& sorted, const TreeParams& p, const Children& children) {
  const auto num_nodes = static_cast<std::int32_t>(t.key.size());
  const bool quad = p.multipole == Multipole::quadrupole;
  std::vector<NodeMoments> mo(num_nodes);
  for (auto* v : {&t.mass, &t.com_x, &t.com_y, &t.com_z, &t.crit2}) v->assign(num_nodes, 0.0f);
  if (quad) t.quad.assign(std::size_t(num_nodes) * kQuadComponents, 0.0f);
  const MomentArrays<float> m{t.mass.data(),  t.com_x.data(), t.com_y.data(), t.com_z.data(),
                              t.crit2.data(), quad ? t.quad.data() : nullptr};
  for (std::int32_t i = num_nodes - 1; i >= 0; --i) {
    const CellGeometry g = cell_geometry(t.key[i], t.level[i], sorted.cube);
    std::int32_t ids[8];
    const int k = children(i, ids);
    NodeMoments ch[8];
    for (int c = 0; c < k; ++c) ch[c] = mo[ids[c]];
    if (quad)
      mo[i] = k == 0 ? leaf_moments<Multipole::quadrupole>(sorted.x.data(), sorted.y.data(), sorted.z.data(), sorted.m.data(),
                                          t.first[i], t.count[i], g)
                     : combine_moments<Multipole::quadrupole>(ch, k, g);
    else
      mo[i] = k == 0 ? leaf_moments<Multipole::monopole>(sorted.x.data(), sorted.y.data(), sorted.z.data(), sorted.m.data(),
                                           t.first[i], t.count[i], g)
                     : combine_moments<Multipole::monopole>(ch, k, g);
    if (quad)
      store_moments<Multipole::quadrupole>(m, i, mo[i], g, p.theta, p.tolerance);
    else
      store_moments<Multipole::monopole>(m, i, mo[i], g, p.theta, p.tolerance);
  }
}

Built reference_tree(const std::vector<std::uint64_t>& keys, const Octree<float>& sorted, const TreeParams& p) {
  Built t;
  std::vector<std::vector<std::int32_t>> children;
  split_reference(keys, 0, static_cast<std::int32_t>(keys.size()), 0, 0, p.leaf_capacity, t, children);
  reference_moments(t, sorted, p, [&](std::int32_t i, std::int32_t ids[8]) {
    std::copy(children[i].begin(), children[i].end(), ids);
    return static_cast<int>(children[i].size());
  });
  return t;
}

/// The steps of build_topology.hpp one element at a time, in the GPU's order.
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

  reference_moments(t, sorted, p,
                    [&](std::int32_t i, std::int32_t ids[8]) { return children_of(t.next.data(), i, ids); });
  return t;
}

template <class T>
::testing::AssertionResult same_bits(const std::vector<T>& got, const std::vector<T>& want, const char* field) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << field << ": " << got.size() << " entries, the reference has " << want.size();
  for (std::size_t i = 0; i < got.size(); ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(T)) != 0)
      return ::testing::AssertionFailure() << field << "[" << i << "] is " << got[i] << ", the reference has "
                                           << want[i];
  return ::testing::AssertionSuccess();
}

/// DESIGN §3's cross-check: pre-order is the order of (start key, level),
/// and next[i] is the first node whose start key is at or past the end of
/// cell i (the nodes after its subtree start past its key range).
::testing::AssertionResult layout_cross_check(const Built& t) {
  const auto num_nodes = static_cast<std::int32_t>(t.key.size());
  for (std::int32_t i = 0; i + 1 < num_nodes; ++i)
    if (!(t.key[i] < t.key[i + 1] || (t.key[i] == t.key[i + 1] && t.level[i] < t.level[i + 1])))
      return ::testing::AssertionFailure() << "nodes " << i << " and " << i + 1 << " are not in (key, level) order";
  for (std::int32_t i = 0; i < num_nodes; ++i) {
    const std::uint64_t end = cell_last_key(t.key[i], t.level[i]);  // the cell is [key, end]
    const auto past = std::upper_bound(t.key.begin() + i, t.key.end(), end) - t.key.begin();
    if (t.next[i] != past)
      return ::testing::AssertionFailure() << "next[" << i << "] = " << t.next[i] << ", the first node past the cell is "
                                           << past;
  }
  return ::testing::AssertionSuccess();
}

void expect_same(const Built& t, const Built& want, const std::string& ctx) {
  EXPECT_EQ(t.depth, want.depth) << ctx;
  EXPECT_TRUE(same_bits(t.key, want.key, "key")) << ctx;
  EXPECT_TRUE(same_bits(t.level, want.level, "level")) << ctx;
  EXPECT_TRUE(same_bits(t.first, want.first, "first")) << ctx;
  EXPECT_TRUE(same_bits(t.count, want.count, "count")) << ctx;
  EXPECT_TRUE(same_bits(t.next, want.next, "next")) << ctx;
  EXPECT_TRUE(same_bits(t.mass, want.mass, "mass")) << ctx;
  EXPECT_TRUE(same_bits(t.com_x, want.com_x, "com_x")) << ctx;
  EXPECT_TRUE(same_bits(t.com_y, want.com_y, "com_y")) << ctx;
  EXPECT_TRUE(same_bits(t.com_z, want.com_z, "com_z")) << ctx;
  EXPECT_TRUE(same_bits(t.crit2, want.crit2, "crit2")) << ctx;
  EXPECT_TRUE(same_bits(t.quad, want.quad, "quad")) << ctx;
  EXPECT_TRUE(layout_cross_check(t)) << ctx;
}

Built arrays_of(const Octree<float>& o) {
  return {o.key, o.level, o.first, o.count, o.next, o.mass, o.com_x, o.com_y, o.com_z, o.crit2, o.quad, o.depth};
}

void expect_same_as_cpu(const Particles<float>& p, int cap, Multipole mp, const std::string& name) {
  const TreeParams params{0.5, cap, mp};
  const std::string ctx = name + ", cap " + std::to_string(cap) + ", " + std::string(to_string(mp));
  const Octree<float> cpu = build_octree(p.sources(), params);
  std::vector<std::uint64_t> keys(cpu.x.size());
  for (std::size_t j = 0; j < keys.size(); ++j) keys[j] = position_key(cpu.x[j], cpu.y[j], cpu.z[j], cpu.cube);
  ASSERT_TRUE(std::is_sorted(keys.begin(), keys.end())) << ctx;
  const Built want = reference_tree(keys, cpu, params);
  expect_same(arrays_of(cpu), want, ctx + ", build_octree");
  expect_same(build_from_keys(keys, cpu, params), want, ctx + ", sequential steps");
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

TEST(BuildTopology, EqualsTheReferenceOnEveryInputAndCapacity) {
  for (const auto& in : all_inputs()) {
    const int n = static_cast<int>(in.particles.size());
    for (int cap : {1, 2, 16, 33, n, n + 1, std::numeric_limits<std::int32_t>::max()})
      expect_same_as_cpu(in.particles, cap, Multipole::monopole, in.name);
    expect_same_as_cpu(in.particles, 4, Multipole::quadrupole, in.name);
  }
}

TEST(BuildTopology, EqualsTheReferenceOnLargeInputs) {
  const auto uniform = testing::uniform_cube(100000, 21);
  for (int cap : {1, 8, 64}) expect_same_as_cpu(uniform, cap, Multipole::monopole, "uniform_100000");
  const auto clumps = testing::clumps_and_duplicates(26000, 28);
  for (int cap : {1, 16, 5000, 7000}) expect_same_as_cpu(clumps, cap, Multipole::quadrupole, "clumps_26000");
  expect_same_as_cpu(testing::close_pairs(20000, 23), 1, Multipole::monopole, "close_pairs_20000");
}

}  // namespace
}  // namespace orrery::bh
