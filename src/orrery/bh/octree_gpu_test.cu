// The GPU-built tree equals the CPU-built tree bit for bit (DESIGN §1
// contract 1, §3): every array of Octree, on random, clustered (Plummer) and
// every structured/degenerate input, float and double, monopole and
// quadrupole, several leaf capacities. Skipped without a CUDA device.
#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "orrery/core/error.hpp"
#include "orrery/core/rng.hpp"
#include "orrery/cuda/device.hpp"
#include "orrery/cuda/memory.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/ic/plummer.hpp"
#include "orrery/bh/build_steps.hpp"
#include "orrery/bh/octree_build.hpp"
#include "orrery/bh/octree_gpu.hpp"
#include "support/test_inputs.hpp"

namespace orrery::bh {
namespace {

#define SKIP_WITHOUT_GPU() \
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device"

/// Positions and masses copied to the device.
template <class Real>
struct DeviceSources {
  cuda::DeviceBuffer<Real> x, y, z, m;
  std::int64_t count = 0;

  explicit DeviceSources(const Particles<Real>& p)
      : x(p.x.size()), y(p.y.size()), z(p.z.size()), m(p.mass.size()), count(p.size()) {
    x.upload(p.x);
    y.upload(p.y);
    z.upload(p.z);
    m.upload(p.mass);
  }
  SourcesView<Real> view() const { return {count, x.data(), y.data(), z.data(), m.data()}; }
};

/// The Plummer sphere of ic/ (Henon units), rounded to float: a strongly
/// clustered input with a deep tree.
Particles<float> plummer(std::int64_t n, std::uint64_t seed) {
  return ic::to_precision<float>(ic::plummer_sphere(n, seed));
}

/// Bitwise equality of two arrays, reporting the first difference.
template <class T>
void expect_bits(const std::vector<T>& gpu, const std::vector<T>& cpu, const char* field, const std::string& ctx) {
  ASSERT_EQ(gpu.size(), cpu.size()) << ctx << ": size of " << field;
  for (std::size_t i = 0; i < gpu.size(); ++i) {
    if (std::memcmp(&gpu[i], &cpu[i], sizeof(T)) != 0) {
      ADD_FAILURE() << ctx << ": " << field << "[" << i << "] differs: gpu " << gpu[i] << ", cpu " << cpu[i];
      return;
    }
  }
}

template <class Real>
void expect_same_tree(const Octree<Real>& g, const Octree<Real>& c, const std::string& ctx) {
  EXPECT_EQ(std::memcmp(&g.cube, &c.cube, sizeof(Cube)), 0) << ctx << ": cube";
  EXPECT_EQ(g.depth, c.depth) << ctx;
  expect_bits(g.key, c.key, "key", ctx);
  expect_bits(g.level, c.level, "level", ctx);
  expect_bits(g.first, c.first, "first", ctx);
  expect_bits(g.count, c.count, "count", ctx);
  expect_bits(g.next, c.next, "next", ctx);
  expect_bits(g.mass, c.mass, "mass", ctx);
  expect_bits(g.com_x, c.com_x, "com_x", ctx);
  expect_bits(g.com_y, c.com_y, "com_y", ctx);
  expect_bits(g.com_z, c.com_z, "com_z", ctx);
  expect_bits(g.crit2, c.crit2, "crit2", ctx);
  expect_bits(g.quad, c.quad, "quad", ctx);
  expect_bits(g.x, c.x, "x", ctx);
  expect_bits(g.y, c.y, "y", ctx);
  expect_bits(g.z, c.z, "z", ctx);
  expect_bits(g.m, c.m, "m", ctx);
  expect_bits(g.order, c.order, "order", ctx);
}

/// Builds on both sides and compares; `tree` is reused (its buffers too).
template <class Real>
void check_against_cpu(DeviceOctree<Real>& tree, const Particles<float>& input, const TreeParams& params,
                       const std::string& name, const Cube* cube = nullptr) {
  const Particles<Real> p = testing::converted<Real>(input);
  const std::string ctx = name + " (" + (sizeof(Real) == 4 ? "float" : "double") + ", cap " +
                          std::to_string(params.leaf_capacity) + ", " + std::string(to_string(params.multipole)) +
                          ", theta " + std::to_string(params.theta) + ")";
  // The double moments too, where build_octree gives them (the MPI ranks' orders).
  const bool doubles = multipole_order(params.multipole) <= 2;
  std::vector<NodeMoments> cpu_moments;
  const Octree<Real> cpu = build_octree(p.sources(), params, nullptr, cube, doubles ? &cpu_moments : nullptr);
  const DeviceSources<Real> d(p);
  tree.build(d.view(), params, nullptr, cube);
  const Octree<Real> gpu = tree.download();
  EXPECT_EQ(tree.num_nodes(), cpu.num_nodes()) << ctx;
  expect_same_tree(gpu, cpu, ctx);
  // download_nodes: the same tree less the sorted sources (and the order, where not asked for).
  Octree<Real> nodes = tree.download_nodes();
  EXPECT_TRUE(nodes.x.empty() && nodes.y.empty() && nodes.z.empty() && nodes.m.empty()) << ctx;
  nodes.x = gpu.x, nodes.y = gpu.y, nodes.z = gpu.z, nodes.m = gpu.m;
  expect_same_tree(nodes, cpu, ctx + " (download_nodes)");
  Octree<Real> no_order = tree.download_nodes(false);
  EXPECT_TRUE(no_order.order.empty()) << ctx;
  no_order.x = gpu.x, no_order.y = gpu.y, no_order.z = gpu.z, no_order.m = gpu.m, no_order.order = gpu.order;
  expect_same_tree(no_order, cpu, ctx + " (download_nodes without the order)");
  // first_moved: the first k with order[k] != k, or -1.
  std::int64_t moved = -1;
  for (std::size_t k = 0; k < cpu.order.size() && moved < 0; ++k)
    if (cpu.order[k] != static_cast<std::int32_t>(k)) moved = static_cast<std::int64_t>(k);
  EXPECT_EQ(tree.first_moved(), moved) << ctx;
  if (!doubles) return;
  const std::vector<NodeMoments> gpu_moments = tree.download_moments();
  ASSERT_EQ(gpu_moments.size(), cpu_moments.size()) << ctx << ": double moments";
  for (std::size_t n = 0; n < gpu_moments.size(); ++n)
    if (std::memcmp(&gpu_moments[n], &cpu_moments[n], sizeof(NodeMoments)) != 0) {
      ADD_FAILURE() << ctx << ": the double moments of node " << n << " differ: gpu mass " << gpu_moments[n].mass
                    << ", cpu " << cpu_moments[n].mass;
      return;
    }
  // Some nodes' alone, in an order of the caller's (a node twice, the last first).
  const auto last = static_cast<std::int32_t>(cpu_moments.size()) - 1;
  const std::vector<std::int32_t> some = {last, 0, last / 2, last / 3, last / 2};
  const std::vector<NodeMoments> picked = tree.download_moments(some);
  ASSERT_EQ(picked.size(), some.size()) << ctx;
  for (std::size_t k = 0; k < some.size(); ++k)
    EXPECT_EQ(std::memcmp(&picked[k], &cpu_moments[static_cast<std::size_t>(some[k])], sizeof(NodeMoments)), 0)
        << ctx << ": the double moments of node " << some[k] << ", asked for alone";
  EXPECT_TRUE(tree.download_moments(std::vector<std::int32_t>{}).empty()) << ctx;
}

template <class Real>
class DeviceOctreeTest : public ::testing::Test {};
using Reals = ::testing::Types<float, double>;
TYPED_TEST_SUITE(DeviceOctreeTest, Reals);

TYPED_TEST(DeviceOctreeTest, StructuredInputsEqualCpuTreeBitForBit) {
  SKIP_WITHOUT_GPU();
  DeviceOctree<TypeParam> tree;
  for (const auto& in : testing::structured_inputs())
    for (int cap : {1, 4, 16})
      for (Multipole mp : {Multipole::monopole, Multipole::quadrupole})
        check_against_cpu(tree, in.particles, TreeParams{0.5, cap, mp}, in.name);
}

TYPED_TEST(DeviceOctreeTest, UniformRandomEqualsCpuTreeBitForBit) {
  SKIP_WITHOUT_GPU();
  DeviceOctree<TypeParam> tree;
  const auto p = testing::uniform_cube(100000, 21);
  for (int cap : {1, 8, 16, 64})
    for (Multipole mp : {Multipole::monopole, Multipole::quadrupole})
      check_against_cpu(tree, p, TreeParams{0.6, cap, mp}, "uniform_100000");
}

TYPED_TEST(DeviceOctreeTest, PlummerEqualsCpuTreeBitForBit) {
  SKIP_WITHOUT_GPU();
  DeviceOctree<TypeParam> tree;
  const auto p = plummer(200000, 22);
  for (int cap : {2, 16, 32})
    for (Multipole mp : {Multipole::monopole, Multipole::quadrupole})
      check_against_cpu(tree, p, TreeParams{0.5, cap, mp}, "plummer_200000");
  check_against_cpu(tree, p, TreeParams{0.0, 16, Multipole::monopole}, "plummer_200000");  // crit2 = inf
}

// Orders 3 and 4: the third and fourth moments (moments_kernel's climb with
// a larger record) equal the CPU build's bits; one tree object across
// orders, so its moment buffer and graphs follow the order.
TYPED_TEST(DeviceOctreeTest, OctupoleAndHexadecapoleMomentsEqualCpuBitForBit) {
  SKIP_WITHOUT_GPU();
  DeviceOctree<TypeParam> tree;
  for (const auto& in : testing::structured_inputs())
    for (Multipole mp : {Multipole::octupole, Multipole::hexadecapole})
      check_against_cpu(tree, in.particles, TreeParams{0.5, 4, mp}, in.name);
  const auto p = plummer(200000, 22);
  for (Multipole mp : {Multipole::hexadecapole, Multipole::quadrupole, Multipole::octupole})
    check_against_cpu(tree, p, TreeParams{0.5, 16, mp}, "plummer_200000");
  // Their double moments are not the ranks' record: refused by name, as build_octree refuses them.
  try {
    (void)tree.download_moments();
    ADD_FAILURE() << "the double moments of an octupole tree were given";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("octupole tree were asked for; accepted: monopole or quadrupole"),
              std::string::npos)
        << e.what();
  }
  // A node past the tree's, asked for alone, is refused by number.
  check_against_cpu(tree, p, TreeParams{0.5, 16, Multipole::monopole}, "plummer_200000");
  try {
    (void)tree.download_moments(std::vector<std::int32_t>{0, tree.num_nodes()});
    ADD_FAILURE() << "the moments of a node past the tree were given";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("node " + std::to_string(tree.num_nodes()) + " was asked for; accepted: 0 to"),
              std::string::npos)
        << e.what();
  }
}

// Sources sorted by key already (an MPI rank's runs) stay in place:
// first_moved() is -1, and the first particle out of place is found.
TYPED_TEST(DeviceOctreeTest, FirstMovedIsNoneForSourcesSortedByKey) {
  SKIP_WITHOUT_GPU();
  const Particles<TypeParam> p = testing::converted<TypeParam>(plummer(50000, 24));
  const TreeParams params{0.5, 16, Multipole::monopole};
  const Octree<TypeParam> sorted_tree = build_octree(p.sources(), params);
  Particles<TypeParam> sorted(static_cast<std::size_t>(p.size()));
  for (std::int64_t k = 0; k < p.size(); ++k) {
    const auto i = static_cast<std::size_t>(sorted_tree.order[static_cast<std::size_t>(k)]);
    sorted.x[k] = p.x[i], sorted.y[k] = p.y[i], sorted.z[k] = p.z[i], sorted.mass[k] = p.mass[i];
  }
  DeviceOctree<TypeParam> tree;
  const DeviceSources<TypeParam> in_order(sorted), as_drawn(p);
  tree.build(in_order.view(), params, nullptr);
  EXPECT_EQ(tree.first_moved(), -1);
  EXPECT_TRUE(tree.download_nodes(false).order.empty());
  tree.build(as_drawn.view(), params, nullptr);
  std::int64_t moved = -1;
  for (std::size_t k = 0; k < sorted_tree.order.size() && moved < 0; ++k)
    if (sorted_tree.order[k] != static_cast<std::int32_t>(k)) moved = static_cast<std::int64_t>(k);
  EXPECT_EQ(tree.first_moved(), moved);
}

TYPED_TEST(DeviceOctreeTest, DeepChainsGrowTheNodeArraysAndStillMatch) {
  SKIP_WITHOUT_GPU();
  DeviceOctree<TypeParam> tree;
  const auto p = testing::close_pairs(20000, 23);
  check_against_cpu(tree, p, TreeParams{0.5, 1, Multipole::quadrupole}, "close_pairs_20000");
  EXPECT_GT(tree.num_nodes(), 4 * p.size());  // the chains: the guess of the node count was too small
}

TYPED_TEST(DeviceOctreeTest, LargeClumpsAndDuplicatesEqualCpuTree) {
  SKIP_WITHOUT_GPU();
  // Two far clumps make long chains of big single-child nodes (mostly empty
  // child ranges), and 6000 copies of one point an oversized leaf of one key.
  const auto p = testing::clumps_and_duplicates(26000, 28);
  DeviceOctree<TypeParam> tree;
  for (int cap : {1, 16, 5000})
    check_against_cpu(tree, p, TreeParams{0.5, cap, Multipole::quadrupole}, "large_clumps_26000");
  // Runs of equal keys of every length around the capacities; a capacity
  // past any N (the cap + 1 windows must not overflow int32).
  const auto lattice = testing::lattice_duplicates(30000, 31);
  for (int cap : {1, 2, 33, 1000, std::numeric_limits<std::int32_t>::max()})
    check_against_cpu(tree, lattice, TreeParams{0.5, cap, Multipole::monopole}, "lattice_duplicates_30000");
}

TYPED_TEST(DeviceOctreeTest, RebuildsReuseBuffersAndForgetThePreviousTree) {
  SKIP_WITHOUT_GPU();
  DeviceOctree<TypeParam> tree;
  const auto big = plummer(50000, 24), small = testing::uniform_cube(3000, 25);
  check_against_cpu(tree, big, TreeParams{0.5, 8, Multipole::quadrupole}, "big");
  const std::size_t bytes = tree.device_bytes();
  EXPECT_GT(bytes, std::size_t(0));
  check_against_cpu(tree, small, TreeParams{0.5, 8, Multipole::monopole}, "small_after_big");
  EXPECT_EQ(tree.device_bytes(), bytes) << "a smaller build allocated";
  EXPECT_EQ(tree.view().quad, nullptr) << "a monopole tree has no quadrupole array";
  check_against_cpu(tree, big, TreeParams{0.5, 8, Multipole::quadrupole}, "big_again");
  EXPECT_EQ(tree.device_bytes(), bytes) << "the same build allocated again";
}

TYPED_TEST(DeviceOctreeTest, ViewDescribesTheTreeAndPhasesAreTimed) {
  SKIP_WITHOUT_GPU();
  DeviceOctree<TypeParam> tree;
  EXPECT_EQ(tree.view().num_nodes, 0);
  EXPECT_EQ(tree.order(), nullptr);
  const Particles<TypeParam> p = testing::converted<TypeParam>(testing::uniform_cube(20000, 26));
  const DeviceSources<TypeParam> d(p);
  tree.build(d.view(), TreeParams{0.5, 16, Multipole::monopole});
  const OctreeView<TypeParam> v = tree.view();
  EXPECT_EQ(v.num_nodes, tree.num_nodes());
  EXPECT_EQ(v.num_particles, 20000);
  EXPECT_NE(v.next, nullptr);
  EXPECT_NE(tree.order(), nullptr);
  const GpuBuildTimes t = tree.times();
  for (double s : {t.box, t.keys, t.sort, t.gather, t.levels, t.order, t.moments}) EXPECT_GT(s, 0.0);
  EXPECT_NEAR(t.total(), t.box + t.keys + t.sort + t.gather + t.levels + t.order + t.moments, 1e-12);
}

TYPED_TEST(DeviceOctreeTest, ACubeGivenFromOutsideEqualsTheCpuTreeInIt) {
  SKIP_WITHOUT_GPU();
  DeviceOctree<TypeParam> tree;
  const auto p = plummer(50000, 28);
  // A cube far larger than the sphere's own (an MPI run's global one), one
  // whose faces the particles touch, and one off-centre by a non-power of two.
  const Cube large{-64.0, -64.0, -64.0, 128.0}, tight = build_octree(p.sources(), TreeParams{}).cube,
             shifted{-40.3, -41.7, -39.1, 97.25};
  for (const Cube& c : {large, tight, shifted})
    for (Multipole mp : {Multipole::monopole, Multipole::quadrupole}) {
      check_against_cpu(tree, p, TreeParams{0.5, 16, mp}, "plummer_50000 in side " + std::to_string(c.side), &c);
      const Cube got = tree.cube();
      EXPECT_EQ(std::memcmp(&got, &c, sizeof(Cube)), 0) << "the tree is not in the cube given";
    }
  check_against_cpu(tree, p, TreeParams{0.5, 16, Multipole::monopole}, "plummer_50000, own cube after given ones");
}

template <class F>
std::string input_error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError thrown)";
}

TYPED_TEST(DeviceOctreeTest, InvalidInputNamesParticleFieldAndValue) {
  SKIP_WITHOUT_GPU();
  using Real = TypeParam;
  DeviceOctree<Real> tree;
  Particles<Real> p = testing::converted<Real>(testing::uniform_cube(1000, 27));
  p.y[3] = std::numeric_limits<Real>::quiet_NaN();
  p.y[700] = std::numeric_limits<Real>::infinity();
  {
    const DeviceSources<Real> d(p);
    const std::string msg = input_error_of([&] { tree.build(d.view(), TreeParams{}); });
    EXPECT_NE(msg.find("particle 700: y = inf is not finite"), std::string::npos) << msg;
    EXPECT_EQ(tree.num_nodes(), 0) << "a failed build leaves no tree";
  }
  p.y[3] = p.y[700] = Real(0.5);
  p.mass[5] = Real(-1);
  {
    const DeviceSources<Real> d(p);
    const std::string msg = input_error_of([&] { tree.build(d.view(), TreeParams{}); });
    EXPECT_NE(msg.find("particle 5: mass = -1"), std::string::npos) << msg;
  }
  p.mass[5] = Real(0.001);
  const DeviceSources<Real> d(p);
  EXPECT_NE(input_error_of([&] { tree.build(d.view(), TreeParams{-0.1, 8}); }).find("gravity.theta"),
            std::string::npos);
  EXPECT_NE(input_error_of([&] { tree.build(d.view(), TreeParams{0.5, 0}); }).find("gravity.leaf_capacity"),
            std::string::npos);
  EXPECT_NE(input_error_of([&] { tree.build(SourcesView<Real>{}, TreeParams{}); }).find("at least one particle"),
            std::string::npos);
  EXPECT_NO_THROW(tree.build(d.view(), TreeParams{}));  // the same object builds again after failures
  EXPECT_GT(tree.num_nodes(), 1);
}

TYPED_TEST(DeviceOctreeTest, ASourceOutsideTheCubeGivenIsNamedAsOnTheHost) {
  SKIP_WITHOUT_GPU();
  using Real = TypeParam;
  DeviceOctree<Real> tree;
  Particles<Real> p = testing::converted<Real>(testing::uniform_cube(1000, 29));
  const Cube c{-2.0, -2.0, -2.0, 4.0};
  p.x[17] = Real(2.5);
  p.z[600] = Real(-3);
  const DeviceSources<Real> d(p);
  const std::string host = input_error_of([&] { build_octree(p.sources(), TreeParams{}, nullptr, &c); });
  const std::string device = input_error_of([&] { tree.build(d.view(), TreeParams{}, nullptr, &c); });
  EXPECT_NE(device.find("particle 600 at ("), std::string::npos) << device;
  EXPECT_NE(device.find("lies outside the tree's cube"), std::string::npos) << device;
  EXPECT_EQ(device, host);
  EXPECT_EQ(tree.num_nodes(), 0) << "a failed build leaves no tree";
  const Cube bad{0.0, 0.0, 0.0, -1.0};
  EXPECT_NE(input_error_of([&] { tree.build(d.view(), TreeParams{}, nullptr, &bad); }).find("finite side > 0"),
            std::string::npos);
  p.x[17] = p.z[600] = Real(0);
  const DeviceSources<Real> ok(p);
  EXPECT_NO_THROW(tree.build(ok.view(), TreeParams{}, nullptr, &c));
  EXPECT_NO_THROW(tree.build(ok.view(), TreeParams{}));  // and without a cube: its own again
  EXPECT_LT(tree.cube().side, 4.0);
}

}  // namespace
}  // namespace orrery::bh
