#include "orrery/tree/tree_solver.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "orrery/core/error.hpp"

#include "orrery/gravity/solver_factory.hpp"
#include "orrery/tree/test_inputs.hpp"

namespace orrery::tree {
namespace {

// Accuracy against the reference (theta = 0, monopole, quadrupole) is in
// tree_accuracy_test.cpp; this file tests the solver's interface.

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

TEST(TreeSolver, MadeByTheFactoryFromTheGravityConfig) {
  gravity::GravityConfig g;
  g.solver = "tree";
  g.theta = 0.7;
  g.leaf_capacity = 4;
  g.multipole_order = 2;
  g.softening = 0.02;
  g.math = MathMode::exact;
  const auto c = tree_solver_config(g);
  EXPECT_EQ(c.tree.theta, 0.7);
  EXPECT_EQ(c.tree.leaf_capacity, 4);
  EXPECT_EQ(c.tree.multipole, Multipole::quadrupole);
  EXPECT_EQ(c.softening, 0.02);
  EXPECT_EQ(c.math, MathMode::exact);
  const auto solver = gravity::make_solver<float>(g);
  EXPECT_EQ(solver->name(), "tree/cpu/quadrupole");
  const auto p = testing::uniform_cube(500, 4);
  Accelerations<float> out(p.size());
  const auto rep = solver->solve(p.sources(), out.view());
  EXPECT_GT(rep.total.cell_interactions, 0u);
  g.theta = -1;
  EXPECT_THROW(gravity::make_solver<float>(g)->solve(p.sources(), out.view()), InputError);
}

}  // namespace
}  // namespace orrery::tree
