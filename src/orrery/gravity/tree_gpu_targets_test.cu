// GpuTreeSolver::solve_device with targets (a subset of the sources, or
// points) against the CPU TreeSolver's targets solve: in exact mode the same
// bits and the same particle-cell and particle-particle counters for every
// target, both traversals, both criteria (relative from a bootstrap and in
// the steady state), subsets of 1, 7, 1 % and 50 % of the particles in
// random order, and points, with device arrays (solve_device) and with host
// arrays (ForceSolver::solve); bad target sets are refused naming the target;
// a tree cube given from outside gives the CPU's bits in it on either build.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "orrery/core/error.hpp"
#include "orrery/core/rng.hpp"
#include "support/random_subset.hpp"
#include "orrery/cuda/device.hpp"
#include "orrery/cuda/memory.hpp"
#include "orrery/gravity/tree_gpu_solver.hpp"
#include "orrery/gravity/tree_solver.hpp"
#include "support/tree_gpu_test_support.hpp"

namespace orrery::gravity {
namespace {

using testing::first_bit_difference;

#define SKIP_WITHOUT_GPU() \
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device"

constexpr std::int64_t kN = 20000;

template <class T>
cuda::DeviceBuffer<T> on_device(const std::vector<T>& v) {
  cuda::DeviceBuffer<T> b(v.size());
  if (!v.empty()) b.upload(std::span<const T>(v));
  return b;
}

template <class T>
std::vector<T> on_host(const cuda::DeviceBuffer<T>& b, std::size_t n) {
  std::vector<T> v(n);
  if (n > 0) b.download(std::span<T>(v));
  cuda::synchronize(nullptr);
  return v;
}

struct Solved {
  std::vector<float> ax, ay, az, pot;
  SolverReport report;
};

/// The GPU solve of `targets` (host arrays, uploaded here), previous
/// accelerations (k entries) given or not.
Solved gpu_solve(GpuTreeSolver<float>& gpu, const Particles<float>& p, const TargetSet<float>& host_targets,
                 const std::vector<float>* prev, double largest) {
  const std::int64_t k = host_targets.count;
  auto x = on_device(p.x), y = on_device(p.y), z = on_device(p.z), m = on_device(p.mass);
  std::vector<std::int64_t> idx(host_targets.index ? host_targets.index : nullptr,
                                host_targets.index ? host_targets.index + k : nullptr);
  auto d_idx = on_device(idx);
  std::vector<float> tx(host_targets.x ? host_targets.x : nullptr, host_targets.x ? host_targets.x + k : nullptr),
      ty(host_targets.y ? host_targets.y : nullptr, host_targets.y ? host_targets.y + k : nullptr),
      tz(host_targets.z ? host_targets.z : nullptr, host_targets.z ? host_targets.z + k : nullptr);
  auto d_tx = on_device(tx), d_ty = on_device(ty), d_tz = on_device(tz);
  std::vector<float> zero(static_cast<std::size_t>(k));
  auto ax = on_device(prev ? prev[0] : zero), ay = on_device(prev ? prev[1] : zero), az = on_device(prev ? prev[2] : zero),
       pot = on_device(zero);
  TargetSet<float> t = host_targets.index ? TargetSet<float>::of_sources(k, d_idx.data())
                                          : TargetSet<float>::of_points(k, d_tx.data(), d_ty.data(), d_tz.data());
  SolveOptions o;
  o.per_target_counts = true;
  o.previous_accelerations = prev != nullptr;
  o.largest_previous_acceleration = largest;
  Solved s;
  s.report = gpu.solve_device({kN, x.data(), y.data(), z.data(), m.data()}, t, {k, ax.data(), ay.data(), az.data(), pot.data()}, o);
  const auto n = static_cast<std::size_t>(k);
  s.ax = on_host(ax, n);
  s.ay = on_host(ay, n);
  s.az = on_host(az, n);
  s.pot = on_host(pot, n);
  return s;
}

/// The solve of `t` through ForceSolver's host interface (the CPU tree
/// solver's, or the GPU solver's upload, solve_device and download).
Solved host_solve(ForceSolver<float>& solver, const Particles<float>& p, const TargetSet<float>& t,
                  const std::vector<float>* prev, double largest, std::optional<bh::Cube> cube = std::nullopt) {
  const auto n = static_cast<std::size_t>(t.all() ? p.size() : t.count);
  Accelerations<float> a(n);
  if (prev) {
    a.ax = prev[0];
    a.ay = prev[1];
    a.az = prev[2];
  }
  SolveOptions o;
  o.per_target_counts = true;
  o.previous_accelerations = prev != nullptr;
  o.largest_previous_acceleration = largest;
  o.cube = cube;
  Solved s;
  s.report = solver.solve(p.sources(), t, a.view(), o);
  s.ax = a.ax;
  s.ay = a.ay;
  s.az = a.az;
  s.pot = a.potential;
  return s;
}

void expect_same(const Solved& got, const Solved& want, const std::string& what) {
  EXPECT_EQ(first_bit_difference(got.ax, want.ax), -1) << what;
  EXPECT_EQ(first_bit_difference(got.ay, want.ay), -1) << what;
  EXPECT_EQ(first_bit_difference(got.az, want.az), -1) << what;
  EXPECT_EQ(first_bit_difference(got.pot, want.pot), -1) << what;
  ASSERT_EQ(got.report.per_target.size(), want.report.per_target.size()) << what;
  for (std::size_t j = 0; j < got.report.per_target.size(); ++j) {
    ASSERT_EQ(got.report.per_target[j].cell_interactions, want.report.per_target[j].cell_interactions) << what << " " << j;
    ASSERT_EQ(got.report.per_target[j].particle_interactions, want.report.per_target[j].particle_interactions)
        << what << " " << j;
  }
}

void check(bh::Opening opening, bh::Multipole mp, bh::Traversal traversal) {
  const auto p = testing::plummer(kN, 81);
  bh::TreeSolverConfig c;
  c.math = MathMode::exact;
  c.tree.opening = opening;
  c.tree.multipole = mp;
  c.tree.theta = opening == bh::Opening::relative ? 1.0 : 0.6;
  c.tree.tolerance = 0.0055;
  c.tree.leaf_capacity = opening == bh::Opening::relative ? 32 : 16;
  TreeSolver<float> cpu(c);
  GpuTreeSolverConfig g;
  g.tree = c;
  g.traversal = traversal;
  GpuTreeSolver<float> gpu(g);
  const bool relative = opening == bh::Opening::relative;
  const Solved whole = host_solve(cpu, p, TargetSet<float>{}, nullptr, -1);
  double largest = 0;
  for (std::int64_t i = 0; i < kN; ++i)
    largest = std::max(largest, bh::acceleration_magnitude(whole.ax[i], whole.ay[i], whole.az[i]));
  for (const std::int64_t k : {std::int64_t(1), std::int64_t(7), kN / 100, kN / 2}) {
    const auto idx = testing::random_subset(kN, k, 200 + k);
    const auto set = TargetSet<float>::of_sources(k, idx.data());
    const std::string what = std::string(to_string(traversal)) + ", " + std::to_string(k) + " targets";
    const Solved want = host_solve(cpu, p, set, nullptr, -1);
    expect_same(gpu_solve(gpu, p, set, nullptr, -1), want, what + ", first");
    expect_same(host_solve(gpu, p, set, nullptr, -1), want, what + ", first, host arrays");
    if (relative) {
      std::vector<float> prev[3];
      for (const std::int64_t i : idx) {
        prev[0].push_back(whole.ax[i]);
        prev[1].push_back(whole.ay[i]);
        prev[2].push_back(whole.az[i]);
      }
      const Solved steady = host_solve(cpu, p, set, prev, largest);
      expect_same(gpu_solve(gpu, p, set, prev, largest), steady, what + ", steady");
      expect_same(host_solve(gpu, p, set, prev, largest), steady, what + ", steady, host arrays");
    }
  }
  constexpr std::int64_t k = 500;
  std::vector<float> x(k), y(k), z(k);
  Rng rng(82);
  for (std::int64_t j = 0; j < k; ++j) {
    x[j] = float(rng.uniform(-2, 2));
    y[j] = float(rng.uniform(-2, 2));
    z[j] = float(rng.uniform(-2, 2));
  }
  const auto points = TargetSet<float>::of_points(k, x.data(), y.data(), z.data());
  const Solved at_points = host_solve(cpu, p, points, nullptr, -1);
  expect_same(gpu_solve(gpu, p, points, nullptr, -1), at_points, "points");
  expect_same(host_solve(gpu, p, points, nullptr, -1), at_points, "points, host arrays");
}

TEST(GpuTreeTargets, ExactModeEqualsTheCpuTargetsSolve_Geometric) {
  SKIP_WITHOUT_GPU();
  check(bh::Opening::geometric, bh::Multipole::monopole, bh::Traversal::coherent);
  check(bh::Opening::geometric, bh::Multipole::quadrupole, bh::Traversal::independent);
}

TEST(GpuTreeTargets, ExactModeEqualsTheCpuTargetsSolve_Relative) {
  SKIP_WITHOUT_GPU();
  check(bh::Opening::relative, bh::Multipole::quadrupole, bh::Traversal::coherent);
  check(bh::Opening::relative, bh::Multipole::monopole, bh::Traversal::independent);
}

TEST(GpuTreeTargets, BadSubsetsAreRefusedNamingTheTarget) {
  SKIP_WITHOUT_GPU();
  const auto p = testing::plummer(kN, 83);
  GpuTreeSolver<float> gpu(GpuTreeSolverConfig{});
  const auto message = [&](const std::vector<std::int64_t>& idx) {
    try {
      gpu_solve(gpu, p, TargetSet<float>::of_sources(static_cast<std::int64_t>(idx.size()), idx.data()), nullptr, -1);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message({4, 9, 4}).find("source 4 is listed twice"), std::string::npos) << message({4, 9, 4});
  EXPECT_NE(message({1, kN + 3}).find("target 1 names source " + std::to_string(kN + 3)), std::string::npos);
}

TEST(GpuTreeTargets, ACubeGivenFromOutsideGivesTheCpuBitsInIt) {
  SKIP_WITHOUT_GPU();
  const auto p = testing::plummer(kN, 84);
  bh::TreeSolverConfig c;
  c.math = MathMode::exact;
  c.tree.multipole = bh::Multipole::quadrupole;
  TreeSolver<float> cpu(c);
  GpuTreeSolverConfig g;
  g.tree = c;
  const auto idx = testing::random_subset(kN, kN / 100, 85);
  for (const TreeBuild build : {TreeBuild::device, TreeBuild::host}) {
    g.build = build;
    GpuTreeSolver<float> gpu(g);
    for (const TargetSet<float>& set : {TargetSet<float>{}, TargetSet<float>::of_sources(kN / 100, idx.data())}) {
      if (!set.all() && build == TreeBuild::host) continue;  // a subset is walked on a device-built tree only
      const std::string what = std::string(build == TreeBuild::device ? "device" : "host") + " build, " +
                               (set.all() ? "every target" : "1 % of the targets");
      const auto solved = [&](ForceSolver<float>& solver, const bh::Cube& cube) {
        return host_solve(solver, p, set, nullptr, -1, cube);
      };
      const bh::Cube large{-64.0, -64.0, -64.0, 128.0};
      const Solved want = solved(cpu, large), got = solved(gpu, large);
      expect_same(got, want, what);
      // The cube is used, not ignored: the sphere's own cube gives other bits.
      const Solved own = host_solve(gpu, p, set, nullptr, -1);
      EXPECT_NE(first_bit_difference(own.ax, got.ax), -1) << what << ": the cube given made no difference";
      const auto message = [&](ForceSolver<float>& solver) {
        try {
          solved(solver, bh::Cube{-1.0, -1.0, -1.0, 2.0});  // the Plummer sphere reaches beyond it
        } catch (const InputError& e) {
          return std::string(e.what());
        }
        return std::string("(no InputError)");
      };
      const std::string from_gpu = message(gpu);
      EXPECT_NE(from_gpu.find("lies outside the tree's cube"), std::string::npos) << what << ": " << from_gpu;
      EXPECT_EQ(from_gpu, message(cpu)) << what;
    }
  }
}

}  // namespace
}  // namespace orrery::gravity
