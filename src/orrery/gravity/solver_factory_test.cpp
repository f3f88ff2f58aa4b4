#include "orrery/gravity/solver_factory.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "orrery/core/error.hpp"

namespace orrery::gravity {
namespace {

std::string error_of(const GravityConfig& c) {
  try {
    make_solver<float>(c);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(SolverFactory, BuildsReferenceAndDirect) {
  GravityConfig c;
  c.solver = "reference";
  EXPECT_EQ(make_solver<double>(c)->name(), "reference/cpu/plummer");
  c.solver = "direct";
  c.softening_kernel = SofteningKind::spline;
  EXPECT_EQ(make_solver<float>(c)->name(), "direct/cpu/single/spline");
  c.backend = "auto";
  EXPECT_EQ(make_solver<double>(c)->name(), "direct/cpu/double/spline");
}

TEST(SolverFactory, UnavailableCombinationsNameKeyAndAlternatives) {
  GravityConfig c;
  c.solver = "warp-drive";
  const std::string e = error_of(c);
  EXPECT_NE(e.find("gravity.solver = \"warp-drive\""), std::string::npos) << e;
  EXPECT_NE(e.find("direct/cpu"), std::string::npos) << e;
  c.solver = "direct";
  c.backend = "cuda";
  const auto built = available_solvers();
  if (std::find(built.begin(), built.end(), "direct/cuda") == built.end()) {
    EXPECT_NE(error_of(c).find("backend = \"cuda\" is not available in this build"), std::string::npos) << error_of(c);
  } else {  // built with CUDA: constructs on a GPU host, else names the missing device
    const std::string e = error_of(c);
    EXPECT_TRUE(e.empty() || e.find("backend = \"cuda\": no usable device") != std::string::npos) << e;
  }
}

TEST(SolverFactory, NegativeSofteningRejected) {
  GravityConfig c;
  c.softening = -0.1;
  EXPECT_NE(error_of(c).find("softening"), std::string::npos);
}

}  // namespace
}  // namespace orrery::gravity
