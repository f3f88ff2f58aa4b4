// The AVX-512 build of the CPU walk (walk_isa.hpp, docs/adr/0006) against the
// AVX2 build and the scalar walk (bh::walk_target) that the GPU
// reproduces: the same bits for every target, the same counters, for every
// configuration the solver dispatches. Skipped, with the reason, on a
// processor without AVX-512; there requesting it is an InputError.
#include "orrery/bh/walk_isa.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "orrery/core/error.hpp"
#include "orrery/gravity/dispatch.hpp"
#include "orrery/bh/walk.hpp"
#include "support/test_inputs.hpp"
#include "orrery/gravity/tree_solver.hpp"
#include "support/walk_test_configs.hpp"

namespace orrery::bh {
namespace {

using testing::IsaScope;

template <class Real>
struct Solved {
  Accelerations<Real> acc;
  SolverReport report;
  Octree<Real> tree;
};

template <class Real>
Solved<Real> solve_with(WalkIsa isa, const Particles<Real>& p, const TreeSolverConfig& c, bool potential) {
  const IsaScope scope(isa);
  EXPECT_EQ(walk_isa_in_use(), isa);
  gravity::TreeSolver<Real> solver(c);
  Solved<Real> s{Accelerations<Real>(static_cast<std::size_t>(p.size())), {}, {}};
  s.report = solver.solve(p.sources(), s.acc.view(potential), {.potential = potential, .per_target_counts = true});
  s.tree = solver.last_tree();
  return s;
}

template <class Real>
bool same_bits(Real a, Real b) {
  return std::memcmp(&a, &b, sizeof(Real)) == 0;
}

template <Multipole M, MathMode Mode, class Real, class Softening>
void expect_walk_target(const Solved<Real>& s, const Softening& soft, bool potential, const std::string& what) {
  const auto v = s.tree.view();
  for (std::int32_t i = 0; i < static_cast<std::int32_t>(v.num_particles); ++i) {
    bh::WalkCounts c;
    const auto a = bh::walk_target<true, M, Mode>(v, soft, i, c);
    const std::int32_t o = s.tree.order[i];
    ASSERT_TRUE(same_bits(a.ax, s.acc.ax[o]) && same_bits(a.ay, s.acc.ay[o]) && same_bits(a.az, s.acc.az[o]))
        << what << " target " << o << ": " << a.ax << " vs " << s.acc.ax[o];
    if (potential) {
      ASSERT_TRUE(same_bits(a.pot, s.acc.potential[o])) << what << " target " << o;
    }
    ASSERT_EQ(s.report.per_target[o],
              (InteractionCounts{c.node_visits, c.cell_interactions, c.particle_interactions}))
        << what << " target " << o;
  }
}

template <class Real>
void check_all_configurations(const Particles<float>& input, const std::string& name) {
  const auto p = testing::converted<Real>(input);
  testing::for_each_walk_config<Real>(name, [&](const TreeSolverConfig& c, const std::string& config_name) {
    for (bool potential : {false, true}) {
      const std::string what = config_name + (potential ? " potential" : "");
      const auto wide = solve_with(WalkIsa::avx512, p, c, potential);
      const auto narrow = solve_with(WalkIsa::avx2, p, c, potential);
      for (std::int64_t i = 0; i < p.size(); ++i) {
        ASSERT_TRUE(same_bits(wide.acc.ax[i], narrow.acc.ax[i]) && same_bits(wide.acc.ay[i], narrow.acc.ay[i]) &&
                    same_bits(wide.acc.az[i], narrow.acc.az[i]) &&
                    same_bits(wide.acc.potential[i], narrow.acc.potential[i]))
            << what << " particle " << i << ": " << wide.acc.ax[i] << " vs " << narrow.acc.ax[i];
        ASSERT_EQ(wide.report.per_target[i], narrow.report.per_target[i]) << what << " particle " << i;
      }
      ASSERT_EQ(wide.report.total, narrow.report.total) << what;
      testing::with_walk_parameters<Real>(c, [&](auto multipole, auto mode, auto soft) {
        expect_walk_target<decltype(multipole)::value, decltype(mode)::value>(wide, soft, potential, what);
      });
    }
  });
}

TEST(WalkIsa, Avx512BitIdenticalToAvx2AndWalkTarget) {
  if (!cpu_supports_avx512_walk()) GTEST_SKIP() << "this processor lacks AVX-512 F, VL, BW or DQ";
  for (const auto& in : testing::walk_test_inputs()) {
    check_all_configurations<float>(in.particles, in.name);
    check_all_configurations<double>(in.particles, in.name);
  }
}

// The relative opening on the AVX-512 build (the AVX2 build: group_walk_test):
// walk_target's walks with the same scales, bit for bit.
TEST(WalkIsa, Avx512RelativeOpeningBitIdenticalToWalkTarget) {
  if (!cpu_supports_avx512_walk()) GTEST_SKIP() << "this processor lacks AVX-512 F, VL, BW or DQ";
  const IsaScope scope(WalkIsa::avx512);
  for (const auto& in : testing::walk_test_inputs()) {
    testing::expect_walks_same_as_walk_target<float>(in.particles, in.name, Opening::relative);
    testing::expect_walks_same_as_walk_target<double>(in.particles, in.name, Opening::relative);
  }
}

TEST(WalkIsa, AutomaticPicksAvx512ExactlyWhenTheProcessorHasIt) {
  const IsaScope scope(WalkIsa::automatic);
  EXPECT_EQ(walk_isa_in_use(), cpu_supports_avx512_walk() ? WalkIsa::avx512 : WalkIsa::avx2);
  set_walk_isa(WalkIsa::avx2);
  EXPECT_EQ(walk_isa_in_use(), WalkIsa::avx2);
}

TEST(WalkIsa, RequestingAvx512WithoutItIsAnInputError) {
  const IsaScope scope(WalkIsa::automatic);
  if (cpu_supports_avx512_walk()) {
    EXPECT_NO_THROW(set_walk_isa(WalkIsa::avx512));
    GTEST_SKIP() << "this processor has AVX-512: the error cannot occur here";
  }
  try {
    set_walk_isa(WalkIsa::avx512);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("avx512"), std::string::npos) << m;
    EXPECT_NE(m.find("avx2"), std::string::npos) << m;
  }
  EXPECT_EQ(walk_isa_in_use(), WalkIsa::avx2);
}

TEST(WalkIsa, ParsesTheThreeNamesAndRejectsOthers) {
  EXPECT_EQ(parse_walk_isa("avx2"), WalkIsa::avx2);
  EXPECT_EQ(parse_walk_isa("avx512"), WalkIsa::avx512);
  EXPECT_EQ(parse_walk_isa("auto"), WalkIsa::automatic);
  try {
    parse_walk_isa("sse2", "--isa");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("--isa"), std::string::npos) << m;
    EXPECT_NE(m.find("sse2"), std::string::npos) << m;
    EXPECT_NE(m.find("avx2, avx512, auto"), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace orrery::bh
