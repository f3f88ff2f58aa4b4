// GpuTreeSolver against the CPU TreeSolver through the ForceSolver interface
// (host arrays) and the device-pointer API: the same physics, counters and,
// in exact mode, bits; the same accuracy against a direct sum.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "orrery/core/error.hpp"
#include "orrery/cuda/device.hpp"
#include "orrery/gravity/tree_gpu_solver.hpp"
#include "orrery/gravity/per_type_softening.hpp"
#include "support/tree_gpu_test_support.hpp"

namespace orrery::gravity {
namespace {

using testing::first_bit_difference;

#define SKIP_WITHOUT_GPU() \
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device"

GpuTreeSolverConfig gpu_config(const bh::TreeSolverConfig& c, bh::Traversal t, int w,
                               TreeBuild build = TreeBuild::device) {
  GpuTreeSolverConfig g;
  g.tree = c;
  g.traversal = t;
  g.group_width = w;
  g.build = build;
  return g;
}

bool has_phase(const SolverReport& r, const std::string& name) {
  return std::any_of(r.phase_seconds.begin(), r.phase_seconds.end(), [&](const auto& p) { return p.first == name; });
}

TEST(GpuTreeSolver, ExactModeEqualsCpuTreeSolverInTheCallersOrder) {
  SKIP_WITHOUT_GPU();
  const auto p = testing::plummer(10000, 31);
  bh::TreeSolverConfig c;
  c.math = MathMode::exact;
  gravity::TreeSolver<float> cpu(c);
  Accelerations<float> want(p.size());
  const SolverReport rc = cpu.solve(p.sources(), want.view(), {.potential = true, .per_target_counts = true});
  struct Case {
    bh::Traversal traversal;
    int width;
    TreeBuild build;
  };
  for (const Case k : {Case{bh::Traversal::independent, 32, TreeBuild::device}, Case{bh::Traversal::coherent, 32, TreeBuild::device},
                       Case{bh::Traversal::coherent, 64, TreeBuild::device}, Case{bh::Traversal::coherent, 8, TreeBuild::host}}) {
    GpuTreeSolver<float> gpu(gpu_config(c, k.traversal, k.width, k.build));
    Accelerations<float> got(p.size());
    const SolverReport rg = gpu.solve(p.sources(), got.view(), {.potential = true, .per_target_counts = true});
    const std::string what = gpu.name() + (k.build == TreeBuild::host ? " (host build)" : " (device build)");
    EXPECT_EQ(first_bit_difference(got.ax, want.ax), -1) << what;
    EXPECT_EQ(first_bit_difference(got.ay, want.ay), -1) << what;
    EXPECT_EQ(first_bit_difference(got.az, want.az), -1) << what;
    EXPECT_EQ(first_bit_difference(got.potential, want.potential), -1) << what;
    ASSERT_EQ(rg.per_target.size(), rc.per_target.size());
    InteractionCounts cpu_total;  // summed here: the totals are checked against the per-target counts
    for (const auto& t : rc.per_target) cpu_total += t;
    EXPECT_EQ(rg.total.cell_interactions, cpu_total.cell_interactions) << what;
    EXPECT_EQ(rg.total.particle_interactions, cpu_total.particle_interactions) << what;
    for (std::size_t i = 0; i < rc.per_target.size(); ++i) {
      ASSERT_EQ(rg.per_target[i].cell_interactions, rc.per_target[i].cell_interactions) << what << " target " << i;
      ASSERT_EQ(rg.per_target[i].particle_interactions, rc.per_target[i].particle_interactions) << what << " " << i;
    }
    // Without per-target counts the walk still sums the totals (in its own
    // atomics, not from the per-target arrays) and writes the same results.
    Accelerations<float> again(p.size());
    const SolverReport rt = gpu.solve(p.sources(), again.view(), {.potential = true});
    EXPECT_TRUE(rt.per_target.empty()) << what;
    EXPECT_EQ(rt.total.node_visits, rg.total.node_visits) << what;
    EXPECT_EQ(rt.total.cell_interactions, cpu_total.cell_interactions) << what;
    EXPECT_EQ(rt.total.particle_interactions, cpu_total.particle_interactions) << what;
    EXPECT_EQ(first_bit_difference(again.ax, want.ax), -1) << what;
    for (const char* phase : {k.build == TreeBuild::host ? "build (host)" : "sort", "walk", "download"})
      EXPECT_TRUE(has_phase(rg, phase)) << what << " lacks phase " << phase;
    EXPECT_GT(rg.seconds(), 0.0);
    EXPECT_GT(gpu.device_bytes(), std::size_t(p.size()) * 16);
  }
}

// The relative opening through the solvers (docs/adr/0007): without previous
// accelerations both bootstrap with a geometric walk; with them both read the
// caller's arrays. Exact mode: the GPU's bits and counters are the CPU's.
TEST(GpuTreeSolver, RelativeOpeningEqualsCpuTreeSolverWithAndWithoutPreviousAccelerations) {
  SKIP_WITHOUT_GPU();
  const auto p = testing::plummer(8000, 35);
  bh::TreeSolverConfig c;
  c.tree.multipole = bh::Multipole::quadrupole;
  c.tree.opening = bh::Opening::relative;
  c.tree.theta = 1.0;
  c.tree.tolerance = 0.003;
  c.math = MathMode::exact;
  gravity::TreeSolver<float> cpu(c);
  for (const TreeBuild build : {TreeBuild::device, TreeBuild::host}) {
    GpuTreeSolver<float> gpu(gpu_config(c, bh::Traversal::coherent, 32, build));
    Accelerations<float> want(p.size()), got(p.size());
    // The bootstrap, then two evaluations each reading the previous one's accelerations.
    for (const bool previous : {false, true, true}) {
      const SolveOptions o{.potential = true, .per_target_counts = true, .previous_accelerations = previous};
      const SolverReport rc = cpu.solve(p.sources(), want.view(), o);
      const SolverReport rg = gpu.solve(p.sources(), got.view(), o);
      const std::string what = gpu.name() + (previous ? " with previous accelerations" : " bootstrap") +
                               (build == TreeBuild::host ? " (host build)" : " (device build)");
      EXPECT_EQ(first_bit_difference(got.ax, want.ax), -1) << what;
      EXPECT_EQ(first_bit_difference(got.ay, want.ay), -1) << what;
      EXPECT_EQ(first_bit_difference(got.az, want.az), -1) << what;
      EXPECT_EQ(first_bit_difference(got.potential, want.potential), -1) << what;
      ASSERT_EQ(rg.per_target.size(), rc.per_target.size());
      for (std::size_t i = 0; i < rc.per_target.size(); ++i)
        ASSERT_EQ(rg.per_target[i].cell_interactions, rc.per_target[i].cell_interactions) << what << " target " << i;
      EXPECT_TRUE(has_phase(rg, previous ? "relative scales" : "bootstrap walk")) << what;
    }
  }
  // Counters off: the walk still keeps each target's visits for the launch
  // order (which changes no sum), and the results are the CPU's bits.
  GpuTreeSolverConfig quiet = gpu_config(c, bh::Traversal::coherent, 32, TreeBuild::device);
  quiet.counters = false;
  GpuTreeSolver<float> gpu(quiet);
  Accelerations<float> want(p.size()), got(p.size());
  for (const bool previous : {false, true, true}) {
    const SolveOptions o{.potential = true, .previous_accelerations = previous};
    cpu.solve(p.sources(), want.view(), o);
    const SolverReport rg = gpu.solve(p.sources(), got.view(), o);
    EXPECT_EQ(first_bit_difference(got.ax, want.ax), -1) << "counters off, previous " << previous;
    EXPECT_EQ(first_bit_difference(got.potential, want.potential), -1) << "counters off, previous " << previous;
    EXPECT_EQ(rg.total.cell_interactions, 0u) << "counters off report no totals";
  }
}

// The warps' order (WarpOrder) changes when a target is walked and its
// group's visits, never its results or its interaction counts: both math
// modes (the key order's exact bits are the CPU's, tested above), both
// criteria, the relative one through its bootstrap and steady state.
TEST(GpuTreeSolver, WarpOrdersGiveTheSameBitsAndCounts) {
  SKIP_WITHOUT_GPU();
  const auto p = testing::plummer(20000, 37);
  for (const auto [opening, math] : {std::pair{bh::Opening::geometric, MathMode::fast},
                                     std::pair{bh::Opening::relative, MathMode::fast},
                                     std::pair{bh::Opening::relative, MathMode::exact}}) {
    bh::TreeSolverConfig c;
    c.math = math;
    c.tree.multipole = bh::Multipole::quadrupole;
    c.tree.opening = opening;
    c.tree.theta = opening == bh::Opening::relative ? 1.0 : 0.6;
    c.tree.leaf_capacity = 32;
    GpuTreeSolverConfig key_order = gpu_config(c, bh::Traversal::coherent, 32);
    key_order.warp_order = WarpOrder::tree;
    GpuTreeSolverConfig hilbert = key_order;
    hilbert.warp_order = WarpOrder::hilbert;
    GpuTreeSolver<float> a(key_order), b(hilbert);
    Accelerations<float> ra(p.size()), rb(p.size());
    for (const bool previous : {false, true}) {
      const SolveOptions o{.potential = true, .per_target_counts = true, .previous_accelerations = previous};
      const SolverReport sa = a.solve(p.sources(), ra.view(), o);
      const SolverReport sb = b.solve(p.sources(), rb.view(), o);
      const std::string what = std::string(bh::to_string(opening)) + (math == MathMode::exact ? ", exact" : ", fast") +
                               (previous ? ", steady" : ", first evaluation");
      EXPECT_EQ(first_bit_difference(rb.ax, ra.ax), -1) << what;
      EXPECT_EQ(first_bit_difference(rb.ay, ra.ay), -1) << what;
      EXPECT_EQ(first_bit_difference(rb.az, ra.az), -1) << what;
      EXPECT_EQ(first_bit_difference(rb.potential, ra.potential), -1) << what;
      ASSERT_EQ(sb.per_target.size(), sa.per_target.size()) << what;
      for (std::size_t i = 0; i < sa.per_target.size(); ++i) {
        ASSERT_EQ(sb.per_target[i].cell_interactions, sa.per_target[i].cell_interactions) << what << " target " << i;
        ASSERT_EQ(sb.per_target[i].particle_interactions, sa.per_target[i].particle_interactions) << what << " " << i;
      }
      EXPECT_TRUE(has_phase(sb, "warp order")) << what;
      EXPECT_FALSE(has_phase(sa, "warp order")) << what;
    }
  }
}

// The list walk (docs/adr/0019): exact mode gives the CPU TreeSolver's bits
// and all three counters for every target (node visits too: both count the
// nodes a group tested), in the caller's order, through the relative
// opening's bootstrap and steady state, monopole and quadrupole, Plummer and
// spline softening, the device and the host build; a queue ring of 32
// entries (every group overflows and is walked again) changes nothing; a
// subset equals the CPU's too.
TEST(GpuTreeSolver, ListWalkEqualsCpuTreeSolver) {
  SKIP_WITHOUT_GPU();
  const auto p = testing::plummer(9001, 41);
  struct Case {
    bh::Multipole multipole;
    bh::Opening opening;
    SofteningKind kernel;
    int leaf;
  };
  for (const Case k : {Case{bh::Multipole::quadrupole, bh::Opening::relative, SofteningKind::plummer, 32},
                       Case{bh::Multipole::quadrupole, bh::Opening::geometric, SofteningKind::spline, 16},
                       Case{bh::Multipole::monopole, bh::Opening::geometric, SofteningKind::plummer, 8},
                       Case{bh::Multipole::monopole, bh::Opening::relative, SofteningKind::plummer, 64}}) {
    bh::TreeSolverConfig c;
    c.math = MathMode::exact;
    c.tree.multipole = k.multipole;
    c.tree.opening = k.opening;
    c.tree.theta = k.opening == bh::Opening::relative ? 1.0 : 0.6;
    c.tree.tolerance = 0.004;
    c.tree.leaf_capacity = k.leaf;
    c.tree.list_walk = true;
    c.softening_kind = k.kernel;
    gravity::TreeSolver<float> cpu(c);
    for (const TreeBuild build : {TreeBuild::device, TreeBuild::host}) {
      GpuTreeSolverConfig g = gpu_config(c, bh::Traversal::coherent, 32, build);
      GpuTreeSolverConfig small = g;
      small.list_queue = 32;
      GpuTreeSolver<float> gpu(g), overflowing(small);
      Accelerations<float> want(p.size()), got(p.size()), again(p.size());
      for (const bool previous : {false, true, true}) {
        const SolveOptions o{.potential = true, .per_target_counts = true, .previous_accelerations = previous};
        if (previous) again = got;  // the overflowing solver reads the same previous accelerations
        const SolverReport rc = cpu.solve(p.sources(), want.view(), o);
        const SolverReport rg = gpu.solve(p.sources(), got.view(), o);
        const SolverReport rs = overflowing.solve(p.sources(), again.view(), o);
        const std::string what = gpu.name() + " " + std::string(bh::to_string(k.multipole)) + " " +
                                 std::string(bh::to_string(k.opening)) + " leaf " + std::to_string(k.leaf) +
                                 (previous ? " steady" : " first") + (build == TreeBuild::host ? " host build" : "");
        EXPECT_EQ(first_bit_difference(got.ax, want.ax), -1) << what;
        EXPECT_EQ(first_bit_difference(got.ay, want.ay), -1) << what;
        EXPECT_EQ(first_bit_difference(got.az, want.az), -1) << what;
        EXPECT_EQ(first_bit_difference(got.potential, want.potential), -1) << what;
        EXPECT_EQ(first_bit_difference(again.ax, got.ax), -1) << what << ", queue ring 32";
        EXPECT_EQ(first_bit_difference(again.potential, got.potential), -1) << what << ", queue ring 32";
        ASSERT_EQ(rg.per_target.size(), rc.per_target.size()) << what;
        for (std::size_t i = 0; i < rc.per_target.size(); ++i) ASSERT_EQ(rg.per_target[i], rc.per_target[i]) << what << " " << i;
        EXPECT_EQ(rg.total, rc.total) << what;
        EXPECT_EQ(rs.total, rc.total) << what << ", queue ring 32: totals counted once";
      }
    }
  }
  // A subset: the groups are its targets in key order, 32 at a time.
  bh::TreeSolverConfig c;
  c.math = MathMode::exact;
  c.tree.multipole = bh::Multipole::quadrupole;
  c.tree.theta = 0.6;
  c.tree.list_walk = true;
  gravity::TreeSolver<float> cpu(c);
  GpuTreeSolver<float> gpu(gpu_config(c, bh::Traversal::coherent, 32));
  std::vector<std::int64_t> index;
  for (std::int64_t i = 5; i < std::int64_t(p.size()); i += 7) index.push_back(i);
  const auto subset = TargetSet<float>::of_sources(std::int64_t(index.size()), index.data());
  Accelerations<float> want(index.size()), got(index.size());
  const SolveOptions o{.potential = true, .per_target_counts = true};
  const SolverReport rc = cpu.solve(p.sources(), subset, want.view(), o);
  const SolverReport rg = gpu.solve(p.sources(), subset, got.view(), o);
  EXPECT_EQ(first_bit_difference(got.ax, want.ax), -1) << "subset";
  EXPECT_EQ(first_bit_difference(got.potential, want.potential), -1) << "subset";
  EXPECT_EQ(rg.total, rc.total) << "subset";
}

// In fast mode the list walk's forces are the exact mode's to float rounding
// (rsqrt; the exact solver's queue ring of 64 entries overflows and walks
// again, under the sanitizers too), and the GPU solver refuses it in double
// precision by name.
TEST(GpuTreeSolver, ListWalkFastModeAndDoubleRefusal) {
  SKIP_WITHOUT_GPU();
  const auto p = testing::plummer(20000, 43);
  bh::TreeSolverConfig c;
  c.tree.multipole = bh::Multipole::quadrupole;
  c.tree.theta = 0.6;
  c.tree.leaf_capacity = 32;
  c.tree.list_walk = true;
  c.math = MathMode::exact;
  GpuTreeSolverConfig small_ring = gpu_config(c, bh::Traversal::coherent, 32);
  small_ring.list_queue = 64;
  GpuTreeSolver<float> exact(small_ring);
  c.math = MathMode::fast;
  GpuTreeSolver<float> fast(gpu_config(c, bh::Traversal::coherent, 32));
  Accelerations<float> a(p.size()), b(p.size());
  const SolveOptions o{.potential = true, .per_target_counts = true};
  const SolverReport ra = exact.solve(p.sources(), a.view(), o);
  const SolverReport rb = fast.solve(p.sources(), b.view(), o);
  EXPECT_EQ(ra.total, rb.total) << "the math mode changes no decision";
  double worst = 0;
  for (std::size_t i = 0; i < p.size(); ++i)
    worst = std::max(worst, double(std::hypot(a.ax[i] - b.ax[i], a.ay[i] - b.ay[i], a.az[i] - b.az[i]) /
                                       std::hypot(a.ax[i], a.ay[i], a.az[i])));
  EXPECT_LT(worst, 1e-4);
  try {
    GpuTreeSolver<double> d(gpu_config(c, bh::Traversal::coherent, 32));
    ADD_FAILURE() << "a double GPU solver with the list walk was built";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("gravity.list_walk = true is compiled for single precision"), std::string::npos)
        << e.what();
  }
}

TEST(GpuTreeSolver, DevicePointerApiGivesTheSameBits) {
  SKIP_WITHOUT_GPU();
  const auto p = testing::plummer(5000, 32);
  bh::TreeSolverConfig c;
  c.tree.multipole = bh::Multipole::quadrupole;
  Accelerations<float> from_host_tree(p.size());
  {
    GpuTreeSolver<float> host_built(gpu_config(c, bh::Traversal::coherent, 16, TreeBuild::host));
    host_built.solve(p.sources(), from_host_tree.view());
  }
  GpuTreeSolver<float> gpu(gpu_config(c, bh::Traversal::coherent, 16));
  Accelerations<float> host_api(p.size());
  gpu.solve(p.sources(), host_api.view());
  EXPECT_EQ(first_bit_difference(from_host_tree.ax, host_api.ax), -1) << "device-built and host-built trees differ";

  const auto n = static_cast<std::size_t>(p.size());
  cuda::DeviceBuffer<float> src[4] = {cuda::DeviceBuffer<float>(n), cuda::DeviceBuffer<float>(n),
                                      cuda::DeviceBuffer<float>(n), cuda::DeviceBuffer<float>(n)};
  cuda::DeviceBuffer<float> dst[4] = {cuda::DeviceBuffer<float>(n), cuda::DeviceBuffer<float>(n),
                                      cuda::DeviceBuffer<float>(n), cuda::DeviceBuffer<float>(n)};
  const std::vector<float>* in[4] = {&p.x, &p.y, &p.z, &p.mass};
  for (int k = 0; k < 4; ++k) src[k].upload(std::span<const float>(*in[k]));
  const SolverReport r = gpu.solve_device({p.size(), src[0].data(), src[1].data(), src[2].data(), src[3].data()},
                                          {p.size(), dst[0].data(), dst[1].data(), dst[2].data(), dst[3].data()});
  Accelerations<float> device_api(p.size());
  std::vector<float>* out[4] = {&device_api.ax, &device_api.ay, &device_api.az, &device_api.potential};
  for (int k = 0; k < 4; ++k) dst[k].download(std::span<float>(*out[k]));
  EXPECT_EQ(first_bit_difference(device_api.ax, host_api.ax), -1);
  EXPECT_EQ(first_bit_difference(device_api.az, host_api.az), -1);
  EXPECT_EQ(first_bit_difference(device_api.potential, host_api.potential), -1);
  EXPECT_GT(r.total.particle_interactions, 0u);

  // The same through the DeviceForceSolver interface (device-resident runs).
  for (auto& b : dst) b.zero();
  DeviceForceSolver<float>& resident = gpu;
  resident.solve_device({p.size(), src[0].data(), src[1].data(), src[2].data(), src[3].data()},
                        {p.size(), dst[0].data(), dst[1].data(), dst[2].data(), dst[3].data()},
                        SolveOptions{.potential = true}, nullptr);
  cuda::synchronize(nullptr);
  for (int k = 0; k < 4; ++k) dst[k].download(std::span<float>(*out[k]));
  EXPECT_EQ(first_bit_difference(device_api.ay, host_api.ay), -1);
  EXPECT_EQ(first_bit_difference(device_api.potential, host_api.potential), -1);
}

TEST(GpuTreeSolver, TwoSolversCanBeAliveAtOnce) {
  SKIP_WITHOUT_GPU();
  const auto p = testing::plummer(3000, 36);
  bh::TreeSolverConfig c;
  GpuTreeSolver<float> a(gpu_config(c, bh::Traversal::coherent, 32));
  Accelerations<float> ra(p.size()), rb(p.size());
  a.solve(p.sources(), ra.view());
  GpuTreeSolver<float> b(gpu_config(c, bh::Traversal::independent, 32, TreeBuild::host));
  b.solve(p.sources(), rb.view());
  a.solve(p.sources(), ra.view());
  EXPECT_EQ(first_bit_difference(ra.ax, rb.ax), -1);
}

// Relative acceleration errors against a double-precision direct sum.
std::vector<double> relative_errors(const Particles<float>& p, const Accelerations<float>& a, double eps) {
  const auto n = p.size();
  std::vector<double> err(n);
  for (std::int64_t i = 0; i < n; ++i) {
    double rx = 0, ry = 0, rz = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      if (j == i) continue;
      const double dx = double(p.x[j]) - p.x[i], dy = double(p.y[j]) - p.y[i], dz = double(p.z[j]) - p.z[i];
      const double r2 = dx * dx + dy * dy + dz * dz + eps * eps;
      const double f = p.mass[j] / (r2 * std::sqrt(r2));
      rx += f * dx;
      ry += f * dy;
      rz += f * dz;
    }
    const double ex = a.ax[i] - rx, ey = a.ay[i] - ry, ez = a.az[i] - rz;
    err[i] = std::sqrt(ex * ex + ey * ey + ez * ez) / std::sqrt(rx * rx + ry * ry + rz * rz);
  }
  std::sort(err.begin(), err.end());
  return err;
}

TEST(GpuTreeSolver, FastModeAccuracyEqualsTheCpuSolvers) {
  SKIP_WITHOUT_GPU();
  const auto p = testing::plummer(3000, 33);
  bh::TreeSolverConfig c;
  c.tree.theta = 0.7;
  gravity::TreeSolver<float> cpu(c);
  GpuTreeSolver<float> gpu(gpu_config(c, bh::Traversal::coherent, 32));
  Accelerations<float> ac(p.size()), ag(p.size());
  cpu.solve(p.sources(), ac.view());
  gpu.solve(p.sources(), ag.view());
  const auto ec = relative_errors(p, ac, c.softening), eg = relative_errors(p, ag, c.softening);
  const std::size_t med = ec.size() / 2, p99 = ec.size() * 99 / 100;
  EXPECT_GT(ec[med], 1e-5);  // theta = 0.7 is an approximation: the check can fail
  EXPECT_NEAR(eg[med], ec[med], 1e-3 * ec[med]);
  EXPECT_NEAR(eg[p99], ec[p99], 1e-3 * ec[p99]);
  EXPECT_NEAR(eg.back(), ec.back(), 1e-3 * ec.back());
}

TEST(GpuTreeSolver, DoublePrecisionEqualsCpuBitwise) {
  SKIP_WITHOUT_GPU();
  const auto p = testing::to_double(testing::uniform_cube(2000, 34));
  bh::TreeSolverConfig c;
  c.math = MathMode::exact;
  gravity::TreeSolver<double> cpu(c);
  GpuTreeSolver<double> gpu(gpu_config(c, bh::Traversal::coherent, 32));
  Accelerations<double> ac(p.size()), ag(p.size());
  cpu.solve(p.sources(), ac.view());
  gpu.solve(p.sources(), ag.view());
  EXPECT_EQ(first_bit_difference(ag.ax, ac.ax), -1);
  EXPECT_EQ(first_bit_difference(ag.potential, ac.potential), -1);
}

TEST(GpuTreeSolver, RejectsInvalidConfigurationNamingTheKey) {
  // The configuration is validated before the solver touches a device.
  GpuTreeSolverConfig g;
  g.group_width = 24;
  try {
    GpuTreeSolver<float> s(g);
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("gravity.group_width = 24"), std::string::npos) << e.what();
  }
  GravityConfig bad;
  bad.traversal = "warp";
  EXPECT_THROW(gpu_tree_config(bad), InputError);
  bad.traversal = "independent";
  bad.multipole_order = 5;
  EXPECT_THROW(gpu_tree_config(bad), InputError);
  GravityConfig good;
  good.theta = 0.7;
  good.multipole_order = 2;
  good.group_width = 16;
  const GpuTreeSolverConfig gc = gpu_tree_config(good);
  EXPECT_EQ(gc.tree.tree.theta, 0.7);
  EXPECT_EQ(gc.tree.tree.multipole, bh::Multipole::quadrupole);
  EXPECT_EQ(gc.traversal, bh::Traversal::coherent);
  EXPECT_EQ(gc.group_width, 16);
  SKIP_WITHOUT_GPU();
  GpuTreeSolver<float> s(GpuTreeSolverConfig{});
  Accelerations<float> out(3);
  const auto p = testing::uniform_cube(4, 35);
  EXPECT_THROW(s.solve(p.sources(), out.view()), InputError);  // 4 sources, 3 outputs
}

TEST(GpuTreeSolver, RefusesASofteningPerTypeNamingTheSolversThatComputeIt) {
  // Refused before the solver touches a device (docs/softening.md: the CPU solvers compute it).
  GpuTreeSolverConfig g;
  g.tree.per_type = SofteningClasses{{0.5, 0.02, 0.15, 0.5, 0.5, 0.5}, {0, 10, 5, 0, 0, 0}};
  try {
    GpuTreeSolver<float> s(g);
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), per_type_softening_refusal("tree/cuda"));
  }
  GravityConfig c;
  c.softening_per_type[2] = 0.15;
  EXPECT_THROW(GpuTreeSolver<double>{gpu_tree_config(c)}, InputError);
}

}  // namespace
}  // namespace orrery::gravity
