#include "orrery/tree/tree_solver.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "orrery/tree/test_inputs.hpp"

namespace orrery::tree {
namespace {

// Brute-force double-precision sum, the yardstick within this test.
void brute_force(const Particles<float>& p, double eps, std::vector<double>& ax) {
  const auto n = p.size();
  ax.assign(n, 0.0);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      if (i == j) continue;
      const double dx = double(p.x[j]) - p.x[i], dy = double(p.y[j]) - p.y[i], dz = double(p.z[j]) - p.z[i];
      const double r2 = dx * dx + dy * dy + dz * dz + eps * eps;
      ax[i] += p.mass[j] * dx / (r2 * std::sqrt(r2));
    }
}

TEST(TreeSolver, ThetaZeroIsDirectSummation) {
  const auto p = testing::uniform_cube(700, 5);
  TreeSolverConfig c;
  c.tree.theta = 0.0;
  c.softening = 0.01;
  TreeSolver<float> s(c);
  Accelerations<float> out(p.size());
  const auto rep = s.solve(p.sources(), out.view(), {.potential = true, .per_target_counts = true});
  for (const auto& pt : rep.per_target) {
    EXPECT_EQ(pt.particle_interactions, 699u);
    EXPECT_EQ(pt.cell_interactions, 0u);
  }
  std::vector<double> ref;
  brute_force(p, 0.01, ref);
  for (std::int64_t i = 0; i < p.size(); ++i) EXPECT_NEAR(out.ax[i], ref[i], 1e-4 * (std::abs(ref[i]) + 1)) << i;
}

TEST(TreeSolver, FiniteOnDegenerateInputs) {
  for (const auto& in : testing::structured_inputs()) {
    for (auto mp : {Multipole::monopole, Multipole::quadrupole}) {
      TreeSolverConfig c;
      c.tree.multipole = mp;
      TreeSolver<float> s(c);
      Accelerations<float> out(in.particles.size());
      s.solve(in.particles.sources(), out.view());
      for (std::int64_t i = 0; i < out.size(); ++i) {
        ASSERT_TRUE(std::isfinite(out.ax[i]) && std::isfinite(out.ay[i]) && std::isfinite(out.az[i]) &&
                    std::isfinite(out.potential[i]))
            << in.name << " " << i;
      }
    }
  }
}

TEST(TreeSolver, QuadrupoleIsMoreAccurateThanMonopole) {
  const auto p = testing::uniform_cube(3000, 9);
  std::vector<double> ref;
  brute_force(p, 0.01, ref);
  double err[2] = {0, 0};
  int k = 0;
  for (auto mp : {Multipole::monopole, Multipole::quadrupole}) {
    TreeSolverConfig c;
    c.tree.multipole = mp;
    c.tree.theta = 0.6;
    c.softening = 0.01;
    TreeSolver<float> s(c);
    Accelerations<float> out(p.size());
    s.solve(p.sources(), out.view());
    for (std::int64_t i = 0; i < p.size(); ++i) err[k] += std::pow(out.ax[i] - ref[i], 2);
    ++k;
  }
  EXPECT_LT(err[1], 0.5 * err[0]);
}

}  // namespace
}  // namespace orrery::tree
