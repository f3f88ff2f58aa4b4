// Contract 6 for the tree solver: the same bits on any number of threads, and
// a permutation of the input (all Morton keys distinct) changes nothing but
// the order of the output.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <utility>
#include <vector>

#include "orrery/core/rng.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/ic/plummer.hpp"
#include "support/test_inputs.hpp"
#include "orrery/gravity/tree_solver.hpp"

namespace orrery::gravity {
namespace {

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

struct Result {
  Accelerations<float> acc;
  std::vector<InteractionCounts> counts;
};

Result solve(const Particles<float>& p, bh::Multipole mp, TreeSolver<float>* keep = nullptr,
             bh::Opening opening = bh::Opening::geometric) {
  bh::TreeSolverConfig c;
  c.tree.multipole = mp;
  c.tree.opening = opening;
  TreeSolver<float> local(c);
  TreeSolver<float>& s = keep ? *keep : local;
  Result r{Accelerations<float>(p.size()), {}};
  r.counts = s.solve(p.sources(), r.acc.view(), {.potential = true, .per_target_counts = true}).per_target;
  return r;
}

// The relative opening too: its bootstrap, and the largest acceleration
// that floors the scales (a reduction over the threads).
TEST(TreeDeterminism, BitIdenticalAcrossThreadCounts) {
  const auto p = ic::to_precision<float>(ic::plummer_sphere(20000, 5));
  for (auto [mp, opening] : {std::pair{bh::Multipole::monopole, bh::Opening::geometric},
                             std::pair{bh::Multipole::quadrupole, bh::Opening::geometric},
                             std::pair{bh::Multipole::quadrupole, bh::Opening::relative},
                             std::pair{bh::Multipole::octupole, bh::Opening::geometric},
                             std::pair{bh::Multipole::hexadecapole, bh::Opening::relative}}) {
    std::vector<Result> runs;
    for (int threads : {1, 2, omp_get_num_procs(), 5}) {
      omp_set_num_threads(threads);
      runs.push_back(solve(p, mp, nullptr, opening));
    }
    omp_set_num_threads(omp_get_num_procs());
    for (std::size_t k = 1; k < runs.size(); ++k) {
      EXPECT_TRUE(same_bits(runs[0].acc.ax, runs[k].acc.ax)) << k;
      EXPECT_TRUE(same_bits(runs[0].acc.ay, runs[k].acc.ay)) << k;
      EXPECT_TRUE(same_bits(runs[0].acc.az, runs[k].acc.az)) << k;
      EXPECT_TRUE(same_bits(runs[0].acc.potential, runs[k].acc.potential)) << k;
      EXPECT_EQ(runs[0].counts, runs[k].counts) << k;
    }
  }
}

TEST(TreeDeterminism, PermutedInputGivesTheSameTreeAndForces) {
  const auto p = testing::uniform_cube(6000, 21);
  std::vector<std::int32_t> perm(p.size());
  std::iota(perm.begin(), perm.end(), 0);
  Rng r(8);
  for (std::size_t i = perm.size() - 1; i > 0; --i) std::swap(perm[i], perm[r.next_u64() % (i + 1)]);
  Particles<float> q(p.size());  // q[k] = p[perm[k]]
  for (std::int64_t k = 0; k < p.size(); ++k) {
    q.x[k] = p.x[perm[k]];
    q.y[k] = p.y[perm[k]];
    q.z[k] = p.z[perm[k]];
    q.mass[k] = p.mass[perm[k]];
  }
  for (auto mp : {bh::Multipole::monopole, bh::Multipole::quadrupole, bh::Multipole::hexadecapole}) {
    bh::TreeSolverConfig c;
    c.tree.multipole = mp;
    TreeSolver<float> sa(c), sb(c);
    const Result a = solve(p, mp, &sa), b = solve(q, mp, &sb);
    const auto &ta = sa.last_tree(), &tb = sb.last_tree();
    // The premise: all keys distinct (else the index tie-break sees the permutation).
    std::vector<std::uint64_t> keys;
    for (std::int64_t i = 0; i < p.size(); ++i) keys.push_back(position_key(p.x[i], p.y[i], p.z[i], ta.cube));
    std::sort(keys.begin(), keys.end());
    ASSERT_EQ(std::adjacent_find(keys.begin(), keys.end()), keys.end()) << "test input has equal keys";
    EXPECT_TRUE(same_bits(ta.key, tb.key));
    EXPECT_TRUE(same_bits(ta.level, tb.level));
    EXPECT_TRUE(same_bits(ta.first, tb.first));
    EXPECT_TRUE(same_bits(ta.count, tb.count));
    EXPECT_TRUE(same_bits(ta.next, tb.next));
    EXPECT_TRUE(same_bits(ta.mass, tb.mass));
    EXPECT_TRUE(same_bits(ta.com_x, tb.com_x));
    EXPECT_TRUE(same_bits(ta.com_y, tb.com_y));
    EXPECT_TRUE(same_bits(ta.com_z, tb.com_z));
    EXPECT_TRUE(same_bits(ta.crit2, tb.crit2));
    EXPECT_TRUE(same_bits(ta.quad, tb.quad));
    EXPECT_TRUE(same_bits(ta.x, tb.x));
    for (std::int64_t k = 0; k < p.size(); ++k) {
      const auto i = perm[k];
      ASSERT_EQ(std::memcmp(&a.acc.ax[i], &b.acc.ax[k], sizeof(float)), 0) << k;
      ASSERT_EQ(std::memcmp(&a.acc.ay[i], &b.acc.ay[k], sizeof(float)), 0) << k;
      ASSERT_EQ(std::memcmp(&a.acc.az[i], &b.acc.az[k], sizeof(float)), 0) << k;
      ASSERT_EQ(std::memcmp(&a.acc.potential[i], &b.acc.potential[k], sizeof(float)), 0) << k;
      ASSERT_EQ(a.counts[i], b.counts[k]) << k;
    }
  }
}

}  // namespace
}  // namespace orrery::gravity
