#include "orrery/gravity/solver_factory.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "orrery/core/error.hpp"

namespace orrery::gravity {
namespace {

template <class Real = float>
std::string error_of(const GravityConfig& c) {
  try {
    make_solver<Real>(c);
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

// Every solver of this build, in both precisions, refuses a softening length
// that is negative or NaN with the one message of validated_softening
// (core/softening.hpp). A CUDA solver without a device is skipped.
TEST(SolverFactory, EverySolverRefusesInvalidSofteningWithOneMessage) {
  int checked = 0;
  for (const std::string& entry : available_solvers()) {
    GravityConfig c;
    c.solver = entry.substr(0, entry.find('/'));
    c.backend = entry.substr(entry.find('/') + 1);
    if (error_of(c).find("no usable device") != std::string::npos) continue;
    ASSERT_EQ(error_of(c), "") << entry;
    for (const SofteningKind kernel : {SofteningKind::plummer, SofteningKind::spline}) {
      c.softening_kernel = kernel;
      c.softening = -0.1;
      const std::string negative = "gravity.softening = -0.1 is not accepted; accepted: a number >= 0";
      EXPECT_EQ(error_of<float>(c), negative) << entry;
      EXPECT_EQ(error_of<double>(c), negative) << entry;
      c.softening = std::numeric_limits<double>::quiet_NaN();
      const std::string nan = "gravity.softening = nan is not accepted; accepted: a number >= 0";
      EXPECT_EQ(error_of<float>(c), nan) << entry;
      EXPECT_EQ(error_of<double>(c), nan) << entry;
    }
    ++checked;
  }
  EXPECT_GE(checked, 3);  // reference, direct and tree on the CPU at least
}

}  // namespace
}  // namespace orrery::gravity
