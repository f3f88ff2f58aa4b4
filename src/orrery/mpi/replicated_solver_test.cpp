// The K-rank solve against one process's, bit for bit (run under mpiexec
// with K = 1..4: orrery_mpi_solver_test.npK): the reference and direct solvers, the tree
// with the geometric opening (monopole and quadrupole) and the tree with the
// relative opening, whose second evaluation reads the first's accelerations.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "orrery/core/error.hpp"
#include "orrery/gravity/solver_factory.hpp"
#include "support/replicated_checks.hpp"

namespace orrery {
namespace {

template <class Real>
testing::SolverMaker<Real> maker(gravity::GravityConfig g) {
  g.backend = "cpu";
  return [g] { return gravity::make_solver<Real>(g); };
}

gravity::GravityConfig tree(bh::Opening opening, int multipole) {
  auto g = testing::checked_tree("cpu", opening);
  g.multipole_order = multipole;
  return g;
}

TEST(ReplicatedSolver, DirectIsBitIdenticalToOneProcess) {
  testing::expect_replicated_bits<double>(maker<double>({}), 1500, "direct/double");
  testing::expect_replicated_bits<float>(maker<float>({}), 1500, "direct/single");
}

TEST(ReplicatedSolver, GeometricTreeIsBitIdenticalToOneProcess) {
  testing::expect_replicated_bits<float>(maker<float>(tree(bh::Opening::geometric, 1)), 3000, "tree/monopole");
  testing::expect_replicated_bits<double>(maker<double>(tree(bh::Opening::geometric, 2)), 3000, "tree/quadrupole");
}

TEST(ReplicatedSolver, RelativeTreeIsBitIdenticalToOneProcess) {
  testing::expect_replicated_bits<float>(maker<float>(tree(bh::Opening::relative, 1)), 3000, "tree/relative");
  testing::expect_replicated_bits<double>(maker<double>(tree(bh::Opening::relative, 2)), 3000, "tree/relative/quadrupole");
}

TEST(ReplicatedSolver, ReferenceIsBitIdenticalToOneProcess) {
  gravity::GravityConfig reference;
  reference.solver = "reference";
  testing::expect_replicated_bits<double>(maker<double>(reference), 400, "reference/double");
}

/// A solver that takes no subset (ForceSolver's default; none of the library's).
class EverySourceOnly final : public gravity::ForceSolver<double> {
 public:
  std::string name() const override { return "every-source-only"; }
  SolverReport solve(const SourcesView<double>&, const AccelerationsView<double>&, const gravity::SolveOptions&) override {
    return {};
  }
  using gravity::ForceSolver<double>::solve;
};

TEST(ReplicatedSolver, RefusesASolverThatTakesNoTargetsNamingIt) {
  try {
    mpi::ReplicatedSolver<double> spread(std::make_unique<EverySourceOnly>(), mpi::Communicator::world());
    FAIL() << "a solver without targets was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("every-source-only"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("accepted under mpirun"), std::string::npos) << e.what();
  }
}

// Fewer targets than ranks: some ranks walk none, and the gathered result is still one process's.
TEST(ReplicatedSolver, FewerTargetsThanRanks) {
  const auto p = testing::plummer<double>(500, 11);
  auto one = gravity::make_solver<double>(tree(bh::Opening::geometric, 1));
  mpi::ReplicatedSolver<double> spread(gravity::make_solver<double>(tree(bh::Opening::geometric, 1)),
                                       mpi::Communicator::world());
  const std::vector<std::int64_t> two = {499, 3};
  const auto targets = gravity::TargetSet<double>::of_sources(2, two.data());
  Accelerations<double> want(2), got(2);
  one->solve(p.sources(), targets, want.view(true));
  spread.solve(p.sources(), targets, got.view(true));
  EXPECT_TRUE(testing::same_bits(got.ax, want.ax));
  EXPECT_TRUE(testing::same_bits(got.potential, want.potential));
}

}  // namespace
}  // namespace orrery
